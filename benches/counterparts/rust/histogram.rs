// Program "histogram" (benches/programs/histogram.flx): 16 bins over an LCG stream.
fn main() {
    let m = 8000000;
    let mut h = [0i32; 16];
    let mut x: i64 = 42;
    for _ in 0..m {
        x = (x * 1103515245 + 12345) % 2147483648;
        h[((x / 65536) % 16) as usize] += 1;
    }
    let mut cs = 0i64;
    let mut most = 0;
    for b in 0..16 {
        cs += (b as i64 + 1) * h[b] as i64;
        if h[b] > most {
            most = h[b];
        }
    }
    println!("{} {}", cs, most);
}
