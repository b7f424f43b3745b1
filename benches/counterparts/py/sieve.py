# Program "sieve" (benches/programs/sieve.flx): sieve of Eratosthenes on a list of booleans.
def sieve(n):
    composite = [False] * n
    count = 0
    psum = 0
    for i in range(2, n):
        if not composite[i]:
            count += 1
            psum += i
            j = i * i
            while j < n:
                composite[j] = True
                j += i
    return count, psum


def main():
    n = 2000000
    for r in range(5):
        c, s = sieve(n)
    print(c, s)


main()
