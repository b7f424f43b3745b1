// Row "sum" (native Rust, rustc -O): a Vec<i64> of 10^7 with a[i] = i, summed with a fold of a
// closure. Expected output: 49999995000000
use std::hint::black_box;
fn main() {
    let n: i64 = 10_000_000;
    let a: Vec<i64> = black_box((0..n).collect());
    let s = a.iter().fold(0i64, |acc, &v| acc + v);
    println!("{}", s);
}
