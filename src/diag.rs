//! Diagnostics: one renderer-independent `Diagnostic` for every stage's errors, and its
//! rendering with ariadne. This is the only module that imports ariadne.

use std::sync::Arc;

use ariadne::{Cache, Color, Config, IndexType, Label, Report, ReportKind, Source};

use crate::syntax::span::Span;
use crate::syntax::SyntaxError;

/// Where an error was found: decides the exit status.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// Syntax, name, type, kind, `:>>`: nothing has run. Exit status 1.
    Static,
    /// A runtime error. Exit status 3.
    Runtime,
}

/// An error of any stage, with its location and explanations, independent of how it is
/// rendered (`render`, `render_with`).
#[derive(Clone, Debug, PartialEq)]
pub struct Diagnostic {
    /// Where it was found: decides the exit status.
    pub stage: Stage,
    /// Stable code (`E0301`, `R0003`, …).
    pub code: &'static str,
    /// The one-line message.
    pub message: String,
    /// The primary location.
    pub span: Span,
    /// The label on the primary span.
    pub label: String,
    /// Secondary labelled spans.
    pub secondary: Vec<(Span, String)>,
    /// Notes shown after the source excerpt.
    pub notes: Vec<String>,
    /// A suggestion shown last.
    pub help: Option<String>,
    /// The source the primary and secondary spans are in: the one the diagnostic is
    /// rendered with, unless the error happened in a function of another unit.
    pub origin: Origin,
    /// The calls of user functions the error propagated out of, innermost first (runtime
    /// errors inside functions), at most `MAX_FRAMES`.
    pub frames: Vec<CallFrame>,
    /// How many more calls the error propagated out of, beyond `frames`.
    pub hidden_frames: usize,
    /// The unit the secondary spans are in, when it may differ from the one the primary span
    /// is in (a variable read in one REPL input and defined in an earlier one): the session
    /// keeps them as labels when it is the same unit and turns them into notes naming the
    /// place otherwise (`place_secondaries`).
    pub secondary_unit: Option<u32>,
}

/// The most call frames a diagnostic keeps and shows; deeper ones are only counted.
pub const MAX_FRAMES: usize = 5;

/// One call a runtime error propagated out of: the function that was running and the call
/// that had started it.
#[derive(Clone, Debug, PartialEq)]
pub struct CallFrame {
    /// The function's name (`<lambda>` for an anonymous function).
    pub function: String,
    /// The span of the call, in the source of the caller.
    pub call: Span,
    /// The source of `call`.
    pub call_origin: Origin,
}

/// Which source a span is in. A span is a byte range into one unit's source (a file, a
/// REPL chunk, the prelude); a runtime error inside a function of an earlier unit has spans
/// into that unit's source, which the session supplies (`Session` keeps the source of every
/// unit that defines functions).
#[derive(Clone, Debug, PartialEq, Default)]
pub enum Origin {
    /// The source the diagnostic is rendered with: the unit that was run or checked.
    #[default]
    Here,
    /// Another unit, by the evaluator's number, not yet resolved to its source (the session
    /// resolves it; rendered without a location when it is not).
    Unit(u32),
    /// Another unit's source.
    Source(Arc<SourceText>),
}

/// The source of a unit other than the one being reported.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceText {
    /// The name shown in locations (`prelude.flx`, `<earlier input>`, a file's path).
    pub name: String,
    /// The source text.
    pub text: String,
    /// What the source is.
    pub kind: SourceKind,
}

/// What the source of another unit is (a library's calls are shown as the library's).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SourceKind {
    /// The prelude: its functions are library functions, its calls the library's.
    Library,
    /// An earlier chunk of the REPL.
    EarlierInput,
    /// A file (`:load` in the REPL).
    File,
}

impl Diagnostic {
    /// A diagnostic with only its stage, code, message and primary location.
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
            origin: Origin::Here,
            frames: Vec::new(),
            hidden_frames: 0,
            secondary_unit: None,
        }
    }

    /// With the label of the primary location.
    pub fn with_label(mut self, label: impl Into<String>) -> Diagnostic {
        self.label = label.into();
        self
    }

    /// With a labelled secondary location.
    pub fn with_secondary(mut self, span: Span, label: impl Into<String>) -> Diagnostic {
        self.secondary.push((span, label.into()));
        self
    }

    /// With the secondary spans in unit `unit` (see `secondary_unit`).
    pub fn in_secondary_unit(mut self, unit: u32) -> Diagnostic {
        self.secondary_unit = Some(unit);
        self
    }

    /// With one more note.
    pub fn with_note(mut self, note: impl Into<String>) -> Diagnostic {
        self.notes.push(note.into());
        self
    }

    /// With a suggestion.
    pub fn with_help(mut self, help: impl Into<String>) -> Diagnostic {
        self.help = Some(help.into());
        self
    }
}

impl Diagnostic {
    /// The same diagnostic with every span of the rendered source (`Origin::Here`) moved
    /// `offset` bytes to the right. The REPL uses it when a command's argument was parsed on
    /// its own but is shown inside the whole line.
    pub fn shifted(mut self, offset: usize) -> Diagnostic {
        let shift = |span: Span| Span::new(span.start + offset, span.end + offset);
        if self.origin == Origin::Here {
            self.span = shift(self.span);
            for (span, _) in &mut self.secondary {
                *span = shift(*span);
            }
        }
        for frame in &mut self.frames {
            if frame.call_origin == Origin::Here {
                frame.call = shift(frame.call);
            }
        }
        self
    }

    /// The same diagnostic with its secondary spans placed (see `secondary_unit`): kept as
    /// labels when they are in the unit of the primary span (`current` when that is
    /// `Origin::Here`), else turned into notes naming their place in `source(unit)`, or
    /// dropped when that source is not known.
    pub fn place_secondaries(
        mut self,
        current: u32,
        source: impl Fn(u32) -> Option<Arc<SourceText>>,
    ) -> Diagnostic {
        let Some(unit) = self.secondary_unit.take() else {
            return self;
        };
        let primary = match self.origin {
            Origin::Unit(u) => Some(u),
            Origin::Here => Some(current),
            Origin::Source(_) => None,
        };
        if primary == Some(unit) {
            return self;
        }
        let secondary = std::mem::take(&mut self.secondary);
        if let Some(text) = source(unit) {
            for (span, label) in secondary {
                self.notes.push(format!(
                    "{label}: {} (`{}`)",
                    location(&text.name, &text.text, span),
                    excerpt(&text.text, span)
                ));
            }
        }
        self
    }

    /// The same diagnostic with every `Origin::Unit(n)` for which `source(n)` knows the
    /// source replaced by `Origin::Source` (the session does this before reporting).
    pub fn resolve_origins(
        mut self,
        source: impl Fn(u32) -> Option<Arc<SourceText>>,
    ) -> Diagnostic {
        let resolve = |origin: &mut Origin| {
            if let Origin::Unit(unit) = *origin {
                if let Some(text) = source(unit) {
                    *origin = Origin::Source(text);
                }
            }
        };
        resolve(&mut self.origin);
        for frame in &mut self.frames {
            resolve(&mut frame.call_origin);
        }
        self
    }
}

/// The exit status for a failed run: 3 when a runtime error is among the diagnostics,
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
/// exactly as given. Spans past the end of the source, inside a multi-byte character
/// or reversed are repaired first, so rendering never panics and never prints `?:?`.
///
/// At most `--max-errors` diagnostics are drawn, then one line counts the others; a source
/// line longer than `--max-line-width` is cut to a window around the spans on it. The
/// default limits apply; [`render_with`] takes a session's.
pub fn render(diags: &[Diagnostic], file_name: &str, src: &str, color: bool) -> String {
    render_with(diags, file_name, src, &RenderOptions::new(color))
}

/// How diagnostics are rendered: in colour or not, and the limits on their number and on the
/// width of the source lines shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RenderOptions {
    /// ANSI colours (for a terminal).
    pub color: bool,
    /// Diagnostics drawn before one line counts the rest (`--max-errors`).
    pub max_errors: usize,
    /// Characters of a source line shown around the spans (`--max-line-width`).
    pub max_line_width: usize,
}

impl RenderOptions {
    /// Rendering with the default limits.
    pub fn new(color: bool) -> RenderOptions {
        RenderOptions::with_limits(color, &crate::limits::Limits::default())
    }

    /// Rendering with a session's limits.
    pub fn with_limits(color: bool, limits: &crate::limits::Limits) -> RenderOptions {
        RenderOptions {
            color,
            max_errors: crate::limits::as_usize(limits.max_errors),
            max_line_width: crate::limits::as_usize(limits.max_line_width),
        }
    }
}

/// `render` with explicit options.
pub fn render_with(
    diags: &[Diagnostic],
    file_name: &str,
    src: &str,
    options: &RenderOptions,
) -> String {
    let mut rendered = String::new();
    let shown = options.max_errors;
    for diag in diags.iter().take(shown) {
        let stack = stack_note(diag, file_name, src);
        let text = match &diag.origin {
            Origin::Here => render_windowed(diag, file_name, src, options, stack.as_deref()),
            Origin::Source(other) => {
                render_windowed(diag, &other.name, &other.text, options, stack.as_deref())
            }
            Origin::Unit(_) => render_without_source(diag, stack.as_deref()),
        };
        rendered.push_str(&text);
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
fn render_windowed(
    diag: &Diagnostic,
    file_name: &str,
    src: &str,
    options: &RenderOptions,
    stack: Option<&str>,
) -> String {
    let color = options.color;
    let width = options.max_line_width;
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
        return render_one(diag, file_name, src, color, stack);
    }
    // The window: `width` bytes from a little before the first span (and at least to the
    // primary span's start), on character boundaries.
    let first = spans
        .iter()
        .map(|span| span.start)
        .min()
        .unwrap_or(primary.start);
    let floor = |mut at: usize| {
        while !src.is_char_boundary(at) {
            at -= 1;
        }
        at
    };
    // A span wider than the window is cut at the window's end too (its underline with it).
    let window_start = floor(first.saturating_sub(width / 4).max(line_start));
    let window_end =
        floor((window_start + width).min(line_end)).max(floor((primary.start + 1).min(line_end)));
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
    let clamp = |offset: usize| offset.clamp(window_start, window_end);
    let mut moved = diag.clone();
    moved.span = Span::new(shift(clamp(primary.start)), shift(clamp(primary.end)));
    for (span, _) in moved.secondary.iter_mut() {
        let span_fixed = displayable_span(*span, src);
        *span = Span::new(shift(clamp(span_fixed.start)), shift(clamp(span_fixed.end)));
    }
    let text = render_one(&moved, file_name, &excerpt, color, stack);
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

fn render_one(
    diag: &Diagnostic,
    file_name: &str,
    src: &str,
    color: bool,
    stack: Option<&str>,
) -> String {
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
    for note in diag.notes.iter().map(String::as_str).chain(stack) {
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

/// A diagnostic whose spans are in a source that is not available (`Origin::Unit`: a
/// machine used without a session): the code, the message, the help and the notes, without
/// a location.
fn render_without_source(diag: &Diagnostic, stack: Option<&str>) -> String {
    let mut text = format!(
        "[{}] Error: {} (in a function of another unit, whose source is not available)\n",
        diag.code, diag.message
    );
    let indent = |block: &str| block.replace('\n', "\n         ");
    if let Some(help) = &diag.help {
        text.push_str(&format!("   Help: {}\n", indent(help)));
    }
    for note in diag.notes.iter().map(String::as_str).chain(stack) {
        text.push_str(&format!("   Note: {}\n", indent(note)));
    }
    text
}

/// The call stack of a runtime error inside functions, as one note: a line per frame,
/// innermost first (`in `f`, called at FILE:LINE:COL`), then the count of frames not kept.
/// `file_name` and `src` are the source of `Origin::Here`.
fn stack_note(diag: &Diagnostic, file_name: &str, src: &str) -> Option<String> {
    if diag.frames.is_empty() {
        return None;
    }
    let mut lines = Vec::with_capacity(diag.frames.len() + 1);
    let mut function_origin = &diag.origin;
    for frame in &diag.frames {
        lines.push(frame_line(frame, function_origin, file_name, src));
        function_origin = &frame.call_origin;
    }
    if diag.hidden_frames > 0 {
        let plural = if diag.hidden_frames == 1 { "" } else { "s" };
        lines.push(format!("and {} more call{plural}", diag.hidden_frames));
    }
    Some(lines.join("\n"))
}

/// One frame of a call stack: the function (`function_origin` is the source its body is in)
/// and where it was called.
fn frame_line(frame: &CallFrame, function_origin: &Origin, file_name: &str, src: &str) -> String {
    let in_library = |origin: &Origin| matches!(origin, Origin::Source(text) if text.kind == SourceKind::Library);
    let function = if frame.function == "<lambda>" {
        "an anonymous function".to_string()
    } else if in_library(function_origin) {
        format!("library function `{}`", frame.function)
    } else {
        format!("`{}`", frame.function)
    };
    let call = match &frame.call_origin {
        Origin::Here => format!("called at {}", location(file_name, src, frame.call)),
        Origin::Source(text) => match text.kind {
            SourceKind::Library => "called by the library".to_string(),
            SourceKind::EarlierInput => format!(
                "called at {} (`{}`)",
                location(&text.name, &text.text, frame.call),
                excerpt(&text.text, frame.call)
            ),
            SourceKind::File => {
                format!("called at {}", location(&text.name, &text.text, frame.call))
            }
        },
        Origin::Unit(_) => "called in another unit".to_string(),
    };
    format!("in {function}, {call}")
}

/// `FILE:LINE:COL` of the start of `span` in `src` (columns count characters, as the header's).
fn location(file_name: &str, src: &str, span: Span) -> String {
    let span = displayable_span(span, src);
    let before = &src[..span.start];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().unwrap_or("").chars().count() + 1;
    format!("{file_name}:{line}:{column}")
}

/// The text of `span` for a one-line mention: its first line, at most 40 characters.
fn excerpt(src: &str, span: Span) -> String {
    let span = displayable_span(span, src);
    let text = src[span.start..span.end]
        .lines()
        .next()
        .unwrap_or("")
        .trim();
    let mut shown: String = text.chars().take(40).collect();
    if shown.len() < text.len() || src[span.start..span.end].trim_end().contains('\n') {
        shown.push('…');
    }
    shown
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

    fn frame(function: &str, call: Span, call_origin: Origin) -> CallFrame {
        CallFrame {
            function: function.to_string(),
            call,
            call_origin,
        }
    }

    fn source(name: &str, text: &str, kind: SourceKind) -> Arc<SourceText> {
        Arc::new(SourceText {
            name: name.to_string(),
            text: text.to_string(),
            kind,
        })
    }

    #[test]
    fn call_stack_is_one_note_innermost_first() {
        let src = "fun f (x:int) => 1 / x;\nfun g (x:int) => f x;\ng 0;\n";
        let mut diag = Diagnostic::new(
            Stage::Runtime,
            "R0004",
            "division by zero",
            Span::new(17, 22),
        );
        diag.frames = vec![
            frame("f", Span::new(41, 44), Origin::Here),
            frame("g", Span::new(46, 49), Origin::Here),
        ];
        diag.hidden_frames = 3;
        let rendered = render(&[diag], "s.flx", src, false);
        assert!(
            rendered.contains("Note: in `f`, called at s.flx:2:18\n")
                && rendered.contains("in `g`, called at s.flx:3:1\n")
                && rendered.contains("and 3 more calls\n"),
            "{rendered}"
        );
        assert!(rendered.find("`f`") < rendered.find("`g`"), "{rendered}");
    }

    #[test]
    fn spans_of_other_sources_are_shown_in_their_source() {
        // The error is in a function of an earlier input, called from another earlier input
        // (quoted), from the library and finally from the chunk being reported.
        let first = source(
            "<earlier input>",
            "fun f (x:int) => 1 / x;\n",
            SourceKind::EarlierInput,
        );
        let second = source(
            "<earlier input>",
            "\nfun g (x:int) => f (x + 0);\n",
            SourceKind::EarlierInput,
        );
        let library = source(
            "prelude.flx",
            "proc iter (p: int -> void) { p 0; }\n",
            SourceKind::Library,
        );
        let mut diag = Diagnostic::new(
            Stage::Runtime,
            "R0004",
            "division by zero",
            Span::new(17, 22),
        )
        .with_label("division by zero");
        diag.origin = Origin::Source(first);
        diag.frames = vec![
            frame("f", Span::new(18, 27), Origin::Source(second)),
            frame("<lambda>", Span::new(29, 32), Origin::Source(library)),
            frame("iter", Span::new(0, 4), Origin::Here),
            frame("h", Span::new(0, 1), Origin::Unit(7)),
        ];
        let rendered = render(&[diag], "<repl>", "iter h;\n", false);
        assert!(
            rendered.contains("╭─[ <earlier input>:1:18 ]"),
            "{rendered}"
        );
        assert!(
            rendered.contains(" 1 │ fun f (x:int) => 1 / x;"),
            "{rendered}"
        );
        assert!(
            rendered.contains("in `f`, called at <earlier input>:2:18 (`f (x + 0)`)"),
            "{rendered}"
        );
        assert!(
            rendered.contains("in an anonymous function, called by the library"),
            "{rendered}"
        );
        assert!(
            rendered.contains("in library function `iter`, called at <repl>:1:1"),
            "{rendered}"
        );
        assert!(
            rendered.contains("in `h`, called in another unit"),
            "{rendered}"
        );
    }

    #[test]
    fn an_unresolved_origin_is_rendered_without_a_location() {
        let mut diag = Diagnostic::new(
            Stage::Runtime,
            "R0004",
            "division by zero",
            Span::new(90, 95),
        );
        diag.origin = Origin::Unit(3);
        diag.frames = vec![frame("f", Span::new(0, 3), Origin::Here)];
        let rendered = render(&[diag], "x.flx", "f 0;\n", false);
        assert!(
            rendered.contains("[R0004] Error: division by zero"),
            "{rendered}"
        );
        assert!(
            rendered.contains("in `f`, called at x.flx:1:1"),
            "{rendered}"
        );
        assert!(!rendered.contains("x.flx:1:1 ]"), "{rendered}");
    }

    #[test]
    fn origins_resolve_to_known_sources_only() {
        let text = source(
            "<earlier input>",
            "fun f () => 1;\n",
            SourceKind::EarlierInput,
        );
        let mut diag =
            Diagnostic::new(Stage::Runtime, "R0004", "division by zero", Span::new(0, 1));
        diag.origin = Origin::Unit(1);
        diag.frames = vec![frame("f", Span::new(0, 1), Origin::Unit(2))];
        let resolved = diag.resolve_origins(|unit| (unit == 1).then(|| text.clone()));
        assert_eq!(resolved.origin, Origin::Source(text));
        assert_eq!(resolved.frames[0].call_origin, Origin::Unit(2));
    }

    #[test]
    fn shifted_moves_only_the_spans_of_the_rendered_source() {
        let mut diag = Diagnostic::new(Stage::Runtime, "R0004", "division", Span::new(1, 2));
        diag.origin = Origin::Unit(1);
        diag.frames = vec![
            frame("f", Span::new(3, 4), Origin::Unit(2)),
            frame("g", Span::new(5, 6), Origin::Here),
        ];
        let moved = diag.shifted(10);
        assert_eq!(moved.span, Span::new(1, 2));
        assert_eq!(moved.frames[0].call, Span::new(3, 4));
        assert_eq!(moved.frames[1].call, Span::new(15, 16));
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
