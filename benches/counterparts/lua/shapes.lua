-- Program "shapes" (benches/programs/shapes.flx): an array of 300 000 shapes (tables with a
-- kind), built from an LCG stream, then ten passes summing their areas.
local function area(s)
  if s.kind == "circle" then return 3.14159 * s.r * s.r
  elseif s.kind == "rect" then return s.w * s.h
  else
    local a, b, c = s.a, s.b, s.c
    local p = (a + b + c) / 2.0
    return math.sqrt(p * (p - a) * (p - b) * (p - c))
  end
end
local shapes = {}
local x = 1
for i = 0, 299999 do
  x = (x * 1103 + 12345) % 65536
  local d = (x % 100) / 10.0 + 1.0
  local m = i % 3
  if m == 0 then shapes[#shapes + 1] = {kind = "circle", r = d}
  elseif m == 1 then shapes[#shapes + 1] = {kind = "rect", w = d, h = d + 1.0}
  else shapes[#shapes + 1] = {kind = "tri", a = d, b = d + 0.5, c = d + 1.0} end
end
local total = 0.0
for k = 1, 10 do
  total = 0.0
  for i = 1, #shapes do total = total + area(shapes[i]) end
end
print(math.floor(total * 1000.0))
