// Program "nbody" (benches/programs/nbody.flx): the benchmarks game n-body on an array of
// structs, updated through a &mut parameter.
#[derive(Clone, Copy)]
struct Body {
    x: f64,
    y: f64,
    z: f64,
    vx: f64,
    vy: f64,
    vz: f64,
    mass: f64,
}

const PI: f64 = 3.141592653589793;
const SOLAR_MASS: f64 = 4.0 * PI * PI;
const DAYS: f64 = 365.24;

fn offset_momentum(bs: &mut [Body; 5]) {
    let (mut px, mut py, mut pz) = (0.0, 0.0, 0.0);
    for b in bs.iter() {
        px += b.vx * b.mass;
        py += b.vy * b.mass;
        pz += b.vz * b.mass;
    }
    bs[0].vx = -px / SOLAR_MASS;
    bs[0].vy = -py / SOLAR_MASS;
    bs[0].vz = -pz / SOLAR_MASS;
}

fn energy(bs: &[Body; 5]) -> f64 {
    let mut e = 0.0;
    for i in 0..5 {
        let b = bs[i];
        e += 0.5 * b.mass * (b.vx * b.vx + b.vy * b.vy + b.vz * b.vz);
        for j in i + 1..5 {
            let c = bs[j];
            let dx = b.x - c.x;
            let dy = b.y - c.y;
            let dz = b.z - c.z;
            e -= b.mass * c.mass / (dx * dx + dy * dy + dz * dz).sqrt();
        }
    }
    e
}

fn advance(bs: &mut [Body; 5], dt: f64) {
    for i in 0..5 {
        for j in i + 1..5 {
            let b = bs[i];
            let c = bs[j];
            let dx = b.x - c.x;
            let dy = b.y - c.y;
            let dz = b.z - c.z;
            let d2 = dx * dx + dy * dy + dz * dz;
            let mag = dt / (d2 * d2.sqrt());
            bs[i].vx = b.vx - dx * c.mass * mag;
            bs[i].vy = b.vy - dy * c.mass * mag;
            bs[i].vz = b.vz - dz * c.mass * mag;
            bs[j].vx = c.vx + dx * b.mass * mag;
            bs[j].vy = c.vy + dy * b.mass * mag;
            bs[j].vz = c.vz + dz * b.mass * mag;
        }
    }
    for b in bs.iter_mut() {
        b.x = b.x + dt * b.vx;
        b.y = b.y + dt * b.vy;
        b.z = b.z + dt * b.vz;
    }
}

fn body(x: f64, y: f64, z: f64, vx: f64, vy: f64, vz: f64, mass: f64) -> Body {
    Body { x, y, z, vx, vy, vz, mass }
}

fn main() {
    let mut bodies = [
        body(0.0, 0.0, 0.0, 0.0, 0.0, 0.0, SOLAR_MASS),
        body(4.84143144246472090e+00, -1.16032004402742839e+00, -1.03622044471123109e-01,
            1.66007664274403694e-03 * DAYS, 7.69901118419740425e-03 * DAYS,
            -6.90460016972063023e-05 * DAYS, 9.54791938424326609e-04 * SOLAR_MASS),
        body(8.34336671824457987e+00, 4.12479856412430479e+00, -4.03523417114321381e-01,
            -2.76742510726862411e-03 * DAYS, 4.99852801234917238e-03 * DAYS,
            2.30417297573763929e-05 * DAYS, 2.85885980666130812e-04 * SOLAR_MASS),
        body(1.28943695621391310e+01, -1.51111514016986312e+01, -2.23307578892655734e-01,
            2.96460137564761618e-03 * DAYS, 2.37847173959480950e-03 * DAYS,
            -2.96589568540237556e-05 * DAYS, 4.36624404335156298e-05 * SOLAR_MASS),
        body(1.53796971148509165e+01, -2.59193146099879641e+01, 1.79258772950371181e-01,
            2.68067772490389322e-03 * DAYS, 1.62824170038242295e-03 * DAYS,
            -9.51592254519715870e-05 * DAYS, 5.15138902046611451e-05 * SOLAR_MASS),
    ];
    offset_momentum(&mut bodies);
    let e0 = energy(&bodies);
    for _ in 0..40000 {
        advance(&mut bodies, 0.01);
    }
    println!("{:.9} {:.9}", e0, energy(&bodies));
}
