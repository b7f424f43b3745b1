# Program "queens" (benches/programs/queens.flx): 11 queens by a nested backtracking function.
def queens(n):
    cols = [0] * 16
    count = 0
    def place(row):
        nonlocal count
        if row == n:
            count += 1
            return
        for c in range(n):
            ok = True
            for r in range(row):
                d = cols[r] - c
                if d == 0 or d == row - r or d == r - row:
                    ok = False
            if ok:
                cols[row] = c
                place(row + 1)
    place(0)
    return count
print(queens(11))
