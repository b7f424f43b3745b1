-- Program "histogram" (benches/programs/histogram.flx): 16 bins over an LCG stream.
local m = 8000000
local h = {}
for b = 0, 15 do h[b] = 0 end
local x = 42
for i = 1, m do
  x = (x * 1103515245 + 12345) % 2147483648
  local b = (x // 65536) % 16
  h[b] = h[b] + 1
end
local cs, most = 0, 0
for b = 0, 15 do
  cs = cs + (b + 1) * h[b]
  if h[b] > most then most = h[b] end
end
print(cs .. " " .. most)
