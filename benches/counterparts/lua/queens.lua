-- Program "queens" (benches/programs/queens.flx): 11 queens by a nested backtracking function.
local function queens(n)
  local cols = {}
  local count = 0
  local function place(row)
    if row == n then count = count + 1 return end
    for c = 0, n - 1 do
      local ok = true
      for r = 0, row - 1 do
        local d = cols[r] - c
        if d == 0 or d == row - r or d == r - row then ok = false end
      end
      if ok then cols[row] = c; place(row + 1) end
    end
  end
  place(0)
  return count
end
print(queens(11))
