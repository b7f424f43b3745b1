// Row "gsum" (native Rust, rustc -O): a[i] = i for 10^7 i64, s += g(v) for each element with g a
// closure held in a variable, g(x) = 3x + 1. Expected output: 149999995000000
use std::hint::black_box;
fn main() {
    let n: i64 = 10_000_000;
    let a: Vec<i64> = black_box((0..n).collect());
    let g = |x: i64| 3 * x + 1;
    let mut s = 0i64;
    for &v in a.iter() {
        s += g(v);
    }
    println!("{}", s);
}
