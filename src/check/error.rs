//! Static errors found by the checker, as values with named fields. They become
//! `Diagnostic`s (code, message, labelled span, help) only at the edge of the checker.

use crate::diag::{Diagnostic, Stage};
use crate::syntax::span::Span;

#[derive(Clone, Debug, PartialEq)]
pub enum CheckError {
    /// E0100: an expression nested too deeply to check safely.
    TooDeep { span: Span, limit: u32 },
    /// E0101: `if … then … endif` used as a statement.
    IfThenStatement { span: Span },
    /// E0201
    UndefinedName {
        name: String,
        span: Span,
        /// What the name was expected to be ("value", "type", "label").
        what: &'static str,
        hint: Option<String>,
    },
    /// E0201: a variable read in its own initialiser (`val x = x + 1;` with no outer `x`);
    /// `def` is the variable's definition.
    SelfReference { name: String, span: Span, def: Span },
    /// E0202
    Duplicate {
        name: String,
        span: Span,
        previous: Span,
    },
    /// E0301: a type mismatch; `expected` and `found` are printed types.
    Mismatch {
        span: Span,
        expected: String,
        found: String,
        context: String,
        help: Option<String>,
    },
    /// E0301: no overload / no primitive accepts these operand types; `behaviour` names the
    /// trait that failed ("arithmetic", "ordered", "invocable", …).
    NoOverload {
        span: Span,
        message: String,
        behaviour: &'static str,
        help: Option<String>,
    },
    /// E0301: a function applied to the wrong number of arguments: `label` says
    /// how many were given, `help` the call form that fits.
    Arity {
        span: Span,
        message: String,
        label: String,
        help: String,
    },
    /// E0301: anything else about types (a message).
    Type {
        span: Span,
        message: String,
        help: Option<String>,
    },
    /// E0302
    CannotInfer { span: Span, message: String },
    /// E0304: a function with a result whose body can end without `return`; `span` is the
    /// body's end (its closing brace).
    MissingReturn {
        span: Span,
        name: String,
        ret: String,
    },
    /// E0401: a non-compact array index (or a compact operator over a non-compact type).
    NotCompact {
        span: Span,
        ty: String,
        context: &'static str,
        hint: Option<String>,
    },
    /// E0401: a type argument whose kind is not the one its parameter declares:
    /// `grid[int]` for `typedef grid[N:COMPACTLINEAR] = …`.
    KindMismatch {
        span: Span,
        ty: String,
        kind: &'static str,
        param: String,
        of: String,
        needed: &'static str,
    },
    /// E0402: `` `k:n `` with k >= n.
    UnitsumRange { span: Span, k: u128, n: String },
    /// E0403: literal projection out of range.
    ProjectionRange {
        span: Span,
        index: u128,
        ty: String,
        count: String,
    },
    /// E0404: `caseno` of a non-sum.
    CasenoNotSum { span: Span, ty: String },
    /// E0500: `:>>` between types that are not layout-identical.
    NotIsomorphic {
        span: Span,
        from: String,
        to: String,
        detail: String,
    },
    /// E0501: `:>> int` of a non-compact value.
    EncodeNotCompact { span: Span, ty: String },
    /// E0502: compact `:>>` with different sizes.
    CompactSizeMismatch {
        span: Span,
        from: String,
        from_size: String,
        to: String,
        to_size: String,
    },
    /// E0601
    LiteralRange {
        span: Span,
        value: String,
        ty: String,
    },
    /// E0602
    LiteralSuffix { span: Span, suffix: String },
    /// E0603: a format string `f"…"` with a conversion it does not support; `span` is the
    /// literal's.
    FormatConversion { span: Span, message: String },
    /// E0701
    NotAssignable { span: Span, what: String },
    /// E0701: an assignment to a `val`, declared at `declared`.
    AssignToVal {
        span: Span,
        name: String,
        declared: Span,
    },
    /// E0702: `&` of something that is not a variable.
    NotAddressable { span: Span, what: String },
    /// E0303: a value of the opaque type `ty` used where its hidden structure would be
    /// needed; `what` says why ("it has no components to project").
    OpaqueUse {
        span: Span,
        ty: String,
        what: String,
    },
    /// E0303: an opaque type's declaration is wrong (no representation, a bad grant).
    OpaqueDecl { span: Span, message: String },
    /// E0800–E0806: a secret value used where only a public one may go. `what`
    /// names the value (`` `s` `` or "this value"), `origin` is where it became secret (the
    /// declaration of the secret variable it comes from), `detail` completes the sentence.
    Secret {
        span: Span,
        use_: SecretUse,
        what: String,
        origin: Option<(String, Span)>,
        detail: String,
        /// A further place and what happens there (where a function's body reveals it).
        also: Option<(Span, String)>,
    },
    /// Another error with a second place that explains it (where the value came from).
    Noted {
        error: Box<CheckError>,
        at: Span,
        label: String,
    },
    /// E0810: a distributed array given to an operation that needs the whole array (printing,
    /// one element, a function of plain arrays): `operation` names it, `ty` is the array's.
    NeedsWhole {
        span: Span,
        operation: String,
        ty: String,
    },
    /// E0810: a loop reading distributed arrays at its position (so run by each process over
    /// its own positions) whose body has another effect.
    OwnedLoop { span: Span, problem: String },
    /// E0810: a variable declared in the body of such a loop, read after it.
    OwnedLoopVar {
        span: Span,
        name: String,
        loop_span: Span,
    },
    /// E0811: `distributed` written on a type that is not an array.
    NotDistributable { span: Span, ty: String },
}

impl CheckError {
    pub fn code(&self) -> &'static str {
        match self {
            CheckError::Noted { error, .. } => error.code(),
            CheckError::TooDeep { .. } => "E0100",
            CheckError::IfThenStatement { .. } => "E0101",
            CheckError::UndefinedName { .. } | CheckError::SelfReference { .. } => "E0201",
            CheckError::Duplicate { .. } => "E0202",
            CheckError::Mismatch { .. }
            | CheckError::NoOverload { .. }
            | CheckError::Arity { .. }
            | CheckError::Type { .. } => "E0301",
            CheckError::CannotInfer { .. } => "E0302",
            CheckError::OpaqueUse { .. } | CheckError::OpaqueDecl { .. } => "E0303",
            CheckError::MissingReturn { .. } => "E0304",
            CheckError::Secret { use_, .. } => use_.code(),
            CheckError::NeedsWhole { .. }
            | CheckError::OwnedLoop { .. }
            | CheckError::OwnedLoopVar { .. } => "E0810",
            CheckError::NotDistributable { .. } => "E0811",
            CheckError::NotCompact { .. } | CheckError::KindMismatch { .. } => "E0401",
            CheckError::UnitsumRange { .. } => "E0402",
            CheckError::ProjectionRange { .. } => "E0403",
            CheckError::CasenoNotSum { .. } => "E0404",
            CheckError::NotIsomorphic { .. } => "E0500",
            CheckError::EncodeNotCompact { .. } => "E0501",
            CheckError::CompactSizeMismatch { .. } => "E0502",
            CheckError::LiteralRange { .. } => "E0601",
            CheckError::LiteralSuffix { .. } => "E0602",
            CheckError::FormatConversion { .. } => "E0603",
            CheckError::NotAssignable { .. } | CheckError::AssignToVal { .. } => "E0701",
            CheckError::NotAddressable { .. } => "E0702",
        }
    }

    pub fn span(&self) -> Span {
        match self {
            CheckError::Noted { error, .. } => error.span(),
            CheckError::IfThenStatement { span }
            | CheckError::TooDeep { span, .. }
            | CheckError::UndefinedName { span, .. }
            | CheckError::SelfReference { span, .. }
            | CheckError::Duplicate { span, .. }
            | CheckError::Mismatch { span, .. }
            | CheckError::NoOverload { span, .. }
            | CheckError::Arity { span, .. }
            | CheckError::Type { span, .. }
            | CheckError::CannotInfer { span, .. }
            | CheckError::MissingReturn { span, .. }
            | CheckError::NotCompact { span, .. }
            | CheckError::KindMismatch { span, .. }
            | CheckError::UnitsumRange { span, .. }
            | CheckError::ProjectionRange { span, .. }
            | CheckError::CasenoNotSum { span, .. }
            | CheckError::NotIsomorphic { span, .. }
            | CheckError::EncodeNotCompact { span, .. }
            | CheckError::CompactSizeMismatch { span, .. }
            | CheckError::LiteralRange { span, .. }
            | CheckError::LiteralSuffix { span, .. }
            | CheckError::FormatConversion { span, .. }
            | CheckError::NotAssignable { span, .. }
            | CheckError::AssignToVal { span, .. }
            | CheckError::NotAddressable { span, .. }
            | CheckError::OpaqueUse { span, .. }
            | CheckError::OpaqueDecl { span, .. }
            | CheckError::Secret { span, .. }
            | CheckError::NeedsWhole { span, .. }
            | CheckError::OwnedLoop { span, .. }
            | CheckError::OwnedLoopVar { span, .. }
            | CheckError::NotDistributable { span, .. } => *span,
        }
    }

    pub fn to_diagnostic(&self) -> Diagnostic {
        let d = |message: String| Diagnostic::new(Stage::Static, self.code(), message, self.span());
        match self {
            CheckError::Noted { error, at, label } => error.to_diagnostic().with_secondary(*at, label.clone()),
            CheckError::TooDeep { limit, .. } => d(format!("this expression is nested more than {limit} levels deep"))
                .with_label("nested too deeply")
                .with_help("split it into several statements with intermediate variables"),
            CheckError::IfThenStatement { .. } => {
                d("`if … then … endif` is an expression, not a statement".into())
                    .with_label("used as a statement here")
                    .with_help("write `if c do … done` (or `if c perform stmt;`) for a statement")
            }
            CheckError::UndefinedName { name, what, hint, .. } => {
                let mut diag = d(format!("undefined {what} `{name}`")).with_label("not defined in this scope");
                if let Some(h) = hint.clone().or_else(|| crate::check::suggest::well_known_hint(name)) {
                    diag = diag.with_help(h);
                }
                diag
            }
            CheckError::SelfReference { name, def, .. } => d(format!("`{name}` is used in its own initialiser"))
                .with_label(format!("`{name}` has no value yet here"))
                .with_secondary(*def, format!("`{name}` is defined here"))
                .with_help(format!(
                    "a variable cannot be read while its initial value is computed, and no outer `{name}` exists: compute the value from other names, or declare `{name}` before this definition"
                )),
            CheckError::Duplicate { name, previous, .. } => d(format!("duplicate definition of `{name}`"))
                .with_label("defined again here")
                .with_secondary(*previous, "first defined here"),
            CheckError::Mismatch {
                expected,
                found,
                context,
                help,
                ..
            } => {
                let diag = d(format!("type mismatch in {context}: expected `{expected}`, found `{found}`"))
                    .with_label(format!("this is `{found}`"));
                match help {
                    Some(h) => diag.with_help(h.clone()),
                    None => diag,
                }
            }
            CheckError::NoOverload {
                message,
                behaviour,
                help,
                ..
            } => {
                let label = match *behaviour {
                    "equality" => "no equality here".to_string(),
                    "invocable" => "cannot be applied here".to_string(),
                    b => format!("not {b} here"),
                };
                let mut diag = d(message.clone()).with_label(label);
                if let Some(h) = help {
                    diag = diag.with_help(h.clone());
                }
                diag
            }
            CheckError::Arity {
                message,
                label,
                help,
                ..
            } => d(message.clone()).with_label(label.clone()).with_help(help.clone()),
            CheckError::Type { message, help, .. } => {
                let mut diag = d(message.clone()).with_label("here");
                if let Some(h) = help {
                    diag = diag.with_help(h.clone());
                }
                diag
            }
            CheckError::CannotInfer { message, .. } => d(message.clone()).with_label("here"),
            CheckError::MissingReturn { name, ret, .. } => {
                d(format!("{name} returns `{ret}`, but its body can end without `return`"))
                    .with_label("the body can reach its end here")
                    .with_help(format!("end every path with `return e;` (a value of type `{ret}`)"))
            }
            CheckError::NotCompact { ty, context, hint, .. } => {
                let mut diag = d(format!("{context} must be compact linear, but `{ty}` is not"))
                    .with_label("not compact linear")
                    .with_note("compact linear types are unitsums and `\\*`, `\\+`, `\\^` of compact linear types; plain `*`, `+`, `^` never are");
                if let Some(h) = hint {
                    diag = diag.with_help(format!("write `{h}`"));
                }
                diag
            }
            CheckError::KindMismatch { ty, kind, param, of, needed, .. } => d(format!(
                "the type parameter `{param}` of `{of}` needs kind {needed}, but `{ty}` has kind {kind}"
            ))
            .with_label(format!("kind {kind}, not {needed}"))
            .with_note("kinds are ordered UNITSUM < COMPACTLINEAR < TYPE: a type of a smaller kind fits a larger one, never the other way"),
            CheckError::UnitsumRange { k, n, .. } => {
                d(format!("`{k}` is not a value of the unitsum {n}: its values are 0 .. {n}-1"))
                    .with_label("out of range")
            }
            CheckError::ProjectionRange { index, ty, count, .. } => d(format!(
                "projection {index} out of range for `{ty}` ({count} components)"
            ))
            .with_label("no such component"),
            CheckError::CasenoNotSum { ty, .. } => {
                d(format!("`caseno` needs a sum, a unitsum or bool, but this is `{ty}`")).with_label("not a sum")
            }
            CheckError::NotIsomorphic { from, to, detail, .. } => {
                d(format!("`{from}` cannot be reshaped to `{to}`: not layout-identical"))
                    .with_label("not an isomorphism")
                    .with_note(detail.clone())
                    .with_help("`:>>` only reinterprets the same elements in the same order; data-moving isomorphisms (like transposing) are explicit operations")
            }
            CheckError::EncodeNotCompact { ty, .. } => d(format!(
                "`:>>` to an integer needs a compact linear value, but this is `{ty}`"
            ))
            .with_label("not compact linear")
            .with_help("build compact values with `\\,` (compact tuple) instead of `,`"),
            CheckError::CompactSizeMismatch {
                from,
                from_size,
                to,
                to_size,
                ..
            } => d(format!(
                "cannot reinterpret `{from}` ({from_size} values) as `{to}` ({to_size} values)"
            ))
            .with_label("sizes differ"),
            CheckError::LiteralRange { value, ty, .. } => {
                d(format!("integer literal {value} does not fit in `{ty}`")).with_label("out of range")
            }
            CheckError::LiteralSuffix { suffix, .. } => {
                d(format!("unsupported integer literal suffix `{suffix}`")).with_label("unsupported suffix")
            }
            CheckError::FormatConversion { message, .. } => d(format!("unsupported format string: {message}"))
                .with_label("in this format string")
                .with_help("the conversions are `d i c u o x X`, with the lengths `l ll z hh h`, `e E f F g G a A` and `S` (a string), with the flags `+ - space 0`, a width and a precision; write `%%` for a `%`"),
            CheckError::AssignToVal { name, declared, .. } => d(format!("cannot assign to `{name}`, which is a `val`"))
                .with_label("assigned here")
                .with_secondary(*declared, format!("`{name}` is declared with `val` here"))
                .with_help(format!("a `val` never changes: declare it with `var {name} = …` to assign to it")),
            CheckError::NotAssignable { what, .. } => d(format!("cannot assign to {what}"))
                .with_label("not a variable")
                .with_help("only variables can be assigned; store into a component with `&x.i <- v;`"),
            CheckError::OpaqueUse { ty, what, .. } => d(format!("`{ty}` is an opaque type: {what}"))
                .with_label(format!("a value of the opaque type `{ty}`"))
                .with_help(format!("only the scope that declares `{ty}` sees its representation (through `_make_{ty}` and `_repr_`); elsewhere use the functions that scope defines")),
            CheckError::OpaqueDecl { message, .. } => d(message.clone()).with_label("in this opaque type declaration"),
            CheckError::Secret { use_, what, origin, detail, also, .. } => {
                let label = match use_ {
                    SecretUse::Qualifier => "not data of its own".to_string(),
                    _ => format!("{what} is secret"),
                };
                let mut diag = d(use_.message(detail)).with_label(label);
                if let Some((name, span)) = origin {
                    diag = diag.with_secondary(*span, format!("`{name}` is secret from here"));
                }
                if let Some((span, label)) = also {
                    diag = diag.with_secondary(*span, label.clone());
                }
                diag.with_help(use_.help())
            }
            CheckError::NeedsWhole { operation, ty, .. } => d(format!("{operation} needs the whole array, but this is the distributed `{ty}`"))
                .with_label("held in chunks, one per process")
                .with_help("gather it to every process with `collect a` first (a copy of the whole array on each), or keep to the operations that run on chunks: `map`, `map2`, `\\sum`, `\\prod`, `minimum`, `maximum`, `mean`, `dot`, `fold_left`, `reduce`, `scan_left`, `cumsum`, `cumprod`, `fold_right`, `scan_right`, `len`, `filter`, `transpose`, `rev`, `rev_map`, `sort`, `save_npy`, `load_npy`, a reshape `:>>`, a loop `for i in ..[I]` reading it at `i` or at `(i :>> int)` plus or minus a constant"),
            CheckError::OwnedLoop { problem, .. } => d(format!("this loop reads or stores distributed arrays at its position, so each process runs it over its own positions only; but it {problem}"))
                .with_label("an effect beyond the loop's own positions")
                .with_help("keep the loop's body to stores into distributed arrays at the loop's position and to variables it declares itself; move the rest out of the loop, or `collect` the arrays first"),
            CheckError::OwnedLoopVar { name, loop_span, .. } => d(format!("`{name}` is declared in a loop that each process runs over its own positions only, so after the loop each process holds the value of its own last position"))
                .with_label("read after the loop")
                .with_secondary(*loop_span, "the loop reads or stores distributed arrays at its position")
                .with_help("use the value inside the loop, or store it into a distributed array at the loop's position and read that"),
            CheckError::NotDistributable { ty, .. } => d(format!("`distributed` qualifies an array, not `{ty}`"))
                .with_label("nothing to split")
                .with_help("write it before an array type: `distributed double ^ 1000`"),
            CheckError::NotAddressable { what, .. } => d(format!("cannot take the address of {what}"))
                .with_label("not a variable")
                .with_help("only a `var` (or, with `&<`, a `val`) has an address; a value parameter can be declared `var` to make it one"),
        }
    }
}

/// Where a secret may not go without `reveal`; each is an error code of its own.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SecretUse {
    /// E0800: `secret` written on a type that holds no data of its own (a function, a
    /// pointer), or `public` on a secret type.
    Qualifier,
    /// E0801: printed, or turned into a string (`str`, `repr`, a format).
    Print,
    /// E0802: the condition of `if`, `while`, `until`, a conditional expression, a `match`.
    Branch,
    /// E0803: a shape or a position: a loop bound, an array index, a projection, a decode to a
    /// compact type, the length of a string.
    Shape,
    /// E0804: stored into a public variable, array element or pointer target.
    Store,
    /// E0805: returned from a function whose result is public.
    Return,
    /// E0806: passed to a function that does not keep it secret (a public parameter of a
    /// function value, or a function whose body would reveal it).
    Call,
}

impl SecretUse {
    pub fn code(self) -> &'static str {
        match self {
            SecretUse::Qualifier => "E0800",
            SecretUse::Print => "E0801",
            SecretUse::Branch => "E0802",
            SecretUse::Shape => "E0803",
            SecretUse::Store => "E0804",
            SecretUse::Return => "E0805",
            SecretUse::Call => "E0806",
        }
    }

    /// The message, completed by the error's detail.
    pub fn message(self, detail: &str) -> String {
        match self {
            SecretUse::Qualifier => detail.to_string(),
            SecretUse::Print => format!("a secret value cannot be {detail}"),
            SecretUse::Branch => format!("a secret value cannot decide {detail}"),
            SecretUse::Shape => format!("a secret value cannot be used as {detail}"),
            SecretUse::Store => format!("a secret value cannot be stored into {detail}"),
            SecretUse::Return => format!("a secret value cannot be returned from {detail}"),
            SecretUse::Call => format!("a secret value cannot be passed to {detail}"),
        }
    }

    pub fn help(self) -> String {
        match self {
            SecretUse::Qualifier => "`secret` qualifies data: scalars, and (distributed to their elements) tuples, arrays and records".into(),
            SecretUse::Print | SecretUse::Shape => "write `reveal e` where the program means to make the value public".into(),
            SecretUse::Branch => "a branch on a secret would reveal it through what runs; compute both sides and combine them arithmetically, or `reveal` the condition".into(),
            SecretUse::Store => "declare the destination `secret`, or `reveal` the value".into(),
            SecretUse::Return => "declare the result `secret`, or `reveal` the value".into(),
            SecretUse::Call => "declare the parameter `secret`, or call a named function whose body keeps the value secret".into(),
        }
    }
}

impl CheckError {
    /// The refusals of the alternatives of `written` (`apply_name`) as one: `refused`, the errors
    /// of the alternative `name`, joined to those before when each is one refusal of its
    /// overloads for the same argument (the candidates of both listed); named as written. `None`
    /// when an alternative failed otherwise (its error then says nothing of `written`).
    pub(crate) fn merge_refusals(
        before: Option<CheckError>,
        refused: Vec<CheckError>,
        name: &str,
        written: &str,
    ) -> Option<CheckError> {
        let [CheckError::NoOverload {
            span,
            message,
            behaviour,
            help,
        }] = <[CheckError; 1]>::try_from(refused).ok()?
        else {
            return None;
        };
        let rename = |text: String| {
            text.replace(&format!("`{name}`"), &format!("`{written}`"))
                .replace(&format!("{name} :"), &format!("{written} :"))
        };
        let message = rename(message);
        let help = help.map(rename);
        match before {
            None => Some(CheckError::NoOverload {
                span,
                message,
                behaviour,
                help,
            }),
            Some(CheckError::NoOverload {
                message: first,
                help: first_help,
                ..
            }) if first == message => Some(CheckError::NoOverload {
                span,
                message,
                behaviour,
                help: match (first_help, help) {
                    (Some(a), Some(b)) => {
                        Some(format!("{a}; {}", b.trim_start_matches("candidates: ")))
                    }
                    (a, b) => a.or(b),
                },
            }),
            Some(other) => Some(other),
        }
    }
}
