//! The documentation the interpreter carries with it: the entries of the library reference,
//! generated from the one primitive table (`core::prims::PRIMS`) and from the doc comments of
//! `stdlib/*.flx` (shown by `:doc NAME` and written as `book/src/library.md` by `tessera doc`),
//! and the pages of the error index (`book/src/errors/CODE.md`, embedded at build time and
//! printed by `tessera --explain CODE`).
//!
//! One entry has one rendering of its text (`doc_text`); the library page shows the same
//! text as markdown (`entry_markdown`), with the example's output computed by running it.

use std::io::Write;
use std::sync::{Arc, Mutex};

use crate::core::prims::{Alias, PrimDef, Section, PRIMS};
use crate::diag::Diagnostic;
use crate::{Session, Settings};

include!(concat!(env!("OUT_DIR"), "/error_pages.rs"));

/// The library written in Tessera: every `stdlib/*.flx` file, by name (the prelude is loaded
/// into every session; a test checks that this list names every file of `stdlib/`).
pub const STDLIB: &[(&str, &str)] = &[("prelude.flx", crate::PRELUDE)];

/// Where the generated library reference lives in the repository.
pub const LIBRARY_PAGE: &str = "book/src/library.md";

/// The page of the error index for `code` (`E0401`, `r0003`: case is ignored).
pub fn explain(code: &str) -> Option<&'static str> {
    let code = code.trim().to_ascii_uppercase();
    ERROR_PAGES
        .iter()
        .find(|(page, _)| *page == code)
        .map(|(_, text)| *text)
}

/// Where an entry of the library comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Origin {
    /// An entry of the primitive table (built into the interpreter, in Rust).
    Primitive {
        section: Section,
        arity: usize,
        effect: bool,
    },
    /// A definition in `stdlib/FILE` with a doc comment (written in Tessera).
    Stdlib { file: &'static str },
}

/// One entry of the library reference.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DocEntry {
    /// The names it documents (a doc comment may document several definitions).
    pub names: Vec<String>,
    /// `NAME : SCHEME` lines (a primitive's schemes as written in the table, a stdlib
    /// function's signature as `:type` prints it, a stdlib type's definition).
    pub signatures: Vec<String>,
    pub doc: String,
    /// A program (possibly empty) whose output the library page shows.
    pub example: String,
    pub origin: Origin,
}

/// The entry of a primitive.
pub fn prim_entry(def: &PrimDef) -> DocEntry {
    DocEntry {
        names: vec![def.name.to_string()],
        signatures: def
            .schemes
            .iter()
            .map(|scheme| format!("{} : {scheme}", def.name))
            .collect(),
        doc: def.description(),
        example: def.example.to_string(),
        origin: Origin::Primitive {
            section: def.section,
            arity: def.arity,
            effect: def.effect,
        },
    }
}

/// The entry of another name of a primitive: its own call form, described as the entry's.
pub fn alias_entry(def: &PrimDef, alias: &Alias) -> DocEntry {
    DocEntry {
        names: vec![alias.name.to_string()],
        signatures: def
            .schemes
            .iter()
            .map(|scheme| format!("{} : {scheme}", alias.name))
            .collect(),
        doc: format!("{}: {}", alias.form, def.form),
        example: alias.example.to_string(),
        ..prim_entry(def)
    }
}

/// The entries of a primitive: its own, then one for each alias.
fn prim_entries(def: &PrimDef) -> impl Iterator<Item = DocEntry> + '_ {
    std::iter::once(prim_entry(def)).chain(def.aliases.iter().map(|a| alias_entry(def, a)))
}

/// The text of an entry as `:doc NAME` prints it: the signatures, the description, the example.
pub fn doc_text(entry: &DocEntry) -> String {
    let mut text = String::new();
    for signature in &entry.signatures {
        text.push_str(signature);
        text.push('\n');
    }
    text.push_str(&entry.doc);
    let example = entry.example.trim_end();
    if example.contains('\n') {
        text.push_str("\nexample:");
        for line in example.lines() {
            text.push_str("\n  ");
            text.push_str(line);
        }
    } else if !example.is_empty() {
        text.push_str("\nexample: ");
        text.push_str(example);
    }
    text
}

/// The `:doc` text of a primitive or operator of the table, if `name` is one.
/// Several entries share a name only for the classifications of `:>>`: each is shown.
pub fn prim_doc(name: &str) -> Option<String> {
    let texts: Vec<String> = PRIMS
        .iter()
        .flat_map(prim_entries)
        .filter(|entry| match &entry.origin {
            Origin::Primitive { section, .. } => {
                entry.names[0] == name || (*section == Section::Coercion && name == ":>>")
            }
            Origin::Stdlib { .. } => false,
        })
        .map(|entry| doc_text(&entry))
        .collect();
    (!texts.is_empty()).then(|| texts.join("\n\n"))
}

/// A definition of `stdlib/` with its doc comment, before its signature is known.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StdlibDoc {
    pub file: &'static str,
    /// `(keyword, name, the definition's first line)` for each definition documented.
    pub definitions: Vec<(String, String, String)>,
    pub doc: String,
    pub example: String,
}

/// The keywords that start a documented definition.
const DEFINING: &[&str] = &[
    "fun", "proc", "gen", "variant", "struct", "typedef", "union", "type", "val", "var",
];

/// The documented definitions of a stdlib file: a run of `//` comment lines directly followed
/// (no blank line) by one or more definitions documents all the definitions up to the next
/// blank line or comment. A comment line `// example: CODE` is a line of the entry's example
/// program rather than of its description. A comment followed by a blank line (a file's
/// header) documents nothing.
pub fn stdlib_docs_of(file: &'static str, source: &str) -> Vec<StdlibDoc> {
    let lines: Vec<&str> = source.lines().collect();
    let mut docs = Vec::new();
    let mut index = 0;
    while index < lines.len() {
        if !lines[index].trim_start().starts_with("//") {
            index += 1;
            continue;
        }
        let mut doc = Vec::new();
        let mut example = Vec::new();
        while index < lines.len() && lines[index].trim_start().starts_with("//") {
            let text = lines[index].trim_start()[2..].trim();
            match text.strip_prefix("example:") {
                Some(code) => example.push(code.trim().to_string()),
                None => doc.push(text.to_string()),
            }
            index += 1;
        }
        let mut definitions = Vec::new();
        while index < lines.len()
            && !lines[index].trim().is_empty()
            && !lines[index].trim_start().starts_with("//")
        {
            if let Some(definition) = definition_of(lines[index]) {
                definitions.push(definition);
            }
            index += 1;
        }
        if !definitions.is_empty() {
            docs.push(StdlibDoc {
                file,
                definitions,
                doc: doc.join("\n"),
                example: example.join("\n"),
            });
        }
    }
    docs
}

/// `(keyword, name, line)` when `line` starts a definition at the top level.
fn definition_of(line: &str) -> Option<(String, String, String)> {
    if line.starts_with(char::is_whitespace) {
        return None;
    }
    let mut words = line.split_whitespace();
    let keyword = words.next()?;
    if !DEFINING.contains(&keyword) {
        return None;
    }
    let rest = line[keyword.len()..].trim_start();
    let name: String = rest
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '_')
        .collect();
    (!name.is_empty()).then(|| (keyword.to_string(), name, line.trim_end().to_string()))
}

/// Every documented definition of `stdlib/`.
pub fn stdlib_docs() -> Vec<StdlibDoc> {
    STDLIB
        .iter()
        .flat_map(|(file, source)| stdlib_docs_of(file, source))
        .collect()
}

/// The entry of a stdlib doc comment, with each function's signature as `:type` prints it in
/// `session` (a type's signature is its definition as written).
pub fn stdlib_entry(session: &mut Session, doc: &StdlibDoc) -> DocEntry {
    let signatures = doc
        .definitions
        .iter()
        .map(|(keyword, name, line)| match keyword.as_str() {
            "fun" | "proc" | "gen" | "val" | "var" => match session.type_of(name) {
                Ok(ty) => format!("{name} : {ty}"),
                Err(_) => line.clone(),
            },
            _ => line.clone(),
        })
        .collect();
    DocEntry {
        names: doc.definitions.iter().map(|(_, n, _)| n.clone()).collect(),
        signatures,
        doc: doc.doc.clone(),
        example: doc.example.clone(),
        origin: Origin::Stdlib { file: doc.file },
    }
}

/// The `:doc` text of a documented stdlib definition, its signatures read in a fresh session
/// (so a user's definition of the same name does not change them).
pub fn stdlib_doc(name: &str) -> Option<String> {
    let doc = stdlib_docs()
        .into_iter()
        .find(|doc| doc.definitions.iter().any(|(_, n, _)| n == name))?;
    let mut session = Session::new(Settings::default().with_stdout(std::io::sink()));
    Some(doc_text(&stdlib_entry(&mut session, &doc)))
}

/// A writer whose bytes stay readable after the session that owns it is gone.
#[derive(Clone, Default)]
pub struct SharedBuffer(Arc<Mutex<Vec<u8>>>);

impl SharedBuffer {
    /// What was written so far (invalid UTF-8 replaced).
    pub fn text(&self) -> String {
        match self.0.lock() {
            Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
            Err(poisoned) => String::from_utf8_lossy(&poisoned.into_inner()).into_owned(),
        }
    }

    /// Forget what was written so far.
    pub fn clear(&self) {
        if let Ok(mut bytes) = self.0.lock() {
            bytes.clear();
        }
    }
}

impl Write for SharedBuffer {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        self.0
            .lock()
            .map_err(|_| std::io::Error::other("poisoned buffer"))?
            .extend_from_slice(bytes);
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// Run `src` as a whole program in a fresh session: what it printed on stdout, and its
/// diagnostics if it failed (internal errors are caught and reported as R0000).
pub fn run_program(src: &str) -> (String, Result<(), Vec<Diagnostic>>) {
    let buffer = SharedBuffer::default();
    let mut session = Session::new(Settings::default().with_stdout(buffer.clone()));
    let result = crate::catch_internal_error(|| session.run_source(src))
        .unwrap_or_else(|message| Err(vec![crate::internal_error_diagnostic(&message, src)]));
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
        Origin::Primitive {
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
            let effect = if *effect { "writes output" } else { "pure" };
            if *section == Section::Function {
                format!("{kind}, arity {arity}, {effect}")
            } else {
                format!("{kind}, {effect}")
            }
        }
        Origin::Stdlib { file } => format!("written in Tessera, `stdlib/{file}`"),
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
            crate::diag::render(&diags, "example.flx", &entry.example, false)
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
    if let Some(text) = prim_doc(REPL_EXAMPLE) {
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
    for section in [
        Section::Function,
        Section::Operator,
        Section::Conversion,
        Section::Coercion,
        Section::Internal,
    ] {
        let defs: Vec<&PrimDef> = PRIMS.iter().filter(|d| d.section == section).collect();
        if defs.is_empty() {
            continue;
        }
        page.push_str(&format!("## {}\n\n", section_title(section)));
        page.push_str(section_intro(section));
        page.push_str("\n\n");
        let names: Vec<String> = defs.iter().flat_map(|d| d.names()).map(code_span).collect();
        page.push_str(&format!("{}\n\n", names.join(" · ")));
        for entry in defs.into_iter().flat_map(prim_entries) {
            add(&mut page, &entry);
        }
    }
    let mut session = Session::new(Settings::default().with_stdout(std::io::sink()));
    for (file, source) in STDLIB {
        let docs = stdlib_docs_of(file, source);
        if docs.is_empty() {
            continue;
        }
        page.push_str(&format!("## Written in Tessera: `stdlib/{file}`\n\n"));
        page.push_str(STDLIB_INTRO);
        for doc in &docs {
            let entry = stdlib_entry(&mut session, doc);
            add(&mut page, &entry);
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
    fn doc_comments_document_the_definitions_that_follow() {
        let source = "// header\n\n// f x: twice x.\n// example: println$ f 2;\nfun f (x: int) => 2 * x;\n\n// a, b: two.\nfun a () => 1;\nfun b () => 2;\n// c alone\nfun c () => 3;\n  fun nested () => 4;\n";
        let docs = stdlib_docs_of("t.flx", source);
        let names: Vec<Vec<&str>> = docs
            .iter()
            .map(|d| d.definitions.iter().map(|(_, n, _)| n.as_str()).collect())
            .collect();
        assert_eq!(names, vec![vec!["f"], vec!["a", "b"], vec!["c"]]);
        assert_eq!(docs[0].doc, "f x: twice x.");
        assert_eq!(docs[0].example, "println$ f 2;");
        assert_eq!(docs[1].example, "");
    }

    #[test]
    fn code_spans_fence_backticks() {
        assert_eq!(code_span("a"), "`a`");
        assert_eq!(code_span("N `+ M"), "``N `+ M``");
        assert_eq!(code_span("`k"), "`` `k ``");
    }

    #[test]
    fn doc_text_lists_signatures_doc_and_example() {
        let entry = DocEntry {
            names: vec!["f".into()],
            signatures: vec!["f : int -> int".into()],
            doc: "f x: twice x".into(),
            example: "println$ f 1;\nprintln$ f 2;".into(),
            origin: Origin::Stdlib { file: "t.flx" },
        };
        assert_eq!(
            doc_text(&entry),
            "f : int -> int\nf x: twice x\nexample:\n  println$ f 1;\n  println$ f 2;"
        );
    }

    #[test]
    fn every_prim_doc_is_the_entry_text() {
        for def in PRIMS {
            for entry in prim_entries(def) {
                let text = prim_doc(&entry.names[0]).expect("every entry is documented");
                assert_eq!(text, doc_text(&entry));
            }
        }
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
