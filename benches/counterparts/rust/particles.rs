// Program "particles" (benches/programs/particles.flx): an array of structs stepped through a
// &mut parameter per element.
#[derive(Clone, Copy)]
struct Particle {
    x: f64,
    y: f64,
    vx: f64,
    vy: f64,
}

fn step(p: &mut Particle, dt: f64) {
    p.vy -= 9.81 * dt;
    p.x += p.vx * dt;
    p.y += p.vy * dt;
    if p.x < 0.0 {
        p.x = -p.x;
        p.vx = -0.9 * p.vx;
    }
    if p.x > 1.0 {
        p.x = 2.0 - p.x;
        p.vx = -0.9 * p.vx;
    }
    if p.y < 0.0 {
        p.y = -p.y;
        p.vy = -0.9 * p.vy;
    }
}

fn main() {
    let mut seed: i64 = 7;
    let mut next_unit = || {
        seed = (seed * 1103515245 + 12345) % 2147483648;
        seed as f64 / 2147483648.0
    };
    let mut ps = Vec::with_capacity(2000);
    for _ in 0..2000 {
        let x = next_unit();
        let y = next_unit();
        let vx = next_unit() - 0.5;
        let vy = next_unit() - 0.5;
        ps.push(Particle { x, y, vx, vy });
    }
    for _ in 0..1000 {
        for i in 0..2000 {
            step(&mut ps[i], 0.001);
        }
    }
    let (mut sp, mut sv) = (0.0, 0.0);
    for p in &ps {
        sp += p.x + p.y;
        sv += (p.vx * p.vx + p.vy * p.vy).sqrt();
    }
    println!("{:.6} {:.6}", sp, sv);
}
