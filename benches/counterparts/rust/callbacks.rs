// Program "callbacks" (benches/programs/callbacks.flx): three integrands kept as function
// values in an array, each handed to a midpoint-rule integrator over 0 .. 1 with 1 000 000
// steps, called through a `&dyn Fn` so the integrator does not know which it is given.
fn integrate(f: &dyn Fn(f64) -> f64, a: f64, b: f64, n: i32) -> f64 {
    let h = (b - a) / n as f64;
    let mut s = 0.0;
    for i in 0..n {
        s += f(a + (i as f64 + 0.5) * h);
    }
    s * h
}

fn main() {
    let integrands: [Box<dyn Fn(f64) -> f64>; 3] = [
        Box::new(|x| x * x),
        Box::new(|x| 1.0 / (1.0 + x)),
        Box::new(|x| x * (1.0 - x)),
    ];
    let mut total = 0.0;
    for f in &integrands {
        total += integrate(f.as_ref(), 0.0, 1.0, 1000000);
    }
    println!("{:.9}", total);
}
