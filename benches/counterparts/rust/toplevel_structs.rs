// Program "toplevel_structs" (benches/programs/toplevel_structs.flx): an oscillator over a
// struct of two doubles.
#[derive(Clone, Copy)]
struct Vec2 {
    x: f64,
    y: f64,
}
fn add(a: Vec2, b: Vec2) -> Vec2 {
    Vec2 { x: a.x + b.x, y: a.y + b.y }
}
fn scale(a: Vec2, k: f64) -> Vec2 {
    Vec2 { x: a.x * k, y: a.y * k }
}
fn norm2(a: Vec2) -> f64 {
    a.x * a.x + a.y * a.y
}
fn main() {
    let mut p = Vec2 { x: 1.0, y: 0.0 };
    let mut v = Vec2 { x: 0.0, y: 1.0 };
    let mut energy = 0.0;
    for _ in 0..3_000_000 {
        let acc = scale(p, -0.001);
        v = add(v, acc);
        p = add(p, scale(v, 0.001));
        energy += norm2(p) + norm2(v);
    }
    println!("{:.6} {:.6} {:.3}", p.x, p.y, energy);
}
