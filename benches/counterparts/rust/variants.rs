// Program "variants" (benches/programs/variants.flx): an expression tree as an enum of boxed
// nodes, built recursively, evaluated modulo 1 000 003 twenty times and its nodes counted.
enum Expr {
    Num(i64),
    Add(Box<Expr>, Box<Expr>),
    Mul(Box<Expr>, Box<Expr>),
}

fn build(d: i32, k: i32) -> Expr {
    if d == 0 {
        Expr::Num((k % 10 + 1) as i64)
    } else if d % 2 == 0 {
        Expr::Add(Box::new(build(d - 1, 2 * k)), Box::new(build(d - 1, 2 * k + 1)))
    } else {
        Expr::Mul(Box::new(build(d - 1, 2 * k)), Box::new(build(d - 1, 2 * k + 1)))
    }
}

fn eval(e: &Expr) -> i64 {
    match e {
        Expr::Num(n) => *n,
        Expr::Add(a, b) => (eval(a) + eval(b)) % 1000003,
        Expr::Mul(a, b) => (eval(a) * eval(b)) % 1000003,
    }
}

fn count(e: &Expr) -> i32 {
    match e {
        Expr::Num(_) => 1,
        Expr::Add(a, b) | Expr::Mul(a, b) => 1 + count(a) + count(b),
    }
}

fn main() {
    let t = build(16, 0);
    let mut s = 0i64;
    for _ in 0..20 {
        // Opaque to the optimiser, which would otherwise evaluate the (pure) tree once.
        s += eval(std::hint::black_box(&t));
    }
    println!("{} {}", s, count(&t));
}
