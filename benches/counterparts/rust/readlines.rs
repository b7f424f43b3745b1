// Program "readlines" (benches/programs/readlines.flx): 200 000 lines "k,x" written to a text
// file, read back line by line, split at the comma and parsed; count and sums.
use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Write};

fn main() {
    let path = "/tmp/tessera-bench-readlines-rs.txt";
    let mut out = BufWriter::new(File::create(path).unwrap());
    for k in 0..200000i64 {
        writeln!(out, "{},{}", k, (k % 1000) as f64 / 4.0).unwrap();
    }
    drop(out);
    let (mut n, mut ks, mut xs) = (0i64, 0i64, 0.0f64);
    for line in BufReader::new(File::open(path).unwrap()).lines() {
        let line = line.unwrap();
        if let Some(c) = line.find(',') {
            ks += line[..c].parse::<i64>().unwrap();
            xs += line[c + 1..].parse::<f64>().unwrap();
        }
        n += 1;
    }
    println!("{} {} {:.0}", n, ks, xs);
}
