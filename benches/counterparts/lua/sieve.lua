-- Program "sieve" (benches/programs/sieve.flx): sieve of Eratosthenes on a table of booleans.
local n = 2000000

local function sieve()
  local composite = {}
  for i = 0, n - 1 do composite[i] = false end
  local count, psum = 0, 0
  for i = 2, n - 1 do
    if not composite[i] then
      count = count + 1
      psum = psum + i
      local j = i * i
      while j < n do
        composite[j] = true
        j = j + i
      end
    end
  end
  return count, psum
end

local c, s
for round = 1, 5 do c, s = sieve() end
print(c .. " " .. s)
