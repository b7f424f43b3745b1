# Program "fannkuch" (benches/programs/fannkuch.flx): fannkuch-redux for n = 9, plain loops over
# three lists, in a function (faster in CPython than the same code at module level).


def main():
    n = 9
    perm1 = list(range(n))
    perm = [0] * n
    count = [0] * n
    maxflips = checksum = permcount = 0
    r = n
    while True:
        while r != 1:
            count[r - 1] = r
            r -= 1
        for i in range(n):
            perm[i] = perm1[i]
        flips = 0
        k = perm[0]
        while k != 0:
            lo, hi = 0, k
            while lo < hi:
                perm[lo], perm[hi] = perm[hi], perm[lo]
                lo += 1
                hi -= 1
            flips += 1
            k = perm[0]
        if flips > maxflips:
            maxflips = flips
        checksum += flips if permcount % 2 == 0 else -flips
        while True:
            if r == n:
                print(checksum, maxflips)
                return
            p0 = perm1[0]
            for i in range(r):
                perm1[i] = perm1[i + 1]
            perm1[r] = p0
            count[r] -= 1
            if count[r] > 0:
                break
            r += 1
        permcount += 1


main()
