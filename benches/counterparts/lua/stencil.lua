-- Program "stencil" (benches/programs/stencil.flx): 5-point Jacobi sweeps, two flat buffers.
local n = 200
local u, v = {}, {}
for k = 0, n * n - 1 do u[k] = 0.0; v[k] = 0.0 end
for j = 0, n - 1 do u[j] = 100.0; v[j] = 100.0 end
for i = 1, n - 2 do u[i * n] = (i % 7) * 1.0; v[i * n] = (i % 7) * 1.0 end

local function sweep(src, dst)
  for i = 1, n - 2 do
    for j = 1, n - 2 do
      local k = i * n + j
      dst[k] = 0.25 * (src[k - n] + src[k + n] + src[k - 1] + src[k + 1])
    end
  end
end

for s = 0, 19 do
  sweep(u, v)
  sweep(v, u)
end

local cs = 0
for k = 0, n * n - 1 do
  local t = u[k] * 1000000.0
  cs = cs + (t >= 0 and math.floor(t) or math.ceil(t))
end
print(cs)
