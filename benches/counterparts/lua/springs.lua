-- Program "springs" (benches/programs/springs.flx): masses on springs updated in place.
local N = 1000
local ms = {}
for i = 0, N - 1 do
  ms[i + 1] = { x = (i % 10) * 0.1, v = 0.0, m = 1.0 + (i % 3) }
end

local function step(ms, dt)
  for i = 0, N - 1 do
    local p = ms[i + 1]
    local f = -p.x * (1.0 + 0.001 * i)
    p.v = p.v + f / p.m * dt
    p.x = p.x + p.v * dt
  end
end

local function energy(ms, st)
  st.e = 0.0
  st.peak = 0.0
  for i = 0, N - 1 do
    local p = ms[i + 1]
    local e = 0.5 * p.m * p.v * p.v + 0.5 * (1.0 + 0.001 * i) * p.x * p.x
    st.e = st.e + e
    if e > st.peak then st.peak = e end
  end
end

local st = { e = 0.0, peak = 0.0 }
energy(ms, st)
io.write(string.format("%.9f", st.e))
for _ = 1, 3000 do step(ms, 0.001) end
energy(ms, st)
print(string.format(" %.9f %.9f", st.e, st.peak))
