-- Program "mandelbrot" (benches/programs/mandelbrot.flx): escape-time loop, points inside.
local w, h, maxit = 400, 300, 100
local inside, iters = 0, 0
for py = 0, h - 1 do
  local y0 = -1.25 + 2.5 * py / h
  for px = 0, w - 1 do
    local x0 = -2.0 + 2.5 * px / w
    local x, y, it = 0.0, 0.0, 0
    while it < maxit and x * x + y * y <= 4.0 do
      local xt = x * x - y * y + x0
      y = 2.0 * x * y + y0
      x = xt
      it = it + 1
    end
    iters = iters + it
    if it == maxit then inside = inside + 1 end
  end
end
print(inside .. " " .. iters)
