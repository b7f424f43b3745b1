// Program "queens" (benches/programs/queens.flx): 11 queens by a backtracking function over
// the columns placed so far.
fn place(n: i32, row: i32, cols: &mut [i32; 16], count: &mut i32) {
    if row == n {
        *count += 1;
        return;
    }
    for c in 0..n {
        let mut ok = true;
        for r in 0..row {
            let d = cols[r as usize] - c;
            if d == 0 || d == row - r || d == r - row {
                ok = false;
            }
        }
        if ok {
            cols[row as usize] = c;
            place(n, row + 1, cols, count);
        }
    }
}
fn main() {
    let mut cols = [0i32; 16];
    let mut count = 0;
    place(11, 0, &mut cols, &mut count);
    println!("{}", count);
}
