// Program "rowsum" (benches/programs/rowsum.flx): row sums and row maxima of abs of an N x N
// matrix stored flat, reduced row by row through chunks, R rounds.
fn maxabs(r: &[f64]) -> f64 {
    r.iter().fold(0.0, |acc: f64, &v| if acc < v.abs() { v.abs() } else { acc })
}

fn rowsums(m: &[f64], n: usize) -> f64 {
    let mut cs = 0.0;
    let mut k = 1.0;
    for row in m.chunks(n) {
        cs += k * row.iter().sum::<f64>() + maxabs(row);
        k += 1.0;
    }
    cs
}

fn main() {
    let n = 500usize;
    let mut m = vec![0.0f64; n * n];
    let mut cs = 0.0;
    for r in 0..20i64 {
        for i in 0..n {
            for j in 0..n {
                m[i * n + j] = ((i as i64 * 31 + j as i64 * 17 + r) % 101 - 50) as f64;
            }
        }
        cs += rowsums(&m, n);
    }
    println!("{:.1}", cs);
}
