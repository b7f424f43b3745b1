-- Program "orders" (benches/programs/orders.flx): 1 000 000 orders (a table of a price, a
-- quantity and a kind) appended as they are generated, then three passes: the revenue of
-- each kind, the largest order, a 10 % discount on orders of more than 90 units.
local orders = {}
local x = 42
for i = 0, 999999 do
  x = (x * 1103515245 + 12345) % 2147483648
  local price = (x % 10000) / 100.0
  x = (x * 1103515245 + 12345) % 2147483648
  local qty = x % 100 + 1
  orders[#orders + 1] = {price = price, qty = qty, kind = i % 4}
end
local revenue = {0.0, 0.0, 0.0, 0.0}
for i = 1, #orders do
  local o = orders[i]
  revenue[o.kind + 1] = revenue[o.kind + 1] + o.price * o.qty
end
local largest = 0.0
for i = 1, #orders do
  local value = orders[i].price * orders[i].qty
  if value > largest then largest = value end
end
for i = 1, #orders do
  local o = orders[i]
  if o.qty > 90 then orders[i] = {price = o.price * 0.9, qty = o.qty, kind = o.kind} end
end
local discounted = 0.0
for i = 1, #orders do discounted = discounted + orders[i].price * orders[i].qty end
print(string.format("%.2f %.2f %.2f %.2f | %.2f | %.2f", revenue[1], revenue[2], revenue[3],
  revenue[4], largest, discounted))
