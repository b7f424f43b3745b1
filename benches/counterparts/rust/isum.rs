// Row "isum" (native Rust, rustc -O): a Vec<i32> of 10^7 with a[i] = i mod 100, summed with a
// fold of a closure. Expected output: 495000000
use std::hint::black_box;
fn main() {
    let n: i32 = 10_000_000;
    let a: Vec<i32> = black_box((0..n).map(|i| i % 100).collect());
    let s = a.iter().fold(0i32, |acc, &v| acc + v);
    println!("{}", s);
}
