//! How the REPL shows a result: `VALUE : TYPE` in the `_strr` form, with three
//! conveniences that belong to the REPL's display only — never to `str`, `print` or a
//! program's output, which keep Felix's exact form:
//!
//! - an array with more elements than the print limit shows its first and last elements
//!   around `… N more …` (the number of elements left out);
//! - a matrix of scalars (`T ^ (A \* B)` or `T ^ B ^ A`) shows as an aligned grid, one row of
//!   `A` per line (`:show` adds the row and column indices);
//! - on a terminal, values and types are coloured (ANSI; never with `NO_COLOR`).
//!
//! With [`Display::EXACT`] (the default of a `Session`) the line is exactly `_strr x : T`.

use num_traits::ToPrimitive;

use crate::eval::format::strr_value;
use crate::eval::value::{leaf_count, Value};
use crate::types::print::type_to_string;
use crate::types::shape::array_shape;
use crate::types::size::size_of;
use crate::types::ty::Type;

/// How results are shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Display {
    /// Arrays with more elements than this show their ends only (`None`: everything).
    pub print_limit: Option<usize>,
    /// Matrices of scalars show as grids.
    pub grid: bool,
    /// Grids show their row and column indices (`:show`).
    pub indices: bool,
    /// ANSI colours.
    pub color: bool,
    /// Digits after the point of doubles shown by the REPL (`:set precision N`); `None`:
    /// Felix's `%g`, as `str` prints them.
    pub precision: Option<usize>,
}

impl Display {
    /// Exactly `_strr x : T`, as piped output before these conveniences.
    pub const EXACT: Display = Display {
        print_limit: None,
        grid: false,
        indices: false,
        color: false,
        precision: None,
    };

    /// The default print limit of the REPL (`:set print-limit N` changes it).
    pub const DEFAULT_PRINT_LIMIT: usize = 100;
}

impl Default for Display {
    fn default() -> Display {
        Display::EXACT
    }
}

const VALUE_NUMBER: &str = "\x1b[36m";
const VALUE_TEXT: &str = "\x1b[32m";
const VALUE_WORD: &str = "\x1b[35m";
const TYPE_COLOR: &str = "\x1b[33m";
const DIM: &str = "\x1b[2m";
const RESET: &str = "\x1b[0m";

/// The text a REPL expression chunk prints for `value : ty` (possibly several lines, without
/// a final newline); `None` for `void`.
pub fn result_text(value: &Value, ty: &Type, display: &Display) -> Option<String> {
    let type_text = type_to_string(ty);
    let type_shown = if display.color {
        format!("{TYPE_COLOR}{type_text}{RESET}")
    } else {
        type_text
    };
    match ty {
        Type::Unitsum(0) => None,
        Type::Fun(_, _) => Some(format!("<fun> : {type_shown}")),
        _ => {
            if display.grid || display.indices {
                if let Some(grid) = grid_text(value, ty, display) {
                    return Some(format!("{grid}\n: {type_shown}"));
                }
            }
            let text = match (display.print_limit, display.precision) {
                (Some(limit), _) => limited_text(value, ty, limit, display),
                (None, Some(_)) => limited_text(value, ty, usize::MAX, display),
                (None, None) => strr_value(value, ty),
            };
            let text = if display.color {
                colour_value(&text)
            } else {
                text
            };
            Some(format!("{text} : {type_shown}"))
        }
    }
}

/// The elements of an array value of type `element ^ index`, in code order (each element
/// that is itself an array is a view of its leaves); `None` when the value does not have the
/// shape its type says.
fn array_elements(value: &Value, element: &Type, index: &Type) -> Option<Vec<Value>> {
    let Value::Array(array) = value else {
        return None;
    };
    let stride = leaf_count(element)?;
    // An index of run-time size: the count is the view's.
    let count = match size_of(index) {
        Some(n) => n.to_usize()?,
        None if index.has_var() && stride > 0 && array.len.is_multiple_of(stride) => {
            array.len / stride
        }
        None => return None,
    };
    if count.checked_mul(stride)? != array.len || array.start + array.len > array.buf.len() {
        return None;
    }
    let element_is_array = matches!(element, Type::Array(_, _));
    Some(
        (0..count)
            .map(|position| {
                if element_is_array {
                    Value::Array(array.slice(position * stride, stride))
                } else {
                    array.leaf(position)
                }
            })
            .collect(),
    )
}

/// The positions shown of `count` items under `limit`: all of them, or the first and last
/// halves with the number left out between them.
fn shown_positions(count: usize, limit: usize) -> (Vec<usize>, Option<(usize, usize)>) {
    if count <= limit {
        return ((0..count).collect(), None);
    }
    let head = limit.div_ceil(2);
    let tail = limit - head;
    let mut positions: Vec<usize> = (0..head).collect();
    positions.extend(count - tail..count);
    (positions, Some((head, count - head - tail)))
}

/// `_strr` with every array longer than `limit` cut to its ends; equal to `_strr` when no
/// array is longer.
#[cfg(test)]
pub fn limited_strr(value: &Value, ty: &Type, limit: usize) -> String {
    limited_text(value, ty, limit, &Display::EXACT)
}

/// `limited_strr` with doubles at the display's precision.
fn limited_text(value: &Value, ty: &Type, limit: usize, display: &Display) -> String {
    let mut out = String::new();
    write_limited(&mut out, value, ty, limit, display);
    out
}

fn write_limited(out: &mut String, value: &Value, ty: &Type, limit: usize, display: &Display) {
    match (ty, value) {
        (Type::Array(element, index), Value::Array(_)) => {
            let Some(elements) = array_elements(value, element, index) else {
                out.push_str(&strr_value(value, ty));
                return;
            };
            let (positions, gap) = shown_positions(elements.len(), limit);
            let mut items: Vec<Option<usize>> = positions.into_iter().map(Some).collect();
            if let Some((at, _)) = gap {
                items.insert(at, None);
            }
            out.push('(');
            for (shown, item) in items.iter().enumerate() {
                if shown > 0 {
                    out.push(',');
                }
                match item {
                    Some(position) => {
                        write_limited(out, &elements[*position], element, limit, display)
                    }
                    None => {
                        let omitted = gap.map_or(0, |(_, omitted)| omitted);
                        out.push_str(&format!("… {omitted} more …"));
                    }
                }
            }
            out.push(')');
        }
        (Type::Tuple(components), Value::Tuple(values)) if components.len() == values.len() => {
            out.push('(');
            for (position, (value, component)) in values.iter().zip(components.iter()).enumerate() {
                if position > 0 {
                    out.push(',');
                }
                write_limited(out, value, component, limit, display);
            }
            out.push(')');
        }
        (Type::Double | Type::Float, Value::Float(_)) => {
            out.push_str(&cell_text(value, ty, display))
        }
        _ => out.push_str(&strr_value(value, ty)),
    }
}

/// The text of one scalar cell: `_strr`, or a double with the REPL's precision.
fn cell_text(value: &Value, ty: &Type, display: &Display) -> String {
    match (ty, value, display.precision) {
        (Type::Double | Type::Float, Value::Float(x), Some(digits)) if x.is_finite() => {
            format!("{x:.digits$}")
        }
        _ => strr_value(value, ty),
    }
}

/// An array of scalars seen as its dimensions and a reader of its cells by flat position.
struct Cells<'a> {
    dims: Vec<usize>,
    cell: Type,
    array: &'a crate::eval::value::ArrayVal,
}

impl Cells<'_> {
    fn of<'a>(value: &'a Value, ty: &Type) -> Option<Cells<'a>> {
        let (dims, cell) = array_shape(ty)?;
        let Value::Array(array) = value else {
            return None;
        };
        let count = dims.iter().try_fold(1usize, |n, d| n.checked_mul(*d))?;
        if count != array.len || array.start + array.len > array.buf.len() {
            return None;
        }
        Some(Cells { dims, cell, array })
    }

    fn text(&self, position: usize, display: &Display) -> String {
        cell_text(&self.array.leaf(position), &self.cell, display)
    }
}

/// The numbers of an array of numbers (ints, doubles, floats) with its dimensions, for
/// pictures; `None` for any other value.
pub fn numeric_array(value: &Value, ty: &Type) -> Option<(Vec<usize>, Vec<f64>)> {
    let cells = Cells::of(value, ty)?;
    if !matches!(cells.cell, Type::Int(_) | Type::Double | Type::Float) {
        return None;
    }
    let numbers = (0..cells.array.len)
        .map(|position| match cells.array.leaf(position) {
            Value::Int(n) => Some(n as f64),
            Value::Float(x) => Some(x),
            _ => None,
        })
        .collect::<Option<Vec<f64>>>()?;
    Some((cells.dims, numbers))
}

/// A matrix as an aligned grid, or an array of three and more dimensions as its labelled 2-D
/// slices (`[i, :, :]`, as numpy shows them); `None` for anything else.
fn grid_text(value: &Value, ty: &Type, display: &Display) -> Option<String> {
    let cells = Cells::of(value, ty)?;
    let n = cells.dims.len();
    if n < 2 {
        return None;
    }
    let (rows, columns) = (cells.dims[n - 2], cells.dims[n - 1]);
    if rows == 0 || columns == 0 {
        return None;
    }
    let slice_size = rows * columns;
    let slices: usize = cells.dims[..n - 2].iter().product();
    if slices == 0 {
        return None;
    }
    if n == 2 {
        return Some(grid_lines(&cells, 0, rows, columns, display));
    }
    let limit = display.print_limit.unwrap_or(usize::MAX);
    let slice_limit = (limit / slice_size.min(limit).max(1)).max(2);
    let (shown, gap) = shown_positions(slices, slice_limit);
    let mut parts = Vec::new();
    for (order, slice) in shown.iter().enumerate() {
        if let Some((at, omitted)) = gap {
            if order == at {
                parts.push(dim(&format!("⋮ {omitted} more slices"), display.color));
            }
        }
        // The slice's position in the leading dimensions, outermost first.
        let mut rest = *slice;
        let mut labels = vec![String::new(); n - 2];
        for (label, size) in labels.iter_mut().zip(&cells.dims[..n - 2]).rev() {
            *label = (rest % size).to_string();
            rest /= size;
        }
        labels.extend([":".to_string(), ":".to_string()]);
        parts.push(dim(&format!("[{}] =", labels.join(", ")), display.color));
        parts.push(grid_lines(
            &cells,
            slice * slice_size,
            rows,
            columns,
            display,
        ));
    }
    Some(parts.join("\n"))
}

/// The grid of the `rows × columns` cells from flat position `start` (cells right-aligned,
/// rows and columns beyond the print limit left out around `…`), with indices when
/// `display.indices`.
fn grid_lines(
    cells: &Cells,
    start: usize,
    row_count: usize,
    column_count: usize,
    display: &Display,
) -> String {
    let limit = display.print_limit.unwrap_or(usize::MAX);
    let (row_positions, row_gap) = shown_positions(row_count, limit);
    let (column_positions, column_gap) = shown_positions(column_count, limit);
    // Each shown column: its cells (one per shown row) and its header; `None` is the gap.
    let mut columns: Vec<Option<usize>> = column_positions.iter().map(|c| Some(*c)).collect();
    if let Some((at, _)) = column_gap {
        columns.insert(at, None);
    }
    let mut shown_rows: Vec<Option<usize>> = row_positions.iter().map(|r| Some(*r)).collect();
    if let Some((at, _)) = row_gap {
        shown_rows.insert(at, None);
    }
    let texts: Vec<Vec<String>> = shown_rows
        .iter()
        .map(|row| {
            columns
                .iter()
                .map(|column| match (row, column) {
                    (Some(r), Some(c)) => cells.text(start + r * column_count + c, display),
                    (None, Some(_)) => "⋮".to_string(),
                    (Some(_), None) => "…".to_string(),
                    (None, None) => String::new(),
                })
                .collect()
        })
        .collect();
    let widths: Vec<usize> = columns
        .iter()
        .enumerate()
        .map(|(at, column)| {
            let cells = texts
                .iter()
                .map(|row| row[at].chars().count())
                .max()
                .unwrap_or(0);
            let header = match column {
                Some(c) if display.indices => c.to_string().len(),
                _ => 0,
            };
            cells.max(header)
        })
        .collect();
    let label_width = row_positions
        .last()
        .map_or(1, |last| last.to_string().len());
    let paint = |text: &str| -> String {
        if display.color && !text.trim().is_empty() {
            colour_value(text)
        } else {
            text.to_string()
        }
    };
    let mut lines = Vec::new();
    if display.indices {
        let mut header = format!("{:>label_width$} │", "");
        for (column, width) in columns.iter().zip(&widths) {
            let label = column.map_or("…".to_string(), |c| c.to_string());
            header.push_str(&format!(" {label:>width$}"));
        }
        lines.push(dim(&header, display.color));
        let rule_length = header.chars().count() - label_width - 2;
        lines.push(dim(
            &format!("{}─┼{}", "─".repeat(label_width), "─".repeat(rule_length)),
            display.color,
        ));
    }
    for (row, row_texts) in shown_rows.iter().zip(&texts) {
        let mut line = String::new();
        if display.indices {
            let label = row.map_or("⋮".to_string(), |r| r.to_string());
            line.push_str(&dim(&format!("{label:>label_width$} │"), display.color));
        }
        for (position, (text, width)) in row_texts.iter().zip(&widths).enumerate() {
            if position > 0 || display.indices {
                line.push(' ');
            }
            let padding = width.saturating_sub(text.chars().count());
            line.push_str(&" ".repeat(padding));
            line.push_str(&paint(text));
        }
        lines.push(line.trim_end().to_string());
    }
    lines.join("\n")
}

fn dim(text: &str, color: bool) -> String {
    if color {
        format!("{DIM}{text}{RESET}")
    } else {
        text.to_string()
    }
}

/// Colour the tokens of a value's text: numbers, quoted strings and chars, and words
/// (`true`, constructors, `case … of`); brackets and commas stay plain.
pub fn colour_value(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    let chars: Vec<char> = text.chars().collect();
    let mut position = 0;
    while position < chars.len() {
        let c = chars[position];
        let start = position;
        let colour = if c == '\'' {
            position += 1;
            while position < chars.len() && chars[position] != '\'' {
                if chars[position] == '\\' {
                    position += 1;
                }
                position += 1;
            }
            position = (position + 1).min(chars.len());
            VALUE_TEXT
        } else if c.is_ascii_digit()
            || (c == '-'
                && chars.get(position + 1).is_some_and(char::is_ascii_digit)
                && (position == 0 || !chars[position - 1].is_alphanumeric()))
        {
            position += 1;
            while position < chars.len()
                && (chars[position].is_alphanumeric()
                    || chars[position] == '.'
                    || ((chars[position] == '-' || chars[position] == '+')
                        && chars[position - 1] == 'e'))
            {
                position += 1;
            }
            VALUE_NUMBER
        } else if c.is_alphabetic() || c == '_' {
            while position < chars.len()
                && (chars[position].is_alphanumeric() || chars[position] == '_')
            {
                position += 1;
            }
            VALUE_WORD
        } else if c == '…' || c == '⋮' {
            position += 1;
            DIM
        } else {
            out.push(c);
            position += 1;
            continue;
        };
        out.push_str(colour);
        out.extend(&chars[start..position]);
        out.push_str(RESET);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::value::{ArrayVal, Buffer, Scalars};
    use crate::types::ty::IntTy;

    fn ints(count: usize) -> Value {
        Value::Array(ArrayVal::new(Buffer::Scalars(Scalars::I32(
            (0..count as i32).collect(),
        ))))
    }

    fn int_array(count: u64) -> Type {
        Type::array(Type::Int(IntTy::Int), Type::Unitsum(count))
    }

    #[test]
    fn short_arrays_print_exactly_as_strr() {
        let ty = int_array(5);
        let text = limited_strr(&ints(5), &ty, 5);
        assert_eq!(text, strr_value(&ints(5), &ty));
        assert_eq!(text, "(0,1,2,3,4)");
    }

    #[test]
    fn long_arrays_show_their_ends_and_the_count_left_out() {
        let ty = int_array(1000);
        assert_eq!(
            limited_strr(&ints(1000), &ty, 4),
            "(0,1,… 996 more …,998,999)"
        );
        assert_eq!(limited_strr(&ints(1000), &ty, 1), "(0,… 999 more …)");
    }

    #[test]
    fn a_matrix_of_ints_is_a_grid_with_optional_indices() {
        let rows = Type::Unitsum(2);
        let columns = Type::Unitsum(3);
        let ty = Type::array(
            Type::array(Type::Int(IntTy::Int), columns.clone()),
            rows.clone(),
        );
        let value = Value::Array(ArrayVal::new(Buffer::Scalars(Scalars::I32(vec![
            1, 20, 3, 4, 5, 600,
        ]))));
        let grid = Display {
            grid: true,
            ..Display::EXACT
        };
        assert_eq!(
            result_text(&value, &ty, &grid).unwrap(),
            "1 20   3\n4  5 600\n: int ^ 3 ^ 2"
        );
        let indexed = Display {
            indices: true,
            ..Display::EXACT
        };
        assert_eq!(
            result_text(&value, &ty, &indexed).unwrap(),
            "  │ 0  1   2\n──┼─────────\n0 │ 1 20   3\n1 │ 4  5 600\n: int ^ 3 ^ 2"
        );
        // Not a grid without the option: the exact `_strr` line.
        assert_eq!(
            result_text(&value, &ty, &Display::EXACT).unwrap(),
            "((1,20,3),(4,5,600)) : int ^ 3 ^ 2"
        );
    }

    fn grid_display() -> Display {
        Display {
            grid: true,
            print_limit: Some(100),
            ..Display::EXACT
        }
    }

    #[test]
    fn a_square_matrix_is_a_grid_and_keeps_its_written_type() {
        let three = Type::Unitsum(3);
        let ty = Type::array(
            Type::Int(IntTy::Int),
            Type::cproduct(vec![three.clone(), three]),
        );
        assert_eq!(
            result_text(&ints(9), &ty, &grid_display()).unwrap(),
            "0 1 2\n3 4 5\n6 7 8\n: int ^ (3 \\* 3)"
        );
        // `T ^ (A \^ 2)` written so is a grid too.
        let power = Type::array(
            Type::Int(IntTy::Int),
            Type::carray(Type::Unitsum(3), Type::Unitsum(2)),
        );
        assert_eq!(
            result_text(&ints(9), &power, &grid_display()).unwrap(),
            "0 1 2\n3 4 5\n6 7 8\n: int ^ (3 \\^ 2)"
        );
    }

    #[test]
    fn three_dimensions_print_as_labelled_slices() {
        let ty = Type::array(
            Type::Int(IntTy::Int),
            Type::cproduct(vec![Type::Unitsum(2), Type::Unitsum(2), Type::Unitsum(3)]),
        );
        assert_eq!(
            result_text(&ints(12), &ty, &grid_display()).unwrap(),
            "[0, :, :] =\n0 1 2\n3 4 5\n[1, :, :] =\n6  7  8\n9 10 11\n: int ^ (2 \\* 2 \\* 3)"
        );
        // Past the print limit: the first and last slices.
        let big = Type::array(
            Type::Int(IntTy::Int),
            Type::cproduct(vec![Type::Unitsum(5), Type::Unitsum(2), Type::Unitsum(2)]),
        );
        let small = Display {
            print_limit: Some(4),
            ..grid_display()
        };
        assert_eq!(
            result_text(&ints(20), &big, &small).unwrap(),
            "[0, :, :] =\n0 1\n2 3\n⋮ 3 more slices\n[4, :, :] =\n16 17\n18 19\n: int ^ (5 \\* 2 \\* 2)"
        );
    }

    #[test]
    fn precision_applies_to_doubles_in_the_display_only() {
        let ty = Type::array(Type::Double, Type::Unitsum(2));
        let value = Value::Array(ArrayVal::new(Buffer::Scalars(Scalars::F64(vec![
            0.1,
            2.0 / 3.0,
        ]))));
        let display = Display {
            precision: Some(3),
            ..Display::EXACT
        };
        assert_eq!(
            result_text(&value, &ty, &display).unwrap(),
            "(0.100,0.667) : double ^ 2"
        );
        assert_eq!(strr_value(&value, &ty), "(0.1,0.666667)");
    }

    #[test]
    fn colours_wrap_tokens_and_leave_punctuation() {
        assert_eq!(
            colour_value("(1,'a')"),
            format!("({VALUE_NUMBER}1{RESET},{VALUE_TEXT}'a'{RESET})")
        );
    }
}
