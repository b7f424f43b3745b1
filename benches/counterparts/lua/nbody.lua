-- Program "nbody" (benches/programs/nbody.flx): the benchmarks game n-body, an array of tables.
local pi = 3.141592653589793
local solar_mass = 4.0 * pi * pi
local days = 365.24

local function body(x, y, z, vx, vy, vz, mass)
  return { x = x, y = y, z = z, vx = vx, vy = vy, vz = vz, mass = mass }
end

local bodies = {
  body(0.0, 0.0, 0.0, 0.0, 0.0, 0.0, solar_mass),
  body(4.84143144246472090e+00, -1.16032004402742839e+00, -1.03622044471123109e-01,
    1.66007664274403694e-03 * days, 7.69901118419740425e-03 * days, -6.90460016972063023e-05 * days,
    9.54791938424326609e-04 * solar_mass),
  body(8.34336671824457987e+00, 4.12479856412430479e+00, -4.03523417114321381e-01,
    -2.76742510726862411e-03 * days, 4.99852801234917238e-03 * days, 2.30417297573763929e-05 * days,
    2.85885980666130812e-04 * solar_mass),
  body(1.28943695621391310e+01, -1.51111514016986312e+01, -2.23307578892655734e-01,
    2.96460137564761618e-03 * days, 2.37847173959480950e-03 * days, -2.96589568540237556e-05 * days,
    4.36624404335156298e-05 * solar_mass),
  body(1.53796971148509165e+01, -2.59193146099879641e+01, 1.79258772950371181e-01,
    2.68067772490389322e-03 * days, 1.62824170038242295e-03 * days, -9.51592254519715870e-05 * days,
    5.15138902046611451e-05 * solar_mass),
}
local nb = #bodies

local function offset_momentum(bs)
  local px, py, pz = 0.0, 0.0, 0.0
  for i = 1, nb do
    local b = bs[i]
    px = px + b.vx * b.mass
    py = py + b.vy * b.mass
    pz = pz + b.vz * b.mass
  end
  bs[1].vx = -px / solar_mass
  bs[1].vy = -py / solar_mass
  bs[1].vz = -pz / solar_mass
end

local function energy(bs)
  local e = 0.0
  for i = 1, nb do
    local b = bs[i]
    e = e + 0.5 * b.mass * (b.vx * b.vx + b.vy * b.vy + b.vz * b.vz)
    for j = i + 1, nb do
      local c = bs[j]
      local dx = b.x - c.x
      local dy = b.y - c.y
      local dz = b.z - c.z
      e = e - b.mass * c.mass / math.sqrt(dx * dx + dy * dy + dz * dz)
    end
  end
  return e
end

local function advance(bs, dt)
  for i = 1, nb do
    local b = bs[i]
    for j = i + 1, nb do
      local c = bs[j]
      local dx = b.x - c.x
      local dy = b.y - c.y
      local dz = b.z - c.z
      local d2 = dx * dx + dy * dy + dz * dz
      local mag = dt / (d2 * math.sqrt(d2))
      b.vx = b.vx - dx * c.mass * mag
      b.vy = b.vy - dy * c.mass * mag
      b.vz = b.vz - dz * c.mass * mag
      c.vx = c.vx + dx * b.mass * mag
      c.vy = c.vy + dy * b.mass * mag
      c.vz = c.vz + dz * b.mass * mag
    end
  end
  for i = 1, nb do
    local b = bs[i]
    b.x = b.x + dt * b.vx
    b.y = b.y + dt * b.vy
    b.z = b.z + dt * b.vz
  end
end

offset_momentum(bodies)
local e0 = energy(bodies)
for s = 1, 40000 do advance(bodies, 0.01) end
print(string.format("%.9f %.9f", e0, energy(bodies)))
