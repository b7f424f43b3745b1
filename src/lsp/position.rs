//! Byte offsets (the pipeline's `Span`s) to LSP positions and back: a line and a column in
//! UTF-16 code units, as the protocol counts them.

use lsp_types::{Position, Range};

use crate::syntax::span::Span;

/// Where each line of a text starts.
#[derive(Clone, Debug)]
pub(crate) struct LineIndex {
    starts: Vec<usize>,
}

impl LineIndex {
    pub(crate) fn new(text: &str) -> LineIndex {
        let starts = std::iter::once(0)
            .chain(text.match_indices('\n').map(|(at, _)| at + 1))
            .collect();
        LineIndex { starts }
    }

    /// The position of a byte offset (clamped to the text, moved back to a character start).
    pub(crate) fn position(&self, text: &str, offset: usize) -> Position {
        let offset = text.floor_char_boundary(offset.min(text.len()));
        let line = self.starts.partition_point(|&s| s <= offset) - 1;
        let start = self.starts[line];
        let character = text[start..offset].encode_utf16().count();
        Position::new(line as u32, character as u32)
    }

    pub(crate) fn range(&self, text: &str, span: Span) -> Range {
        Range::new(
            self.position(text, span.start),
            self.position(text, span.end),
        )
    }

    /// The byte offset of a position; a column past the end of its line is the line's end,
    /// a line past the end the text's end.
    pub(crate) fn offset(&self, text: &str, position: Position) -> usize {
        let Some(&start) = self.starts.get(position.line as usize) else {
            return text.len();
        };
        let end = self
            .starts
            .get(position.line as usize + 1)
            .map_or(text.len(), |next| next - 1);
        let mut units = 0;
        for (at, c) in text[start..end].char_indices() {
            if units >= position.character as usize {
                return start + at;
            }
            units += c.len_utf16();
        }
        end
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn utf16_columns_round_trip() {
        let text = "val é = \"𝄞x\";\nval b = 1;";
        let lines = LineIndex::new(text);
        let x = text.find('x').unwrap();
        // `𝄞` is two UTF-16 units (four bytes), `é` one (two bytes).
        assert_eq!(lines.position(text, x), Position::new(0, 11));
        assert_eq!(lines.offset(text, Position::new(0, 11)), x);
        let b = text.find('b').unwrap();
        assert_eq!(lines.position(text, b), Position::new(1, 4));
        assert_eq!(lines.offset(text, Position::new(1, 4)), b);
        assert_eq!(
            lines.offset(text, Position::new(0, 99)),
            text.find('\n').unwrap()
        );
        assert_eq!(lines.offset(text, Position::new(9, 0)), text.len());
    }
}
