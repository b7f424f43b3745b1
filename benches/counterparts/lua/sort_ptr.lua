-- Program "sort_ptr" (benches/programs/sort_ptr.flx): quicksort of an integer table passed to
-- the procedures, median of three, insertion sort for parts of at most 16 elements.
local n = 200000
local a = {}
local x = 12345
for i = 0, n - 1 do
  x = (x * 1103515245 + 12345) % 2147483648
  a[i] = x
end

local function insertion(p, lo, hi)
  for i = lo + 1, hi do
    local v = p[i]
    local j = i - 1
    while j >= lo and p[j] > v do
      p[j + 1] = p[j]
      j = j - 1
    end
    p[j + 1] = v
  end
end

local function swap(p, i, j)
  local t = p[i]
  p[i] = p[j]
  p[j] = t
end

local function qsort(p, lo, hi)
  if hi - lo < 16 then
    insertion(p, lo, hi)
  else
    local mid = lo + (hi - lo) // 2
    if p[mid] < p[lo] then swap(p, mid, lo) end
    if p[hi] < p[lo] then swap(p, hi, lo) end
    if p[hi] < p[mid] then swap(p, hi, mid) end
    local pivot = p[mid]
    local i, j = lo, hi
    while i <= j do
      while p[i] < pivot do i = i + 1 end
      while p[j] > pivot do j = j - 1 end
      if i <= j then
        swap(p, i, j)
        i = i + 1
        j = j - 1
      end
    end
    qsort(p, lo, j)
    qsort(p, i, hi)
  end
end

qsort(a, 0, n - 1)

local cs, bad = 0, 0
for k = 0, n - 1 do
  cs = cs + (a[k] % 1000) * (k % 1000)
  if k > 0 and a[k - 1] > a[k] then bad = bad + 1 end
end
print(cs .. " " .. bad)
