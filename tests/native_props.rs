//! Native code and the closure compiler agree on random typed programs: each generated
//! program runs in two sessions, `Settings::with_jit(true)` and `with_jit(false)`, and the two
//! must print the same stdout, the same rendered diagnostics and end with the same status.
//!
//! The generator writes well-typed programs over the scalar types of every width (`int`,
//! `long`, `tiny`, `int8`, `uint8`, `short`, `uint`, `ulong`, `uint64`, `size`, `double`,
//! `float`, `bool`, `char`): top-level globals, `var` locals, arithmetic that may overflow or
//! divide by zero (R0003, R0004), conversions that may not fit (R0005), the implicit widening
//! `tiny` -> `short` -> `int` -> `long`, comparisons, `if` statements and expressions, `while`
//! and `for i in a ..< b` loops, arrays `int ^ N` and `double ^ N` read and stored
//! (`&a.i <- v`) at indices that may be out of range (R0001), and small functions with scalar
//! parameters, some recursive with a depth bound, calling the functions defined before them.
//! Some functions return a pair of scalars (built, kept in a tuple variable, projected and
//! returned), tuples are built and projected in expressions, and a program may declare a
//! struct of two scalar fields and an array of it, whose fields are read and stored at indices
//! that may be out of range, and a global of it and a global scalar that recursive procedures
//! update through pointer parameters (`p.a <- e`, `p <- e`, reading `(*p).a` and `*p`),
//! in straight-line code and in loops, also through a pointer to an element of an array of
//! the struct.
//!
//! Every program terminates by construction: a `while` loop counts in a variable of its own
//! that nothing else assigns and stops after a few rounds, a `for` loop's bounds are literals
//! (a loop re-reads its limit), a recursive function's depth argument is a literal below 13
//! and it calls itself once (in its `return`), and a function calls only the functions before it.
//!
//! The program is written from a stream of choices, which proptest generates and shrinks: a
//! missing choice is 0, and choice 0 is always the simplest option (a literal, no statement),
//! so a failing program shrinks towards a short one.

use std::io::Write;

/// KNOWN DIFFERENCES: parts of the generator held back while native code and closures disagree
/// on them (the lead turns each back on once fixed; the suite stays green meanwhile).
///
/// `char n` of any `int` (negative codes included). `char (-1)` is accepted (no R0005) and the
/// two paths then compare it differently: `if char (-1) < char 48 do println "less"; else
/// println "not less"; done` prints `not less` with native code, `less` on closures. While
/// off, `char` converts only codes in 0 ..< 128.
const CHAR_OF_ANY_INT: bool = true;

use proptest::prelude::*;
use tessera::{exit_status, render, Session, Settings, SharedBuffer};

/// The scalar types of the generated programs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Ty {
    Int,
    Long,
    Tiny,
    Int8,
    Uint8,
    Short,
    Uint,
    Ulong,
    Uint64,
    Size,
    Double,
    Float,
    Bool,
    Char,
}

use Ty::*;

const ALL: [Ty; 14] = [
    Int, Long, Tiny, Int8, Uint8, Short, Uint, Ulong, Uint64, Size, Double, Float, Bool, Char,
];
const NUMERIC: [Ty; 12] = [
    Int, Long, Tiny, Int8, Uint8, Short, Uint, Ulong, Uint64, Size, Double, Float,
];
/// The one chain of implicit widening among these types.
const WIDENING: [Ty; 4] = [Tiny, Short, Int, Long];

impl Ty {
    fn name(self) -> &'static str {
        match self {
            Int => "int",
            Long => "long",
            Tiny => "tiny",
            Int8 => "int8",
            Uint8 => "uint8",
            Short => "short",
            Uint => "uint",
            Ulong => "ulong",
            Uint64 => "uint64",
            Size => "size",
            Double => "double",
            Float => "float",
            Bool => "bool",
            Char => "char",
        }
    }

    fn is_int(self) -> bool {
        !matches!(self, Double | Float | Bool | Char)
    }

    fn is_float(self) -> bool {
        matches!(self, Double | Float)
    }

    fn signed(self) -> bool {
        matches!(self, Int | Long | Tiny | Int8 | Short | Double | Float)
    }

    fn suffix(self) -> &'static str {
        match self {
            Long => "L",
            Tiny => "t",
            Int8 => "i8",
            Uint8 => "u8",
            Short => "s",
            Uint => "u",
            Ulong => "ul",
            Uint64 => "u64",
            Size => "uz",
            Float => "f",
            _ => "",
        }
    }

    /// Interesting magnitudes of the type: small ones first, then ones near its limits.
    fn magnitudes(self) -> &'static [&'static str] {
        match self {
            Tiny | Int8 => &["0", "1", "2", "3", "7", "10", "100", "127"],
            Uint8 => &["0", "1", "2", "3", "7", "10", "200", "255"],
            Short => &["0", "1", "2", "3", "7", "10", "1000", "32767"],
            Int => &["0", "1", "2", "3", "7", "10", "65536", "2147483647"],
            Uint => &["0", "1", "2", "3", "7", "10", "65536", "4294967295"],
            Long => &[
                "0",
                "1",
                "2",
                "3",
                "7",
                "10",
                "4294967296",
                "9223372036854775807",
            ],
            Ulong | Uint64 | Size => &[
                "0",
                "1",
                "2",
                "3",
                "7",
                "10",
                "4294967296",
                "18446744073709551615",
            ],
            Double => &[
                "0.0", "1.0", "0.5", "2.25", "3.0", "10.0", "1.0e30", "1.0e300",
            ],
            Float => &[
                "0.0", "1.0", "0.5", "2.25", "3.0", "10.0", "1.0e10", "3.0e38",
            ],
            Bool | Char => &["0"],
        }
    }
}

/// A variable in scope.
#[derive(Clone)]
struct Var {
    name: String,
    ty: Ty,
    assignable: bool,
}

/// An array in scope: `elem ^ len`, `elem` being `int` or `double`.
#[derive(Clone)]
struct Arr {
    name: String,
    elem: Ty,
    len: usize,
}

/// A function defined so far; a recursive one takes its depth as a first `int` parameter
/// besides `params`. A function returning a pair returns `ret * second`.
#[derive(Clone)]
struct Func {
    name: String,
    params: Vec<Ty>,
    ret: Ty,
    second: Option<Ty>,
    recursive: bool,
}

/// The program's struct `S { a: fields[0]; b: fields[1]; }` and its global array
/// `sa : S ^ len`.
#[derive(Clone)]
struct Structs {
    fields: [Ty; 2],
    len: usize,
}

/// The generator: the choice stream and what is in scope.
struct Gen<'c> {
    choices: &'c [u32],
    at: usize,
    names: usize,
    vars: Vec<Var>,
    arrs: Vec<Arr>,
    funcs: Vec<Func>,
    /// Globals updated through pointers (`pointer_procs`), printed at the end.
    pointees: Vec<String>,
    structs: Option<Structs>,
    /// Inside a function returning this type (`return` statements allowed).
    ret: Option<Ty>,
    /// Inside a function (whose nested functions capture its parameters and variables).
    nested: bool,
    /// The string variables in scope (a global, and some functions' own).
    texts: Vec<String>,
    /// The global darrays and their element types (two may hold the same darray).
    darrays: Vec<(String, Ty)>,
}

impl<'c> Gen<'c> {
    fn new(choices: &'c [u32]) -> Gen<'c> {
        Gen {
            choices,
            at: 0,
            names: 0,
            vars: Vec::new(),
            arrs: Vec::new(),
            funcs: Vec::new(),
            pointees: Vec::new(),
            structs: None,
            ret: None,
            nested: false,
            texts: Vec::new(),
            darrays: Vec::new(),
        }
    }

    /// The next choice among `n` (0 when the stream is exhausted).
    fn pick(&mut self, n: usize) -> usize {
        let choice = self.choices.get(self.at).copied().unwrap_or(0);
        self.at += 1;
        choice as usize % n.max(1)
    }

    fn chance(&mut self, percent: usize) -> bool {
        // Choice 0 means no.
        let c = self.pick(100);
        c != 0 && c <= percent
    }

    fn fresh(&mut self, prefix: &str) -> String {
        self.names += 1;
        format!("{prefix}{}", self.names)
    }

    fn ty(&mut self) -> Ty {
        ALL[self.pick(ALL.len())]
    }

    fn numeric(&mut self) -> Ty {
        NUMERIC[self.pick(NUMERIC.len())]
    }

    fn literal(&mut self, ty: Ty) -> String {
        match ty {
            Bool => ["false", "true"][self.pick(2)].to_string(),
            Char => format!("(char {})", 48 + self.pick(75)),
            _ => {
                let magnitudes = ty.magnitudes();
                let m = magnitudes[self.pick(magnitudes.len())];
                if ty.signed() && self.chance(25) {
                    format!("(-{m}{})", ty.suffix())
                } else {
                    format!("{m}{}", ty.suffix())
                }
            }
        }
    }

    /// An expression of type `ty`, at most `depth` levels deep.
    fn expr(&mut self, ty: Ty, depth: usize) -> String {
        let options = if depth == 0 { 2 } else { 13 };
        match self.pick(options) {
            0 => self.literal(ty),
            10 => self.component(ty, depth - 1),
            11 => self
                .struct_field(ty, depth - 1)
                .unwrap_or_else(|| self.literal(ty)),
            1 => self.variable(ty).unwrap_or_else(|| self.literal(ty)),
            2 | 3 => self.operation(ty, depth - 1),
            4 => self.conversion(ty, depth - 1),
            5 => {
                let c = self.expr(Bool, depth - 1);
                let a = self.expr(ty, depth - 1);
                let b = self.expr(ty, depth - 1);
                format!("(if {c} then {a} else {b} endif)")
            }
            6 => self
                .element(ty, depth - 1)
                .unwrap_or_else(|| self.literal(ty)),
            7 | 8 => self.call(ty, depth - 1).unwrap_or_else(|| self.literal(ty)),
            12 => self.boxed(ty, depth - 1),
            _ => self.variable(ty).unwrap_or_else(|| self.literal(ty)),
        }
    }

    /// A value of type `ty` taken out of a value not in registers: an option built by a
    /// conditional and matched, or a field of a tuple holding a string.
    fn boxed(&mut self, ty: Ty, depth: usize) -> String {
        let a = self.expr(ty, depth);
        let b = self.expr(ty, depth);
        let t = ty.name();
        if self.chance(50) {
            let c = self.expr(Bool, depth);
            let v = self.fresh("m");
            format!(
                "(match (if {c} then Some ({a}) else None[{t}] endif) with \
                 | Some {v} => {v} | None => {b} endmatch)"
            )
        } else {
            let k = if self.chance(50) { 0 } else { 2 };
            format!("((({a}), \"s\", ({b})).{k})")
        }
    }

    fn variable(&mut self, ty: Ty) -> Option<String> {
        let found: Vec<String> = self
            .vars
            .iter()
            .filter(|v| v.ty == ty)
            .map(|v| v.name.clone())
            .collect();
        if found.is_empty() {
            return None;
        }
        Some(found[self.pick(found.len())].clone())
    }

    /// An arithmetic, logical or comparison expression of type `ty`.
    fn operation(&mut self, ty: Ty, depth: usize) -> String {
        match ty {
            Bool => match self.pick(4) {
                0 | 1 => {
                    let t = if self.chance(10) {
                        Char
                    } else {
                        self.numeric()
                    };
                    let op = ["<", "<=", ">", ">=", "==", "!="][self.pick(6)];
                    let a = self.expr(t, depth);
                    let b = self.expr(t, depth);
                    format!("({a} {op} {b})")
                }
                2 => {
                    let op = ["and", "or"][self.pick(2)];
                    let a = self.expr(Bool, depth);
                    let b = self.expr(Bool, depth);
                    format!("({a} {op} {b})")
                }
                _ => format!("(not {})", self.expr(Bool, depth)),
            },
            Char => {
                let c = self.expr(Char, depth);
                let k = self.pick(4);
                format!("(char (ord {c} + {k}))")
            }
            _ => {
                if ty.signed() && self.chance(10) {
                    return format!("(-{})", self.expr(ty, depth));
                }
                let ops: &[&str] = if ty.is_float() {
                    &["+", "-", "*", "/"]
                } else {
                    &["+", "-", "*", "/", "%"]
                };
                let op = ops[self.pick(ops.len())];
                // Sometimes one side is narrower and widens implicitly; both sides are then
                // literals or variables (the checker types a narrower side's `if` or call
                // against the other side's type, and refuses it).
                let (ta, tb, depth) = match WIDENING.iter().position(|t| *t == ty) {
                    Some(w) if w > 0 && self.chance(30) => {
                        let narrow = WIDENING[self.pick(w)];
                        if self.pick(2) == 0 {
                            (narrow, ty, 0)
                        } else {
                            (ty, narrow, 0)
                        }
                    }
                    _ => (ty, ty, depth),
                };
                let a = self.expr(ta, depth);
                let b = self.expr(tb, depth);
                format!("({a} {op} {b})")
            }
        }
    }

    /// A conversion to `ty` from another type.
    fn conversion(&mut self, ty: Ty, depth: usize) -> String {
        match ty {
            Bool => self.operation(Bool, depth),
            Char if CHAR_OF_ANY_INT => format!("(char {})", self.expr(Int, depth)),
            Char => format!("(char ((({} % 128) + 128) % 128))", self.expr(Int, depth)),
            _ => {
                if ty == Int && self.chance(10) {
                    return format!("(ord {})", self.expr(Char, depth));
                }
                let from = self.numeric();
                let e = self.expr(from, depth);
                if self.pick(2) == 0 {
                    format!("({} {e})", ty.name())
                } else {
                    format!("{e}.{}", ty.name())
                }
            }
        }
    }

    /// An index: mostly in range, sometimes computed, sometimes out of range.
    fn index(&mut self, len: usize, depth: usize) -> String {
        let fixed: Vec<String> = (self.vars.iter())
            .filter(|v| v.ty == Int && !v.assignable)
            .map(|v| v.name.clone())
            .collect();
        match self.pick(5) {
            0 | 1 => self.pick(len).to_string(),
            // A literal out of range is a static error: this one is computed.
            2 => format!("({} + {})", len - 1, 1 + self.pick(3)),
            // From a loop variable or a `val`, whose range native code may know: in range
            // or not, by a little.
            3 if !fixed.is_empty() => {
                let v = &fixed[self.pick(fixed.len())];
                let scale = 1 + self.pick(2);
                let offset = self.pick(5) as i64 - 2;
                format!("({v} * {scale} + ({offset}))")
            }
            // Computed, so never a literal out of range.
            _ => format!("(0 + {})", self.expr(Int, depth)),
        }
    }

    fn element(&mut self, ty: Ty, depth: usize) -> Option<String> {
        let found: Vec<Arr> = self.arrs.iter().filter(|a| a.elem == ty).cloned().collect();
        if found.is_empty() {
            return None;
        }
        let arr = found[self.pick(found.len())].clone();
        let i = self.index(arr.len, depth);
        Some(format!("{}.({i})", arr.name))
    }

    /// A component of a pair: of a call of a function returning one, or of a tuple.
    fn component(&mut self, ty: Ty, depth: usize) -> String {
        let found: Vec<Func> = self
            .funcs
            .iter()
            .filter(|f| f.second.is_some() && (f.ret == ty || f.second == Some(ty)))
            .cloned()
            .collect();
        if !found.is_empty() && self.pick(2) == 0 {
            let f = found[self.pick(found.len())].clone();
            let k = if f.ret == ty { 0 } else { 1 };
            let call = self.call_of(&f, depth);
            return format!("({call}).{k}");
        }
        let other = self.ty();
        let a = self.expr(ty, depth);
        let b = self.expr(other, depth);
        if self.pick(2) == 0 {
            format!("(({a}), ({b})).0")
        } else {
            format!("(({b}), ({a})).1")
        }
    }

    /// A field of an element of the struct array: `sa.(i).a`.
    fn struct_field(&mut self, ty: Ty, depth: usize) -> Option<String> {
        let structs = self.structs.clone()?;
        let field = structs.fields.iter().position(|f| *f == ty)?;
        let i = self.index(structs.len, depth);
        Some(format!("sa.({i}).{}", ["a", "b"][field]))
    }

    fn call_of(&mut self, f: &Func, depth: usize) -> String {
        let mut args = Vec::new();
        if f.recursive {
            args.push(self.pick(13).to_string());
        }
        args.extend(self.args(&f.params, depth));
        format!("({} ({}))", f.name, args.join(", "))
    }

    fn args(&mut self, params: &[Ty], depth: usize) -> Vec<String> {
        params.iter().map(|t| self.expr(*t, depth)).collect()
    }

    fn call(&mut self, ty: Ty, depth: usize) -> Option<String> {
        let found: Vec<Func> = self
            .funcs
            .iter()
            .filter(|f| f.ret == ty && f.second.is_none())
            .cloned()
            .collect();
        if found.is_empty() {
            return None;
        }
        let f = found[self.pick(found.len())].clone();
        Some(self.call_of(&f, depth))
    }

    /// Statements of a block, in their own scope.
    fn block(&mut self, depth: usize, indent: usize, most: usize) -> String {
        let (vars, arrs) = (self.vars.len(), self.arrs.len());
        let n = self.pick(most + 1);
        let mut out = String::new();
        for _ in 0..n {
            out += &self.stmt(depth, indent);
        }
        self.vars.truncate(vars);
        self.arrs.truncate(arrs);
        out
    }

    fn stmt(&mut self, depth: usize, indent: usize) -> String {
        let pad = "  ".repeat(indent);
        let options = if depth == 0 { 6 } else { 10 };
        if !self.darrays.is_empty() && self.chance(15) {
            return self.darray_stmt(&pad);
        }
        match self.pick(options) {
            0 | 1 if !self.texts.is_empty() && self.chance(35) => self.text(&pad),
            0 | 1 => {
                let ty = self.ty();
                let e = self.expr(ty, 3);
                if ty.is_int() && self.chance(30) {
                    format!("{pad}println$ ({e})._strr;\n")
                } else {
                    format!("{pad}println$ {e};\n")
                }
            }
            2 => {
                let ty = self.ty();
                let e = self.expr(ty, 3);
                let name = self.fresh("v");
                self.vars.push(Var {
                    name: name.clone(),
                    ty,
                    assignable: true,
                });
                format!("{pad}var {name} : {} = {e};\n", ty.name())
            }
            3 => {
                let targets: Vec<Var> =
                    self.vars.iter().filter(|v| v.assignable).cloned().collect();
                if targets.is_empty() {
                    return String::new();
                }
                let v = targets[self.pick(targets.len())].clone();
                let e = self.expr(v.ty, 3);
                format!("{pad}{} = {e};\n", v.name)
            }
            4 => {
                if let (Some(structs), true) = (self.structs.clone(), self.chance(30)) {
                    let field = self.pick(2);
                    let i = self.index(structs.len, 2);
                    let e = self.expr(structs.fields[field], 3);
                    let name = ["a", "b"][field];
                    return format!("{pad}&sa.({i}).{name} <- {e};\n");
                }
                if self.arrs.is_empty() || self.chance(20) {
                    return self.array(&pad);
                }
                let which = self.pick(self.arrs.len());
                let arr = self.arrs[which].clone();
                let i = self.index(arr.len, 2);
                let e = self.expr(arr.elem, 3);
                format!("{pad}&{}.({i}) <- {e};\n", arr.name)
            }
            5 => match (self.ret, self.chance(30)) {
                (Some(ret), true) => {
                    let c = self.expr(Bool, 2);
                    let e = self.expr(ret, 2);
                    format!("{pad}if {c} do return {e}; done\n")
                }
                _ => String::new(),
            },
            6 | 7 => {
                let c = self.expr(Bool, 3);
                let then = self.block(depth - 1, indent + 1, 3);
                let otherwise = self.block(depth - 1, indent + 1, 2);
                format!("{pad}if {c} do\n{then}{pad}else\n{otherwise}{pad}done\n")
            }
            8 => {
                // The counter is never assigned by the body: the loop ends.
                let w = self.fresh("w");
                let rounds = 1 + self.pick(8);
                let c = self.expr(Bool, 2);
                let body = self.block(depth - 1, indent + 1, 3);
                self.vars.push(Var {
                    name: w.clone(),
                    ty: Int,
                    assignable: false,
                });
                let inner = "  ".repeat(indent + 1);
                format!(
                    "{pad}var {w} = 0;\n{pad}while {w} < {rounds} and {c} do\n{body}{inner}{w} = {w} + 1;\n{pad}done\n"
                )
            }
            _ => {
                // Literal bounds: the limit is read again at every test.
                let i = self.fresh("i");
                let from = self.pick(5) as i64 - 2;
                let to = from + self.pick(9) as i64 - 1;
                self.vars.push(Var {
                    name: i.clone(),
                    ty: Int,
                    assignable: false,
                });
                let body = self.block(depth - 1, indent + 1, 3);
                let bound = |n: i64| {
                    if n < 0 {
                        format!("({n})")
                    } else {
                        n.to_string()
                    }
                };
                format!(
                    "{pad}for {i} in {} ..< {} do\n{body}{pad}done\n",
                    bound(from),
                    bound(to)
                )
            }
        }
    }

    /// A statement building text in a string variable: appended to (in place, or by a
    /// chain starting elsewhere), doubled while short, printed.
    fn text(&mut self, pad: &str) -> String {
        let n = self.texts.len();
        let (i, j) = (self.pick(n), self.pick(n));
        let (t, u) = (self.texts[i].clone(), self.texts[j].clone());
        let ty = self.ty();
        let e = self.expr(ty, 2);
        match self.pick(6) {
            0 => format!("{pad}{t} += str ({e}) + \",\";\n"),
            1 => format!("{pad}{t} = \"<\" + {t} + str ({e});\n"),
            2 => format!("{pad}if {t}.len.int < 40 do {t} = {t} + {t}; done\n"),
            3 => format!("{pad}println$ {t} + \" \" + str ({e});\n"),
            4 => format!("{pad}print {t}; print \"|\"; println$ {e};\n"),
            _ => format!("{pad}if {u}.len.int < 40 do {t} = {u} + str ({e}) + {u}; done\n"),
        }
    }

    /// A statement on a global darray: a push (most often), its length printed, or its last
    /// element printed.
    fn darray_stmt(&mut self, pad: &str) -> String {
        let which = self.pick(self.darrays.len());
        let (d, ty) = self.darrays[which].clone();
        match self.pick(5) {
            0 => format!("{pad}println$ len {d};\n"),
            1 => format!("{pad}if len {d} > 0uz do println$ {d}.(len {d} - 1uz); done\n"),
            _ => {
                let e = self.expr(ty, 3);
                format!("{pad}push_back ({d}, {e});\n")
            }
        }
    }

    /// An array declaration, zero-filled or initialised.
    fn array(&mut self, pad: &str) -> String {
        let elem = if self.pick(2) == 0 { Int } else { Double };
        // `T ^ 1` is `T`: at least two elements.
        let len = 2 + self.pick(5);
        let name = self.fresh("a");
        let text = if self.pick(2) == 0 {
            format!("{pad}var {name} : {} ^ {len};\n", elem.name())
        } else {
            let parts: Vec<String> = (0..len).map(|_| self.literal(elem)).collect();
            let init = format!("({})", parts.join(", "));
            format!("{pad}var {name} : {} ^ {len} = {init};\n", elem.name())
        };
        self.arrs.push(Arr { name, elem, len });
        text
    }

    /// A function over what is in scope (the globals and the functions before it), in a
    /// function sometimes nested, capturing the enclosing one's parameters and variables.
    fn function(&mut self) -> String {
        let recursive = self.chance(35);
        let name = self.fresh(if recursive { "r" } else { "f" });
        let n_params = self.pick(4);
        let params: Vec<Ty> = (0..n_params).map(|_| self.ty()).collect();
        let ret = self.ty();
        let second = self.chance(30).then(|| self.ty());
        let func = Func {
            name: name.clone(),
            params: params.clone(),
            ret,
            second,
            recursive,
        };
        let (vars, arrs, texts) = (self.vars.len(), self.arrs.len(), self.texts.len());
        let mut header = Vec::new();
        let mut param_names = Vec::new();
        if recursive {
            let n = self.fresh("n");
            header.push(format!("{n}: int"));
            self.vars.push(Var {
                name: n.clone(),
                ty: Int,
                assignable: false,
            });
            param_names.push(n);
        }
        for ty in &params {
            let p = self.fresh("p");
            header.push(format!("{p}: {}", ty.name()));
            self.vars.push(Var {
                name: p.clone(),
                ty: *ty,
                assignable: false,
            });
            param_names.push(p);
        }
        // A nested function over a variable and an array of this one, which its body may
        // assign and call it: captures by value (the parameters) and of variables (cells).
        let funcs = self.funcs.len();
        let mut inner = String::new();
        if self.chance(30) {
            let t = self.fresh("t");
            inner += &format!("  var {t} = \"\";\n");
            self.texts.push(t);
        }
        if !self.nested && self.chance(40) {
            let ty = self.ty();
            let c = self.fresh("c");
            let init = self.literal(ty);
            inner += &format!("  var {c} : {} = {init};\n", ty.name());
            self.vars.push(Var {
                name: c,
                ty,
                assignable: true,
            });
            if self.chance(50) {
                inner += &self.array("  ");
            }
            self.nested = true;
            inner += &self.function();
            self.nested = false;
        }
        self.ret = Some(ret).filter(|_| second.is_none());
        let ret_name = match second {
            Some(t) => format!("{} * {}", ret.name(), t.name()),
            None => ret.name().to_string(),
        };
        let mut out = format!("fun {name} ({}) : {ret_name} = {{\n", header.join(", "));
        out += &inner;
        if let Some(second) = second {
            // A pair: built, kept in a variable, projected, returned.
            if recursive {
                let a = self.expr(ret, 2);
                let b = self.expr(second, 2);
                out += &format!("  if {} <= 0 do return {a}, {b}; done\n", param_names[0]);
            }
            out += &self.block(2, 1, 3);
            let t = self.fresh("t");
            let value = if recursive {
                let mut args = vec![format!("{} - 1", param_names[0])];
                args.extend(self.args(&params, 2));
                format!("({name} ({}))", args.join(", "))
            } else {
                let a = self.expr(ret, 2);
                let b = self.expr(second, 2);
                format!("({a}, {b})")
            };
            out += &format!("  val {t} = {value};\n");
            let b = self.expr(second, 2);
            let op = if second.is_int() || second.is_float() {
                ["+", "-", "*"][self.pick(3)]
            } else {
                ""
            };
            let b = if op.is_empty() {
                format!("{t}.1")
            } else {
                format!("({t}.1 {op} {b})")
            };
            out += &format!("  return {t}.0, {b};\n}}\n");
            self.ret = None;
            self.vars.truncate(vars);
            self.arrs.truncate(arrs);
            self.texts.truncate(texts);
            self.funcs.truncate(funcs);
            self.funcs.push(func);
            return out;
        }
        out += &self.block(2, 1, 4);
        let result = if recursive {
            let mut args = vec![format!("{} - 1", param_names[0])];
            args.extend(self.args(&params, 2));
            let call = format!("({name} ({}))", args.join(", "));
            let other = self.expr(ret, 2);
            if ret.is_int() || ret.is_float() {
                let op = ["+", "-", "*"][self.pick(3)];
                format!("({call} {op} {other})")
            } else {
                let c = self.expr(Bool, 2);
                format!("(if {c} then {call} else {other} endif)")
            }
        } else {
            self.expr(ret, 3)
        };
        out += &format!("  return {result};\n}}\n");
        self.ret = None;
        self.vars.truncate(vars);
        self.arrs.truncate(arrs);
        self.texts.truncate(texts);
        self.funcs.truncate(funcs);
        self.funcs.push(func);
        out
    }

    /// A whole program: globals, functions, statements, and the globals printed at the end.
    /// A global struct `gs` and a global scalar, updated by recursive procedures (never
    /// inlined) through pointer parameters: `p.a <- e` and `p <- e`, `e` reading the old
    /// values through the pointer (`(*p).a`, `*p`).
    fn pointer_procs(&mut self, fields: [Ty; 2]) -> String {
        let (a, b) = (self.literal(fields[0]), self.literal(fields[1]));
        let mut out = format!("var gs = S ({a}, {b});\n");
        let before = self.vars.len();
        for (name, ty) in [("((*p).a)", fields[0]), ("((*p).b)", fields[1])] {
            self.vars.push(Var {
                name: name.to_string(),
                ty,
                assignable: false,
            });
        }
        let (ea, eb) = (self.expr(fields[0], 2), self.expr(fields[1], 2));
        self.vars.truncate(before);
        let rounds = 1 + self.pick(4);
        out += &format!(
            "proc upd (p: &S, k: int) {{\n  if k > 0 do\n    p.a <- {ea};\n    p.b <- {eb};\n    \
             upd (p, k - 1);\n  done\n}}\nupd (&gs, {rounds});\n"
        );
        self.pointees.push("gs".to_string());
        // The same updates in a loop, through a pointer to the global and to an element of
        // an array of them (views of the object's leaves kept for the loop).
        for (name, ty) in [("((*p).a)", fields[0]), ("((*p).b)", fields[1])] {
            self.vars.push(Var {
                name: name.to_string(),
                ty,
                assignable: false,
            });
        }
        let (la, lb) = (self.expr(fields[0], 2), self.expr(fields[1], 2));
        self.vars.truncate(before);
        let (rounds, again) = (1 + self.pick(4), 1 + self.pick(3));
        // Field by field, or the whole struct at once.
        let body = if self.chance(50) {
            format!("p.a <- {la};\n    p.b <- {lb};")
        } else {
            format!("val old = *p;\n    p <- S ({la}, {lb});\n    p.a <- old.a;")
        };
        out += &format!(
            "var gsa : S ^ 3;\n&gsa.(1) <- gs;\nproc lupd (p: &S, n: int) {{\n  \
             for i in 0 ..< n do\n    {body}\n  done\n  \
             if n > 1 do lupd (p, n - 1); done\n}}\nlupd (&gsa.(1), {rounds});\n\
             lupd (&gs, {again});\n"
        );
        self.pointees.push("gsa".to_string());
        let ty = self.ty();
        let init = self.literal(ty);
        let name = self.fresh("gp");
        self.vars.push(Var {
            name: "(*p)".to_string(),
            ty,
            assignable: false,
        });
        let e = self.expr(ty, 2);
        self.vars.truncate(before);
        let rounds = 1 + self.pick(4);
        out += &format!(
            "var {name} : {} = {init};\nproc set_{name} (p: &{}, k: int) {{\n  if k > 0 do\n    \
             p <- {e};\n    set_{name} (p, k - 1);\n  done\n}}\nset_{name} (&{name}, {rounds});\n",
            ty.name(),
            ty.name()
        );
        self.pointees.push(name);
        out
    }

    fn program(&mut self) -> String {
        let mut out = String::from("var gt = \"\";\n");
        self.texts.push("gt".to_string());
        for _ in 0..1 + self.pick(5) {
            let ty = self.ty();
            let name = self.fresh("g");
            let init = self.literal(ty);
            out += &format!("var {name} : {} = {init};\n", ty.name());
            self.vars.push(Var {
                name,
                ty,
                assignable: true,
            });
        }
        for _ in 0..self.pick(3) {
            out += &self.array("");
        }
        // Darrays pushed onto by the statements, one of them maybe through a second variable.
        for _ in 0..self.pick(3) {
            let ty = self.ty();
            let name = self.fresh("gd");
            out += &format!("var {name} = darray[{}] ();\n", ty.name());
            self.darrays.push((name.clone(), ty));
            if self.chance(30) {
                let alias = self.fresh("gd");
                out += &format!("var {alias} = {name};\n");
                self.darrays.push((alias, ty));
            }
        }
        if self.chance(50) {
            let fields = [self.ty(), self.ty()];
            let len = 2 + self.pick(4);
            out += &format!(
                "struct S {{ a: {}; b: {}; }}\nvar sa : S ^ {len};\n",
                fields[0].name(),
                fields[1].name()
            );
            self.structs = Some(Structs { fields, len });
            if self.chance(60) {
                out += &self.pointer_procs(fields);
            }
        }
        for _ in 0..self.pick(5) {
            out += &self.function();
        }
        for _ in 0..1 + self.pick(10) {
            out += &self.stmt(2, 0);
        }
        let globals: Vec<String> = self
            .vars
            .iter()
            .filter(|v| v.name.starts_with('g'))
            .map(|v| v.name.clone())
            .chain(self.arrs.iter().map(|a| a.name.clone()))
            .chain(self.structs.iter().map(|_| "sa".to_string()))
            .chain(self.pointees.iter().cloned())
            .chain(self.darrays.iter().map(|(d, _)| d.clone()))
            .chain(std::iter::once("gt".to_string()))
            .collect();
        for g in globals {
            out += &format!("println$ {g};\n");
        }
        out
    }
}

/// Stdout, rendered diagnostics and exit status of `src` run with native code on or off, on a
/// thread with the interpreter thread's large stack.
/// One program at a time in this binary: the watchdog's interruption is process-wide.
static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// A generated program may not end: a recursive function whose result is
/// `if true then r (n - 1) else …` recurses forever, and as a tail call that is a loop (no
/// call-depth limit stops it). Generated programs end in milliseconds otherwise; one still
/// running after this long is interrupted, as by Ctrl-C (R0012), and not compared.
const BUDGET: std::time::Duration = std::time::Duration::from_secs(3);

/// Run `src` on a session of its own (native code or closures), interrupted after `BUDGET`.
fn run(src: &str, jit: bool) -> (String, String, i32) {
    let _turn = ONE_AT_A_TIME
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    tessera::interrupt::clear();
    let (done, finished) = std::sync::mpsc::channel::<()>();
    let watchdog = std::thread::spawn(move || {
        if finished.recv_timeout(BUDGET) == Err(std::sync::mpsc::RecvTimeoutError::Timeout) {
            tessera::interrupt::request();
        }
    });
    let result = run_once(src, jit);
    drop(done);
    watchdog.join().expect("the watchdog ends");
    tessera::interrupt::clear();
    result
}

fn run_once(src: &str, jit: bool) -> (String, String, i32) {
    let src = src.to_string();
    std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(move || {
            let out = SharedBuffer::default();
            let err = SharedBuffer::default();
            let settings = Settings::default()
                .with_stdout(out.clone())
                .with_stderr(err.clone())
                .with_threads(1)
                .with_jit(jit)
                .with_jit_all(true);
            let mut session = Session::new(settings);
            let status = match tessera::catch_internal_error(|| session.run_source(&src)) {
                Ok(Ok(())) => 0,
                Ok(Err(diags)) => {
                    session.flush();
                    let rendered = render(&diags, "prop.flx", &src, false);
                    err.clone()
                        .write_all(rendered.as_bytes())
                        .expect("a buffer");
                    exit_status(&diags)
                }
                Err(message) => {
                    session.flush();
                    let diag = tessera::internal_error_diagnostic(&message, &src);
                    let rendered = render(&[diag], "prop.flx", &src, false);
                    err.clone()
                        .write_all(rendered.as_bytes())
                        .expect("a buffer");
                    101
                }
            };
            drop(session);
            (out.text(), err.text(), status)
        })
        .expect("a thread")
        .join()
        .expect("the run returns")
}

fn check_program(src: &str) -> Result<(), TestCaseError> {
    let native = run(src, true);
    let closures = run(src, false);
    if native.1.contains("R0012") || closures.1.contains("R0012") {
        // Over the budget on either back end: nothing to compare.
        eprintln!(
            "over the budget (native status {}, closures status {}):\n{src}",
            native.2, closures.2
        );
        return Ok(());
    }
    prop_assert!(
        native.2 != 101 && closures.2 != 101,
        "internal error:\n{src}\n{}{}",
        native.1,
        closures.1
    );
    prop_assert!(
        native.2 != 1,
        "the generator wrote a program that does not check:\n{src}\n{}",
        native.1
    );
    prop_assert!(
        native == closures,
        "native code and closures differ on:\n{src}\nnative (status {}):\n{}{}\nclosures (status {}):\n{}{}",
        native.2,
        native.0,
        native.1,
        closures.2,
        closures.0,
        closures.1
    );
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn native_code_and_closures_agree(choices in prop::collection::vec(any::<u32>(), 0..2000)) {
        let src = Gen::new(&choices).program();
        check_program(&src)?;
    }
}

/// The generator's programs check and mostly run: a fixed sample of choice streams gives
/// programs that pass the checker, and some run to the end.
#[test]
fn generated_programs_check() {
    let (mut ran, mut pairs, mut structs, mut nested, mut boxed, mut text) = (0, 0, 0, 0, 0, 0);
    let mut pointers = 0;
    for seed in 0..40u32 {
        let choices: Vec<u32> = (0..600u32)
            .map(|i| {
                (i.wrapping_mul(2_654_435_761) ^ seed.wrapping_mul(40_503)).rotate_left(seed % 31)
            })
            .collect();
        let src = Gen::new(&choices).program();
        let (_, err, status) = run(&src, false);
        assert!(
            status == 0 || status == 3,
            "status {status} on:\n{src}\n{err}"
        );
        ran += usize::from(status == 0);
        pairs += usize::from(src.contains(" * ") && src.contains("return t"));
        structs += usize::from(src.contains("struct S") && src.contains("sa.("));
        nested += usize::from(src.lines().any(|l| l.starts_with("  var c")));
        boxed += usize::from(src.contains("endmatch") || src.contains("\"s\""));
        text += usize::from(src.contains(" += str ("));
        pointers += usize::from(src.contains("upd (&gs,") && src.contains("p <- "));
    }
    assert!(ran > 0, "no generated program ran to the end");
    assert!(
        pairs > 0,
        "no generated program has a function returning a pair"
    );
    assert!(structs > 0, "no generated program uses an array of structs");
    assert!(nested > 0, "no generated program has a nested function");
    assert!(
        boxed > 0,
        "no generated program matches an option or reads a tuple holding a string"
    );
    assert!(text > 0, "no generated program appends to a string");
    assert!(
        pointers > 0,
        "no generated program updates globals through pointer parameters"
    );
}
