// Program "stencil" (benches/programs/stencil.flx): 5-point Jacobi sweeps, two flat buffers.
fn sweep(src: &[f64], dst: &mut [f64], n: usize) {
    for i in 1..n - 1 {
        for j in 1..n - 1 {
            let k = i * n + j;
            dst[k] = 0.25 * (src[k - n] + src[k + n] + src[k - 1] + src[k + 1]);
        }
    }
}

fn main() {
    let n = 200usize;
    let mut u = vec![0.0f64; n * n];
    let mut v = vec![0.0f64; n * n];
    for j in 0..n {
        u[j] = 100.0;
        v[j] = 100.0;
    }
    for i in 1..n - 1 {
        u[i * n] = (i % 7) as f64;
        v[i * n] = (i % 7) as f64;
    }
    for _ in 0..20 {
        sweep(&u, &mut v, n);
        sweep(&v, &mut u, n);
    }
    let cs: i64 = u.iter().map(|&x| (x * 1000000.0) as i64).sum();
    println!("{}", cs);
}
