-- Program "readlines" (benches/programs/readlines.flx): 200 000 lines "k,x" written to a text
-- file, read back line by line, split at the comma and parsed; count and sums.
local path = "/tmp/tessera-bench-readlines-lua.txt"
local out = assert(io.open(path, "w"))
for k = 0, 199999 do out:write(tostring(k), ",", string.format("%g", (k % 1000) / 4.0), "\n") end
out:close()
local n, ks, xs = 0, 0, 0.0
for line in io.lines(path) do
  local c = line:find(",", 1, true)
  if c then
    ks = ks + math.tointeger(tonumber(line:sub(1, c - 1)))
    xs = xs + tonumber(line:sub(c + 1))
  end
  n = n + 1
end
print(n .. " " .. ks .. " " .. string.format("%.0f", xs))
