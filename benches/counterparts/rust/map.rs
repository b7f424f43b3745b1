// Row "map" (native Rust, rustc -O; K2's work): a[i] = i for 10^7 i64, b = map of a closure
// (a*a + 3a + 1) mod 1000003 into a new Vec, then its sum. Expected output: 4998982988814
use std::hint::black_box;
fn main() {
    let n: i64 = 10_000_000;
    let p: i64 = black_box(1_000_003);
    let a: Vec<i64> = black_box((0..n).collect());
    let b: Vec<i64> = black_box(a.iter().map(|&x| (x * x + 3 * x + 1) % p).collect());
    println!("{}", b.iter().sum::<i64>());
}
