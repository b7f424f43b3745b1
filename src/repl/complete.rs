//! Completion in the line editor: commands, their arguments, names in scope, keywords, types
//! and file names.

use std::sync::{Arc, Mutex};

use rustyline::completion::Completer;
use rustyline::highlight::Highlighter;
use rustyline::hint::Hinter;
use rustyline::validate::Validator;
use rustyline::{Context, Helper};

use tessera::{primitive_entries, DocEntry, DocOrigin, NameKind, ScopeName, Section};

use super::commands::{resolve_command, Argument, COMMANDS, SETTINGS};

/// The keywords the terminal REPL completes (the language's keywords), besides the names in scope.
const KEYWORDS: &[&str] = &[
    "begin", "end", "do", "done", "if", "then", "elif", "else", "endif", "match", "with",
    "endmatch", "for", "in", "while", "until", "upto", "downto", "break", "continue", "return",
    "var", "val", "fun", "proc", "gen", "typedef", "struct", "variant", "case", "of", "proj",
    "aproj", "ident", "caseno", "and", "or", "not", "true", "false", "type", "new",
];

/// The built-in type names (completed where a type is expected).
pub use tessera::BUILTIN_TYPES;

/// The candidates for completing the word that ends at `position` in `line`, given the
/// names in scope: command names for `:` at the start of a line; after a command, what its
/// argument is (file names after `:load`, type names after `:kind`, settings after `:set`,
/// names after `:type`); type names after a `:` annotation or `^`; names in scope and
/// keywords otherwise. Returns where the completed word starts; candidates are sorted.
pub fn completion_candidates(
    line: &str,
    position: usize,
    names: &[ScopeName],
) -> (usize, Vec<String>) {
    let before = &line[..position.min(line.len())];
    let trimmed = before.trim_start();
    // After a command name: complete its argument.
    if trimmed.starts_with(':') {
        if let Some(space) = trimmed.find(char::is_whitespace) {
            let command_name = &trimmed[1..space];
            let argument_kind =
                resolve_command(command_name).map_or(Argument::None, |c| c.argument);
            if argument_kind == Argument::File {
                let word_start = before
                    .rfind(char::is_whitespace)
                    .map_or(0, |index| index + 1);
                return (word_start, file_candidates(&before[word_start..]));
            }
            let (word_start, word) = word_before(before);
            let candidates: Vec<String> = match argument_kind {
                Argument::Type => type_names(names),
                Argument::Setting if before[..word_start].trim() == trimmed[..space].trim() => {
                    SETTINGS.iter().map(|s| s.to_string()).collect()
                }
                Argument::Expr | Argument::Name => value_names(names),
                _ => Vec::new(),
            };
            return (word_start, matching(candidates, word));
        }
        let start = before.len() - trimmed.len();
        let word = trimmed;
        let commands = COMMANDS
            .iter()
            .map(|info| format!(":{}", info.name))
            .filter(|command| command.starts_with(word))
            .collect();
        return (start, commands);
    }
    let (word_start, word) = word_before(before);
    if word.is_empty() {
        return (word_start, Vec::new());
    }
    let previous = before[..word_start].trim_end().chars().last();
    let candidates = if matches!(previous, Some(':' | '^')) {
        type_names(names)
    } else {
        value_names(names)
    };
    (word_start, matching(candidates, word))
}

/// The identifier ending at the end of `before` (letters, digits, `_`) and where it starts.
fn word_before(before: &str) -> (usize, &str) {
    let start = before
        .rfind(|c: char| !(c.is_alphanumeric() || c == '_'))
        .map_or(0, |index| {
            index + before[index..].chars().next().map_or(1, char::len_utf8)
        });
    (start, &before[start..])
}

/// The candidates that start with `word`, sorted, each once.
fn matching(mut candidates: Vec<String>, word: &str) -> Vec<String> {
    candidates.retain(|candidate| candidate.starts_with(word));
    candidates.sort();
    candidates.dedup();
    candidates
}

/// Value names: the names in scope, the library primitives written as identifiers, and the
/// keywords.
fn value_names(names: &[ScopeName]) -> Vec<String> {
    let mut all: Vec<String> = names
        .iter()
        .filter(|n| n.kind == NameKind::Value)
        .map(|n| n.name.clone())
        .collect();
    all.extend(
        primitive_entries()
            .into_iter()
            .filter(|entry| section_of(entry) != Some(Section::Internal))
            .map(|entry| entry.names[0].clone())
            .filter(|name| is_identifier(name)),
    );
    all.extend(KEYWORDS.iter().map(|k| k.to_string()));
    all
}

/// Type names: the types in scope and the built-in ones.
fn type_names(names: &[ScopeName]) -> Vec<String> {
    let mut all: Vec<String> = names
        .iter()
        .filter(|n| n.kind == NameKind::Type)
        .map(|n| n.name.clone())
        .collect();
    all.extend(BUILTIN_TYPES.iter().map(|t| t.to_string()));
    all
}

/// The section of the primitive table an entry of the library is in (`None` for `stdlib/`).
pub(super) fn section_of(entry: &DocEntry) -> Option<Section> {
    match entry.origin {
        DocOrigin::Primitive { section, .. } => Some(section),
        DocOrigin::Stdlib { .. } => None,
    }
}

fn is_identifier(name: &str) -> bool {
    name.chars()
        .next()
        .is_some_and(|c| c.is_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_alphanumeric() || c == '_')
}

/// The paths that complete `word` (a path prefix): entries of its folder whose names start
/// with its last component, folders with a `/` after them. Hidden entries only when asked
/// for with a leading `.`.
fn file_candidates(word: &str) -> Vec<String> {
    let (folder, prefix) = match word.rfind('/') {
        Some(slash) => (&word[..=slash], &word[slash + 1..]),
        None => ("", word),
    };
    let listed = if folder.is_empty() { "." } else { folder };
    let Ok(entries) = std::fs::read_dir(listed) else {
        return Vec::new();
    };
    let mut candidates: Vec<String> = entries
        .filter_map(|entry| {
            let entry = entry.ok()?;
            let name = entry.file_name().into_string().ok()?;
            if !name.starts_with(prefix) || (name.starts_with('.') && !prefix.starts_with('.')) {
                return None;
            }
            let is_folder = entry.file_type().ok()?.is_dir();
            Some(format!(
                "{folder}{name}{}",
                if is_folder { "/" } else { "" }
            ))
        })
        .collect();
    candidates.sort();
    candidates
}

/// The rustyline helper: completion only (no hints, highlighting or validation; the parser
/// decides when a chunk is complete). It reads the names in scope the REPL keeps current.
pub(super) struct ReplHelper {
    pub(super) names: Arc<Mutex<Vec<ScopeName>>>,
}

impl Completer for ReplHelper {
    type Candidate = String;

    fn complete(
        &self,
        line: &str,
        position: usize,
        _context: &Context<'_>,
    ) -> rustyline::Result<(usize, Vec<String>)> {
        let names = self.names.lock().map(|n| n.clone()).unwrap_or_default();
        Ok(completion_candidates(line, position, &names))
    }
}

impl Hinter for ReplHelper {
    type Hint = String;
}

impl Highlighter for ReplHelper {}

impl Validator for ReplHelper {}

impl Helper for ReplHelper {}

#[cfg(test)]
mod tests {
    use super::*;

    fn names() -> Vec<ScopeName> {
        let value = |name: &str, library| ScopeName {
            name: name.to_string(),
            kind: NameKind::Value,
            library,
        };
        vec![
            value("total_count", false),
            value("totals", false),
            ScopeName {
                name: "grid".to_string(),
                kind: NameKind::Type,
                library: false,
            },
            value("fold_right", true),
        ]
    }

    fn check_completion(line: &str, expected_start: usize, expected: &[&str]) {
        let (start, candidates) = completion_candidates(line, line.len(), &names());
        assert_eq!(start, expected_start, "start for {line:?}");
        assert_eq!(candidates, expected, "candidates for {line:?}");
    }

    #[test]
    fn completes_commands_at_the_start_of_a_line() {
        check_completion(":ty", 0, &[":type"]);
        check_completion("  :l", 2, &[":layout", ":load"]);
        let all: Vec<String> = COMMANDS.iter().map(|c| format!(":{}", c.name)).collect();
        let (_, candidates) = completion_candidates(":", 1, &names());
        assert_eq!(candidates, all);
    }

    #[test]
    fn completes_keywords_library_and_user_names_inside_code() {
        check_completion("var x = tr", 8, &["transpose", "true", "trunc"]);
        check_completion("endm", 0, &["endmatch"]);
        check_completion("x + tot", 4, &["total_count", "totals"]);
        check_completion("fold_r", 0, &["fold_right"]);
        check_completion("x + ", 4, &[]);
    }

    #[test]
    fn completes_type_names_after_a_colon_a_caret_and_type_commands() {
        check_completion("var g : gr", 8, &["grid"]);
        check_completion("var a : int ^ 3 ^ gr", 18, &["grid"]);
        check_completion(":kind doub", 6, &["double"]);
        check_completion(":t tot", 3, &["total_count", "totals"]);
        check_completion(":set pr", 5, &["precision", "print-limit"]);
    }

    #[test]
    fn completes_file_names_after_load() {
        let folder = concat!(env!("CARGO_MANIFEST_DIR"), "/examples/repl/squ");
        let line = format!(":load {folder}");
        let (start, candidates) = completion_candidates(&line, line.len(), &[]);
        assert_eq!(start, 6);
        assert_eq!(
            candidates,
            [concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/examples/repl/square.flx"
            )]
        );
    }

    #[test]
    fn command_prefixes_resolve_or_list_the_candidates() {
        let name = |written: &str| resolve_command(written).map(|c| c.name);
        assert_eq!(name("t"), Ok("type"));
        assert_eq!(name("k"), Ok("kind"));
        assert_eq!(name("l"), Ok("load"));
        assert_eq!(name("la"), Ok("layout"));
        assert_eq!(name("q"), Ok("quit"));
        assert_eq!(name("r"), Ok("reload"));
        assert_eq!(name("ti"), Ok("time"));
        assert_eq!(name("b"), Ok("browse"));
        assert_eq!(name("i"), Ok("info"));
        assert_eq!(name("is"), Ok("iso"));
        assert_eq!(name("re"), Err(vec!["reload", "reset"]));
        assert_eq!(name("s"), Err(vec!["show", "size", "save", "set"]));
        assert_eq!(name("x"), Err(vec![]));
    }

    #[test]
    fn builtin_type_names_are_the_checker_s() {
        for name in BUILTIN_TYPES {
            assert!(
                tessera::is_builtin_type(name),
                "{name} is not a built-in type"
            );
        }
    }
}
