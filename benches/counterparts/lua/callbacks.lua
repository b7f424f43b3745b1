-- Program "callbacks" (benches/programs/callbacks.flx): three integrands kept as functions in
-- a table, each handed to a midpoint-rule integrator over 0 .. 1 with 1 000 000 steps.
local function integrate(f, a, b, n)
  local h = (b - a) / n
  local s = 0.0
  for i = 0, n - 1 do s = s + f(a + (i + 0.5) * h) end
  return s * h
end
local integrands = {
  function(x) return x * x end,
  function(x) return 1.0 / (1.0 + x) end,
  function(x) return x * (1.0 - x) end,
}
local total = 0.0
for k = 1, 3 do total = total + integrate(integrands[k], 0.0, 1.0, 1000000) end
print(string.format("%.9f", total))
