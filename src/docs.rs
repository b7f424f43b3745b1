//! The documentation the `tessera` command prints: the library reference
//! (`book/src/library.md`, written by `tessera doc`), generated from the entries the library
//! documents (`tessera::primitive_entries`, `Session::stdlib_entries`) with each example's
//! output computed by running it, and the pages of the error index
//! (`book/src/errors/CODE.md`, embedded at build time and printed by `tessera --explain CODE`).

use tessera::{
    catch_internal_error, internal_error_diagnostic, primitive_entries, render, Diagnostic,
    DocEntry, DocOrigin, Section, Session, Settings, SharedBuffer, STDLIB,
};

include!(concat!(env!("OUT_DIR"), "/error_pages.rs"));

/// The page of the error index for `code` (`E0401`, `r0003`: case is ignored).
pub fn explain(code: &str) -> Option<&'static str> {
    let code = code.trim().to_ascii_uppercase();
    ERROR_PAGES
        .iter()
        .find(|(page, _)| *page == code)
        .map(|(_, text)| *text)
}

/// Run `src` as a whole program in a fresh session: what it printed on stdout, and its
/// diagnostics if it failed (internal errors are caught and reported as R0000).
pub fn run_program(src: &str) -> (String, Result<(), Vec<Diagnostic>>) {
    let buffer = SharedBuffer::default();
    let mut session = Session::new(Settings::default().with_stdout(buffer.clone()));
    let result = catch_internal_error(|| session.run_source(src))
        .unwrap_or_else(|message| Err(vec![internal_error_diagnostic(&message, src)]));
    session.flush();
    drop(session);
    (buffer.text(), result)
}

/// A markdown code span showing `text` verbatim (backticks inside are fenced by a longer run).
pub fn code_span(text: &str) -> String {
    let longest = text.split(|c| c != '`').map(str::len).max().unwrap_or(0);
    let fence = "`".repeat(longest + 1);
    if text.starts_with('`') || text.ends_with('`') {
        format!("{fence} {text} {fence}")
    } else {
        format!("{fence}{text}{fence}")
    }
}

/// Markdown text that renders as `text` (punctuation that markdown interprets is escaped).
pub fn markdown_escape(text: &str) -> String {
    let mut escaped = String::with_capacity(text.len());
    for c in text.chars() {
        if matches!(
            c,
            '\\' | '`' | '*' | '_' | '[' | ']' | '<' | '>' | '#' | '|' | '~' | '$'
        ) {
            escaped.push('\\');
        }
        escaped.push(c);
    }
    escaped
}

fn section_title(section: Section) -> &'static str {
    match section {
        Section::Function => "Functions",
        Section::Operator => "Operators",
        Section::Conversion => "Conversions",
        Section::Coercion => "Coercions `e :>> T`",
        Section::Internal => "Internal kernels",
    }
}

fn section_intro(section: Section) -> &'static str {
    match section {
        Section::Function => {
            "Library functions built into the interpreter. A function of several curried \
             argument groups (`A -> B -> R`) is applied by juxtaposition (`map f a`); a tupled \
             one (`A * B -> R`) to a tuple (`get (a, i)`). The arity is how many curried \
             arguments an application by name takes."
        }
        Section::Operator => {
            "Operators, written between (or before) their operands; their schemes are those of \
             the function of their operands."
        }
        Section::Conversion => {
            "Conversions between types: explicit (`T x`, `x.T`) and the implicit widenings of \
             integers."
        }
        Section::Coercion => {
            "The classifications of the coercion `e :>> T`, tried in this order: the first whose \
             type admits the source and target types decides what the coercion does, and its \
             refusal (a size mismatch, types that are not layout-identical) is the error."
        }
        Section::Internal => {
            "Kernels the checker inserts itself; no program names them, but the typed IR (and \
             `--validate`) shows them."
        }
    }
}

/// The markdown of one entry, `output` being what its example printed.
pub fn entry_markdown(entry: &DocEntry, output: &str) -> String {
    let mut page = String::new();
    let names: Vec<String> = entry.names.iter().map(|n| code_span(n)).collect();
    page.push_str(&format!("### {}\n\n", names.join(", ")));
    for signature in &entry.signatures {
        page.push_str(&format!("- {}\n", code_span(signature)));
    }
    page.push('\n');
    for line in entry.doc.lines() {
        page.push_str(&markdown_escape(line));
        page.push('\n');
    }
    page.push('\n');
    let what = match &entry.origin {
        DocOrigin::Primitive {
            section,
            arity,
            effect,
        } => {
            let kind = match section {
                Section::Function => "built-in function",
                Section::Operator => "operator",
                Section::Conversion => "conversion",
                Section::Coercion => "coercion",
                Section::Internal => "internal kernel",
            };
            let effect = if *effect { "has an effect" } else { "pure" };
            if *section == Section::Function {
                format!("{kind}, arity {arity}, {effect}")
            } else {
                format!("{kind}, {effect}")
            }
        }
        DocOrigin::Stdlib { file } => format!("written in Tessera, `stdlib/{file}`"),
    };
    page.push_str(&format!("*{what}*\n\n"));
    if !entry.example.trim().is_empty() {
        page.push_str("```flx\n");
        page.push_str(entry.example.trim_end());
        page.push_str("\n```\n\n");
        if !output.is_empty() {
            page.push_str("```output\n");
            page.push_str(output);
            if !output.ends_with('\n') {
                page.push('\n');
            }
            page.push_str("```\n\n");
        }
    }
    page
}

/// The example of `entry` run in a fresh session: its output, or the rendered failure.
fn example_output(entry: &DocEntry) -> Result<String, String> {
    if entry.example.trim().is_empty() {
        return Ok(String::new());
    }
    let (printed, result) = run_program(&entry.example);
    match result {
        Ok(()) => Ok(printed),
        Err(diags) => Err(format!(
            "the example of `{}` fails:\n{}",
            entry.names.join(", "),
            render(&diags, "example.flx", &entry.example, false)
        )),
    }
}

/// The introduction of the library page's section on `stdlib/`: what is written in Tessera,
/// what stays in Rust and why, and what is not provided.
const STDLIB_INTRO: &str = "\
These functions are Tessera code, loaded at the start of every session: plain loops over the \
array, generic over the element type and the index type. Each entry says whether Felix's \
library has the function; where it does, the name, the order of the arguments and the result \
are Felix's.

The rest of the library is built into the interpreter, in Rust, where speed or the type system \
needs it:

- speed: `map`, `fold_left` and `fold`, `\\sum` and `\\prod` run as chunked kernels over \
  unboxed elements, in parallel for a pure function \
  ([chapter 9](09-parallelism-and-performance.md)); `sort` (a stable merge sort) and \
  `transpose` (copied by tiles) move whole blocks.
- the type system: `join` and `+` have the result shape ``N `+ M``, a type functor; \
  `subarray[F, L]` has the shape `min(L, N - F)` of its type arguments; `len`, `str`, \
  `repr` and `_strr` are defined for every type, by its representation; `get` and \
  `unsafe_get` are indexing.
- `rev` and `mem` are built in too: they are older than the prelude and stay as they are.

Not provided, because the checker cannot type them: `filter` (the length of its result \
depends on the values, but an array's length is part of its type; Felix's `filter` is for \
lists, which are not in the subset), `find` (Felix's returns an option, which is not in the \
subset: `mem p a` or `any p a` tells whether there is one, and a loop finds it), and `join` \
of an array and one element (Felix's result type ``N `+ 1`` applies a type functor to a type \
variable, which a signature written in Tessera cannot do).

";

/// The primitive whose `:doc` the library page shows as a REPL session.
const REPL_EXAMPLE: &str = "fold_left";

/// The library reference page (`book/src/library.md`): every entry of the primitive table by
/// section, then every documented definition of `stdlib/`, each example's output computed by
/// running it. Fails (listing them) when examples fail.
pub fn library_page() -> Result<String, String> {
    let mut page = String::new();
    page.push_str(
        "<!-- Generated by `tessera doc` from the primitive table (src/core/prims.rs) and the \
         doc comments of stdlib/*.flx: do not edit; regenerate with \
         `cargo run -- doc book/src/library.md`. -->\n\n",
    );
    page.push_str("# The library reference\n\n");
    page.push_str(
        "Every function, operator and conversion of the library, generated from the one table \
         the type checker uses (so the types shown are exactly the ones it checks), followed by \
         the library functions written in Tessera itself. Each example below is run when the \
         page is generated, and its output is shown after it. In the REPL, `:doc NAME` prints \
         the same entry:\n\n",
    );
    // The session below is replayed through the REPL by the book's test, so `:doc` is checked
    // to print the entry's text.
    let mut session = Session::new(Settings::default().with_stdout(std::io::sink()));
    if let Some(text) = session.doc_of(REPL_EXAMPLE) {
        page.push_str(&format!("```repl\n> :doc {REPL_EXAMPLE}\n{text}\n```\n\n"));
    }
    page.push_str(
        "A type scheme `[T:arithmetic, N:COMPACTLINEAR] T ^ N -> T` reads: for any type `T` \
         with the behaviour *arithmetic* and any compact linear index type `N`, a function from \
         an array of `T` indexed by `N` to a `T`. A `where` clause computes a type from others \
         (`promote(A, B)` is the wider of two numeric types).\n\n",
    );
    let mut failures = Vec::new();
    let mut add = |page: &mut String, entry: &DocEntry| match example_output(entry) {
        Ok(output) => page.push_str(&entry_markdown(entry, &output)),
        Err(failure) => failures.push(failure),
    };
    let primitives = primitive_entries();
    for section in [
        Section::Function,
        Section::Operator,
        Section::Conversion,
        Section::Coercion,
        Section::Internal,
    ] {
        let entries: Vec<&DocEntry> = primitives
            .iter()
            .filter(|entry| matches!(entry.origin, DocOrigin::Primitive { section: s, .. } if s == section))
            .collect();
        if entries.is_empty() {
            continue;
        }
        page.push_str(&format!("## {}\n\n", section_title(section)));
        page.push_str(section_intro(section));
        page.push_str("\n\n");
        let names: Vec<String> = entries.iter().map(|e| code_span(&e.names[0])).collect();
        page.push_str(&format!("{}\n\n", names.join(" · ")));
        for entry in entries {
            add(&mut page, entry);
        }
    }
    let stdlib = session.stdlib_entries();
    for (file, _) in STDLIB {
        let entries: Vec<&DocEntry> = stdlib
            .iter()
            .filter(|entry| entry.origin == DocOrigin::Stdlib { file })
            .collect();
        if entries.is_empty() {
            continue;
        }
        page.push_str(&format!("## Written in Tessera: `stdlib/{file}`\n\n"));
        page.push_str(STDLIB_INTRO);
        for entry in entries {
            add(&mut page, entry);
        }
    }
    if failures.is_empty() {
        Ok(page.trim_end().to_string() + "\n")
    } else {
        Err(failures.join("\n"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn code_spans_fence_backticks() {
        assert_eq!(code_span("a"), "`a`");
        assert_eq!(code_span("N `+ M"), "``N `+ M``");
        assert_eq!(code_span("`k"), "`` `k ``");
    }

    #[test]
    fn explain_finds_pages_by_code_in_any_case() {
        if let Some((code, text)) = ERROR_PAGES.first() {
            assert_eq!(explain(code), Some(*text));
            assert_eq!(explain(&code.to_ascii_lowercase()), Some(*text));
        }
        assert_eq!(explain("E9999"), None);
    }
}
