// Program "strscan" (benches/programs/strscan.flx): build a String by appending, then scan its
// bytes.
fn main() {
    let line = "The Quick brown fox, 42 jumps over 7 lazy dogs; ok 0123456789\n";
    let mut s = String::new();
    for _ in 0..40000 {
        s += line;
    }
    let (mut vowels, mut digits, mut spaces, mut lines) = (0, 0, 0, 0);
    let mut dsum = 0i64;
    let b = s.as_bytes();
    for i in 0..b.len() {
        let c = b[i];
        if c.is_ascii_digit() {
            digits += 1;
            dsum += (c - b'0') as i64;
        } else if c == b' ' {
            spaces += 1;
        } else if c == b'\n' {
            lines += 1;
        } else {
            let l = c.to_ascii_lowercase();
            if l == b'a' || l == b'e' || l == b'i' || l == b'o' || l == b'u' {
                vowels += 1;
            }
        }
    }
    println!("{} {} {} {} {} {}", s.len(), vowels, digits, spaces, lines, dsum);
}
