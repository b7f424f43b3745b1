// Program "shapes" (benches/programs/shapes.flx): a Vec of 300 000 shapes (an enum), built
// from an LCG stream, then ten passes summing their areas.
enum Shape {
    Circle(f64),
    Rect(f64, f64),
    Tri(f64, f64, f64),
}

fn area(s: &Shape) -> f64 {
    match *s {
        Shape::Circle(r) => 3.14159 * r * r,
        Shape::Rect(w, h) => w * h,
        Shape::Tri(a, b, c) => {
            let p = (a + b + c) / 2.0;
            (p * (p - a) * (p - b) * (p - c)).sqrt()
        }
    }
}

fn main() {
    let mut shapes = Vec::new();
    let mut x: i32 = 1;
    for i in 0..300000 {
        x = (x * 1103 + 12345) % 65536;
        let d = (x % 100) as f64 / 10.0 + 1.0;
        match i % 3 {
            0 => shapes.push(Shape::Circle(d)),
            1 => shapes.push(Shape::Rect(d, d + 1.0)),
            _ => shapes.push(Shape::Tri(d, d + 0.5, d + 1.0)),
        }
    }
    let mut total = 0.0;
    for _ in 0..10 {
        total = 0.0;
        for s in &shapes {
            total += area(s);
        }
    }
    println!("{}", (total * 1000.0) as i64);
}
