//! Statements: declarations, definitions, control flow, loops, assignments and expression
//! statements, with the recovery that skips a failed statement; and the whole program.

use chumsky::prelude::*;

use super::expressions::Expressions;
use super::functions::{self, FunctionHeads};
use super::{coded_error, keyword, name, statement_list, token, BoxedParser, Rules};
use crate::syntax::ast::*;
use crate::syntax::desugar::{self, Bind, Target};
use crate::syntax::span::Spanned;
use crate::syntax::token::{Keyword, Token};

/// Defines `rules.stmt`, one statement (with recovery when the grammar recovers).
pub(super) fn define_statements<'t>(
    rules: &Rules<'t>,
    heads: &FunctionHeads<'t>,
    expressions: Expressions<'t>,
) {
    let Rules {
        type_expr,
        expr,
        stmts,
        recovering,
        ..
    } = rules;
    let mut stmt = rules.stmt.clone();
    let type_params = &heads.type_params;
    let Expressions {
        postfix,
        match_head,
        arm_patterns,
    } = expressions;

    // Statements.
    let semicolon = token(Token::Semicolon);

    let var_stmt = keyword(Keyword::Var)
        .ignore_then(name())
        .then(token(Token::Colon).ignore_then(type_expr.clone()).or_not())
        .then(token(Token::Assign).ignore_then(expr.clone()).or_not())
        .then_ignore(semicolon.clone())
        .validate(|((name, ty), init), extra, emitter| {
            if ty.is_none() && init.is_none() {
                emitter.emit(coded_error(
                    extra.span(),
                    "E0100",
                    "a `var` needs a type or an initialiser",
                    Some("write `var x : T;` or `var x = e;`"),
                ));
            }
            StmtKind::Var { name, ty, init }
        });
    // `val [m, k] x = e;` names the run-time sizes of the value.
    let size_names = name()
        .separated_by(token(Token::Comma))
        .at_least(1)
        .collect::<Vec<_>>()
        .delimited_by(token(Token::LBracket), token(Token::RBracket))
        .or_not()
        .map(Option::unwrap_or_default);
    let val_stmt = keyword(Keyword::Val)
        .ignore_then(size_names)
        .then(name())
        .then(token(Token::Colon).ignore_then(type_expr.clone()).or_not())
        .then_ignore(token(Token::Assign))
        .then(expr.clone())
        .then_ignore(semicolon.clone())
        .map(|(((sizes, name), ty), init)| StmtKind::Val {
            name,
            ty,
            init,
            sizes,
        });

    // `val a, b = e;` and `var a, b, c = e;`: names only, one per component.
    let name_list_stmt = keyword(Keyword::Val)
        .to(Bind::Val)
        .or(keyword(Keyword::Var).to(Bind::Var))
        .then(
            name()
                .separated_by(token(Token::Comma))
                .at_least(2)
                .collect::<Vec<_>>()
                .map_with(|names, extra| (names, extra.span())),
        )
        .then_ignore(token(Token::Assign))
        .then(expr.clone())
        .then_ignore(semicolon.clone())
        .map_with(|((bind, (names, names_span)), init), extra| {
            let parts = names
                .into_iter()
                .map(|name| {
                    if name.node == "_" {
                        Target::Ignore(name.span)
                    } else {
                        Target::Name {
                            bind,
                            name,
                            ty: None,
                        }
                    }
                })
                .collect();
            desugar::destructure(Target::Tuple(parts, names_span), init, extra.span())
        });

    // `def a, val b, var c : T, (d, _) = e;`.
    let type_annotation = token(Token::Colon).ignore_then(type_expr.clone()).or_not();
    let def_item = recursive(|item| {
        choice((
            keyword(Keyword::Val)
                .to(Bind::Val)
                .or(keyword(Keyword::Var).to(Bind::Var))
                .then(name())
                .then(type_annotation.clone())
                .map(|((bind, name), ty)| Target::Name { bind, name, ty }),
            name().then(type_annotation.clone()).map(|(name, ty)| {
                if name.node == "_" {
                    Target::Ignore(name.span)
                } else {
                    Target::Name {
                        bind: Bind::Assign,
                        name,
                        ty,
                    }
                }
            }),
            item.separated_by(token(Token::Comma))
                .at_least(1)
                .collect::<Vec<_>>()
                .delimited_by(token(Token::LParen), token(Token::RParen))
                .map_with(|parts, extra| Target::Tuple(parts, extra.span())),
        ))
    });
    let def_stmt = keyword(Keyword::Def)
        .ignore_then(
            def_item
                .separated_by(token(Token::Comma))
                .at_least(1)
                .collect::<Vec<_>>()
                .map_with(|mut parts, extra| {
                    if parts.len() == 1 {
                        parts.pop().expect("one target")
                    } else {
                        Target::Tuple(parts, extra.span())
                    }
                }),
        )
        .then_ignore(token(Token::Assign))
        .then(expr.clone())
        .then_ignore(semicolon.clone())
        .map_with(|(target, init), extra| desugar::destructure(target, init, extra.span()));

    let c_binding = functions::c_binding(rules);
    let matching_function =
        super::felix_forms::matching_function(rules, type_params.clone(), arm_patterns.clone());
    let fun_stmt = functions::definition(rules, heads);

    let typedef_stmt = keyword(Keyword::Typedef)
        .ignore_then(name())
        .then(type_params.clone().or_not())
        .then_ignore(token(Token::Assign))
        .then(type_expr.clone())
        .then_ignore(semicolon.clone())
        .map(|((name, params), ty)| StmtKind::Typedef {
            name,
            params: params.unwrap_or_default(),
            ty,
        });
    // `type K = new R [with Eq];` and `type K;`: `type` is not reserved, so it is
    // recognised here by position; `new` is reserved, so the first form is unambiguous.
    let type_word = select! { Token::Ident(word) if word == "type" => () };
    let new_type_stmt = type_word
        .ignore_then(name())
        .then(
            token(Token::Assign)
                .ignore_then(keyword(Keyword::Reserved("new")))
                .ignore_then(type_expr.clone())
                .then(
                    keyword(Keyword::With)
                        .ignore_then(
                            name()
                                .separated_by(token(Token::Comma))
                                .at_least(1)
                                .collect::<Vec<_>>(),
                        )
                        .or_not(),
                )
                .or_not(),
        )
        .then_ignore(semicolon.clone())
        .map(|(name, rest)| match rest {
            Some((repr, grants)) => StmtKind::NewType {
                name,
                repr: Some(repr),
                grants: grants.unwrap_or_default(),
            },
            None => StmtKind::NewType {
                name,
                repr: None,
                grants: Vec::new(),
            },
        });
    let struct_stmt = keyword(Keyword::Struct)
        .ignore_then(name())
        .then(type_params.clone().or_not())
        .then(
            name()
                .then_ignore(token(Token::Colon))
                .then(type_expr.clone())
                .then_ignore(semicolon.clone())
                .map(|(name, ty)| Param { name, ty })
                .repeated()
                .collect::<Vec<_>>()
                .delimited_by(token(Token::LBrace), token(Token::RBrace)),
        )
        .then_ignore(semicolon.clone().or_not())
        .map(|((name, params), fields)| StmtKind::Struct {
            name,
            params: params.unwrap_or_default(),
            fields,
        });
    let variant_stmt = keyword(Keyword::Variant)
        .ignore_then(name())
        .then(type_params.clone().or_not())
        .then_ignore(token(Token::Assign))
        .then_ignore(token(Token::Bar).or_not())
        .then(
            name()
                .then(keyword(Keyword::Of).ignore_then(type_expr.clone()).or_not())
                .separated_by(token(Token::Bar))
                .at_least(1)
                .collect::<Vec<_>>(),
        )
        .then_ignore(semicolon.clone())
        .map(|((name, params), ctors)| StmtKind::Variant {
            name,
            params: params.unwrap_or_default(),
            ctors,
        });

    let label_use = name().then_ignore(semicolon.clone());
    let break_stmt = keyword(Keyword::Break)
        .ignore_then(label_use.clone())
        .map(StmtKind::Break);
    let continue_stmt = keyword(Keyword::Continue)
        .ignore_then(label_use)
        .map(StmtKind::Continue);

    let return_stmt = keyword(Keyword::Return)
        .ignore_then(expr.clone().or_not())
        .then_ignore(semicolon.clone())
        .map(StmtKind::Return)
        .boxed();
    let return_body = return_stmt
        .clone()
        .map_with(|kind, extra| vec![Spanned::new(kind, extra.span())]);

    // `if` statements, including the E0101 form `if c then … endif`.
    let if_head = keyword(Keyword::If)
        .map_with(|_, extra| extra.span())
        .then(expr.clone())
        .boxed();
    let do_block = keyword(Keyword::Do)
        .ignore_then(stmts.clone())
        .then(
            keyword(Keyword::Elif)
                .ignore_then(expr.clone())
                .then(
                    keyword(Keyword::Do)
                        .ignore_then(stmts.clone())
                        .or(return_body.clone()),
                )
                .repeated()
                .collect::<Vec<_>>(),
        )
        .then(keyword(Keyword::Else).ignore_then(stmts.clone()).or_not())
        .then_ignore(keyword(Keyword::Done))
        .map(|((body, elifs), otherwise)| (body, elifs, otherwise));
    let if_tail = choice((
        do_block,
        keyword(Keyword::Perform)
            .ignore_then(stmt.clone())
            .map(|body| (vec![body], Vec::new(), None)),
        break_stmt
            .clone()
            .or(continue_stmt.clone())
            .map_with(|kind, extra| (vec![Spanned::new(kind, extra.span())], Vec::new(), None)),
        // `if c return;` and `if c return e;`.
        return_body.map(|body| (body, Vec::new(), None)),
    ));
    let if_stmt =
        if_head
            .clone()
            .then(if_tail)
            .map(|((_, condition), (body, elifs, otherwise))| {
                let mut branches = vec![(condition, body)];
                branches.extend(elifs);
                StmtKind::If {
                    branches,
                    otherwise,
                }
            });
    let if_then_stmt = if_head
        .then_ignore(keyword(Keyword::Then))
        .then_ignore(
            any()
                .and_is(keyword(Keyword::Endif).not())
                .repeated()
                .then(keyword(Keyword::Endif))
                .then(semicolon.clone().or_not()),
        )
        .validate(|(if_span, condition), _, emitter| {
            emitter.emit(coded_error(
                if_span,
                "E0101",
                "`if … then … endif` is an expression, not a statement",
                Some("as a statement, write `if c do … done` (or `if c perform stmt;`)"),
            ));
            StmtKind::IfThenStatement(condition)
        });

    // Assignment operators: `=`, `+=`, ….
    let assign_operator = choice((
        token(Token::Assign).to(AssignOp::Set),
        token(Token::PlusAssign).to(AssignOp::Add),
        token(Token::MinusAssign).to(AssignOp::Sub),
        token(Token::StarAssign).to(AssignOp::Mul),
        token(Token::SlashAssign).to(AssignOp::Div),
        token(Token::PercentAssign).to(AssignOp::Mod),
        token(Token::AmpAssign).to(AssignOp::BitAnd),
        token(Token::BarAssign).to(AssignOp::BitOr),
        token(Token::CaretAssign).to(AssignOp::BitXor),
        token(Token::ShiftLeftAssign).to(AssignOp::Shl),
        token(Token::ShiftRightAssign).to(AssignOp::Shr),
    ))
    .boxed();

    // Loops.
    let loop_stmt = recursive(|loop_stmt| {
        let body = choice((
            keyword(Keyword::Do)
                .ignore_then(stmts.clone())
                .then_ignore(keyword(Keyword::Done)),
            keyword(Keyword::Perform)
                .ignore_then(stmt.clone())
                .map(|body| vec![body]),
            loop_stmt.map(|body| vec![body]),
        ))
        .labelled("loop body")
        .boxed();
        let for_kind = choice((
            token(Token::DotDot)
                .ignore_then(
                    type_expr
                        .clone()
                        .delimited_by(token(Token::LBracket), token(Token::RBracket)),
                )
                .map(|ty| (ForKind::Type(ty), false)),
            expr.clone()
                .then(
                    choice((
                        token(Token::DotDotLess).to(0u8),
                        token(Token::DotDot).to(1u8),
                        keyword(Keyword::Upto).to(2u8),
                        keyword(Keyword::Downto).to(3u8),
                    ))
                    .then(expr.clone())
                    .or_not(),
                )
                .map(|(first, range)| match range {
                    None => (ForKind::Array(first), false),
                    Some((0, last)) => (ForKind::RangeExclusive(first, last), false),
                    Some((1, last)) => (ForKind::RangeInclusive(first, last), false),
                    Some((2, last)) => (
                        ForKind::Upto {
                            from: first,
                            to: last,
                            declare: false,
                        },
                        true,
                    ),
                    Some((_, last)) => (
                        ForKind::Downto {
                            from: first,
                            to: last,
                            declare: false,
                        },
                        true,
                    ),
                }),
        ));
        let for_loop = keyword(Keyword::For)
            .ignore_then(keyword(Keyword::Var).or_not().map(|var| var.is_some()))
            .then(name())
            .then_ignore(keyword(Keyword::In))
            .then(for_kind)
            .then(body.clone())
            .map(|(((declare, var), (mut kind, stepped)), body)| {
                if stepped {
                    if let ForKind::Upto { declare: flag, .. }
                    | ForKind::Downto { declare: flag, .. } = &mut kind
                    {
                        *flag = declare;
                    }
                }
                StmtKind::For {
                    label: None,
                    var,
                    kind,
                    body,
                }
            });
        let while_loop = keyword(Keyword::While)
            .ignore_then(expr.clone())
            .then(body.clone())
            .map(|(cond, body)| StmtKind::While {
                label: None,
                cond,
                body,
            });
        let until_loop = keyword(Keyword::Until)
            .ignore_then(expr.clone())
            .then(body.clone())
            .map(|(cond, body)| StmtKind::Until {
                label: None,
                cond,
                body,
            });
        let c_for = super::felix_forms::c_for(
            rules,
            postfix.clone(),
            assign_operator.clone(),
            body.clone(),
        );
        let repeat_loop = keyword(Keyword::Repeat)
            .ignore_then(body)
            .map(|body| StmtKind::Repeat { label: None, body });
        name()
            .then_ignore(token(Token::Colon))
            .or_not()
            .then(choice((
                c_for,
                for_loop,
                while_loop,
                until_loop,
                repeat_loop,
            )))
            .map_with(|(label, mut kind), extra| {
                if super::felix_forms::label_c_for(&mut kind, label.clone()) {
                    return Spanned::new(kind, extra.span());
                }
                match &mut kind {
                    StmtKind::For { label: slot, .. }
                    | StmtKind::While { label: slot, .. }
                    | StmtKind::Until { label: slot, .. }
                    | StmtKind::Repeat { label: slot, .. } => *slot = label,
                    _ => {}
                }
                Spanned::new(kind, extra.span())
            })
    })
    .boxed();

    let assert_stmt = keyword(Keyword::Assert)
        .ignore_then(expr.clone())
        .then_ignore(semicolon.clone())
        .map(StmtKind::Assert);
    let begin_stmt = keyword(Keyword::Begin)
        .ignore_then(stmts.clone())
        .then_ignore(keyword(Keyword::End))
        .then_ignore(semicolon.clone().or_not())
        .map(StmtKind::Block);
    let match_stmt = match_head
        .then(
            arm_patterns
                .then(stmts.clone())
                .map_with(|((patterns, guard), body), extra| MatchArm {
                    patterns,
                    guard,
                    body,
                    span: extra.span(),
                })
                .repeated()
                .at_least(1)
                .collect::<Vec<_>>(),
        )
        .then_ignore(keyword(Keyword::Endmatch))
        .then_ignore(semicolon.clone().or_not())
        .map(|(scrutinee, arms)| StmtKind::Match(scrutinee, arms));

    let increment = token(Token::PlusPlus)
        .to(true)
        .or(token(Token::MinusMinus).to(false))
        .then(postfix.clone())
        .then_ignore(semicolon.clone())
        .map(|(up, target)| StmtKind::Incr { target, up });
    // `None` for `:=`.
    let assignment = assign_operator
        .map(Some)
        .or(token(Token::ColonAssign).to(None));
    let expression_stmt = expr
        .clone()
        .then(
            assignment
                .then(expr.clone())
                .map(|(op, value)| (Some(op), value))
                // `p <- v;` through any pointer: parsed with the expression statement
                // so that the target is parsed once.
                .or(token(Token::LeftArrow)
                    .ignore_then(expr.clone())
                    .map(|value| (None, value)))
                .or_not(),
        )
        .then_ignore(semicolon.clone())
        .validate(|(target, assignment), extra, emitter| {
            let (op, value) = match assignment {
                None => return StmtKind::Expr(target),
                // `&x.i <- v;`: a store into a component of a variable.
                Some((None, value)) => {
                    return match target.node {
                        ExprKind::Addr(PtrMode::ReadWrite, target) => StmtKind::Store {
                            target: *target,
                            value,
                        },
                        _ => StmtKind::StoreAt {
                            pointer: target,
                            value,
                        },
                    }
                }
                Some((Some(op), value)) => (op, value),
            };
            let (bind, what) = match op {
                Some(AssignOp::Set) if matches!(target.node, ExprKind::Tuple(_)) => {
                    (Bind::Assign, "a tuple assignment")
                }
                Some(op) => return StmtKind::Assign { target, op, value },
                None => (Bind::Val, "`:=`"),
            };
            match desugar::target_of_expr(&target, bind) {
                Ok(t) => desugar::destructure(t, value, extra.span()),
                Err(span) => {
                    emitter.emit(coded_error(
                        span,
                        "E0100",
                        &format!(
                            "the left side of {what} is a name or a parenthesised list of names"
                        ),
                        Some("write `a, (b, c) := e;` or `a, b = e;`"),
                    ));
                    StmtKind::Error
                }
            }
        });
    // `if c then { … } else { … } endif;`: an expression statement, tried before the
    // E0101 form.
    let if_expression_stmt = keyword(Keyword::If)
        .rewind()
        .ignore_then(expr.clone())
        .then_ignore(semicolon.clone())
        .map(StmtKind::Expr);

    let simple_stmt = choice((
        name_list_stmt,
        def_stmt,
        var_stmt,
        val_stmt,
        typedef_stmt,
        new_type_stmt,
        struct_stmt,
        variant_stmt,
        break_stmt,
        continue_stmt,
        return_stmt,
        assert_stmt,
        begin_stmt,
        if_stmt,
        if_expression_stmt,
        if_then_stmt,
        increment,
    ))
    .map_with(|kind, extra| Spanned::new(kind, extra.span()))
    .boxed();
    let late_stmt = choice((match_stmt, expression_stmt))
        .map_with(|kind, extra| Spanned::new(kind, extra.span()))
        .boxed();

    // Recovery: skip a failed statement up to and including its `;`, never past the end of the
    // enclosing block (a `}` or a keyword that closes a statement list). A stray `)` or `]` is
    // skipped with the statement it ends.
    let stop_tokens = [
        Token::Semicolon,
        Token::RBrace,
        Token::Bar,
        Token::Keyword(Keyword::Done),
        Token::Keyword(Keyword::End),
        Token::Keyword(Keyword::Endmatch),
        Token::Keyword(Keyword::Elif),
        Token::Keyword(Keyword::Else),
    ];
    let delimited_group = choice((
        nested_delimiters(
            Token::LParen,
            Token::RParen,
            [
                (Token::LBracket, Token::RBracket),
                (Token::LBrace, Token::RBrace),
            ],
            |_| (),
        ),
        nested_delimiters(
            Token::LBracket,
            Token::RBracket,
            [
                (Token::LParen, Token::RParen),
                (Token::LBrace, Token::RBrace),
            ],
            |_| (),
        ),
        nested_delimiters(
            Token::LBrace,
            Token::RBrace,
            [
                (Token::LParen, Token::RParen),
                (Token::LBracket, Token::RBracket),
            ],
            |_| (),
        ),
    ));
    // Memoized: an unclosed opener makes `nested_delimiters` scan to the end of the input, and
    // nested failing blocks would otherwise rescan it from every position at every level.
    let skip_unit = delimited_group
        .memoized()
        .or(none_of(stop_tokens).ignored());
    let skip_statement = skip_unit
        .repeated()
        .at_least(1)
        .then(semicolon.clone().or_not())
        .ignored()
        .or(semicolon.clone().ignored())
        .map_with(|_, extra| Spanned::new(StmtKind::Error, extra.span()));

    // A lone `;` (as in `done;`) is an empty statement where one statement is expected (a list
    // of statements skips them). It is tried first: no other statement starts with `;`.
    let empty_stmt = semicolon
        .clone()
        .map_with(|_, extra| Spanned::new(StmtKind::Block(Vec::new()), extra.span()));
    let module_stmt = super::modules::module_statements(rules, heads)
        .map_with(|kind, extra| Spanned::new(kind, extra.span()));
    let statement = choice((
        empty_stmt,
        module_stmt,
        c_binding,
        matching_function,
        fun_stmt,
        super::felix_forms::goto_forms(),
        loop_stmt,
        simple_stmt,
        late_stmt,
    ))
    .labelled("statement")
    // Memoized (failures): after an unclosed `for … do` or `{` fails at the end of the input
    // and recovery skips a little, the statements inside are tried again from the same
    // positions; without the memo, nested unclosed blocks cost exponential time.
    .memoized();
    if *recovering {
        stmt.define(statement.recover_with(via_parser(skip_statement)).boxed());
    } else {
        stmt.define(statement.boxed());
    }
}

/// A whole program: statements up to the end of input. A recovering grammar reports and skips
/// a stray closing token at the top level.
pub(super) fn program<'t>(rules: &Rules<'t>) -> BoxedParser<'t, Vec<Stmt>> {
    let stmt = &rules.stmt;
    // At the top level a stray closing token is reported and skipped.
    let stray_token = any().validate(|found: Token, extra, emitter| {
        emitter.emit(coded_error(
            extra.span(),
            "E0100",
            &format!("unexpected {found}: expected a statement"),
            None,
        ));
        Spanned::new(StmtKind::Error, extra.span())
    });
    if rules.recovering {
        statement_list(stmt.clone().or(stray_token))
            .then_ignore(end())
            .boxed()
    } else {
        statement_list(stmt.clone()).then_ignore(end()).boxed()
    }
}
