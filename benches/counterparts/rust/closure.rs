// Row "closure" (native Rust, rustc -O): map of a closure capturing k over 5 * 10^6 i64
// (a[i] = i) into a new Vec, then for_each of a closure adding b[i] % 7 to a variable.
// Expected output: 14999999
use std::hint::black_box;
fn main() {
    let n: i64 = 5_000_000;
    let a: Vec<i64> = black_box((0..n).collect());
    let k: i64 = black_box(3);
    let b: Vec<i64> = black_box(a.iter().map(|&x| k * x + 1).collect());
    let mut s = 0i64;
    b.iter().for_each(|&v| s += v % 7);
    println!("{}", s);
}
