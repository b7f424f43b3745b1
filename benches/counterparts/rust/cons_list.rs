// Program "cons_list" (benches/programs/cons_list.flx): a list of 200 000 ints as shared cons
// cells (Rc, as a persistent list is), built in a loop and summed by a loop, ten times over.
use std::rc::Rc;

enum List {
    Empty,
    Cons(i32, Rc<List>),
}

fn build(n: i32) -> Rc<List> {
    let mut l = Rc::new(List::Empty);
    for i in 1..=n {
        l = Rc::new(List::Cons(i, l));
    }
    l
}

fn sum(mut l: &List, mut acc: i64) -> i64 {
    while let List::Cons(h, t) = l {
        acc += *h as i64;
        l = t;
    }
    acc
}

fn main() {
    let mut s = 0i64;
    for _ in 0..10 {
        let l = build(200000);
        s += sum(&l, 0);
        // Drop the cells one by one, not recursively.
        let mut cell = Rc::try_unwrap(l).ok();
        while let Some(List::Cons(_, t)) = cell {
            cell = Rc::try_unwrap(t).ok();
        }
    }
    println!("{}", s);
}
