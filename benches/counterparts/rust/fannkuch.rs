// Program "fannkuch" (benches/programs/fannkuch.flx): fannkuch-redux for n = 9, plain loops over
// three fixed arrays indexed by usize (bounds-checked), as a first Rust version is written.
fn main() {
    const N: usize = 9;
    let mut perm1 = [0i32; N];
    let mut perm = [0i32; N];
    let mut count = [0usize; N];
    for (i, p) in perm1.iter_mut().enumerate() {
        *p = i as i32;
    }
    let (mut maxflips, mut checksum, mut permcount) = (0i32, 0i32, 0u64);
    let mut r = N;
    loop {
        while r != 1 {
            count[r - 1] = r;
            r -= 1;
        }
        perm.copy_from_slice(&perm1);
        let mut flips = 0;
        let mut k = perm[0] as usize;
        while k != 0 {
            let (mut lo, mut hi) = (0, k);
            while lo < hi {
                perm.swap(lo, hi);
                lo += 1;
                hi -= 1;
            }
            flips += 1;
            k = perm[0] as usize;
        }
        maxflips = maxflips.max(flips);
        checksum += if permcount % 2 == 0 { flips } else { -flips };
        loop {
            if r == N {
                println!("{checksum} {maxflips}");
                return;
            }
            let p0 = perm1[0];
            for i in 0..r {
                perm1[i] = perm1[i + 1];
            }
            perm1[r] = p0;
            count[r] -= 1;
            if count[r] > 0 {
                break;
            }
            r += 1;
        }
        permcount += 1;
    }
}
