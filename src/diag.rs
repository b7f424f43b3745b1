//! Diagnostics: one renderer-independent `Diagnostic` for every stage's errors, and its
//! rendering with ariadne. This is the only module that imports ariadne.

use ariadne::{Cache, Color, Config, IndexType, Label, Report, ReportKind, Source};

use crate::syntax::span::Span;
use crate::syntax::SyntaxError;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Severity {
    Error,
}

/// Where an error was found: decides the exit status (L0.3).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// Syntax, name, type, kind, `:>>`: nothing has run. Exit status 1.
    Static,
    /// A runtime error (L8.3). Exit status 3.
    Runtime,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Diagnostic {
    pub stage: Stage,
    /// Stable code (`E0301`, `R0003`, …).
    pub code: &'static str,
    pub message: String,
    /// The primary location.
    pub span: Span,
    /// The label on the primary span.
    pub label: String,
    /// Secondary labelled spans.
    pub secondary: Vec<(Span, String)>,
    pub notes: Vec<String>,
    pub help: Option<String>,
}

impl Diagnostic {
    pub fn new(
        stage: Stage,
        code: &'static str,
        message: impl Into<String>,
        span: Span,
    ) -> Diagnostic {
        Diagnostic {
            stage,
            code,
            message: message.into(),
            span,
            label: String::new(),
            secondary: Vec::new(),
            notes: Vec::new(),
            help: None,
        }
    }

    pub fn with_label(mut self, label: impl Into<String>) -> Diagnostic {
        self.label = label.into();
        self
    }

    pub fn with_secondary(mut self, span: Span, label: impl Into<String>) -> Diagnostic {
        self.secondary.push((span, label.into()));
        self
    }

    pub fn with_note(mut self, note: impl Into<String>) -> Diagnostic {
        self.notes.push(note.into());
        self
    }

    pub fn with_help(mut self, help: impl Into<String>) -> Diagnostic {
        self.help = Some(help.into());
        self
    }
}

impl Diagnostic {
    /// The same diagnostic with every span moved `offset` bytes to the right. The REPL uses it
    /// when a command's argument was parsed on its own but is shown inside the whole line.
    pub fn shifted(mut self, offset: usize) -> Diagnostic {
        let shift = |span: Span| Span::new(span.start + offset, span.end + offset);
        self.span = shift(self.span);
        for (span, _) in &mut self.secondary {
            *span = shift(*span);
        }
        self
    }
}

/// The exit status for a failed run (L0.3): 3 when a runtime error is among the diagnostics,
/// otherwise 1 (a static error: nothing ran). No diagnostics means success, 0.
pub fn exit_status(diags: &[Diagnostic]) -> i32 {
    if diags.is_empty() {
        0
    } else if diags.iter().any(|diag| diag.stage == Stage::Runtime) {
        3
    } else {
        1
    }
}

/// Convert a syntax error of the parser into a static diagnostic with the same code, message,
/// label and help.
pub fn syntax_diagnostic(error: &SyntaxError) -> Diagnostic {
    let mut diag = Diagnostic::new(Stage::Static, error.code, error.message.clone(), error.span)
        .with_label(error.label.clone());
    if let Some(help) = &error.help {
        diag = diag.with_help(help.clone());
    }
    diag
}

/// Render diagnostics as ariadne reports over one source text, in order, each ending with a
/// newline. The header of each names the primary location as `FILE:LINE:COL` with `FILE`
/// exactly as given (L8.4). Spans past the end of the source, inside a multi-byte character
/// or reversed are repaired first, so rendering never panics and never prints `?:?`.
///
/// At most `--max-errors` diagnostics are drawn, then one line counts the others; a source
/// line longer than `--max-line-width` is cut to a window around the spans on it.
pub fn render(diags: &[Diagnostic], file_name: &str, src: &str, color: bool) -> String {
    let mut rendered = String::new();
    let shown = crate::limits::max_errors();
    for diag in diags.iter().take(shown) {
        rendered.push_str(&render_windowed(diag, file_name, src, color));
    }
    if diags.len() > shown {
        let hidden = diags.len() - shown;
        let plural = if hidden == 1 { "" } else { "s" };
        rendered.push_str(&format!(
            "… and {hidden} more error{plural} not shown (`--max-errors` shows more)\n"
        ));
    }
    rendered
}

/// Render one diagnostic; when all its spans are on one source line longer than
/// `--max-line-width`, that line is shown cut to a window around them (`…` marks the cuts)
/// and the header keeps the real column.
fn render_windowed(diag: &Diagnostic, file_name: &str, src: &str, color: bool) -> String {
    let width = crate::limits::max_line_width();
    let primary = displayable_span(diag.span, src);
    let line_start = src[..primary.start].rfind('\n').map_or(0, |i| i + 1);
    let line_end = src[primary.start..]
        .find('\n')
        .map_or(src.len(), |i| primary.start + i);
    let spans: Vec<Span> = std::iter::once(primary)
        .chain(
            diag.secondary
                .iter()
                .map(|(span, _)| displayable_span(*span, src)),
        )
        .collect();
    let on_line = spans
        .iter()
        .all(|span| span.start >= line_start && span.end <= line_end);
    if line_end - line_start <= width || !on_line {
        return render_one(diag, file_name, src, color);
    }
    // The window: from a little before the first span to the end of the last one, at most
    // `width` bytes past its start, on character boundaries.
    let first = spans
        .iter()
        .map(|span| span.start)
        .min()
        .unwrap_or(primary.start);
    let last = spans
        .iter()
        .map(|span| span.end)
        .max()
        .unwrap_or(primary.end);
    let floor = |mut at: usize| {
        while !src.is_char_boundary(at) {
            at -= 1;
        }
        at
    };
    let window_start = floor(first.saturating_sub(width / 4).max(line_start));
    let window_end = floor(last.max(window_start + width).min(line_end));
    let head = if window_start > line_start { "…" } else { "" };
    let tail = if window_end < line_end { "…" } else { "" };
    let excerpt = format!(
        "{}{head}{}{tail}{}",
        &src[..line_start],
        &src[window_start..window_end],
        &src[line_end..]
    );
    let shift = |offset: usize| {
        if offset < window_start {
            offset
        } else {
            offset - window_start + line_start + head.len()
        }
    };
    let mut moved = diag.clone();
    moved.span = Span::new(shift(primary.start), shift(primary.end.min(window_end)));
    for (span, _) in moved.secondary.iter_mut() {
        let span_fixed = displayable_span(*span, src);
        *span = Span::new(
            shift(span_fixed.start),
            shift(span_fixed.end.min(window_end)),
        );
    }
    let text = render_one(&moved, file_name, &excerpt, color);
    // The header names the column in the real line.
    let line = src[..line_start].matches('\n').count() + 1;
    let real_column = src[line_start..primary.start].chars().count() + 1;
    let shown_column = excerpt[line_start..moved.span.start].chars().count() + 1;
    text.replacen(
        &format!("{file_name}:{line}:{shown_column} "),
        &format!("{file_name}:{line}:{real_column} "),
        1,
    )
}

fn render_one(diag: &Diagnostic, file_name: &str, src: &str, color: bool) -> String {
    let config = Config::default()
        .with_color(color)
        .with_index_type(IndexType::Byte);
    let primary_span = displayable_span(diag.span, src);
    let mut primary_label = Label::new(primary_span).with_color(Color::Red);
    if !diag.label.is_empty() {
        primary_label = primary_label.with_message(&diag.label);
    }
    let mut builder = Report::build(ReportKind::Error, primary_span)
        .with_config(config)
        .with_code(diag.code)
        .with_message(&diag.message)
        .with_label(primary_label);
    for (span, label) in &diag.secondary {
        let mut secondary_label = Label::new(displayable_span(*span, src)).with_color(Color::Blue);
        if !label.is_empty() {
            secondary_label = secondary_label.with_message(label);
        }
        builder = builder.with_label(secondary_label);
    }
    for note in &diag.notes {
        builder = builder.with_note(note);
    }
    if let Some(help) = &diag.help {
        builder = builder.with_help(help);
    }
    let mut bytes = Vec::new();
    let cache = NamedSource {
        name: file_name,
        source: Source::from(src),
    };
    match builder.finish().write(cache, &mut bytes) {
        Ok(()) => String::from_utf8_lossy(&bytes).into_owned(),
        // Writing to a vector cannot fail; keep a plain one-line form just in case.
        Err(_) => plain_line(diag, file_name, src),
    }
}

/// A one-line fallback form: `FILE:LINE:COL: error[CODE]: MESSAGE`.
fn plain_line(diag: &Diagnostic, file_name: &str, src: &str) -> String {
    let span = displayable_span(diag.span, src);
    let before = &src[..span.start];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().unwrap_or("").chars().count() + 1;
    format!(
        "{file_name}:{line}:{column}: error[{}]: {}\n",
        diag.code, diag.message
    )
}

/// A span ariadne can place: inside the source, on character boundaries, start <= end. A
/// span at the very end of the source (an error at end of input) is moved back onto the last
/// character that is not whitespace, so it is shown on the line where the input stopped.
fn displayable_span(span: Span, src: &str) -> Span {
    let floor_boundary = |mut offset: usize| {
        offset = offset.min(src.len());
        while !src.is_char_boundary(offset) {
            offset -= 1;
        }
        offset
    };
    let start = floor_boundary(span.start);
    let end = floor_boundary(span.end.max(start));
    if start < src.len() {
        return Span::new(start, end);
    }
    match src.trim_end().char_indices().next_back() {
        Some((last_start, last_char)) => Span::new(last_start, last_start + last_char.len_utf8()),
        None => Span::new(0, 0),
    }
}

/// The single source of a report, displayed under the file name given on the command line.
struct NamedSource<'a> {
    name: &'a str,
    source: Source<&'a str>,
}

impl<'a> Cache<()> for NamedSource<'a> {
    type Storage = &'a str;

    fn fetch(&mut self, _id: &()) -> Result<&Source<&'a str>, impl std::fmt::Debug> {
        Ok::<_, std::convert::Infallible>(&self.source)
    }

    fn display<'b>(&self, _id: &'b ()) -> Option<impl std::fmt::Display + 'b> {
        Some(self.name.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn type_error(span: Span) -> Diagnostic {
        Diagnostic::new(Stage::Static, "E0301", "type mismatch", span)
            .with_label("this is a string")
            .with_help("convert it with `str`")
    }

    fn check_header(src: &str, span: Span, expected_location: &str) {
        let rendered = render(&[type_error(span)], "prog.flx", src, false);
        let expected_header = format!("╭─[ {expected_location} ]");
        assert!(
            rendered.contains(&expected_header),
            "expected `{expected_header}` in:\n{rendered}"
        );
    }

    #[test]
    fn header_names_file_line_and_column() {
        let src = "var a = 1;\nvar b = 2;\nprintln$ a + \"x\";\n";
        let start = src.find("\"x\"").unwrap();
        check_header(src, Span::new(start, start + 3), "prog.flx:3:14");
    }

    #[test]
    fn message_code_label_and_help_are_rendered_without_color() {
        let src = "println$ 1 + \"x\";\n";
        let rendered = render(&[type_error(Span::new(13, 16))], "prog.flx", src, false);
        assert!(
            rendered.contains("[E0301] Error: type mismatch"),
            "{rendered}"
        );
        assert!(rendered.contains("this is a string"), "{rendered}");
        assert!(rendered.contains("convert it with `str`"), "{rendered}");
        assert!(
            !rendered.contains('\u{1b}'),
            "no escape codes expected:\n{rendered}"
        );
    }

    #[test]
    fn columns_count_characters_not_bytes() {
        let src = "val s = \"é\"; s + 1;\n";
        let start = src.find("s + 1").unwrap();
        check_header(src, Span::new(start, start + 5), "prog.flx:1:14");
    }

    #[test]
    fn span_at_end_of_input_points_at_the_last_character() {
        let src = "var x = (1,\n  2\n";
        check_header(src, Span::new(src.len(), src.len()), "prog.flx:2:3");
    }

    #[test]
    fn span_past_the_end_and_inside_a_character_is_repaired() {
        let src = "\"é\"";
        check_header(src, Span::new(2, 99), "prog.flx:1:2");
        check_header("", Span::new(5, 9), "prog.flx:1:1");
    }

    #[test]
    fn empty_span_is_rendered() {
        let src = "var x = ;\n";
        check_header(src, Span::new(8, 8), "prog.flx:1:9");
    }

    #[test]
    fn secondary_labels_and_notes_appear() {
        let src = "var x = 1;\nvar x = 2;\n";
        let diag = Diagnostic::new(
            Stage::Static,
            "E0202",
            "duplicate definition of `x`",
            Span::new(15, 16),
        )
        .with_label("defined again here")
        .with_secondary(Span::new(4, 5), "first defined here")
        .with_note("each name is defined once per scope");
        let rendered = render(&[diag], "dup.flx", src, false);
        assert!(rendered.contains("dup.flx:2:5"), "{rendered}");
        assert!(rendered.contains("first defined here"), "{rendered}");
        assert!(
            rendered.contains("each name is defined once per scope"),
            "{rendered}"
        );
    }

    #[test]
    fn several_diagnostics_render_in_order() {
        let src = "a;\nb;\n";
        let first = Diagnostic::new(
            Stage::Static,
            "E0201",
            "undefined name `a`",
            Span::new(0, 1),
        );
        let second = Diagnostic::new(
            Stage::Static,
            "E0201",
            "undefined name `b`",
            Span::new(3, 4),
        );
        let rendered = render(&[first, second], "names.flx", src, false);
        let first_at = rendered.find("names.flx:1:1").expect("first header");
        let second_at = rendered.find("names.flx:2:1").expect("second header");
        assert!(first_at < second_at, "{rendered}");
    }

    #[test]
    fn exit_status_follows_the_stages() {
        let static_error = Diagnostic::new(Stage::Static, "E0100", "syntax error", Span::new(0, 0));
        let runtime_error =
            Diagnostic::new(Stage::Runtime, "R0004", "division by zero", Span::new(0, 0));
        assert_eq!(exit_status(&[]), 0);
        assert_eq!(exit_status(std::slice::from_ref(&static_error)), 1);
        assert_eq!(exit_status(&[static_error, runtime_error]), 3);
    }

    #[test]
    fn syntax_errors_keep_code_message_label_and_help() {
        let error = SyntaxError {
            span: Span::new(3, 4),
            code: "E0602",
            message: "unsupported literal suffix `d`".to_string(),
            label: "this suffix".to_string(),
            help: Some("write `0x1di`".to_string()),
            at_end: false,
        };
        let diag = syntax_diagnostic(&error);
        assert_eq!(diag.stage, Stage::Static);
        assert_eq!(diag.code, "E0602");
        assert_eq!(diag.message, error.message);
        assert_eq!(diag.label, "this suffix");
        assert_eq!(diag.help.as_deref(), Some("write `0x1di`"));
        assert_eq!(diag.span, Span::new(3, 4));
    }

    #[test]
    fn shifted_moves_every_span() {
        let diag = Diagnostic::new(Stage::Static, "E0201", "undefined", Span::new(1, 2))
            .with_secondary(Span::new(0, 1), "here");
        let moved = diag.shifted(6);
        assert_eq!(moved.span, Span::new(7, 8));
        assert_eq!(moved.secondary[0].0, Span::new(6, 7));
    }
}
