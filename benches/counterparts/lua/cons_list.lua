-- Program "cons_list" (benches/programs/cons_list.flx): a list of 200 000 ints built as linked
-- pairs {head, tail}, then summed by a loop over the cells, ten times over.
local function build(n)
  local l = nil
  for i = 1, n do l = {i, l} end
  return l
end
local function sum(l, acc)
  while l do acc = acc + l[1]; l = l[2] end
  return acc
end
local s = 0
for _ = 0, 9 do s = s + sum(build(200000), 0) end
print(s)
