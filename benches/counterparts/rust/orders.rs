// Program "orders" (benches/programs/orders.flx): 1 000 000 orders (a struct of a price, a
// quantity and a kind) pushed onto a Vec as they are generated, then three passes: the
// revenue of each kind, the largest order, a 10 % discount on orders of more than 90 units.
#[derive(Clone, Copy)]
struct Order {
    price: f64,
    qty: i32,
    kind: i32,
}

fn main() {
    let mut orders = Vec::new();
    let mut x: i64 = 42;
    for i in 0..1_000_000 {
        x = (x * 1103515245 + 12345) % 2147483648;
        let price = (x % 10000) as f64 / 100.0;
        x = (x * 1103515245 + 12345) % 2147483648;
        let qty = (x % 100) as i32 + 1;
        orders.push(Order { price, qty, kind: i % 4 });
    }
    let mut revenue = [0.0f64; 4];
    for i in 0..orders.len() {
        let o = orders[i];
        revenue[o.kind as usize] += o.price * o.qty as f64;
    }
    let mut largest = 0.0f64;
    for i in 0..orders.len() {
        let value = orders[i].price * orders[i].qty as f64;
        if value > largest {
            largest = value;
        }
    }
    for i in 0..orders.len() {
        let o = orders[i];
        if o.qty > 90 {
            orders[i] = Order { price: o.price * 0.9, qty: o.qty, kind: o.kind };
        }
    }
    let mut discounted = 0.0f64;
    for i in 0..orders.len() {
        discounted += orders[i].price * orders[i].qty as f64;
    }
    println!(
        "{:.2} {:.2} {:.2} {:.2} | {:.2} | {:.2}",
        revenue[0], revenue[1], revenue[2], revenue[3], largest, discounted
    );
}
