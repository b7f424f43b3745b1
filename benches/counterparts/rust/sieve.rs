// Program "sieve" (benches/programs/sieve.flx): sieve of Eratosthenes on a Vec<bool>.
fn sieve(n: usize) -> (i32, i64) {
    let mut composite = vec![false; n];
    let mut count = 0;
    let mut psum = 0i64;
    for i in 2..n {
        if !composite[i] {
            count += 1;
            psum += i as i64;
            let mut j = i * i;
            while j < n {
                composite[j] = true;
                j += i;
            }
        }
    }
    (count, psum)
}

fn main() {
    let mut r = (0, 0);
    for _ in 0..5 {
        r = sieve(std::hint::black_box(2000000));
    }
    println!("{} {}", r.0, r.1);
}
