-- Program "matmul" (benches/programs/matmul.flx): naive N x N matrix multiply, flat tables.
local N = 160
local a, b, c = {}, {}, {}
for i = 0, N - 1 do
  for j = 0, N - 1 do
    a[i * N + j + 1] = ((i * 7 + j * 3) % 11 - 5) * 1.0
    b[i * N + j + 1] = ((i * 5 + j * 2) % 13 - 6) * 1.0
  end
end
for i = 0, N - 1 do
  for j = 0, N - 1 do
    local s = 0.0
    for k = 0, N - 1 do
      s = s + a[i * N + k + 1] * b[k * N + j + 1]
    end
    c[i * N + j + 1] = s
  end
end
local t = 0.0
for i = 0, N - 1 do for j = 0, N - 1 do t = t + c[i * N + j + 1] * (i + 1) + j end end
print(string.format("%.1f", t))
