//! CSV files (the `csv` crate): `load_csv`, `save_csv` and their `_with` forms.
//!
//! A file is read as the type the program expects: a matrix of one numeric type (`double ^
//! (r \* c)`, `int ^ c ^ r`; a 1-d array is one column) or an array of records or structs
//! whose fields name columns of the header, each field's type deciding how its column is
//! parsed. A size the type leaves to run time is the file's; a static one is checked against
//! it. A field that does not parse is R0015 naming the file, line, column, text and type.

use std::fs::File;
use std::io::BufReader;

use crate::limits::Limits;
use crate::types::ty::{IntTy, NominalBody};
use crate::types::Type;

use super::super::array::{check_allocation, LeafBuilder};
use super::super::error::{file_error, poll_interrupt, Fault, DATA_FORMAT};
use super::super::value::{leaf_repr, leaf_type, Scalars, Value};
use super::index_dims;

/// How a file is written: the options record of the `_with` forms.
#[derive(Clone, Copy, Debug)]
pub struct Options {
    pub delimiter: u8,
    /// The first row names the columns (skipped when reading a matrix).
    pub header: bool,
    /// Lines starting with this byte are skipped.
    pub comment: Option<u8>,
}

impl Default for Options {
    /// `load_csv f`: commas, a header row, no comment lines.
    fn default() -> Options {
        Options {
            delimiter: b',',
            header: true,
            comment: None,
        }
    }
}

impl Options {
    /// The options of a `(comment = …, delimiter = …, header = …)` record value (fields in
    /// sorted order): the delimiter one byte, the comment one byte or empty.
    pub fn of(value: &Value) -> Result<Options, Fault> {
        let Value::Tuple(fields) = value else {
            return Ok(Options::default());
        };
        let byte = |v: &Value, what: &str, empty_ok: bool| -> Result<Option<u8>, Fault> {
            match v {
                Value::Str(s) if s.len() == 1 => Ok(Some(s[0])),
                Value::Str(s) if s.is_empty() && empty_ok => Ok(None),
                Value::Str(s) => Err(Fault::new(
                    DATA_FORMAT,
                    format!(
                        "the CSV {what} must be one character{}, not `{}`",
                        if empty_ok { " or empty" } else { "" },
                        String::from_utf8_lossy(s)
                    ),
                )),
                _ => Ok(None),
            }
        };
        let comment = byte(&fields[0], "comment", true)?;
        let delimiter = byte(&fields[1], "delimiter", false)?.unwrap_or(b',');
        let header = matches!(fields[2], Value::Int(n) if n != 0);
        Ok(Options {
            delimiter,
            header,
            comment,
        })
    }
}

/// How one column is read and written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Field {
    Int(IntTy),
    Double,
    Float,
    Bool,
    Text,
}

impl Field {
    fn of(ty: &Type) -> Option<Field> {
        Some(match ty {
            Type::Int(t) => Field::Int(*t),
            Type::Double => Field::Double,
            Type::Float => Field::Float,
            Type::String => Field::Text,
            t if t.is_bool() => Field::Bool,
            _ => return None,
        })
    }

    fn name(self) -> String {
        match self {
            Field::Int(t) => Type::Int(t).to_string(),
            Field::Double => "double".into(),
            Field::Float => "float".into(),
            Field::Bool => "bool".into(),
            Field::Text => "string".into(),
        }
    }

    /// The value of the text `raw` (white space around it ignored), `None` when it is not one.
    fn parse(self, raw: &[u8]) -> Option<Value> {
        let text = raw.trim_ascii();
        if self == Field::Text {
            return Some(Value::Str(std::sync::Arc::new(raw.to_vec())));
        }
        let text = std::str::from_utf8(text).ok()?;
        Some(match self {
            Field::Double => Value::Float(parse_float(text)?),
            Field::Float => Value::Float(parse_float(text)? as f32 as f64),
            Field::Int(t) => Value::Int(parse_int(text, t)?),
            Field::Bool => Value::Int(match text {
                "true" | "True" | "TRUE" | "1" => 1,
                "false" | "False" | "FALSE" | "0" => 0,
                _ => return None,
            }),
            Field::Text => unreachable!("strings returned above"),
        })
    }

    fn write(self, value: &Value, out: &mut Vec<u8>) {
        match (self, value) {
            (Field::Double, Value::Float(x)) => write_float(*x, out),
            (Field::Float, Value::Float(x)) => {
                let x = *x as f32;
                if x.is_finite() {
                    out.extend_from_slice(ryu::Buffer::new().format_finite(x).as_bytes());
                } else {
                    write_float(f64::from(x), out);
                }
            }
            (Field::Int(t), Value::Int(n)) if !t.signed() && t.bits() == 64 => {
                out.extend_from_slice((*n as u64).to_string().as_bytes())
            }
            (Field::Int(_), Value::Int(n)) => out.extend_from_slice(n.to_string().as_bytes()),
            (Field::Bool, Value::Int(n)) => {
                out.extend_from_slice(if *n != 0 { b"true" } else { b"false" })
            }
            (Field::Text, Value::Str(s)) => out.extend_from_slice(s),
            _ => {}
        }
    }
}

/// "1 field", "3 fields".
fn fields_text(n: usize) -> String {
    format!("{n} field{}", if n == 1 { "" } else { "s" })
}

/// "a `double`", "an `int`".
fn article(name: &str) -> String {
    let an = name.starts_with(['a', 'e', 'i', 'o', 'u']);
    format!("{} `{name}`", if an { "an" } else { "a" })
}

/// A decimal or scientific number, `nan`, `inf` (as numpy and pandas write them).
fn parse_float(text: &str) -> Option<f64> {
    text.parse::<f64>().ok()
}

fn parse_int(text: &str, t: IntTy) -> Option<i64> {
    let v = text.parse::<i128>().ok()?;
    t.contains(v).then_some(v as i64)
}

/// The shortest text that reads back as `x` (numpy's `nan`, `inf`, `-inf` for the others).
fn write_float(x: f64, out: &mut Vec<u8>) {
    if x.is_finite() {
        out.extend_from_slice(ryu::Buffer::new().format_finite(x).as_bytes());
    } else if x.is_nan() {
        out.extend_from_slice(b"nan");
    } else if x > 0.0 {
        out.extend_from_slice(b"inf");
    } else {
        out.extend_from_slice(b"-inf");
    }
}

/// The shape of a CSV file's array type: a matrix of one scalar type, or rows of named fields.
#[derive(Debug)]
pub enum Shape {
    /// Rows and columns (`None` when a run-time size leaves them to the file); a 1-d array is
    /// one column.
    Matrix {
        field_kind: FieldKind,
        rows: Option<usize>,
        cols: Option<usize>,
        /// A 1-d array (one column).
        rank_one: bool,
    },
    /// The fields in the element's order (a record's sorted names, a struct's declared
    /// order), the rows.
    Records {
        fields: Vec<(String, FieldKind)>,
        rows: Option<usize>,
    },
}

/// A column's type (opaque outside this module).
#[derive(Clone, Copy, Debug)]
pub struct FieldKind(Field);

impl Shape {
    /// The CSV shape of the array type `ty`, or why it has none.
    pub fn of(ty: &Type) -> Result<Shape, String> {
        let Type::Array(element, index) = ty else {
            return Err(format!("a CSV file holds an array, not a `{ty}`"));
        };
        let fields: Option<Vec<(String, &Type)>> = match &**element {
            Type::Record(..) => element
                .record_fields()
                .map(|fs| fs.map(|(n, t)| (n.to_string(), t)).collect()),
            Type::Nominal(def) => match def.body() {
                Some(NominalBody::Struct(fs)) => {
                    Some(fs.iter().map(|(n, t)| (n.to_string(), t)).collect())
                }
                _ => None,
            },
            _ => None,
        };
        if let Some(fields) = fields {
            let mut dims = Vec::new();
            index_dims(index, &mut dims).ok_or_else(|| format!("`{ty}` is too large"))?;
            let fields = fields
                .into_iter()
                .map(|(name, t)| match Field::of(t) {
                    Some(f) => Ok((name, FieldKind(f))),
                    None => Err(format!(
                        "the field `{name}` of a CSV row is a number, a bool or a string, not \
                         a `{t}`"
                    )),
                })
                .collect::<Result<Vec<_>, String>>()?;
            return match dims.as_slice() {
                [rows] => Ok(Shape::Records {
                    fields,
                    rows: *rows,
                }),
                _ => Err(format!(
                    "a CSV file of records is a 1-d array of them, not a `{ty}`"
                )),
            };
        }
        let (dims, t) = array_dims(ty).ok_or_else(|| format!("`{ty}` is too large"))?;
        let field = Field::of(t).ok_or_else(|| {
            format!("a CSV file holds numbers, bools or strings, not `{t}` (in `{ty}`)")
        })?;
        let (rows, cols) = match dims.as_slice() {
            [rows] => (*rows, Some(1)),
            [rows, cols] => (*rows, *cols),
            _ => {
                return Err(format!(
                    "a CSV file holds a matrix (`double ^ (r \\* c)`) or a column (`double ^ \
                     n`), not a `{ty}`"
                ))
            }
        };
        Ok(Shape::Matrix {
            field_kind: FieldKind(field),
            rows,
            cols,
            rank_one: dims.len() == 1,
        })
    }
}

/// The dimensions of an array type, outermost first (`None`: a run-time size not known yet),
/// and its element type; `None` when a size does not fit in memory.
fn array_dims(ty: &Type) -> Option<(Vec<Option<usize>>, &Type)> {
    let mut dims = Vec::new();
    let mut t = ty;
    while let Type::Array(element, index) = t {
        index_dims(index, &mut dims)?;
        t = element;
    }
    Some((dims, t))
}

/// Read the CSV file `path` as an array of `shape` (the type `ty`).
pub fn load(
    path: &str,
    shape: &Shape,
    ty: &Type,
    options: Options,
    limits: &Limits,
) -> Result<(Value, Vec<usize>), Fault> {
    let file = File::open(path).map_err(|e| file_error("open", path, &e))?;
    if file.metadata().is_ok_and(|m| m.is_dir()) {
        return Err(file_error(
            "read",
            path,
            &std::io::Error::from(std::io::ErrorKind::IsADirectory),
        ));
    }
    let mut reader = csv::ReaderBuilder::new()
        .delimiter(options.delimiter)
        .has_headers(false)
        .comment(options.comment)
        .flexible(true)
        .buffer_capacity(1 << 20)
        .from_reader(BufReader::with_capacity(1 << 20, file));
    let mut record = csv::ByteRecord::new();
    let mut read = |record: &mut csv::ByteRecord| -> Result<bool, Fault> {
        reader
            .read_byte_record(record)
            .map_err(|e| csv_error(path, e))
    };
    let header = if options.header {
        if !read(&mut record)? {
            return Err(Fault::new(
                DATA_FORMAT,
                format!("`{path}` is empty: it has no header row"),
            ));
        }
        Some(record.clone())
    } else {
        None
    };
    let location = |record: &csv::ByteRecord, column: usize| {
        let line = record.position().map_or(0, |p| p.line());
        let name = header
            .as_ref()
            .and_then(|h| h.get(column))
            .map(|n| format!(" (`{}`)", String::from_utf8_lossy(n)))
            .unwrap_or_default();
        format!("`{path}` line {line}, column {}{name}", column + 1)
    };
    let bad = |record: &csv::ByteRecord, column: usize, field: Field| {
        let text = String::from_utf8_lossy(record.get(column).unwrap_or_default());
        Fault::new(
            DATA_FORMAT,
            format!(
                "{}: `{text}` is not {}",
                location(record, column),
                article(&field.name())
            ),
        )
    };
    let mut next_check = 1usize << 16;
    // After each row: the array may grow only within the limits (checked as its length
    // doubles), and a long load stops at Ctrl-C (polled every 2^16 leaves).
    let mut next_poll = 1usize << 16;
    let mut grown = |len: usize| -> Result<(), Fault> {
        if len >= next_check {
            check_allocation(Some(next_check * 2), ty, limits)?;
            next_check *= 2;
        }
        if len >= next_poll {
            poll_interrupt()?;
            next_poll = len + (1 << 16);
        }
        Ok(())
    };
    match shape {
        Shape::Matrix {
            field_kind: FieldKind(field),
            rows,
            cols,
            rank_one,
        } => {
            let mut builder = LeafBuilder::new(leaf_repr(leaf_type(ty)));
            if let (Some(r), Some(c)) = (rows, cols) {
                builder.reserve(r.saturating_mul(*c), ty, limits)?;
            }
            let mut width = *cols;
            let mut count = 0usize;
            while read(&mut record)? {
                let w = *width.get_or_insert(record.len());
                if record.len() != w {
                    return Err(Fault::new(
                        DATA_FORMAT,
                        format!(
                            "`{path}` line {}: {}, not the {w} of {}",
                            record.position().map_or(0, |p| p.line()),
                            fields_text(record.len()),
                            if cols.is_some() {
                                format!("`{ty}`")
                            } else {
                                "the first row".to_string()
                            }
                        ),
                    ));
                }
                push_row(&mut builder, &record, *field, &bad)?;
                count += 1;
                grown(count * w)?;
            }
            if let Some(r) = rows {
                if *r != count {
                    return Err(Fault::new(
                        DATA_FORMAT,
                        format!("`{path}` has {count} rows of data, not the {r} of `{ty}`",),
                    ));
                }
            }
            let dims = match cols {
                // A column: one dimension.
                Some(1) if *rank_one => vec![count],
                _ => vec![count, width.unwrap_or(0)],
            };
            Ok((Value::Array(builder.finish()), dims))
        }
        Shape::Records { fields, rows } => {
            let Some(header) = header.as_ref() else {
                return Err(Fault::new(
                    DATA_FORMAT,
                    format!(
                        "`{path}` is read without a header row, so its columns cannot name the \
                         fields of `{ty}`"
                    ),
                ));
            };
            let columns: Vec<(usize, Field)> = fields
                .iter()
                .map(|(name, FieldKind(f))| {
                    header
                        .iter()
                        .position(|h| h.trim_ascii() == name.as_bytes())
                        .map(|at| (at, *f))
                        .ok_or_else(|| {
                            let names: Vec<String> = header
                                .iter()
                                .map(|h| format!("`{}`", String::from_utf8_lossy(h)))
                                .collect();
                            Fault::new(
                                DATA_FORMAT,
                                format!(
                                    "`{path}` has no column `{name}` for the field of `{ty}`; \
                                     its header is {}",
                                    names.join(", ")
                                ),
                            )
                        })
                })
                .collect::<Result<_, _>>()?;
            let element = leaf_type(ty);
            let mut builder = LeafBuilder::new(leaf_repr(element));
            let mut count = 0usize;
            while read(&mut record)? {
                if record.len() != header.len() {
                    return Err(Fault::new(
                        DATA_FORMAT,
                        format!(
                            "`{path}` line {}: {}, not the {} of its header",
                            record.position().map_or(0, |p| p.line()),
                            fields_text(record.len()),
                            header.len()
                        ),
                    ));
                }
                let values = columns
                    .iter()
                    .map(|&(at, f)| {
                        f.parse(record.get(at).unwrap_or_default())
                            .ok_or_else(|| bad(&record, at, f))
                    })
                    .collect::<Result<Vec<Value>, Fault>>()?;
                builder.push_leaf(Value::Tuple(values.into()));
                count += 1;
                grown(count * fields.len())?;
            }
            if let Some(r) = rows {
                if *r != count {
                    return Err(Fault::new(
                        DATA_FORMAT,
                        format!("`{path}` has {count} rows of data, not the {r} of `{ty}`"),
                    ));
                }
            }
            Ok((Value::Array(builder.finish()), vec![count]))
        }
    }
}

/// Append the fields of one row of a matrix.
fn push_row(
    builder: &mut LeafBuilder,
    record: &csv::ByteRecord,
    field: Field,
    bad: &dyn Fn(&csv::ByteRecord, usize, Field) -> Fault,
) -> Result<(), Fault> {
    match (builder, field) {
        // The common case, without a `Value` per number.
        (LeafBuilder::Scalars(Scalars::F64(v)), Field::Double) => {
            for (i, raw) in record.iter().enumerate() {
                let x = std::str::from_utf8(raw.trim_ascii())
                    .ok()
                    .and_then(parse_float)
                    .ok_or_else(|| bad(record, i, field))?;
                v.push(x);
            }
        }
        (builder, field) => {
            for (i, raw) in record.iter().enumerate() {
                builder.push_leaf(field.parse(raw).ok_or_else(|| bad(record, i, field))?);
            }
        }
    }
    Ok(())
}

fn csv_error(path: &str, error: csv::Error) -> Fault {
    let line = error.position().map(|p| p.line());
    match error.into_kind() {
        csv::ErrorKind::Io(e) => file_error("read", path, &e),
        other => Fault::new(
            DATA_FORMAT,
            format!(
                "`{path}`{} is not valid CSV: {other:?}",
                line.map(|l| format!(" line {l}")).unwrap_or_default()
            ),
        ),
    }
}

/// Write `array` (of `shape`, the type `ty`) to the CSV file `path`.
pub fn save(
    path: &str,
    shape: &Shape,
    ty: &Type,
    options: Options,
    array: &Value,
) -> Result<(), Fault> {
    let io = |e: std::io::Error| file_error("write", path, &e);
    let file = File::create(path).map_err(io)?;
    let mut writer = csv::WriterBuilder::new()
        .delimiter(options.delimiter)
        .flexible(true)
        .buffer_capacity(1 << 20)
        .from_writer(file);
    let write_error = |e: csv::Error| match e.into_kind() {
        csv::ErrorKind::Io(e) => io(e),
        other => Fault::new(DATA_FORMAT, format!("cannot write `{path}`: {other:?}")),
    };
    let Value::Array(view) = array else {
        return Ok(());
    };
    let mut row: Vec<Vec<u8>> = Vec::new();
    match shape {
        Shape::Matrix {
            field_kind: FieldKind(field),
            cols,
            ..
        } => {
            let width = match cols {
                Some(c) => *c,
                None => {
                    let dims = array_dims(ty).map_or_else(Vec::new, |(dims, _)| dims);
                    super::dims_for(&dims, view.len, ty)?
                        .get(1)
                        .copied()
                        .unwrap_or(1)
                }
            };
            // The columns are named by their positions, as pandas names them.
            if options.header && width > 0 {
                let names: Vec<String> = (0..width).map(|c| c.to_string()).collect();
                writer.write_record(&names).map_err(write_error)?;
            }
            row.resize(width, Vec::new());
            for r in 0..view.len.checked_div(width).unwrap_or(0) {
                for (c, cell) in row.iter_mut().enumerate() {
                    cell.clear();
                    field.write(&view.buf.get(view.start + r * width + c), cell);
                }
                writer.write_record(&row).map_err(write_error)?;
            }
        }
        Shape::Records { fields, .. } => {
            if options.header {
                writer
                    .write_record(fields.iter().map(|(n, _)| n.as_bytes()))
                    .map_err(write_error)?;
            }
            row.resize(fields.len(), Vec::new());
            for i in 0..view.len {
                let element = view.buf.get(view.start + i);
                let Value::Tuple(parts) = &element else {
                    continue;
                };
                for ((cell, part), (_, FieldKind(f))) in
                    row.iter_mut().zip(parts.iter()).zip(fields)
                {
                    cell.clear();
                    f.write(part, cell);
                }
                writer.write_record(&row).map_err(write_error)?;
            }
        }
    }
    writer.flush().map_err(io)?;
    let file = writer
        .into_inner()
        .map_err(|e| io(std::io::Error::new(e.error().kind(), e.error().to_string())))?;
    file.sync_data().map_err(io)
}
