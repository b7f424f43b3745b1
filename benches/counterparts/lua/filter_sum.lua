-- filter then sum: the multiples of 3 below 2,000,000 (benches/programs/filter_sum.flx).
local xs = {}
for i = 0, 1999999 do xs[i + 1] = i end
local ys, s = {}, 0
for _, x in ipairs(xs) do if x % 3 == 0 then ys[#ys + 1] = x end end
for _, y in ipairs(ys) do s = s + y end
print(string.format("(%d, %d)", #ys, s))
