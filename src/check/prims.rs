//! How the checker applies the primitive table (`core::prims`): an entry's type schemes
//! (written in the language's own type syntax, resolved by `check::scheme`: kind-checked,
//! instantiated for inference, matched to choose an overload, printed by `:type`), the named
//! rules of the entries whose arguments' shape matters (`get (a, i)`, `endl` or `endl f`), and
//! the side conditions the IR validator checks (`check::validate` checks every kernel in the
//! IR against the schemes of the entries that own it, so a rule cannot produce what its
//! scheme does not say).

use crate::check::build::{error_expr, mk, Arg};
use crate::check::error::CheckError;
use crate::check::library as lib;
use crate::check::scheme::{match_type, Binds, Class, Scheme};
use crate::check::traits::Behaviour;
use crate::check::{error_type, Checker};
use crate::core::ir::{self, IndexMode, Prim};
use crate::core::prims::{self, Rule, Side, Typing, PRIMS};
#[cfg(test)]
use crate::core::prims::{PrimDef, Section};
use crate::syntax::span::Span;
use crate::types::ty::{Kind, Type};

/// What a coercion entry produces in the IR.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Coercion {
    /// `ExprKind::Coerce` of this kind.
    Kind(ir::CoerceKind),
    /// The checked conversion kernel `Prim::Convert` (between integer types).
    Convert,
}

/// Apply a named rule to the arguments of the primitive `name`.
fn apply_rule(
    c: &mut Checker,
    name: &str,
    rule: Rule,
    args: &mut Vec<Arg>,
    span: Span,
) -> ir::Expr {
    match rule {
        Rule::Reveal => reveal_rule(c, args, span),
        Rule::Endl => endl_rule(c, name, args, span),
        Rule::Get => get_rule(c, name, args, span),
        Rule::UnsafeGet => lib::unsafe_get_rule(c, name, args, span),
        Rule::Min => lib::minmax_rule(c, name, args, span, false),
        Rule::Max => lib::minmax_rule(c, name, args, span, true),
        Rule::Bits(op) => lib::bit_named_rule(c, name, args, span, op),
    }
}

/// A side condition's test of a kernel, its operand types and its result type.
fn side_holds(side: Side, prim: &Prim, args: &[Type], result: &Type) -> bool {
    match side {
        Side::Transpose => transpose_side(prim, args, result),
        Side::Convertible => {
            crate::check::traits::convertible(&args[0], result)
                != crate::check::traits::Conversion::None
        }
        Side::Widens => matches!((&args[0], result),
            (Type::Int(x), Type::Int(y)) if crate::check::unify_widens_to(*x, *y)),
        Side::Upcast => upcast_side(prim, args, result),
        Side::Permute => permute_side(prim, args, result),
    }
}

/// The type the checker gives a transpose is the one the isomorphism engine derives the
/// evaluator's permutation from; a shape with type variables is decided at its instance.
fn transpose_side(_: &Prim, args: &[Type], result: &Type) -> bool {
    match crate::types::iso::transpose_permutation(&args[0]) {
        Ok(permutation) => permutation.target_type() == result,
        Err(crate::types::iso::NotTransposable::UnknownExtent(_)) => true,
        Err(_) => false,
    }
}

/// A record subtype, a struct built from a record, or a pointer to a weaker mode.
fn upcast_side(_: &Prim, args: &[Type], result: &Type) -> bool {
    crate::types::subtype::is_subtype(&args[0], result)
        || crate::types::subtype::record_builds_struct(&args[0], result)
}

/// Operand `k` is field `order[k]` of the result record, every field once.
fn permute_side(prim: &Prim, args: &[Type], result: &Type) -> bool {
    let Prim::Permute(order) = prim else {
        return false;
    };
    let fields: Vec<&Type> = match result {
        Type::Record(_, types) => types.iter().collect(),
        _ => Vec::new(),
    };
    let mut seen = vec![false; fields.len()];
    order.len() == fields.len()
        && order.len() == args.len()
        && order.iter().zip(args).all(|(&p, a)| {
            let p = p as usize;
            p < fields.len() && !std::mem::replace(&mut seen[p], true) && *fields[p] == *a
        })
}

/// Check a kernel in the IR against the entries that own it: one of their schemes must
/// match the operand and result types (with its classes, functors and side condition), and
/// an entry that selects kernels by representation must select this one. The IR validator
/// calls this for every `Prim` it meets.
pub(crate) fn check_kernel(
    c: &mut Checker,
    prim: &Prim,
    args: &[Type],
    result: &Type,
) -> Result<(), String> {
    let owners: Vec<usize> = prims::owners(prim).collect();
    if owners.is_empty() {
        return Err(format!(
            "kernel {prim:?} has no entry in the primitive table"
        ));
    }
    let show = || {
        let args: Vec<String> = args.iter().map(|t| format!("`{t}`")).collect();
        format!("{prim:?} on ({}) giving `{result}`", args.join(", "))
    };
    for index in owners {
        let def = &PRIMS[index];
        let schemes = c.prim_schemes(index)?;
        let side = def
            .side
            .is_none_or(|side| side_holds(side, prim, args, result));
        // An internal kernel with a side condition (a record permutation of any number of
        // operands) is decided by it.
        let decided_by_side = matches!(def.typing, Typing::Internal) && def.side.is_some();
        // Felix's list form of an entry giving an array (`list_unless_array`): the list of
        // the elements of an array its schemes give.
        let as_array = match result {
            Type::Nominal(n) if def.list_unless_array && crate::check::darray::is_list(result) => n
                .instance
                .as_ref()
                .and_then(|(_, a)| a.first())
                .map(|element| Type::array(element.clone(), Type::Unitsum(2))),
            _ => None,
        };
        let result = as_array.as_ref().unwrap_or(result);
        let fits = decided_by_side || schemes.iter().any(|s| scheme_fits(s, args, result));
        if !(fits && side) {
            continue;
        }
        let selected = match def.selector() {
            Some(select) if !args.iter().any(Type::has_var) => select(args, result),
            _ => None,
        };
        match selected {
            // A distributed operand's chunked kernel stands for the one the types select
            // (the IR is erased of distribution, `check/distributed.rs`).
            Some(k) if k != *prim && !matches!(prim, Prim::Dist(_)) => {
                return Err(format!(
                    "{}: `{}` selects {k:?} for these types",
                    show(),
                    def.name
                ))
            }
            _ => return Ok(()),
        }
    }
    Err(format!("{}: no declared type admits it", show()))
}

/// A scheme's parameters as `n` operands: its curried groups, or the components of one tupled
/// parameter.
fn operand_params(params: Vec<Type>, n: usize) -> Option<Vec<Type>> {
    if params.len() == n {
        Some(params)
    } else if n == 0 && params == [Type::UNIT] {
        Some(Vec::new())
    } else {
        match params.as_slice() {
            [Type::Tuple(ps)] if ps.len() == n => Some(ps.to_vec()),
            [Type::Array(e, i)] if **i == Type::Unitsum(n as u64) => Some(vec![(**e).clone(); n]),
            _ => None,
        }
    }
}

/// Does the scheme admit these operand types (its parameters flattened: curried groups, or the
/// components of one tupled parameter) and this result?
pub(crate) fn scheme_fits(scheme: &Scheme, args: &[Type], result: &Type) -> bool {
    let (params, ret) = scheme.params_and_result();
    let Some(params) = operand_params(params, args.len()) else {
        return false;
    };
    let mut binds = Binds::new();
    params
        .iter()
        .zip(args)
        .all(|(p, a)| match_type(p, a, &mut binds))
        && scheme.apply_wheres(&mut binds)
        && match_type(&ret, result, &mut binds)
        && scheme.violated(&binds).is_none()
}

/// An operator applied to operands of known types, typed by its entry.
pub(crate) struct OperatorInstance {
    /// The result type the entry's scheme gives.
    pub(crate) result: Type,
    /// The behaviours the scheme's variables ask of their instances, for the checker to ask
    /// (it records what a generic body asks of its type parameters).
    pub(crate) asks: Vec<(Type, Behaviour)>,
    /// The kernel the entry selects for the operand types.
    pub(crate) kernel: Option<Prim>,
}

/// The instance of operator `symbol` at these operand types: the first of its entry's schemes
/// whose parameters, kinds and classes admit them; failing that, the first that admits them
/// but for a behaviour (whose lack the checker then reports). `None` when no scheme takes the
/// operands.
pub(crate) fn operator_instance(
    c: &mut Checker,
    symbol: &str,
    operands: &[Type],
) -> Option<OperatorInstance> {
    let index = prims::operator_index(symbol)?;
    let schemes = c.prim_schemes(index).ok()?;
    let instance = |scheme: &Scheme, behaviours: bool| {
        let (params, ret) = scheme.params_and_result();
        let params = operand_params(params, operands.len())?;
        let mut binds = Binds::new();
        let matched = params
            .iter()
            .zip(operands)
            .all(|(p, a)| match_type(p, a, &mut binds))
            && scheme.apply_wheres(&mut binds);
        if !matched {
            return None;
        }
        let mut asks = Vec::new();
        let mut vars = Vec::new();
        let mut types = Vec::new();
        for v in &scheme.vars {
            let t = binds.get(&v.var.id)?.clone();
            let kind_ok = t.has_meta()
                || match v.var.kind {
                    Kind::Type => true,
                    Kind::Unitsum => matches!(t, Type::Unitsum(_)),
                    Kind::CompactLinear => crate::types::kind::is_compact(&t),
                };
            if !kind_ok {
                return None;
            }
            match v.class {
                Some(Class::Behaviour(b)) => {
                    // A type parameter's behaviour is decided at the instances.
                    let decided = !t.has_meta() && !t.has_var();
                    if behaviours && decided && !Class::Behaviour(b).admits(&t) {
                        return None;
                    }
                    asks.push((t.clone(), b));
                }
                Some(class) if !t.has_meta() && !class.admits(&t) => return None,
                _ => {}
            }
            vars.push(v.var.clone());
            types.push(t);
        }
        Some((ret.subst_vars(&vars, &types), asks))
    };
    let (result, asks) = schemes
        .iter()
        .find_map(|s| instance(s, true))
        .or_else(|| schemes.iter().find_map(|s| instance(s, false)))?;
    let kernel = PRIMS[index]
        .selector()
        .and_then(|select| select(operands, &result));
    Some(OperatorInstance {
        result,
        asks,
        kernel,
    })
}

/// The result type of operator `symbol` when every scheme of its entry fixes the same one
/// (a comparison's `bool`), whatever the operands.
pub(crate) fn operator_fixed_result(c: &mut Checker, symbol: &str) -> Option<Type> {
    let schemes = c.prim_schemes(prims::operator_index(symbol)?).ok()?;
    let results: Vec<Type> = schemes.iter().map(|s| s.params_and_result().1).collect();
    let first = results.first()?;
    (!first.has_var() && results.iter().all(|r| r == first)).then(|| first.clone())
}

/// The kernel operator `symbol` selects for these operand types.
pub(crate) fn operator_kernel(symbol: &str, args: &[Type], result: &Type) -> Option<Prim> {
    prims::operator(symbol)?.selector()?(args, result)
}

/// The operand types of an entry's instance as its kernel receives them: the curried groups,
/// or the components of the one tupled operand of an operator or a `tupled` entry (a
/// homogeneous tuple is an array over a unitsum: of two for an operator, of any size from two
/// for a `tupled` entry).
#[cfg(test)]
pub(crate) fn flat_params(def: &PrimDef, ty: &Type) -> (Vec<Type>, Type) {
    let (mut params, t) = crate::check::scheme::curried(ty);
    if (def.section == Section::Operator || def.tupled) && params.len() == 1 {
        match &params[0] {
            Type::Tuple(ps) => params = ps.to_vec(),
            Type::Array(e, i) => match **i {
                Type::Unitsum(n) if n == 2 || (def.tupled && n > 2) => {
                    params = vec![(**e).clone(); n as usize]
                }
                _ => {}
            },
            _ => {}
        }
    }
    (params, t)
}

/// Apply the primitive `name` to its arguments; extra arguments apply to its result.
pub(crate) fn apply_prim(c: &mut Checker, name: &str, mut args: Vec<Arg>, span: Span) -> ir::Expr {
    let index = prims::function_index(name).expect("is_prim was checked");
    let def = &PRIMS[index];
    // An alias is applied as its entry, under its own name and call form.
    let (applied, form) = match def.aliases.iter().find(|a| a.name == name) {
        Some(alias) => (alias.name, alias.form),
        None => (def.name, def.form),
    };
    if args.len() < def.arity {
        c.type_error(
            span,
            format!(
                "`{name}` takes {} argument{}; apply it to all of them (or wrap it in a lambda)",
                def.arity,
                if def.arity == 1 { "" } else { "s" }
            ),
        );
        return error_expr(span);
    }
    let arity = optional_arity(c, index, &mut args).unwrap_or(def.arity);
    let rest = args.split_off(arity);
    let r = if c.secret.distributed {
        crate::check::distributed::apply_distributed(c, applied, &mut args, span, |c, args| {
            apply_typed(c, index, applied, args, span)
        })
    } else {
        None
    };
    let r = match r {
        Some(r) => r,
        None => apply_typed(c, index, applied, &mut args, span),
    };
    if def.effect {
        c.note_effect();
    }
    match c.over_application(name, form, arity, true, &r, rest, span) {
        Ok(error) => error,
        Err(rest) => c.call_rest(r, rest, span),
    }
}

/// An entry applied to its own arguments, by its schemes or its named rule.
fn apply_typed(
    c: &mut Checker,
    index: usize,
    applied: &'static str,
    args: &mut Vec<Arg>,
    span: Span,
) -> ir::Expr {
    let def = &PRIMS[index];
    match def.typing {
        Typing::Scheme(select) => apply_scheme(c, index, applied, select, args, span),
        // `reveal` sees visibility itself.
        Typing::Rule(rule) if c.secret.written && rule != Rule::Reveal => {
            rule_with_visibility(c, applied, rule, args, span)
        }
        Typing::Rule(rule) => apply_rule(c, applied, rule, args, span),
        Typing::Operator(_) | Typing::TypeApplied | Typing::Internal | Typing::Coerce(_) => {
            unreachable!("functions only")
        }
    }
}

/// A rule applied in a session that uses `secret`: the rule sees the operands' data types
/// and its result is narrowed, except that a secret position (`get (a, i)` with a secret `i`)
/// is an error.
fn rule_with_visibility(
    c: &mut Checker,
    name: &str,
    rule: Rule,
    args: &mut Vec<Arg>,
    span: Span,
) -> ir::Expr {
    let mut secret = false;
    for i in 0..args.len() {
        let mut e = take(c, args, i, None);
        let t = c.zonk(&e.ty);
        if t.has_secret() {
            if rule.indexes() {
                if let Some(position) = t.tuple_components().and_then(|cs| cs.get(1).cloned()) {
                    if position.has_secret() {
                        c.secret_error(
                            e.span,
                            crate::check::error::SecretUse::Shape,
                            format!("an array index (the position given to `{name}`)"),
                        );
                        return error_expr(span);
                    }
                }
                args[i] = Arg::Checked(e);
                continue;
            }
            secret = true;
            e.ty = t;
            crate::check::secret::strip(&mut e);
        }
        args[i] = Arg::Checked(e);
    }
    let mut r = apply_rule(c, name, rule, args, span);
    if secret && r.ty != error_type() {
        r.ty = c.zonk(&r.ty).narrow(true);
    }
    r
}

/// `reveal e`: the value, its type made public. The IR is the value itself (the
/// evaluator never sees visibility).
fn reveal_rule(c: &mut Checker, args: &mut [Arg], span: Span) -> ir::Expr {
    let mut e = take(c, args, 0, None);
    e.ty = c.zonk(&e.ty).erase_secret();
    e.span = span;
    e
}

/// A second overload with one argument group more (`mem r a e`, `sort cmp a`) applies when
/// the call has that many arguments and, for an entry whose first parameter is then a
/// function, the first argument is one.
fn optional_arity(c: &mut Checker, index: usize, args: &mut [Arg]) -> Option<usize> {
    let def = &PRIMS[index];
    let schemes = c.prim_schemes(index).ok()?;
    let longest = schemes
        .iter()
        .map(|s| s.params_and_result().0.len())
        .max()?;
    let wider = longest.max(def.arity);
    if longest <= def.arity || args.len() < wider {
        return None;
    }
    // The longer overload of `sort` starts with a function; take it only when the first
    // argument is one.
    let first_is_function = schemes.iter().any(|s| {
        let (ps, _) = s.params_and_result();
        ps.len() == wider && matches!(ps[0], Type::Fun(..))
    });
    if first_is_function && def.arity + 1 == wider && def.arity == 1 {
        let f = take(c, args, 0, None);
        let function = matches!(f.ty, Type::Fun(..));
        args[0] = Arg::Checked(f);
        return function.then_some(wider);
    }
    Some(wider)
}

/// Apply an entry by its schemes: choose the overload whose parameters match the arguments'
/// types (arguments that are not functions are checked first, so a lambda is checked against
/// known parameter types), unify, check the variables' classes, and select the kernel by the
/// representation of the argument types.
fn apply_scheme(
    c: &mut Checker,
    index: usize,
    name: &'static str,
    kernel: prims::Select,
    args: &mut [Arg],
    span: Span,
) -> ir::Expr {
    let def = &PRIMS[index];
    let schemes = match c.prim_schemes(index) {
        Ok(s) => s,
        Err(e) => {
            c.type_error(span, format!("internal: {e}"));
            return error_expr(span);
        }
    };
    let n = args.len();
    let shapes: Vec<(Vec<Type>, Type)> = schemes.iter().map(Scheme::params_and_result).collect();
    let candidates: Vec<usize> = (0..schemes.len())
        .filter(|&k| shapes[k].0.len() == n)
        .collect();
    // Is parameter i a function in every candidate overload?
    let function_param = |i: usize| {
        candidates
            .iter()
            .all(|&k| matches!(shapes[k].0[i], Type::Fun(..)))
    };
    let mut checked: Vec<Option<ir::Expr>> = (0..n).map(|_| None).collect();
    let order: Vec<usize> = (0..n)
        .filter(|&i| !function_param(i))
        .chain((0..n).filter(|&i| function_param(i)))
        .collect();
    // Choose the overload from the arguments that are not functions.
    let chosen = if candidates.len() == 1 {
        Some(candidates[0])
    } else {
        for &i in order.iter().filter(|&&i| !function_param(i)) {
            checked[i] = Some(take(c, args, i, None));
        }
        candidates.iter().copied().find(|&k| {
            let mut binds = Binds::new();
            order.iter().filter(|&&i| !function_param(i)).all(|&i| {
                // The overload is chosen by data type (a secret is narrowed after).
                let actual = c
                    .zonk(&checked[i].as_ref().expect("checked").ty)
                    .erase_secret();
                match_type(&shapes[k].0[i], &actual, &mut binds)
            }) && schemes[k].violated(&binds).is_none()
        })
    };
    let no_overload = |c: &mut Checker, found: Vec<&ir::Expr>| {
        if found.iter().any(|e| e.ty == error_type()) {
            return error_expr(span);
        }
        let found: Vec<String> = found.iter().map(|e| c.zonk(&e.ty).to_string()).collect();
        let types: Vec<String> = schemes.iter().map(|s| format!("`{s}`")).collect();
        c.error(CheckError::NoOverload {
            span,
            message: format!("no `{}` for `{}`", name, found.join("`, `")),
            behaviour: "invocable",
            help: Some(format!(
                "`{}` has the type{} {}",
                name,
                if types.len() == 1 { "" } else { "s" },
                types.join(" and ")
            )),
        });
        error_expr(span)
    };
    let Some(k) = chosen else {
        return no_overload(c, checked.iter().flatten().collect());
    };
    let scheme = &schemes[k];
    let (ty, metas) = c.instantiate_scheme(scheme);
    let (params, result) = crate::check::scheme::curried(&ty);
    // Visibility: an application with a secret operand has a secret result
    // (`narrow`). A primitive that takes a function (`map`, `fold_left`, …) gets every data
    // operand narrowed to the join first, so the function is checked with secret parameters
    // and its result is secret; any other primitive is applied to the operands' data types and
    // its result narrowed. A primitive that prints asks its class, which a secret lacks.
    let higher_order = (0..n).any(function_param);
    let prints = scheme.vars.iter().any(|v| {
        v.class
            == Some(crate::check::scheme::Class::Behaviour(
                crate::check::traits::Behaviour::Printable,
            ))
    });
    let mut secret = false;
    // Only a session that has written `secret` checks the data operands ahead (with no
    // expected type); any other keeps the order of `order` and pays nothing.
    if higher_order && c.secret.written {
        for &i in order.iter().filter(|&&i| !function_param(i)) {
            if checked[i].is_none() {
                checked[i] = Some(take(c, args, i, None));
            }
        }
        secret = checked.iter().flatten().any(|e| c.zonk(&e.ty).has_secret());
        if secret {
            for e in checked.iter_mut().flatten() {
                e.ty = Type::secret(c.zonk(&e.ty));
            }
        }
    }
    let mut exprs: Vec<Option<ir::Expr>> = (0..n).map(|_| None).collect();
    for &i in &order {
        let expected = c.zonk(&params[i]);
        let mut e = match checked[i].take() {
            Some(e) => e,
            None => take(c, args, i, Some(&expected)),
        };
        if e.ty == error_type() {
            return error_expr(span);
        }
        if !higher_order && !prints {
            let t = c.zonk(&e.ty);
            if t.has_secret() {
                if def.measures_shape && t.erase_secret() == Type::String {
                    c.secret_error(
                        e.span,
                        crate::check::error::SecretUse::Shape,
                        format!(
                            "the string of `{name}` (a length is a shape, and shapes are public)"
                        ),
                    );
                    return error_expr(span);
                }
                // The length of an array is its shape, which is public.
                secret |= !def.measures_shape;
                e.ty = t;
                crate::check::secret::strip(&mut e);
            }
        }
        // An argument that is not a function and does not fit the overload's shape (a
        // compact array given to `sort`) is no overload, not a mismatch with half-inferred
        // parameter types.
        let mut binds = Binds::new();
        if !function_param(i)
            && !match_type(&shapes[k].0[i], &c.zonk(&e.ty).erase_secret(), &mut binds)
        {
            return no_overload(c, vec![&e]);
        }
        let context = format!("the argument of `{}`", name);
        let e = c.coerce_to(e, &expected, &context);
        if e.ty == error_type() {
            return error_expr(span);
        }
        exprs[i] = Some(e);
    }
    // The variables defined by type functors (`where K = N `+ M`): applied to the solved
    // arguments (recorded for `:type -v`), or once inference solves them.
    for w in &scheme.wheres {
        let position = |id: u32| scheme.vars.iter().position(|v| v.var.id == id);
        let operands: Vec<Type> = w
            .args
            .iter()
            .filter_map(|a| position(a.id).map(|i| metas[i].clone()))
            .collect();
        let Some(defined) = position(w.var.id) else {
            continue;
        };
        if operands.len() != w.args.len() {
            continue;
        }
        let pending = PendingFunctor {
            span,
            name,
            scheme: scheme.to_string(),
            functor: w.functor,
            operands,
            defined: metas[defined].clone(),
        };
        if pending.operands.iter().any(|t| c.zonk(t).has_meta()) {
            c.unit.pending_functors.push(pending);
        } else if apply_pending_functor(c, &pending) == Some(false) {
            return error_expr(span);
        }
    }
    // The classes of the variables.
    for (v, m) in scheme.vars.iter().zip(&metas) {
        let t = c.zonk(m);
        if t.has_meta() || crate::check::contains_error(&t) {
            continue;
        }
        if let Some(class) = v.class {
            // A behaviour is asked through the checker, which records what a generic body
            // asks of its type parameters (traits.rs).
            let admitted = match class {
                crate::check::scheme::Class::Behaviour(b) => c.require(&t, b).is_ok(),
                _ => class.admits(&t),
            };
            if !admitted {
                if t.has_secret() {
                    // The secret operand is what does not print.
                    let at = exprs
                        .iter()
                        .flatten()
                        .find(|e| c.zonk(&e.ty).has_secret())
                        .map_or(span, |e| e.span);
                    if let crate::check::scheme::Class::Behaviour(b) = class {
                        if let Err(lacking) = crate::check::traits::check(&t, b) {
                            c.error(lacking.error(at));
                            return error_expr(span);
                        }
                    }
                }
                let e = exprs.iter().flatten().next().expect("an argument");
                if class
                    == crate::check::scheme::Class::Behaviour(
                        crate::check::traits::Behaviour::Printable,
                    )
                {
                    // The variable's instance is what does not print (`&int` in
                    // `fprint (cstdout, p)`), with the reason and its help.
                    require_printable_type(c, &t, span);
                } else {
                    c.error(CheckError::NoOverload {
                        span,
                        message: format!(
                            "no `{}` for `{}`: {}",
                            name,
                            c.zonk(&e.ty),
                            class.lacking(&t)
                        ),
                        behaviour: class.behaviour(),
                        help: Some(format!("`{}` has the type `{scheme}`", name)),
                    });
                }
                return error_expr(span);
            }
        }
    }
    let mut exprs: Vec<ir::Expr> = exprs
        .into_iter()
        .map(|e| e.expect("every argument"))
        .collect();
    // The components of a tupled argument are the kernel's operands.
    let mut taken_apart = None;
    if def.tupled && exprs.len() == 1 && is_product(&shapes[k].0[0]) {
        let (operands, binding) = spread(c, exprs.pop().expect("one argument"));
        exprs = operands;
        taken_apart = binding;
    }
    // Kernels are chosen by the data types (the evaluator never sees visibility).
    let arg_tys: Vec<Type> = exprs.iter().map(|e| c.zonk(&e.ty).erase_secret()).collect();
    if def.fresh_sizes {
        c.fresh_sizes_of(scheme, &metas, name);
    }
    let result = c.zonk(&result);
    let (result, kernel_result) = if higher_order {
        let data = result.erase_secret();
        (result, data)
    } else {
        (result.clone().narrow(secret), result)
    };
    // A result type that only the context can give (a loader's array type) must be solved
    // by the end of the unit.
    if result.has_meta() && !arg_tys.iter().any(|t| t.has_meta()) {
        c.unit
            .expected_results
            .push((span, def.form, result.clone()));
    }
    match kernel(&arg_tys, &kernel_result) {
        Some(prim) => {
            let applied = mk(ir::ExprKind::Prim(prim, exprs), result.clone(), span);
            match taken_apart {
                None => applied,
                Some((value, pattern)) => mk(
                    ir::ExprKind::Match(
                        Box::new(value),
                        vec![ir::Arm {
                            patterns: vec![pattern],
                            guard: None,
                            body: applied,
                        }],
                    ),
                    result,
                    span,
                ),
            }
        }
        None if arg_tys.iter().chain([&result]).any(|t| t.has_meta()) => {
            // Not yet known (a recursive result): the kernel cannot be chosen.
            c.error(CheckError::CannotInfer {
                span,
                message: format!("cannot infer the type of the argument of `{}`", name),
            });
            error_expr(span)
        }
        None => {
            c.type_error(
                span,
                format!(
                    "internal: `{}` has no kernel for `{}`",
                    name,
                    arg_tys
                        .iter()
                        .map(|t| t.to_string())
                        .collect::<Vec<_>>()
                        .join("`, `")
                ),
            );
            error_expr(span)
        }
    }
}

/// A `where` clause of a scheme applied at `span`: `defined = functor(operands)`.
#[derive(Clone, Debug)]
pub(crate) struct PendingFunctor {
    span: Span,
    name: &'static str,
    scheme: String,
    functor: crate::check::functor::Functor,
    operands: Vec<Type>,
    defined: Type,
}

/// Apply a `where` clause whose operands are known: unify the defined variable with the
/// functor's result and record the derivation for `:type -v`. `None` while an operand is
/// unknown; `Some(false)` when the functor does not take the operands (reported).
pub(crate) fn apply_pending_functor(c: &mut Checker, p: &PendingFunctor) -> Option<bool> {
    let operands: Vec<Type> = p.operands.iter().map(|t| c.zonk(t)).collect();
    if operands.iter().any(Type::has_meta) {
        return None;
    }
    match p.functor.apply(&operands) {
        Some(t) if c.unify(&p.defined, &t) => {
            c.unit.derivations.push((p.span, p.functor.show(&operands)));
            Some(true)
        }
        _ => {
            c.error(CheckError::NoOverload {
                span: p.span,
                message: format!(
                    "no `{}` here: `{}` does not apply",
                    p.name,
                    p.functor.show(&operands)
                ),
                behaviour: "invocable",
                help: Some(format!("`{}` has the type `{}`", p.name, p.scheme)),
            });
            Some(false)
        }
    }
}

/// A tuple type, or an array over a unitsum of at least two (a homogeneous tuple's normal
/// form).
fn is_product(t: &Type) -> bool {
    match t {
        Type::Tuple(_) => true,
        Type::Array(_, i) => matches!(**i, Type::Unitsum(n) if n >= 2),
        _ => false,
    }
}

/// A value and the pattern binding its components, when it is not a tuple literal.
type TakenApart = Option<(ir::Expr, ir::Pattern)>;

/// The components of a tuple-typed argument: a literal's items, or fresh locals bound by a
/// pattern to the value, which is evaluated once.
fn spread(c: &mut Checker, e: ir::Expr) -> (Vec<ir::Expr>, TakenApart) {
    use crate::check::env::{VarBinding, VarLoc, VarType};
    let t = c.zonk(&e.ty);
    let components: Vec<Type> = match &t {
        Type::Tuple(ps) => ps.to_vec(),
        Type::Array(elem, i) => match **i {
            Type::Unitsum(n) => vec![(**elem).clone(); n as usize],
            _ => Vec::new(),
        },
        _ => Vec::new(),
    };
    if let ir::ExprKind::Tuple(items) | ir::ExprKind::Array(items) = &e.kind {
        if items.len() == components.len() {
            return (items.clone(), None);
        }
    }
    let mut operands = Vec::new();
    let mut patterns = Vec::new();
    for ct in components {
        let frame = c.frame;
        let slot = c.frames[frame].alloc();
        let vb = VarBinding {
            loc: VarLoc {
                frame,
                slot,
                cell: false,
            },
            ty: VarType::Known(ct.clone()),
            mutable: false,
            span: e.span,
            decl: None,
            scope: c.scope,
        };
        let place = c.place_of(&vb);
        patterns.push(ir::Pattern {
            kind: ir::PatternKind::Bind(place),
            ty: ct.clone(),
            span: e.span,
        });
        operands.push(mk(c.var_access(&vb), ct, e.span));
    }
    let pattern = ir::Pattern {
        kind: ir::PatternKind::Tuple(patterns),
        ty: t,
        span: e.span,
    };
    (operands, Some((e, pattern)))
}

pub(crate) fn take(
    c: &mut Checker,
    args: &mut [Arg],
    i: usize,
    expected: Option<&Type>,
) -> ir::Expr {
    let a = std::mem::replace(&mut args[i], Arg::Checked(error_expr(Span::default())));
    let e = c.arg_expr(a, expected);
    let t = c.zonk(&e.ty);
    ir::Expr { ty: t, ..e }
}

/// E0301 when values of the argument's type do not print (pointers).
pub(crate) fn require_printable(c: &mut Checker, x: &ir::Expr, span: Span) {
    let t = c.zonk(&x.ty);
    require_printable_type(c, &t, span);
}

fn require_printable_type(c: &mut Checker, t: &Type, span: Span) {
    if c.opaque_lacks(t, crate::check::traits::Behaviour::Printable, span) {
        return;
    }
    if let Err(lacking) = c.require(t, crate::check::traits::Behaviour::Printable) {
        c.error(lacking.error(span));
    }
}

fn endl_rule(c: &mut Checker, name: &str, args: &mut [Arg], span: Span) -> ir::Expr {
    let x = take(c, args, 0, None);
    if c.is_ofile(&x.ty) {
        c.note_effect();
        return mk(ir::ExprKind::Prim(Prim::FEndl, vec![x]), Type::VOID, span);
    }
    c.coerce_to(x, &Type::UNIT, &format!("the argument of `{name}`"));
    c.note_effect();
    mk(ir::ExprKind::Prim(Prim::Endl, vec![]), Type::VOID, span)
}

fn not_array(c: &mut Checker, span: Span, what: &str, t: &Type) -> ir::Expr {
    if *t != error_type() {
        c.error(CheckError::NoOverload {
            span,
            message: format!("`{what}` needs an array, found `{t}`"),
            behaviour: "invocable",
            help: None,
        });
    }
    error_expr(span)
}

/// Split an array type into element and index.
fn array_parts(t: &Type) -> Option<(Type, Type)> {
    match t {
        Type::Array(e, i) => Some(((**e).clone(), (**i).clone())),
        _ => None,
    }
}

fn get_rule(c: &mut Checker, name: &str, args: &mut [Arg], span: Span) -> ir::Expr {
    let x = take(c, args, 0, None);
    let parts = match &x.kind {
        ir::ExprKind::Tuple(items) if items.len() == 2 => {
            Some((items[0].clone(), items[1].clone()))
        }
        _ => None,
    };
    let Some((a, i)) = parts else {
        c.type_error(
            span,
            format!("`{name}` takes `(a, i)`: an array and an integer position"),
        );
        return error_expr(span);
    };
    let Some((elem, _)) = array_parts(&a.ty) else {
        let t = a.ty.clone();
        return not_array(c, span, name, &t);
    };
    if !matches!(i.ty, Type::Int(_)) {
        c.type_error(
            i.span,
            format!("the position must be an integer, found `{}`", i.ty),
        );
        return error_expr(span);
    }
    mk(
        ir::ExprKind::Index {
            array: Box::new(a),
            index: Box::new(i),
            mode: IndexMode::Linear,
        },
        elem,
        span,
    )
}

/// `apply_prim` where the application's expected type is known: an entry whose Felix form
/// gives a list (`list_unless_array`) gives the array only where an array is expected, and
/// the prelude's `list[T]` of its elements anywhere else, which its kernel builds when its
/// result type is not an array.
pub(crate) fn apply_prim_expecting(
    c: &mut Checker,
    n: &str,
    name_span: Span,
    args: Vec<Arg>,
    span: Span,
    expected: Option<&Type>,
) -> ir::Expr {
    let mut r = apply_prim(c, n, args, span);
    let wants_array = expected.is_some_and(|t| matches!(c.zonk(t), Type::Array(..)));
    let gives_list = prims::function_index(n).is_some_and(|i| PRIMS[i].list_unless_array);
    let Type::Array(element, _) = c.zonk(&r.ty) else {
        return r;
    };
    if !gives_list || wants_array {
        return r;
    }
    use crate::syntax::{ast::TypeExprKind, span::Spanned};
    let element = Spanned::new(TypeExprKind::Name(element.to_string()), name_span);
    let list = Spanned::new(
        TypeExprKind::Apply(Spanned::new("list".into(), name_span), vec![element]),
        name_span,
    );
    r.ty = c.type_expr(&list);
    r
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An entry says it calls its function arguments exactly when one of its schemes has a
    /// parameter of a function type.
    #[test]
    fn entries_that_call_take_functions() {
        let mut c = Checker::new();
        let (stmts, errors) = crate::syntax::parse_program(crate::PRELUDE);
        assert!(errors.is_empty());
        c.check_program(&stmts).expect("prelude checks");
        for (index, def) in PRIMS.iter().enumerate() {
            let schemes = c.prim_schemes(index).expect("schemes resolve");
            let takes_function = schemes.iter().any(|s| {
                let (params, _) = s.params_and_result();
                params.iter().any(|p| matches!(p, Type::Fun(..)))
            });
            assert_eq!(def.calls, takes_function, "`{}`", def.name);
        }
    }
}
