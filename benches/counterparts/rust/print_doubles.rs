// Program "print_doubles" (benches/programs/print_doubles.flx): 300 000 doubles formatted with
// C's %g (six significant digits, through snprintf, as C and C++ programs print them), the
// lengths of the texts summed.
use std::os::raw::{c_char, c_int};

extern "C" {
    fn snprintf(buf: *mut c_char, size: usize, format: *const c_char, ...) -> c_int;
}

fn main() {
    let mut n = 0i64;
    let mut buf = [0 as c_char; 64];
    for i in 0..300000 {
        let x = i as f64 * 1.37 + 0.25;
        // SAFETY: the buffer's size is passed; the format takes one double.
        let len = unsafe { snprintf(buf.as_mut_ptr(), buf.len(), b"%g\0".as_ptr() as *const c_char, x) };
        n += len as i64;
    }
    println!("{}", n);
}
