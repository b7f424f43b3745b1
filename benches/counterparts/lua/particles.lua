-- Program "particles" (benches/programs/particles.flx): an array of tables, each stepped by a
-- function given the table.
local seed = 7
local function next_unit()
  seed = (seed * 1103515245 + 12345) % 2147483648
  return seed / 2147483648.0
end
local ps = {}
for i = 1, 2000 do
  local x = next_unit()
  local y = next_unit()
  local vx = next_unit() - 0.5
  local vy = next_unit() - 0.5
  ps[i] = { x = x, y = y, vx = vx, vy = vy }
end
local function step(p, dt)
  p.vy = p.vy - 9.81 * dt
  p.x = p.x + p.vx * dt
  p.y = p.y + p.vy * dt
  if p.x < 0.0 then p.x = -p.x; p.vx = -0.9 * p.vx end
  if p.x > 1.0 then p.x = 2.0 - p.x; p.vx = -0.9 * p.vx end
  if p.y < 0.0 then p.y = -p.y; p.vy = -0.9 * p.vy end
end
for t = 1, 1000 do
  for i = 1, 2000 do step(ps[i], 0.001) end
end
local sp, sv = 0.0, 0.0
for i = 1, 2000 do
  local p = ps[i]
  sp = sp + p.x + p.y
  sv = sv + math.sqrt(p.vx * p.vx + p.vy * p.vy)
end
print(string.format("%.6f %.6f", sp, sv))
