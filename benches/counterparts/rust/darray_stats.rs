// Program "darray_stats" (benches/programs/darray_stats.flx): a growing Vec of 2 000 000 LCG
// doubles, then five passes: mean, variance, rises between neighbours.
fn main() {
    let mut d: Vec<f64> = Vec::new();
    let mut x: i64 = 12345;
    for _ in 0..2_000_000 {
        x = (x * 1103515245 + 12345) % 2147483648;
        d.push(x as f64 / 2147483648.0);
    }
    let (mut mean, mut var_, mut rises) = (0.0, 0.0, 0);
    for _ in 0..5 {
        // Opaque to the optimiser, which would otherwise run the (pure) passes once.
        let d = std::hint::black_box(&d);
        let mut s = 0.0;
        for i in 0..d.len() {
            s += d[i];
        }
        mean = s / d.len() as f64;
        let mut q = 0.0;
        for i in 0..d.len() {
            q += (d[i] - mean) * (d[i] - mean);
        }
        var_ = q / d.len() as f64;
        let mut r = 0;
        for i in 1..d.len() {
            if d[i] > d[i - 1] {
                r += 1;
            }
        }
        rises = r;
    }
    println!("{:.6} {:.6} {}", mean, var_, rises);
}
