# Program "mandelbrot" (benches/programs/mandelbrot.flx): escape-time loop, points inside.
def main():
    w, h, maxit = 400, 300, 100
    inside = 0
    iters = 0
    for py in range(h):
        y0 = -1.25 + 2.5 * py / h
        for px in range(w):
            x0 = -2.0 + 2.5 * px / w
            x = y = 0.0
            it = 0
            while it < maxit and x * x + y * y <= 4.0:
                xt = x * x - y * y + x0
                y = 2.0 * x * y + y0
                x = xt
                it += 1
            iters += it
            if it == maxit:
                inside += 1
    print(inside, iters)


main()
