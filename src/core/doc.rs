//! The documentation of the library's entries as `:doc NAME` shows it: the entries of the
//! primitive table (`PRIMS`) and the definitions of `stdlib/*.flx` that carry a doc comment.
//! One entry has one rendering of its text (`doc_text`); the library reference
//! (`tessera doc`) shows the same entries as markdown.

use super::prims::{Alias, PrimDef, Section, PRIMS};

/// Where an entry of the library comes from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Origin {
    /// An entry of the primitive table (built into the interpreter, in Rust).
    Primitive {
        /// The section of the table (function, operator, conversion, …).
        section: Section,
        /// How many curried arguments an application by name takes.
        arity: usize,
        /// Whether it has an effect: writes output or reaches the program's world (otherwise it
        /// is pure).
        effect: bool,
    },
    /// A definition in `stdlib/FILE` with a doc comment (written in Tessera).
    Stdlib {
        /// The file's name in `stdlib/`.
        file: &'static str,
    },
}

/// One entry of the library reference.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DocEntry {
    /// The names it documents (a doc comment may document several definitions).
    pub names: Vec<String>,
    /// `NAME : SCHEME` lines (a primitive's schemes as written in the table, a stdlib
    /// function's signature as `:type` prints it, a stdlib type's definition).
    pub signatures: Vec<String>,
    /// What it does.
    pub doc: String,
    /// A program (possibly empty) whose output the library page shows.
    pub example: String,
    /// Where it comes from.
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
pub fn prim_entries(def: &PrimDef) -> impl Iterator<Item = DocEntry> + '_ {
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
}
