// Program "textbuild" (benches/programs/textbuild.flx): 200 000 report lines built with
// format! and appended to one String, then length and a checksum of the bytes.
fn main() {
    let mut s = String::new();
    for i in 0..200_000i32 {
        let line = format!("row {}: {},{}", i, i * 7 % 1000, i % 13);
        s.push_str(&line);
        s.push('\n');
    }
    let mut sum: i64 = 0;
    for b in s.bytes() {
        sum = (sum * 31 + b as i64) % 1_000_003;
    }
    println!("{} {}", s.len(), sum);
}
