//! A readable text form of the typed IR, for `tessera --dump-ir` and for tests of the passes
//! over it.
//!
//! Variables print by their storage: `l3` local slot 3, `lc3` the cell in local slot 3, `g3`
//! global slot 3, `c3` / `cc3` capture 3 (a value / a cell); `f7` is function 7, `L2` loop
//! label 2. Kernels print as the `Prim` they are, applied to their operands. Statements go one
//! per line with nested blocks indented; an inlined body prints as the block of its statements
//! and the expression of its result (`inline name { ... } => result`), a library call lowered
//! to a loop likewise with `loop` for the name.

use std::fmt::Write;

use crate::core::ir::{
    Arm, Capture, Const, Expr, ExprKind, Function, IndexMode, PathStep, Pattern, PatternKind,
    Place, RangeKind, Stmt, Unit,
};

/// The whole unit: its functions by number (not the library's it checked on first use),
/// then its top-level statements and its result.
pub fn unit(unit: &Unit) -> String {
    let mut p = Printer::default();
    for (id, f) in &unit.functions {
        if !unit.library_functions.contains(id) {
            p.function(*id, f);
        }
    }
    p.stmts(&unit.body);
    if let Some(result) = &unit.result {
        p.line_start();
        p.out.push_str("result ");
        p.expr(result);
        p.out.push('\n');
    }
    p.out
}

/// One function, `id` its number.
#[cfg(test)]
pub fn function(id: u32, f: &Function) -> String {
    let mut p = Printer::default();
    p.function(id, f);
    p.out
}

#[derive(Default)]
struct Printer {
    out: String,
    indent: usize,
}

impl Printer {
    fn line_start(&mut self) {
        for _ in 0..self.indent {
            self.out.push_str("  ");
        }
    }

    fn function(&mut self, id: u32, f: &Function) {
        self.line_start();
        let kind = format!("{:?}", f.kind).to_lowercase();
        let _ = write!(self.out, "{kind} f{id} {}", f.name);
        if !f.type_params.is_empty() {
            let params: Vec<String> = f.type_params.iter().map(|t| t.name.to_string()).collect();
            let _ = write!(self.out, "[{}]", params.join(", "));
        }
        for param in &f.params {
            self.out.push_str(" (");
            self.pattern(param);
            let _ = write!(self.out, " : {})", param.ty);
        }
        let _ = write!(self.out, " : {} slots {}", f.ret, f.n_slots);
        if !f.cell_slots.is_empty() {
            let _ = write!(self.out, " cells {:?}", f.cell_slots);
        }
        if !f.captures.is_empty() {
            self.out.push_str(" captures ");
            self.captures(&f.captures);
        }
        if f.pure_ {
            self.out.push_str(" pure");
        }
        self.block(&f.body);
        self.out.push('\n');
    }

    fn captures(&mut self, captures: &[Capture]) {
        let parts: Vec<String> = captures
            .iter()
            .map(|c| match c {
                Capture::Slot(s) => format!("l{s}"),
                Capture::Cell(s) => format!("lc{s}"),
                Capture::Outer(i) => format!("c{i}"),
            })
            .collect();
        let _ = write!(self.out, "{{{}}}", parts.join(", "));
    }

    /// ` {`, the statements one level in, `}` on a line of its own.
    fn block(&mut self, stmts: &[Stmt]) {
        self.out.push_str(" {\n");
        self.indent += 1;
        self.stmts(stmts);
        self.indent -= 1;
        self.line_start();
        self.out.push('}');
    }

    fn stmts(&mut self, stmts: &[Stmt]) {
        for s in stmts {
            self.line_start();
            self.stmt(s);
            self.out.push('\n');
        }
    }

    fn stmt(&mut self, s: &Stmt) {
        match s {
            Stmt::Expr(e) => self.expr(e),
            Stmt::Assign(place, e) => {
                self.place(*place);
                self.out.push_str(" = ");
                self.expr(e);
            }
            Stmt::Store {
                place, path, value, ..
            } => {
                self.place(*place);
                self.path(path);
                self.out.push_str(" <- ");
                self.expr(value);
            }
            Stmt::StoreAt { pointer, value } => {
                self.out.push('*');
                self.expr(pointer);
                self.out.push_str(" <- ");
                self.expr(value);
            }
            Stmt::If(c, a, b) => {
                self.out.push_str("if ");
                self.expr(c);
                self.block(a);
                if !b.is_empty() {
                    self.out.push_str(" else");
                    self.block(b);
                }
            }
            Stmt::While {
                label,
                cond,
                until,
                body,
            } => {
                let word = if *until { "until" } else { "while" };
                let _ = write!(self.out, "{word} L{label} ");
                self.expr(cond);
                self.block(body);
            }
            Stmt::Loop { label, body } => {
                let _ = write!(self.out, "loop L{label}");
                self.block(body);
            }
            Stmt::ForRange {
                label,
                var,
                from,
                to,
                kind,
                body,
                ..
            } => {
                self.for_head(*label, *var);
                self.expr(from);
                self.out.push_str(match kind {
                    RangeKind::Exclusive => " ..< ",
                    RangeKind::Inclusive => " .. ",
                    RangeKind::Downto => " downto ",
                });
                self.expr(to);
                self.block(body);
            }
            Stmt::ForCodes {
                label,
                var,
                ty,
                body,
            } => {
                self.for_head(*label, *var);
                let _ = write!(self.out, "..[{ty}]");
                self.block(body);
            }
            Stmt::ForArray {
                label,
                var,
                array,
                body,
            } => {
                self.for_head(*label, *var);
                self.expr(array);
                self.block(body);
            }
            Stmt::Break(label) => {
                let _ = write!(self.out, "break L{label}");
            }
            Stmt::Continue(label) => {
                let _ = write!(self.out, "continue L{label}");
            }
            Stmt::Return(e) => {
                self.out.push_str("return");
                if let Some(e) = e {
                    self.out.push(' ');
                    self.expr(e);
                }
            }
            Stmt::Match(x, arms) => self.matching(x, arms, |p, body| p.block(body)),
            Stmt::Block(body) => {
                self.out.push_str("block");
                self.block(body);
            }
            Stmt::Specialise { sizes, body, .. } => {
                self.out.push_str("specialise");
                for (i, (var, e)) in sizes.iter().enumerate() {
                    self.out.push_str(if i == 0 { " " } else { ", " });
                    let _ = write!(self.out, "{} = ", var.name);
                    self.expr(e);
                }
                self.block(body);
            }
        }
    }

    /// `for L1 l2 in `
    fn for_head(&mut self, label: u32, var: Place) {
        let _ = write!(self.out, "for L{label} ");
        self.place(var);
        self.out.push_str(" in ");
    }

    /// `match x {`, an arm per line, `}`.
    fn matching<B>(&mut self, x: &Expr, arms: &[Arm<B>], body: impl Fn(&mut Self, &B)) {
        self.out.push_str("match ");
        self.expr(x);
        self.out.push_str(" {\n");
        self.indent += 1;
        for arm in arms {
            self.line_start();
            self.arm_head(arm);
            body(self, &arm.body);
            self.out.push('\n');
        }
        self.indent -= 1;
        self.line_start();
        self.out.push('}');
    }

    /// `| p | q if guard =>`
    fn arm_head<B>(&mut self, arm: &Arm<B>) {
        for p in &arm.patterns {
            self.out.push_str("| ");
            self.pattern(p);
            self.out.push(' ');
        }
        if let Some(g) = &arm.guard {
            self.out.push_str("if ");
            self.expr(g);
            self.out.push(' ');
        }
        self.out.push_str("=>");
    }

    fn place(&mut self, place: Place) {
        let _ = match place {
            Place::Local(s) => write!(self.out, "l{s}"),
            Place::LocalCell(s) => write!(self.out, "lc{s}"),
            Place::Global(s) => write!(self.out, "g{s}"),
            Place::CaptureCell(i) => write!(self.out, "cc{i}"),
        };
    }

    fn path(&mut self, path: &[PathStep]) {
        for step in path {
            match step {
                PathStep::Field(i) => {
                    let _ = write!(self.out, ".{i}");
                }
                PathStep::Index(e, mode) => {
                    self.out.push('[');
                    self.index(e, *mode);
                    self.out.push(']');
                }
            }
        }
    }

    fn index(&mut self, e: &Expr, mode: IndexMode) {
        if mode == IndexMode::Code {
            self.out.push('#');
        }
        self.expr(e);
    }

    fn constant(&mut self, c: &Const) {
        let _ = match c {
            Const::Unit => write!(self.out, "()"),
            Const::Int(i) => write!(self.out, "{i}"),
            Const::Float(x) => write!(self.out, "{x:?}"),
            Const::Str(bytes) => write!(self.out, "{:?}", String::from_utf8_lossy(bytes)),
        };
    }

    fn pattern(&mut self, p: &Pattern) {
        match &p.kind {
            PatternKind::Wildcard => self.out.push('_'),
            PatternKind::Bind(place) => self.place(*place),
            PatternKind::As(inner, place) => {
                self.pattern(inner);
                self.out.push_str(" as ");
                self.place(*place);
            }
            PatternKind::Const(c) => self.constant(c),
            PatternKind::Range(lo, hi) => {
                self.constant(lo);
                self.out.push_str(" .. ");
                self.constant(hi);
            }
            PatternKind::Tuple(ps) => {
                self.out.push('(');
                for (k, q) in ps.iter().enumerate() {
                    if k > 0 {
                        self.out.push_str(", ");
                    }
                    self.pattern(q);
                }
                self.out.push(')');
            }
            PatternKind::Inject { tag, arg } | PatternKind::CInject { tag, arg } => {
                let compact = matches!(p.kind, PatternKind::CInject { .. });
                let _ = write!(self.out, "{}{tag}", if compact { "cinj" } else { "inj" });
                if let Some(a) = arg {
                    self.out.push(' ');
                    self.pattern(a);
                }
            }
        }
    }

    fn list(&mut self, open: &str, es: &[Expr], separator: &str, close: &str) {
        self.out.push_str(open);
        for (k, e) in es.iter().enumerate() {
            if k > 0 {
                self.out.push_str(separator);
            }
            self.expr(e);
        }
        self.out.push_str(close);
    }

    fn type_args(&mut self, fun: u32, type_args: &[crate::types::Type]) {
        let _ = write!(self.out, "f{fun}");
        if !type_args.is_empty() {
            let args: Vec<String> = type_args.iter().map(|t| t.to_string()).collect();
            let _ = write!(self.out, "[{}]", args.join(", "));
        }
    }

    fn expr(&mut self, e: &Expr) {
        match &e.kind {
            ExprKind::Const(c) => self.constant(c),
            ExprKind::Zero => {
                let _ = write!(self.out, "zero[{}]", e.ty);
            }
            ExprKind::Local(s) => self.place(Place::Local(*s)),
            ExprKind::Take(s) => {
                let _ = write!(self.out, "take ");
                self.place(Place::Local(*s))
            }
            ExprKind::LocalCell(s) => self.place(Place::LocalCell(*s)),
            ExprKind::Global(s) => self.place(Place::Global(*s)),
            ExprKind::Capture(i) => {
                let _ = write!(self.out, "c{i}");
            }
            ExprKind::CaptureCell(i) => self.place(Place::CaptureCell(*i)),
            ExprKind::MakeFun { fun, type_args } => self.type_args(*fun, type_args),
            ExprKind::Closure {
                fun,
                type_args,
                captures,
            } => {
                self.type_args(*fun, type_args);
                self.captures(captures);
            }
            ExprKind::Call { func, args } => {
                self.expr(func);
                for a in args {
                    self.list("(", std::slice::from_ref(a), "", ")");
                }
            }
            ExprKind::Prim(prim, args) => {
                let _ = write!(self.out, "{prim:?}");
                self.list("(", args, ", ", ")");
            }
            ExprKind::Tuple(es) => self.list("(", es, ", ", ")"),
            ExprKind::Array(es) => self.list("[", es, ", ", "]"),
            ExprKind::CTuple(es) => self.list("(", es, " \\, ", ")"),
            ExprKind::Field(x, i) => {
                self.expr(x);
                let _ = write!(self.out, ".{i}");
            }
            ExprKind::CField(x, i) => {
                self.expr(x);
                let _ = write!(self.out, ".\\{i}");
            }
            ExprKind::Index { array, index, mode } => {
                self.expr(array);
                self.out.push('[');
                self.index(index, *mode);
                self.out.push(']');
            }
            ExprKind::Inject { tag, arg } => {
                let _ = write!(self.out, "inj{tag}");
                self.list("(", std::slice::from_ref(&**arg), "", ")");
            }
            ExprKind::CInject { tag, arg } => {
                let _ = write!(self.out, "cinj{tag}");
                self.list("(", std::slice::from_ref(&**arg), "", ")");
            }
            ExprKind::TypeSize(t) => {
                let _ = write!(self.out, "memcount[{t}]");
            }
            ExprKind::Coerce(kind, x) => {
                let _ = write!(self.out, "{kind:?}");
                self.list("(", std::slice::from_ref(&**x), "", ")");
            }
            ExprKind::If(c, a, b) => {
                self.out.push_str("(if ");
                self.expr(c);
                self.out.push_str(" then ");
                self.expr(a);
                self.out.push_str(" else ");
                self.expr(b);
                self.out.push(')');
            }
            ExprKind::And(a, b) | ExprKind::Or(a, b) => {
                let and = matches!(e.kind, ExprKind::And(..));
                self.out.push('(');
                self.expr(a);
                self.out.push_str(if and { " and " } else { " or " });
                self.expr(b);
                self.out.push(')');
            }
            ExprKind::Match(x, arms) => self.matching(x, arms, |p, body| {
                p.out.push(' ');
                p.expr(body);
            }),
            ExprKind::AddrOf { place, path, .. } => {
                self.out.push('&');
                self.place(*place);
                self.path(path);
            }
            ExprKind::PtrProject { pointer, path } => {
                self.out.push_str("&(");
                self.expr(pointer);
                self.out.push(')');
                self.path(path);
            }
            ExprKind::Deref(x) => {
                self.out.push('*');
                self.expr(x);
            }
            ExprKind::PtrCast(x) => {
                let _ = write!(self.out, "cast[{}]", e.ty);
                self.list("(", std::slice::from_ref(&**x), "", ")");
            }
            ExprKind::Inlined(inlined) => {
                match &inlined.frame {
                    Some(frame) => {
                        let _ = write!(self.out, "inline {}", frame.name);
                    }
                    None => self.out.push_str("loop"),
                }
                if !inlined.stmts.is_empty() || inlined.result.is_none() {
                    self.block(&inlined.stmts);
                }
                if let Some(result) = &inlined.result {
                    self.out.push_str(" => ");
                    self.expr(result);
                }
            }
            ExprKind::MapLoop {
                var,
                array,
                body,
                filter,
            } => {
                let word = if *filter { "filter" } else { "map" };
                let _ = write!(self.out, "{word} l{var} in ");
                self.expr(array);
                self.out.push_str(" => ");
                self.expr(body);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::check::Checker;

    fn check(src: &str, expected: &str) {
        let stmts =
            crate::parse_program_or_errors(src, Default::default()).expect("the program parses");
        let unit = Checker::new()
            .check_program(&stmts)
            .expect("the program checks");
        let got = super::unit(&unit);
        assert_eq!(got.trim(), expected.trim(), "the printed IR is\n{got}");
    }

    #[test]
    fn statements_expressions_and_patterns() {
        check(
            "fun g (y: int) : int => match y with | 1 | 2 => y | z when z > 9 => z + 1 | _ => 0 endmatch;
var t = (1, 2.5);
while t.0 < 3 do t = (t.0 + g t.0, t.1); done
println (t.0 == 3 and t.1 > 1.0);",
            "
fun f0 g (l0 : int) : int slots 2 pure {
  return match l0 {
    | 1 | 2 => l0
    | l1 if Compare(Gt)(l1, 9) => IntArith(Add, Int)(l1, 1)
    | _ => 0
  }
}
g0 = (1, 2.5)
while L0 Compare(Lt)(g0.0, 3) {
  g0 = (IntArith(Add, Int)(g0.0, f0(g0.0)), g0.1)
}
Println((Compare(Eq)(g0.0, 3) and Compare(Gt)(g0.1, 1.0)))",
        );
    }
}
