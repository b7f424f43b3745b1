-- Program "toplevel_structs" (benches/programs/toplevel_structs.flx): an oscillator over
-- two-field tables at the top level.
local function vec2(x, y) return { x = x, y = y } end
local function add(a, b) return vec2(a.x + b.x, a.y + b.y) end
local function scale(a, k) return vec2(a.x * k, a.y * k) end
local function norm2(a) return a.x * a.x + a.y * a.y end
local p, v, energy = vec2(1.0, 0.0), vec2(0.0, 1.0), 0.0
for i = 0, 2999999 do
  local acc = scale(p, -0.001)
  v = add(v, acc)
  p = add(p, scale(v, 0.001))
  energy = energy + norm2(p) + norm2(v)
end
print(string.format("%.6f %.6f %.3f", p.x, p.y, energy))
