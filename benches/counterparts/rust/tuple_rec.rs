// Program "tuple_rec" (benches/programs/tuple_rec.flx): a recursive function returning a tuple,
// the Fibonacci pair mod 1 000 007.
fn fp(n: i32) -> (i32, i32) {
    if n == 0 {
        return (0, 1);
    }
    let (a, b) = fp(n - 1);
    (b, (a + b) % 1000007)
}

fn main() {
    let mut s = 0i64;
    for _ in 0..1000 {
        for n in 0..100 {
            s += fp(std::hint::black_box(n)).0 as i64;
        }
    }
    let last = fp(1000);
    println!("{} {} {}", s, last.0, last.1);
}
