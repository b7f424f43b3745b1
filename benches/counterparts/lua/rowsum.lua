-- Program "rowsum" (benches/programs/rowsum.flx): row sums and row maxima of abs of an N x N
-- matrix (a table of row tables), R rounds.
local N = 500
local m = {}
for i = 1, N do m[i] = {} end

local function maxabs(r)
  local acc = 0.0
  for j = 1, #r do
    local v = math.abs(r[j])
    if acc < v then acc = v end
  end
  return acc
end

local function rowsums(rows)
  local cs, k = 0.0, 1.0
  for i = 1, #rows do
    local row = rows[i]
    local s = 0.0
    for j = 1, #row do s = s + row[j] end
    cs = cs + (k * s + maxabs(row))
    k = k + 1.0
  end
  return cs
end

local cs = 0.0
for r = 0, 19 do
  for i = 0, N - 1 do
    local row = m[i + 1]
    for j = 0, N - 1 do
      row[j + 1] = ((i * 31 + j * 17 + r) % 101 - 50) * 1.0
    end
  end
  cs = cs + rowsums(m)
end
print(string.format("%.1f", cs))
