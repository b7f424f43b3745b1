// Row "dsum" (native Rust, rustc -O): a Vec<f64> of 10^7 with a[i] = (i mod 100) * 0.5, summed
// left to right with a fold of a closure. Expected output: 247500000.0
use std::hint::black_box;
fn main() {
    let n: i32 = 10_000_000;
    let a: Vec<f64> = black_box((0..n).map(|i| (i % 100) as f64 * 0.5).collect());
    let s = a.iter().fold(0.0f64, |acc, &v| acc + v);
    println!("{:.1}", s);
}
