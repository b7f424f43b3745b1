-- Program "tree_insert" (benches/programs/tree_insert.flx): a persistent binary search tree of
-- tables {l, k, r}, 200 000 pseudo-random keys inserted with path copying, then counted.
local function insert(t, k)
  if t == nil then return {nil, k, nil} end
  local v = t[2]
  if k < v then return {insert(t[1], k), v, t[3]}
  elseif k > v then return {t[1], v, insert(t[3], k)}
  else return t end
end
local function size(t)
  if t == nil then return 0 end
  return size(t[1]) + 1 + size(t[3])
end
local t = nil
local x = 12345
for _ = 0, 199999 do
  x = (x * 1103515245 + 12345) % 2147483647
  t = insert(t, x % 1000000)
end
print(size(t))
