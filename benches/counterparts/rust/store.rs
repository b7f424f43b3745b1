// Row "store" (native Rust, rustc -O): a zeroed Vec<i64> of 10^7, a[i] = i stored in an index
// loop, then its sum. Expected output: 49999995000000
use std::hint::black_box;
fn main() {
    let n: usize = black_box(10_000_000);
    let mut a: Vec<i64> = vec![0; n];
    for i in 0..n {
        a[i] = i as i64;
    }
    let a = black_box(a);
    println!("{}", a.iter().sum::<i64>());
}
