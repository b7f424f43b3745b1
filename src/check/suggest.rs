//! "Did you mean `count`?": the closest known name to a misspelt one (names, types,
//! constructors, fields, library functions), by the Damerau–Levenshtein distance (optimal
//! string alignment: insertions, deletions, substitutions and transpositions of neighbours).

use crate::check::env::Binding;
use crate::check::error::CheckError;
use crate::check::Checker;
use crate::syntax::ast;
use crate::types::ty::{NominalBody, Type};

/// The edit distance between `a` and `b` (optimal string alignment), counting characters.
pub(crate) fn edit_distance(a: &str, b: &str) -> usize {
    let a: Vec<char> = a.chars().collect();
    let b: Vec<char> = b.chars().collect();
    // Three rows: the one before the previous (for transpositions), the previous, the current.
    let mut before: Vec<usize> = vec![0; b.len() + 1];
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    let mut current: Vec<usize> = vec![0; b.len() + 1];
    for i in 1..=a.len() {
        current[0] = i;
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (previous[j] + 1)
                .min(current[j - 1] + 1)
                .min(previous[j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(before[j - 2] + 1);
            }
            current[j] = best;
        }
        std::mem::swap(&mut before, &mut previous);
        std::mem::swap(&mut previous, &mut current);
    }
    previous[b.len()]
}

/// How far a candidate may be from a name of this length: nothing for one character (any
/// other one-letter name would do), one edit up to three characters, two beyond.
fn max_distance(name: &str) -> usize {
    match name.chars().count() {
        0 | 1 => 0,
        2 | 3 => 1,
        _ => 2,
    }
}

/// The closest candidate within the allowed distance; the first one met wins a tie, so
/// callers list the names they prefer (innermost scopes) first. Hidden names (`_…`, `$…`)
/// are offered only for a name that is hidden too.
pub(crate) fn closest<'a>(
    name: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    let limit = max_distance(name);
    if limit == 0 {
        return None;
    }
    let hidden = |n: &str| n.starts_with('_') || n.starts_with('$');
    let mut best: Option<(usize, &str)> = None;
    for candidate in candidates {
        if candidate == name || (hidden(candidate) && !hidden(name)) {
            continue;
        }
        // Cheap rejection before the quadratic distance.
        if candidate.chars().count().abs_diff(name.chars().count()) > limit {
            continue;
        }
        let distance = edit_distance(name, candidate);
        if distance <= limit && best.is_none_or(|(d, _)| distance < d) {
            best = Some((distance, candidate));
        }
    }
    best.map(|(_, candidate)| candidate)
}

/// The names of the built-in types (`check::typeexpr::builtin_type`), which are also
/// conversion functions.
fn builtin_type_names() -> impl Iterator<Item = String> {
    [
        "void", "unit", "bool", "float", "double", "string", "char", "natural",
    ]
    .into_iter()
    .chain(crate::types::ty::IntTy::ALL.iter().map(|t| t.name()))
    .filter(|n| crate::check::typeexpr::builtin_type(n).is_some())
    .map(str::to_string)
}

/// Names well known from other languages that Tessera spells differently, and what to write.
const WELL_KNOWN: &[(&str, &str)] = &[
    (
        "length",
        "`len a` is the number of elements of an array or the bytes of a string",
    ),
    ("size", "`len a` is the number of elements of an array"),
    (
        "print_string",
        "`print s` and `println s` print any printable value",
    ),
    (
        "printf",
        "`println$ f\"%d items\" n` formats with a format string",
    ),
    ("reverse", "`rev a` reverses an array"),
    (
        "reduce",
        "`fold_left f init a` folds an array from the left",
    ),
    ("foldl", "`fold_left f init a` folds an array from the left"),
    (
        "foldr",
        "`fold_right f a init` folds an array from the right",
    ),
    ("zip", "`zip2 a b` pairs two arrays of the same index type"),
    ("to_string", "`x.str` (or `str x`) is the text of a value"),
    ("toString", "`x.str` (or `str x`) is the text of a value"),
    ("True", "the booleans are `true` and `false`"),
    ("False", "the booleans are `true` and `false`"),
    (
        "null",
        "there is no null: use an option type (a `variant`) or `unit`",
    ),
    (
        "None",
        "there is no built-in `None`: declare `variant opt[T] = | None | Some of T;`",
    ),
];

/// The help of an undefined name with no close suggestion: `e10` after a number (`1e10`,
/// not a float in Felix), and names well known from other languages.
pub(crate) fn well_known_hint(name: &str) -> Option<String> {
    let exponent = name
        .strip_prefix(['e', 'E'])
        .is_some_and(|digits| !digits.is_empty() && digits.chars().all(|c| c.is_ascii_digit()));
    if exponent {
        return Some(format!(
            "`1{name}` is not a float in Felix (it is `1` applied to `{name}`): a float needs a point, as in `1.0{name}`"
        ));
    }
    WELL_KNOWN
        .iter()
        .find(|(known, _)| *known == name)
        .map(|(_, advice)| format!("Tessera has no `{name}`: {advice}"))
}

/// The help line of a suggestion.
pub(crate) fn did_you_mean(candidate: &str) -> String {
    format!("did you mean `{candidate}`?")
}

/// The errors of a unit that get a "did you mean" suggestion: far more than a session shows.
const SUGGESTED_ERRORS: usize = 200;

impl Checker {
    /// `x.alhpa` where `x` has a field `alpha` and no function `alhpa` exists: E0201 with
    /// "did you mean `alpha`?" (`true`), rather than the undefined function `alhpa`.
    pub(crate) fn misspelt_field(&mut self, lt: &Type, rhs: &ast::Expr) -> bool {
        let ast::ExprKind::Name(name) = &rhs.node else {
            return false;
        };
        if self.lookup_value(name).is_some()
            || crate::core::prims::is_prim(name)
            || crate::check::typeexpr::builtin_type(name).is_some()
            || self.lookup_type(name).is_some()
        {
            return false;
        }
        let fields: Vec<String> = match lt {
            Type::Record(names, _) => names.iter().map(|n| n.to_string()).collect(),
            Type::Nominal(nd) => match nd.body() {
                Some(NominalBody::Struct(fields)) => {
                    fields.iter().map(|(n, _)| n.to_string()).collect()
                }
                _ => return false,
            },
            _ => return false,
        };
        let Some(field) = closest(name, fields.iter().map(String::as_str)) else {
            return false;
        };
        let hint = did_you_mean(field);
        self.error(CheckError::UndefinedName {
            name: name.clone(),
            span: rhs.span,
            what: "field or function",
            hint: Some(format!("{hint} (a field of `{lt}`)")),
        });
        true
    }

    /// An undefined name made clearer: a variable read in its own initialiser is a
    /// self-reference; otherwise a close known name of the same sort is offered.
    pub(crate) fn explain_undefined(&self, e: CheckError) -> CheckError {
        let CheckError::UndefinedName {
            name,
            span,
            what,
            hint,
        } = e
        else {
            return e;
        };
        if matches!(what, "name" | "variable") {
            let own = self.unit.hidden.iter().rev().find_map(|(scope, n)| {
                match self.scopes[*scope].values.get(n) {
                    Some(Binding::Var(vb)) if *n == name => Some(vb.span),
                    _ => None,
                }
            });
            if let Some(def) = own {
                return CheckError::SelfReference { name, span, def };
            }
        }
        let hint = match (self.suggest_name(&name, what), hint) {
            (Some(c), Some(hint)) => Some(format!("{} ({hint})", did_you_mean(&c))),
            (Some(c), None) => Some(did_you_mean(&c)),
            (None, hint) => hint,
        };
        CheckError::UndefinedName {
            name,
            span,
            what,
            hint,
        }
    }

    /// The value names visible here, innermost scope first (each scope's names sorted, so the
    /// choice among equals is stable), then the library's functions and conversions.
    fn visible_value_names(&self) -> Vec<String> {
        let mut names = Vec::new();
        let mut scope = Some(self.scope);
        while let Some(id) = scope {
            let mut here: Vec<&String> = self.scopes[id]
                .values
                .iter()
                .filter(|(_, b)| !matches!(b, Binding::Opaque { .. }))
                .map(|(n, _)| n)
                .collect();
            here.sort();
            names.extend(here.into_iter().cloned());
            scope = self.scopes[id].parent;
        }
        names.extend(
            crate::core::prims::PRIMS
                .iter()
                // Only what a program names: functions (not operators, `:>>` classifications
                // or internal kernels).
                .filter(|p| p.section == crate::core::prims::Section::Function)
                .flat_map(|p| p.names())
                .map(str::to_string),
        );
        names.extend(builtin_type_names());
        names
    }

    /// The type names visible here, innermost scope first, then the built-in types.
    fn visible_type_names(&self) -> Vec<String> {
        let mut names = Vec::new();
        let mut scope = Some(self.scope);
        while let Some(id) = scope {
            let mut here: Vec<&String> = self.scopes[id].types.keys().collect();
            here.sort();
            names.extend(here.into_iter().cloned());
            scope = self.scopes[id].parent;
        }
        names.extend(builtin_type_names());
        names
    }

    /// A known name close to an undefined one, of the sort `what` asks for ("name",
    /// "variable", "type", "constant constructor").
    pub(crate) fn suggest_name(&self, name: &str, what: &str) -> Option<String> {
        // A flood of errors shows only its first ones: past this many, none is looked for
        // (each look scans every visible name).
        if self.unit.errors.len() >= SUGGESTED_ERRORS {
            return None;
        }
        let names = match what {
            "type" => self.visible_type_names(),
            "variable" => {
                let mut names = Vec::new();
                let mut scope = Some(self.scope);
                while let Some(id) = scope {
                    let mut here: Vec<&String> = self.scopes[id]
                        .values
                        .iter()
                        .filter(|(_, b)| matches!(b, Binding::Var(_)))
                        .map(|(n, _)| n)
                        .collect();
                    here.sort();
                    names.extend(here.into_iter().cloned());
                    scope = self.scopes[id].parent;
                }
                names
            }
            "constant constructor" => self
                .visible_value_names()
                .into_iter()
                .filter(|n| n.starts_with(|c: char| c.is_uppercase()))
                .collect(),
            "name" => self.visible_value_names(),
            _ => return None,
        };
        closest(name, names.iter().map(String::as_str)).map(str::to_string)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distance_counts_edits_and_transpositions() {
        assert_eq!(edit_distance("count", "count"), 0);
        assert_eq!(edit_distance("cont", "count"), 1);
        assert_eq!(edit_distance("lenght", "length"), 1);
        assert_eq!(edit_distance("pritnln", "println"), 1);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
        assert_eq!(edit_distance("", "abc"), 3);
        assert_eq!(edit_distance("é", "e"), 1);
    }

    #[test]
    fn closest_prefers_the_first_of_equals_and_respects_the_limit() {
        assert_eq!(closest("cont", ["xyz", "count", "cant"]), Some("count"));
        assert_eq!(closest("x", ["y"]), None);
        assert_eq!(closest("ab", ["ba", "abc"]), Some("ba"));
        assert_eq!(closest("printline", ["println"]), Some("println"));
        assert_eq!(closest("total", ["_total"]), None);
        assert_eq!(closest("abcdef", ["uvwxyz"]), None);
    }
}
