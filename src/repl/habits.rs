//! ghci's and IPython's habits: `:info`, doc comments of your definitions, `:t` of a type
//! name, `:timeit`, `:plot` and `:hist`, `:edit`, `:save`, `:history`, `:cd`, `:!`.

use std::io::Write;

use tessera::{Diagnostic, NameKind};

use super::plot::{self, Canvas};
use super::{Repl, REPL_NAME};

/// The keywords that start a definition, and whether they define a type.
const DEFINING: &[(&str, bool)] = &[
    ("var", false),
    ("val", false),
    ("fun", false),
    ("proc", false),
    ("gen", false),
    ("ctor", false),
    ("typedef", true),
    ("struct", true),
    ("variant", true),
    ("union", true),
    ("enum", true),
];

/// The most lines of a definition `:info` shows.
const MAX_DEFINITION_LINES: usize = 12;

/// A definition seen in a chunk or a loaded file.
#[derive(Clone, Debug)]
pub struct Definition {
    pub name: String,
    pub is_type: bool,
    /// `<repl>, chunk 3, line 1` or `file.flx:12`.
    pub place: String,
    /// Its source text (at most `MAX_DEFINITION_LINES` lines).
    pub text: String,
    /// The `///` or `//!` lines just above it, without the markers.
    pub doc: Option<String>,
}

/// The definitions of `src` (one per line that starts with a defining keyword), with their
/// doc comments. `chunk` numbers a REPL chunk; a file's places are `FILE:LINE`. `before` are
/// doc comment lines entered on their own just before the chunk.
pub fn scan_definitions(
    src: &str,
    file: &str,
    chunk: Option<usize>,
    before: &[String],
) -> Vec<Definition> {
    let own: Vec<&str> = src.lines().collect();
    let lines: Vec<&str> = before
        .iter()
        .map(String::as_str)
        .chain(own.iter().copied())
        .collect();
    let mut found = Vec::new();
    for (at, line) in lines.iter().enumerate().skip(before.len()) {
        let trimmed = line.trim_start();
        let mut words = trimmed.split(|c: char| {
            c.is_whitespace()
                || c == '('
                || c == '['
                || c == ':'
                || c == '='
                || c == '{'
                || c == ';'
        });
        let Some(keyword) = words.next() else {
            continue;
        };
        let Some((_, is_type)) = DEFINING.iter().find(|(k, _)| *k == keyword) else {
            continue;
        };
        let Some(name) = words.find(|word| !word.is_empty()) else {
            continue;
        };
        if !name
            .chars()
            .next()
            .is_some_and(|c| c.is_alphabetic() || c == '_')
        {
            continue;
        }
        let mut doc_lines: Vec<&str> = lines[..at]
            .iter()
            .rev()
            .map(|l| l.trim_start())
            .take_while(|l| l.starts_with("///") || l.starts_with("//!"))
            .map(|l| l[3..].strip_prefix(' ').unwrap_or(&l[3..]))
            .collect();
        doc_lines.reverse();
        let mut depth: i32 = 0;
        let mut text = Vec::new();
        for body in lines[at..].iter().take(MAX_DEFINITION_LINES) {
            text.push(*body);
            for c in body.chars() {
                match c {
                    '(' | '[' | '{' => depth += 1,
                    ')' | ']' | '}' => depth -= 1,
                    _ => {}
                }
            }
            let end = body.trim_end();
            if depth <= 0 && (end.ends_with(';') || end.ends_with('}')) {
                break;
            }
        }
        let line_number = at - before.len() + 1;
        let place = match chunk {
            Some(number) if own.len() > 1 => {
                format!("{file}, chunk {number}, line {line_number}")
            }
            Some(number) => format!("{file}, chunk {number}"),
            None => format!("{file}:{line_number}"),
        };
        found.push(Definition {
            name: name.to_string(),
            is_type: *is_type,
            place,
            text: text.join("\n"),
            doc: (!doc_lines.is_empty()).then(|| doc_lines.join("\n")),
        });
    }
    found
}

/// `0.00123` as `1.23 ms`.
fn seconds_text(seconds: f64) -> String {
    let (value, unit) = if seconds >= 1.0 {
        (seconds, "s")
    } else if seconds >= 1e-3 {
        (seconds * 1e3, "ms")
    } else if seconds >= 1e-6 {
        (seconds * 1e6, "µs")
    } else {
        (seconds * 1e9, "ns")
    };
    format!("{value:.3} {unit}")
}

/// How many more runs `:timeit` makes after a first run of `first` seconds: about a second
/// in all, at least 2 and at most 1000.
pub fn timeit_runs(first: f64) -> usize {
    if first <= 0.0 {
        return 1000;
    }
    ((1.0 / first) as usize).clamp(2, 1000)
}

/// The mean and the sample standard deviation of `times`.
pub fn mean_and_deviation(times: &[f64]) -> (f64, f64) {
    let n = times.len() as f64;
    let mean = times.iter().sum::<f64>() / n;
    let variance = if times.len() > 1 {
        times.iter().map(|t| (t - mean).powi(2)).sum::<f64>() / (n - 1.0)
    } else {
        0.0
    };
    (mean, variance.sqrt())
}

impl Repl {
    /// Remember the definitions of a chunk or file that ran.
    pub(super) fn note_definitions(&mut self, src: &str, file: &str, chunk: Option<usize>) {
        let doc = if chunk.is_some() {
            std::mem::take(&mut self.doc_lines)
        } else {
            Vec::new()
        };
        self.definitions
            .extend(scan_definitions(src, file, chunk, &doc));
    }

    /// The latest definition of `name` seen.
    fn definition(&self, name: &str) -> Option<&Definition> {
        self.definitions.iter().rev().find(|d| d.name == name)
    }

    /// The doc comment of a definition of the session (`:doc`).
    pub(super) fn user_doc(&self, name: &str) -> Option<String> {
        let definition = self.definition(name)?;
        let doc = definition.doc.as_ref()?;
        Some(format!("{}\n{doc}", definition.text))
    }

    /// `:t P` for a struct, variant or typedef `P`: its definition as written.
    pub(super) fn type_definition(&mut self, name: &str) -> Option<String> {
        if let Some(definition) = self.definition(name).filter(|d| d.is_type) {
            return Some(definition.text.clone());
        }
        let normal = self.session.normal_type_of_type(name)?;
        let kind = self.session.kind_of(name).ok()?;
        Some(if normal == name {
            format!("type {name}  // {kind}")
        } else {
            format!("type {name} = {normal}  // {kind}")
        })
    }

    /// `:info NAME`: where it is defined, its type or definition, its documentation.
    pub(super) fn info(&mut self, name: &str) {
        let mut lines = Vec::new();
        let definition = self.definition(name).cloned();
        let is_type = self
            .session
            .names_in_scope()
            .iter()
            .any(|n| n.name == name && n.kind == NameKind::Type);
        if let Ok(ty) = self.session.type_of(name) {
            lines.push(format!("{name} : {ty}"));
        } else if is_type || definition.as_ref().is_some_and(|d| d.is_type) {
            if let Some(text) = self.type_definition(name) {
                lines.push(text);
            }
        }
        match &definition {
            Some(definition) => {
                lines.push(format!("// defined at {}", definition.place));
                if let Some(doc) = &definition.doc {
                    lines.extend(doc.lines().map(|l| format!("/// {l}")));
                }
                if !definition.is_type {
                    lines.push(definition.text.clone());
                }
            }
            None => {
                if let Some(doc) = self.session.doc_of(name) {
                    lines.push("// defined in the library".to_string());
                    lines.push(doc);
                }
            }
        }
        if lines.is_empty() {
            self.command_error(&format!(
                "`{name}` is not defined (`:browse {name}` lists the names that contain it)"
            ));
            return;
        }
        for line in lines {
            self.session.print_line(&line);
        }
    }

    /// `:timeit EXPR`: one run to see how long it takes, then enough runs for about a second;
    /// the mean ± the standard deviation per run, and the runs.
    pub(super) fn timeit(&mut self, src: &str, line: &str, offset: usize) {
        // The first run (which also compiles what the chunk calls) is a warm-up, not counted.
        let mut times = Vec::new();
        let first = match self.session.time_quietly(src) {
            Ok(seconds) => seconds,
            Err(diags) => return self.report_shifted(diags, line, offset),
        };
        for _ in 0..timeit_runs(first) {
            match self.session.time_quietly(src) {
                Ok(seconds) => times.push(seconds),
                Err(diags) => return self.report_shifted(diags, line, offset),
            }
        }
        let (mean, deviation) = mean_and_deviation(&times);
        self.session.print_line(&format!(
            "{} ± {} per run (mean ± std. dev. of {} runs, each checked and compiled)",
            seconds_text(mean),
            seconds_text(deviation),
            times.len()
        ));
    }

    fn report_shifted(&mut self, diags: Vec<Diagnostic>, line: &str, offset: usize) {
        if diags.is_empty() {
            self.command_error("this command needs an expression, not statements");
            return;
        }
        let shifted: Vec<Diagnostic> = diags.into_iter().map(|d| d.shifted(offset)).collect();
        self.report(&shifted, REPL_NAME, line);
    }

    /// `:plot EXPR` and `:hist EXPR`.
    pub(super) fn picture(&mut self, command: &str, src: &str, line: &str, offset: usize) {
        let array = match self.session.numeric_array_of(src) {
            Ok(array) => array,
            Err(diags) => return self.report_shifted(diags, line, offset),
        };
        let canvas = Canvas::for_terminal(self.session.display().color);
        let picture = if command == "hist" {
            plot::histogram(&array.values, canvas)
        } else {
            plot::plot(&array, canvas)
        };
        match picture {
            Ok(text) => {
                self.session.print_line(&text);
                self.session.print_line(&format!(": {}", array.type_text));
            }
            Err(message) => self.command_error(&message),
        }
    }

    /// `:edit [FILE]`: `$EDITOR` (else `vi`) on the file, then load it.
    pub(super) fn edit(&mut self, file: &str) {
        let path = if file.is_empty() {
            match self.loaded.last() {
                Some(path) => path.clone(),
                None => {
                    self.command_error("`:edit` needs a file name (no file was loaded yet)");
                    return;
                }
            }
        } else {
            file.to_string()
        };
        let editor = std::env::var("VISUAL")
            .or_else(|_| std::env::var("EDITOR"))
            .unwrap_or_else(|_| "vi".to_string());
        self.session.flush();
        let status = std::process::Command::new("sh")
            .arg("-c")
            .arg(format!("{editor} \"$1\""))
            .arg("sh")
            .arg(&path)
            .status();
        match status {
            Ok(status) if status.success() => {
                if std::path::Path::new(&path).exists()
                    && self.load_file(&path)
                    && !self.loaded.contains(&path)
                {
                    self.loaded.push(path);
                }
            }
            Ok(status) => self.command_error(&format!("the editor `{editor}` failed ({status})")),
            Err(error) => self.command_error(&format!("cannot run the editor `{editor}`: {error}")),
        }
    }

    /// `:save FILE`: the chunks that ran without an error, in order.
    pub(super) fn save(&mut self, file: &str) {
        let mut text = String::new();
        for (entry, ok) in &self.entries {
            if *ok && !entry.trim_start().starts_with(':') {
                text.push_str(entry);
                text.push('\n');
            }
        }
        if let Err(error) = std::fs::write(file, text) {
            self.command_error(&format!("cannot write `{file}`: {error}"));
        }
    }

    /// `:history [N]`: the last N entries, numbered.
    pub(super) fn history(&mut self, count: &str) {
        // The `:history` being run is not shown.
        let entries = &self.entries[..self.entries.len().saturating_sub(1)];
        let shown = if count.is_empty() {
            entries.len()
        } else {
            match count.parse::<usize>() {
                Ok(n) => n.min(entries.len()),
                Err(_) => {
                    self.command_error("`:history` takes a whole number of entries");
                    return;
                }
            }
        };
        let width = entries.len().to_string().len();
        let lines: Vec<String> = entries
            .iter()
            .enumerate()
            .skip(entries.len() - shown)
            .map(|(at, (entry, ok))| {
                let mark = if *ok { ' ' } else { '!' };
                let indented = entry.replace('\n', &format!("\n{:width$}   ", ""));
                format!("{:>width$}{mark} {indented}", at + 1)
            })
            .collect();
        for line in lines {
            self.session.print_line(&line);
        }
    }

    /// `:cd DIR`.
    pub(super) fn change_folder(&mut self, folder: &str) {
        let target = if folder == "~" {
            std::env::var("HOME").unwrap_or_default()
        } else {
            folder.to_string()
        };
        match std::env::set_current_dir(&target) {
            Ok(()) => {
                if let Ok(now) = std::env::current_dir() {
                    self.session.print_line(&now.display().to_string());
                }
            }
            Err(error) => self.command_error(&format!("cannot change to `{folder}`: {error}")),
        }
    }

    /// `:!COMMAND`: run it with `sh -c`, its output straight to the terminal.
    pub(super) fn shell(&mut self, command: &str) {
        self.session.flush();
        let _ = self.diagnostics.flush();
        let _ = std::io::stdout().flush();
        match std::process::Command::new("sh")
            .arg("-c")
            .arg(command)
            .status()
        {
            Ok(status) if !status.success() => {
                self.command_error(&format!("`{}` failed ({status})", command.trim()))
            }
            Ok(_) => {}
            Err(error) => self.command_error(&format!("cannot run `sh`: {error}")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn definitions_are_found_with_their_doc_comments() {
        let src = "/// The squares.\n/// Of ints.\nfun square (x:int) => x * x;\nvar k = 3;\nstruct P {\n  x: int;\n  y: int;\n}\n";
        let found = scan_definitions(src, "f.flx", None, &[]);
        let names: Vec<&str> = found.iter().map(|d| d.name.as_str()).collect();
        assert_eq!(names, ["square", "k", "P"]);
        assert_eq!(found[0].doc.as_deref(), Some("The squares.\nOf ints."));
        assert_eq!(found[0].place, "f.flx:3");
        assert_eq!(found[2].text, "struct P {\n  x: int;\n  y: int;\n}");
        assert!(found[2].is_type);
        assert_eq!(found[1].doc, None);
    }

    #[test]
    fn timeit_statistics() {
        assert_eq!(timeit_runs(0.5), 2);
        assert_eq!(timeit_runs(0.001), 1000);
        let (mean, deviation) = mean_and_deviation(&[1.0, 2.0, 3.0]);
        assert_eq!(mean, 2.0);
        assert_eq!(deviation, 1.0);
        assert_eq!(seconds_text(0.00123), "1.230 ms");
    }
}
