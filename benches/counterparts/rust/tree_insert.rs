// Program "tree_insert" (benches/programs/tree_insert.flx): a persistent binary search tree of
// shared nodes (Rc), 200 000 pseudo-random keys inserted with path copying, then counted.
use std::rc::Rc;

enum Tree {
    Leaf,
    Node(Rc<Tree>, i32, Rc<Tree>),
}

fn insert(t: &Rc<Tree>, k: i32) -> Rc<Tree> {
    match &**t {
        Tree::Leaf => Rc::new(Tree::Node(Rc::new(Tree::Leaf), k, Rc::new(Tree::Leaf))),
        Tree::Node(l, v, r) => {
            if k < *v {
                Rc::new(Tree::Node(insert(l, k), *v, r.clone()))
            } else if k > *v {
                Rc::new(Tree::Node(l.clone(), *v, insert(r, k)))
            } else {
                t.clone()
            }
        }
    }
}

fn size(t: &Tree) -> i32 {
    match t {
        Tree::Leaf => 0,
        Tree::Node(l, _, r) => size(l) + 1 + size(r),
    }
}

fn main() {
    let mut t = Rc::new(Tree::Leaf);
    let mut x: i64 = 12345;
    for _ in 0..200000 {
        x = (x * 1103515245 + 12345) % 2147483647;
        t = insert(&t, (x % 1000000) as i32);
    }
    println!("{}", size(&t));
}
