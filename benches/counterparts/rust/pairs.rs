// Row "pairs" (native Rust, rustc -O): a Vec<(i64, f64)> of 2 * 10^6 pairs (i, i * 0.5), filled
// then summed by field. Expected output: 1999999000000 999999500000.0
use std::hint::black_box;
fn main() {
    let n: i64 = black_box(2_000_000);
    let mut a: Vec<(i64, f64)> = Vec::with_capacity(n as usize);
    for i in 0..n {
        a.push((i, i as f64 * 0.5));
    }
    let a = black_box(a);
    let (mut s, mut d) = (0i64, 0.0f64);
    for p in a.iter() {
        s += p.0;
        d += p.1;
    }
    println!("{} {:.1}", s, d);
}
