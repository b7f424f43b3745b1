// Program "matmul" (benches/programs/matmul.flx): naive N x N matrix multiply on flat Vec<f64>.
fn main() {
    let n = 160usize;
    let mut a = vec![0.0f64; n * n];
    let mut b = vec![0.0f64; n * n];
    let mut c = vec![0.0f64; n * n];
    for i in 0..n {
        for j in 0..n {
            let (ii, jj) = (i as i64, j as i64);
            a[i * n + j] = ((ii * 7 + jj * 3) % 11 - 5) as f64;
            b[i * n + j] = ((ii * 5 + jj * 2) % 13 - 6) as f64;
        }
    }
    for i in 0..n {
        for j in 0..n {
            let mut s = 0.0;
            for k in 0..n {
                s += a[i * n + k] * b[k * n + j];
            }
            c[i * n + j] = s;
        }
    }
    let mut t = 0.0;
    for i in 0..n {
        for j in 0..n {
            t += c[i * n + j] * (i + 1) as f64 + j as f64;
        }
    }
    println!("{:.1}", t);
}
