// Program "springs" (benches/programs/springs.flx): masses on springs updated in place
// through &mut references.
#[derive(Clone, Copy)]
struct Mass {
    x: f64,
    v: f64,
    m: f64,
}

struct Stats {
    e: f64,
    peak: f64,
}

const N: usize = 1000;

fn step(ms: &mut [Mass; N], dt: f64) {
    for i in 0..N {
        let p = &mut ms[i];
        let f = -p.x * (1.0 + 0.001 * i as f64);
        p.v = p.v + f / p.m * dt;
        p.x = p.x + p.v * dt;
    }
}

fn energy(ms: &[Mass; N], st: &mut Stats) {
    st.e = 0.0;
    st.peak = 0.0;
    for (i, p) in ms.iter().enumerate() {
        let e = 0.5 * p.m * p.v * p.v + 0.5 * (1.0 + 0.001 * i as f64) * p.x * p.x;
        st.e = st.e + e;
        if e > st.peak {
            st.peak = e;
        }
    }
}

fn main() {
    let mut ms = [Mass { x: 0.0, v: 0.0, m: 0.0 }; N];
    for (i, p) in ms.iter_mut().enumerate() {
        *p = Mass { x: (i % 10) as f64 * 0.1, v: 0.0, m: 1.0 + (i % 3) as f64 };
    }
    let mut st = Stats { e: 0.0, peak: 0.0 };
    energy(&ms, &mut st);
    print!("{:.9}", st.e);
    for _ in 0..3000 {
        step(&mut ms, 0.001);
    }
    energy(&ms, &mut st);
    println!(" {:.9} {:.9}", st.e, st.peak);
}
