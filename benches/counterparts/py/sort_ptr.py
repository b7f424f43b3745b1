# Program "sort_ptr" (benches/programs/sort_ptr.flx): quicksort of a list passed to the
# functions, median of three, insertion sort for parts of at most 16 elements.
import sys

sys.setrecursionlimit(10000)


def insertion(p, lo, hi):
    for i in range(lo + 1, hi + 1):
        v = p[i]
        j = i - 1
        while j >= lo and p[j] > v:
            p[j + 1] = p[j]
            j -= 1
        p[j + 1] = v


def swap(p, i, j):
    t = p[i]
    p[i] = p[j]
    p[j] = t


def qsort(p, lo, hi):
    if hi - lo < 16:
        insertion(p, lo, hi)
    else:
        mid = lo + (hi - lo) // 2
        if p[mid] < p[lo]:
            swap(p, mid, lo)
        if p[hi] < p[lo]:
            swap(p, hi, lo)
        if p[hi] < p[mid]:
            swap(p, hi, mid)
        pivot = p[mid]
        i = lo
        j = hi
        while i <= j:
            while p[i] < pivot:
                i += 1
            while p[j] > pivot:
                j -= 1
            if i <= j:
                swap(p, i, j)
                i += 1
                j -= 1
        qsort(p, lo, j)
        qsort(p, i, hi)


def main():
    n = 200000
    a = [0] * n
    x = 12345
    for i in range(n):
        x = (x * 1103515245 + 12345) % 2147483648
        a[i] = x
    qsort(a, 0, n - 1)
    cs = 0
    bad = 0
    for k in range(n):
        cs += (a[k] % 1000) * (k % 1000)
        if k > 0 and a[k - 1] > a[k]:
            bad += 1
    print(cs, bad)


main()
