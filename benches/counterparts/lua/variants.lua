-- Program "variants" (benches/programs/variants.flx): an expression tree of tables tagged by
-- kind, built recursively, evaluated modulo 1 000 003 twenty times and its nodes counted.
local P = 1000003
local function build(d, k)
  if d == 0 then return {tag = "num", n = k % 10 + 1}
  elseif d % 2 == 0 then return {tag = "add", a = build(d - 1, 2 * k), b = build(d - 1, 2 * k + 1)}
  else return {tag = "mul", a = build(d - 1, 2 * k), b = build(d - 1, 2 * k + 1)} end
end
local function eval(e)
  if e.tag == "num" then return e.n
  elseif e.tag == "add" then return (eval(e.a) + eval(e.b)) % P
  else return (eval(e.a) * eval(e.b)) % P end
end
local function count(e)
  if e.tag == "num" then return 1 else return 1 + count(e.a) + count(e.b) end
end
local t = build(16, 0)
local s = 0
for r = 1, 20 do s = s + eval(t) end
print(s .. " " .. count(t))
