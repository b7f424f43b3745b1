//! A test of the primitive table across the checker and the evaluator: it sits above both,
//! so neither imports the other.

use crate::core::ir::ExprKind;
use crate::eval::test_ir::{expr, expr_unit, prim, run_on};
use crate::eval::Machine;
use crate::types::ty::{IntTy, Type};

/// Every entry of the primitive table that selects its kernel by representation has a kernel
/// for every instance its schemes admit (over a pool of representative types), the validator
/// accepts that kernel at those types, and the evaluator compiles and runs it without an
/// internal error (operands are zeros; runtime faults such as a division by zero are fine).
#[test]
fn every_admitted_instance_of_the_table_has_a_kernel() {
    use crate::check::prims;
    use crate::core::prims::PRIMS;
    let mut checker = crate::check::Checker::new();
    let (stmts, errors) = crate::syntax::parse_program(crate::PRELUDE);
    assert!(errors.is_empty());
    checker.check_program(&stmts).expect("prelude checks");
    let pool = vec![
        Type::INT,
        Type::Int(IntTy::I8),
        Type::Int(IntTy::U8),
        Type::Int(IntTy::UInt),
        Type::Double,
        Type::Float,
        Type::Natural,
        Type::String,
        Type::Char,
        Type::BOOL,
        Type::Unitsum(3),
        Type::cproduct(vec![Type::Unitsum(2), Type::Unitsum(3)]),
        Type::array(Type::INT, Type::Unitsum(3)),
    ];
    let mut instances = 0;
    for (index, def) in PRIMS.iter().enumerate() {
        let Some(select) = def.selector() else {
            continue;
        };
        let schemes = checker.prim_schemes(index).expect("schemes resolve");
        for scheme in schemes.iter() {
            let admitted = |v: &crate::check::scheme::SchemeVar, t: &Type| {
                let mut binds = crate::check::scheme::Binds::new();
                binds.insert(v.var.id, t.clone());
                let one = crate::check::scheme::Scheme {
                    vars: vec![v.clone()],
                    ty: Type::UNIT,
                    wheres: vec![],
                    written: String::new(),
                };
                one.violated(&binds).is_none()
            };
            let firsts: Vec<Option<Type>> = scheme
                .vars
                .iter()
                .map(|v| pool.iter().find(|t| admitted(v, t)).cloned())
                .collect();
            for (i, v) in scheme.vars.iter().enumerate() {
                for t in pool.iter().filter(|t| admitted(v, t)) {
                    let mut binds = crate::check::scheme::Binds::new();
                    for (j, w) in scheme.vars.iter().enumerate() {
                        let chosen = if i == j {
                            Some(t.clone())
                        } else {
                            firsts[j].clone()
                        };
                        if let Some(c) = chosen {
                            if !scheme.wheres.iter().any(|x| x.var.id == w.var.id) {
                                binds.insert(w.var.id, c);
                            }
                        }
                    }
                    if !scheme.apply_wheres(&mut binds) || scheme.violated(&binds).is_some() {
                        continue;
                    }
                    let vars: Vec<_> = scheme.vars.iter().map(|v| v.var.clone()).collect();
                    let Some(args): Option<Vec<Type>> =
                        vars.iter().map(|v| binds.get(&v.id).cloned()).collect()
                    else {
                        continue;
                    };
                    let ty = scheme.ty.subst_vars(&vars, &args);
                    let (params, result) = prims::flat_params(def, &ty);
                    // The first overload whose parameters match is the one applied.
                    let earlier = schemes
                        .iter()
                        .take_while(|s| !std::ptr::eq(*s, scheme))
                        .any(|s| {
                            let (ps, _) = prims::flat_params(def, &s.ty);
                            let mut b = crate::check::scheme::Binds::new();
                            ps.len() == params.len()
                                && ps
                                    .iter()
                                    .zip(&params)
                                    .all(|(p, a)| crate::check::scheme::match_type(p, a, &mut b))
                                && s.violated(&b).is_none()
                        });
                    if earlier {
                        continue;
                    }
                    let kernel = select(&params, &result).unwrap_or_else(|| {
                        panic!("`{}` has no kernel for {params:?} -> {result}", def.name)
                    });
                    prims::check_kernel(&mut checker, &kernel, &params, &result)
                        .unwrap_or_else(|e| panic!("`{}`: {e}", def.name));
                    assert_eq!(
                        crate::core::prims::operand_count(&kernel),
                        Some(params.len()),
                        "the operands of {kernel:?}"
                    );
                    instances += 1;
                    if params
                        .iter()
                        .any(|p| matches!(p, Type::Fun(..) | Type::Nominal(_)))
                    {
                        continue;
                    }
                    let zeros = params
                        .iter()
                        .map(|p| expr(ExprKind::Zero, p.clone()))
                        .collect();
                    let e = prim(kernel.clone(), zeros, result.clone());
                    let (outcome, _) = run_on(&mut Machine::new(), &expr_unit(e));
                    if let Err(d) = outcome {
                        assert_ne!(
                            d.code,
                            crate::eval::error::INTERNAL,
                            "`{}` {kernel:?}: {}",
                            def.name,
                            d.message
                        );
                    }
                }
            }
        }
    }
    assert!(instances > 100, "only {instances} instances checked");
}
