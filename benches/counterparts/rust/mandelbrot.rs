// Program "mandelbrot" (benches/programs/mandelbrot.flx): escape-time loop, points inside.
fn main() {
    let (w, h, maxit) = (400, 300, 100);
    let mut inside = 0;
    let mut iters = 0i64;
    for py in 0..h {
        let y0 = -1.25 + 2.5 * py as f64 / h as f64;
        for px in 0..w {
            let x0 = -2.0 + 2.5 * px as f64 / w as f64;
            let (mut x, mut y, mut it) = (0.0f64, 0.0f64, 0);
            while it < maxit && x * x + y * y <= 4.0 {
                let xt = x * x - y * y + x0;
                y = 2.0 * x * y + y0;
                x = xt;
                it += 1;
            }
            iters += it as i64;
            if it == maxit {
                inside += 1;
            }
        }
    }
    println!("{} {}", inside, iters);
}
