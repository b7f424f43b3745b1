// Program "wordsort" (benches/programs/wordsort.flx): 200 000 words spelt from LCG draws,
// sorted; runs of equal words counted; the most frequent word and the number of words.
fn spell(s: i64) -> String {
    let mut w = String::new();
    let mut x = s;
    for _ in 0..3 + s % 5 {
        w.push((97 + x % 7) as u8 as char);
        x /= 7;
    }
    w
}

fn main() {
    let mut seed: i64 = 42;
    let mut words = Vec::with_capacity(200_000);
    for _ in 0..200_000 {
        seed = (seed * 1103515245 + 12345) % 2147483648;
        words.push(spell(seed % 5000));
    }
    words.sort();
    let mut counts: Vec<(i32, String)> = Vec::new();
    let mut run = 1;
    for i in 1..words.len() {
        if words[i] == words[i - 1] {
            run += 1;
        } else {
            counts.push((run, words[i - 1].clone()));
            run = 1;
        }
    }
    counts.push((run, words[words.len() - 1].clone()));
    let mut best = 0;
    for k in 0..counts.len() {
        if counts[k].0 > counts[best].0 {
            best = k;
        }
    }
    println!("{} {} {}", counts[best].1, counts[best].0, counts.len());
}
