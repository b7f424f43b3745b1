// Program "sort_ptr" (benches/programs/sort_ptr.flx): quicksort of a Vec<i32> through a &mut
// slice parameter, median of three, insertion sort for parts of at most 16 elements.
fn insertion(p: &mut [i32], lo: i64, hi: i64) {
    let mut i = lo + 1;
    while i <= hi {
        let v = p[i as usize];
        let mut j = i - 1;
        while j >= lo && p[j as usize] > v {
            p[(j + 1) as usize] = p[j as usize];
            j -= 1;
        }
        p[(j + 1) as usize] = v;
        i += 1;
    }
}

fn qsort(p: &mut [i32], lo: i64, hi: i64) {
    if hi - lo < 16 {
        insertion(p, lo, hi);
    } else {
        let mid = lo + (hi - lo) / 2;
        let (l, m, h) = (lo as usize, mid as usize, hi as usize);
        if p[m] < p[l] {
            p.swap(m, l);
        }
        if p[h] < p[l] {
            p.swap(h, l);
        }
        if p[h] < p[m] {
            p.swap(h, m);
        }
        let pivot = p[m];
        let mut i = lo;
        let mut j = hi;
        while i <= j {
            while p[i as usize] < pivot {
                i += 1;
            }
            while p[j as usize] > pivot {
                j -= 1;
            }
            if i <= j {
                p.swap(i as usize, j as usize);
                i += 1;
                j -= 1;
            }
        }
        qsort(p, lo, j);
        qsort(p, i, hi);
    }
}

fn main() {
    let n = 200000usize;
    let mut a = vec![0i32; n];
    let mut x: i64 = 12345;
    for i in 0..n {
        x = (x * 1103515245 + 12345) % 2147483648;
        a[i] = x as i32;
    }
    qsort(&mut a, 0, n as i64 - 1);
    let mut cs: i64 = 0;
    let mut bad = 0;
    for k in 0..n {
        cs += ((a[k] % 1000) * (k as i32 % 1000)) as i64;
        if k > 0 && a[k - 1] > a[k] {
            bad += 1;
        }
    }
    println!("{} {}", cs, bad);
}
