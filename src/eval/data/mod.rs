//! Kernels of the data files: numpy's `.npy` and `.npz`.
//!
//! A loader is compiled for the array type the program expects (its element type and shape).
//! Reading a file is two steps (`NpyStream`): its header gives the file's dtype and
//! dimensions, checked against that type before any data is read, then the data is read
//! straight into a fresh buffer. `npy.rs` is the format itself.

pub mod chunk;
pub mod csv;
mod glyphs;
pub mod npy;
pub mod picture;

use std::fs::File;
use std::io::{BufReader, BufWriter, Read, Write};

use num_traits::ToPrimitive;

use crate::core::ir::{Expr, Prim};
use crate::limits::Limits;
use crate::syntax::span::Span;
use crate::types::ty::IntTy;
use crate::types::Type;

use super::code::ExprCode;
use super::error::{file_error, Fault, DATA_FORMAT, SHAPE_MISMATCH};
use super::value::{leaf_type, ArrayVal, Buffer, Value};

/// The element of a numeric array as numpy stores it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Element {
    Bool,
    Int(IntTy),
    Float,
    Double,
}

/// An array type as a data file sees it: its element and its dimensions, outermost first
/// (`double ^ (3 \* 4)` and `double ^ 4 ^ 3` are both 3 by 4 doubles, `double ^ (3 \^ 2)`
/// is 3 by 3; an index that is not a product or power of unitsums is one dimension of its
/// size). A dimension that is a run-time size not known yet (a type variable) is `None`: a
/// loader takes it from the file.
#[derive(Clone, Debug)]
pub struct Layout {
    pub element: Element,
    pub dims: Vec<Option<usize>>,
    /// The array type, for messages.
    pub ty: Type,
}

impl Layout {
    /// The layout of an array type of numbers, or the message saying why it has none.
    pub fn of(ty: &Type) -> Result<Layout, String> {
        let mut dims = Vec::new();
        let mut t = ty;
        while let Type::Array(element, index) = t {
            index_dims(index, &mut dims).ok_or_else(|| format!("`{ty}` is too large"))?;
            t = element;
        }
        let element = npy::element_of(leaf_type(ty)).ok_or_else(|| {
            format!(
                "numpy files hold arrays of numbers or bools, not of `{}`",
                leaf_type(ty)
            )
        })?;
        Ok(Layout {
            element,
            dims,
            ty: ty.clone(),
        })
    }

    /// The dimensions of an array of this layout holding `len` elements: the unknown one,
    /// when only one is, is what the others leave (R0016 when `len` does not divide).
    pub fn dims_for(&self, len: usize) -> Result<Vec<usize>, Fault> {
        dims_for(&self.dims, len, &self.ty)
    }
}

/// `dims` with its unknown dimension, if at most one is unknown, solved for `len` elements.
pub fn dims_for(dims: &[Option<usize>], len: usize, ty: &Type) -> Result<Vec<usize>, Fault> {
    let known: usize = dims.iter().flatten().product();
    let unknown = dims.iter().filter(|d| d.is_none()).count();
    let solved = match unknown {
        0 if known == len => None,
        1 if known != 0 && len.is_multiple_of(known) => Some(len / known),
        1 if known == 0 && len == 0 => Some(0),
        _ => {
            return Err(Fault::new(
                SHAPE_MISMATCH,
                format!("{len} elements do not make an array of type `{ty}`"),
            ))
        }
    };
    Ok(dims
        .iter()
        .map(|d| d.or(solved).unwrap_or_default())
        .collect())
}

/// numpy's limit on the number of dimensions; a power with more factors is saved flat.
const MAX_RANK: usize = 32;

fn index_dims(index: &Type, dims: &mut Vec<Option<usize>>) -> Option<()> {
    match index {
        Type::CProduct(components) => {
            for c in components.iter() {
                index_dims(c, dims)?;
            }
        }
        // `A \^ n` is the product of `n` copies of `A` (`3 \* 3` is `3 \^ 2`).
        Type::CArray(base, exponent) => {
            let copies = crate::types::size::size_of(exponent)?.to_usize()?;
            if copies > MAX_RANK {
                dims.push(Some(crate::types::size::size_of(index)?.to_usize()?));
            } else {
                for _ in 0..copies {
                    index_dims(base, dims)?;
                }
            }
        }
        // A run-time size not known yet: the file has it.
        Type::Var(_) => dims.push(None),
        other => dims.push(Some(crate::types::size::size_of(other)?.to_usize()?)),
    }
    Some(())
}

/// A `.npy` stream whose header has been read: the file's dtype and dimensions, known before
/// any data is read (a shape checked against the type expected, or sizes taken from the file).
pub struct NpyStream {
    header: npy::Header,
    header_len: usize,
    /// The stream's name in messages (`` `a.npy` ``, `` the array `x` of `a.npz` ``).
    label: String,
}

impl NpyStream {
    /// Read the header of the stream named `label`.
    pub fn open(
        reader: &mut impl Read,
        label: String,
        io: &dyn Fn(std::io::Error) -> Fault,
    ) -> Result<NpyStream, Fault> {
        let (header, header_len) = npy::read_header(reader, &label, io)?;
        Ok(NpyStream {
            header,
            header_len,
            label,
        })
    }

    /// The file's dimensions, outermost first.
    pub fn dims(&self) -> &[usize] {
        &self.header.shape
    }

    fn holds(&self) -> String {
        format!(
            "{} holds {} data of shape {}",
            self.label,
            self.header.dtype.name(),
            self.header.shape_text()
        )
    }

    /// R0015 unless the file's elements read as `layout`'s and its dimensions are `layout`'s.
    pub fn check(&self, layout: &Layout) -> Result<(), Fault> {
        let dtype = &self.header.dtype;
        if !dtype.fits(layout.element) {
            return Err(Fault::new(
                DATA_FORMAT,
                format!(
                    "{}, not the `{}` expected: {} reads as {}",
                    self.holds(),
                    layout.ty,
                    dtype.name(),
                    npy::readable_as(dtype)
                ),
            ));
        }
        let fits = self.dims().len() == layout.dims.len()
            && self
                .dims()
                .iter()
                .zip(&layout.dims)
                .all(|(&file, &expected)| expected.is_none_or(|e| e == file));
        if !fits {
            return Err(Fault::new(
                DATA_FORMAT,
                format!(
                    "{}, not the `{}` expected (shape {})",
                    self.holds(),
                    layout.ty,
                    npy::shape_text_of(&layout.dims)
                ),
            ));
        }
        Ok(())
    }

    /// Read the data, checked by `check`, into a fresh buffer of `element`s in row-major
    /// order; `available` is the number of bytes the container holds, header included.
    pub fn read(
        self,
        reader: &mut impl Read,
        element: Element,
        available: u64,
        limits: &Limits,
        io: &dyn Fn(std::io::Error) -> Fault,
    ) -> Result<Buffer, Fault> {
        let count = npy::check_size(&self.label, &self.header, limits)?;
        let available = available.saturating_sub(self.header_len as u64);
        npy::read_data(
            reader,
            &self.label,
            &self.header,
            count,
            element,
            available,
            io,
        )
    }
}

/// Read the `.npy` stream named `label`, holding `available` bytes, as an array of `layout`.
fn read_npy(
    reader: &mut impl Read,
    label: String,
    layout: &Layout,
    available: u64,
    limits: &Limits,
    io: &dyn Fn(std::io::Error) -> Fault,
) -> Result<(Value, Vec<usize>), Fault> {
    let stream = NpyStream::open(reader, label, io)?;
    stream.check(layout)?;
    let dims = stream.dims().to_vec();
    let buffer = stream.read(reader, layout.element, available, limits, io)?;
    Ok((Value::Array(ArrayVal::new(buffer)), dims))
}

/// A loader's compiled code: the array and its dimensions, outermost first.
type LoadCode = Box<
    dyn Fn(&mut super::Frame<'_, '_>) -> Result<(Value, Vec<usize>), super::Ctrl> + Send + Sync,
>;

/// The code that fails with `message` (a type no file holds).
fn refused(message: String, span: Span) -> LoadCode {
    Box::new(move |_| Err(Fault::new(DATA_FORMAT, message.clone()).at(span)))
}

/// The compiled code of the loader `prim` (`is_loader`), reading the array type `ty`, on its
/// compiled operands.
fn load_code(prim: &Prim, mut codes: Vec<ExprCode>, ty: &Type, span: Span) -> LoadCode {
    let mut pop = || codes.pop().expect("the operand count was checked");
    if let Prim::LoadCsv(with) = prim {
        let shape = match csv::Shape::of(ty) {
            Ok(shape) => shape,
            Err(message) => return refused(message, span),
        };
        let ty = ty.clone();
        let options = with.then(&mut pop);
        let path = pop();
        return Box::new(move |frame| {
            let path = text(&path(frame)?);
            let options = match &options {
                Some(o) => csv::Options::of(&o(frame)?).map_err(|f| f.at(span))?,
                None => csv::Options::default(),
            };
            csv::load(&path, &shape, &ty, options, &frame.rt.limits).map_err(|f| f.at(span))
        });
    }
    let layout = match Layout::of(ty) {
        Ok(layout) => layout,
        Err(message) => return refused(message, span),
    };
    if *prim == Prim::LoadNpz {
        let name = pop();
        let path = pop();
        return Box::new(move |frame| {
            let path = text(&path(frame)?);
            let name = text(&name(frame)?);
            load_npz(&path, &name, &layout, &frame.rt.limits).map_err(|f| f.at(span))
        });
    }
    let path = pop();
    Box::new(move |frame| {
        let path = text(&path(frame)?);
        load_npy(&path, &layout, &frame.rt.limits).map_err(|f| f.at(span))
    })
}

/// The compiled code of `Prim::Shaped` over the loader `prim` reading `ty`: the pair of the
/// array and its dimensions (`size ^ rank`).
pub fn compile_shaped(prim: &Prim, codes: Vec<ExprCode>, ty: &Type, span: Span) -> ExprCode {
    let load = load_code(prim, codes, ty, span);
    Box::new(move |frame| {
        let (array, dims) = load(frame)?;
        let dims = Buffer::Scalars(super::value::Scalars::I64(
            dims.into_iter().map(|d| d as i64).collect(),
        ));
        Ok(Value::Tuple(
            vec![array, Value::Array(ArrayVal::new(dims))].into(),
        ))
    })
}

/// The compiled code of a data-file kernel, `None` for other kernels.
pub fn compile(
    prim: &Prim,
    args: &[Expr],
    mut codes: Vec<ExprCode>,
    result_ty: &Type,
    span: Span,
) -> Option<ExprCode> {
    if prim.is_loader() {
        let load = load_code(prim, codes, result_ty, span);
        return Some(Box::new(move |frame| Ok(load(frame)?.0)));
    }
    let array_ty = &args.last()?.ty;
    let mut pop = || codes.pop().expect("the operand count was checked");
    if let Prim::SavePicture(png) = *prim {
        let picture = match picture::Picture::of(array_ty, png) {
            Ok(picture) => picture,
            Err(message) => {
                return Some(Box::new(move |_| {
                    Err(Fault::new(DATA_FORMAT, message.clone()).at(span))
                }))
            }
        };
        let array = pop();
        let path = pop();
        return Some(Box::new(move |frame| {
            let path = text(&path(frame)?);
            let values = picture::numbers(&array(frame)?);
            let written = if png {
                picture::write_png(&path, &picture, &values)
            } else {
                picture::write_svg(&path, &picture, &values)
            };
            written.map_err(|message| Fault::new(DATA_FORMAT, message).at(span))?;
            Ok(Value::Unit)
        }));
    }
    if let Prim::SaveCsv(with) = prim {
        let shape = match csv::Shape::of(array_ty) {
            Ok(shape) => shape,
            Err(message) => {
                return Some(Box::new(move |_| {
                    Err(Fault::new(DATA_FORMAT, message.clone()).at(span))
                }))
            }
        };
        let ty = array_ty.clone();
        let array = pop();
        let options = with.then(&mut pop);
        let path = pop();
        return Some(Box::new(move |frame| {
            let path = text(&path(frame)?);
            let options = match &options {
                Some(o) => csv::Options::of(&o(frame)?).map_err(|f| f.at(span))?,
                None => csv::Options::default(),
            };
            let array = array(frame)?;
            csv::save(&path, &shape, &ty, options, &array).map_err(|f| f.at(span))?;
            Ok(Value::Unit)
        }));
    }
    let layout = match Layout::of(array_ty) {
        Ok(layout) => layout,
        Err(message) => {
            return Some(Box::new(move |_| {
                Err(Fault::new(DATA_FORMAT, message.clone()).at(span))
            }))
        }
    };
    Some(match prim {
        Prim::SaveNpy => {
            let array = pop();
            let path = pop();
            Box::new(move |frame| {
                let path = text(&path(frame)?);
                let array = array(frame)?;
                save_npy(&path, &layout, &array).map_err(|f| f.at(span))?;
                Ok(Value::Unit)
            })
        }
        Prim::SaveNpz => {
            let array = pop();
            let name = pop();
            let path = pop();
            Box::new(move |frame| {
                let path = text(&path(frame)?);
                let name = text(&name(frame)?);
                let array = array(frame)?;
                save_npz(&path, &name, &layout, &array).map_err(|f| f.at(span))?;
                Ok(Value::Unit)
            })
        }
        _ => return None,
    })
}

pub(crate) fn text(v: &Value) -> String {
    match v {
        Value::Str(s) => String::from_utf8_lossy(s).into_owned(),
        _ => String::new(),
    }
}

fn load_npy(path: &str, layout: &Layout, limits: &Limits) -> Result<(Value, Vec<usize>), Fault> {
    let io = |e: std::io::Error| file_error("read", path, &e);
    let file = File::open(path).map_err(|e| file_error("open", path, &e))?;
    let length = file.metadata().map_err(io)?.len();
    let mut reader = BufReader::new(file);
    read_npy(
        &mut reader,
        format!("`{path}`"),
        layout,
        length,
        limits,
        &io,
    )
}

fn save_npy(path: &str, layout: &Layout, array: &Value) -> Result<(), Fault> {
    let io = |e: std::io::Error| file_error("write", path, &e);
    let file = File::create(path).map_err(io)?;
    let mut out = BufWriter::with_capacity(1 << 20, file);
    write_npy(&mut out, layout, array, &io)?;
    let file = out.into_inner().map_err(|e| io(e.into_error()))?;
    file.sync_data().map_err(io)
}

fn write_npy(
    out: &mut impl Write,
    layout: &Layout,
    array: &Value,
    io: &dyn Fn(std::io::Error) -> Fault,
) -> Result<(), Fault> {
    let len = match array {
        Value::Array(view) => view.len,
        _ => 0,
    };
    let dims = layout.dims_for(len)?;
    out.write_all(&npy::header_bytes(layout.element, &dims))
        .map_err(io)?;
    if let Value::Array(view) = array {
        npy::write_data(
            out,
            &view.buf,
            view.start..view.start + view.len,
            layout.element,
        )
        .map_err(io)?;
    }
    Ok(())
}

/// The member of an `.npz` archive that holds the array `name`.
fn member(name: &str) -> String {
    format!("{name}.npy")
}

fn not_npz(path: &str, error: zip::result::ZipError) -> Fault {
    match error {
        zip::result::ZipError::Io(e) => file_error("read", path, &e),
        other => Fault::new(
            DATA_FORMAT,
            format!("`{path}` is not a valid .npz archive: {other}"),
        ),
    }
}

fn load_npz(
    path: &str,
    name: &str,
    layout: &Layout,
    limits: &Limits,
) -> Result<(Value, Vec<usize>), Fault> {
    let file = File::open(path).map_err(|e| file_error("open", path, &e))?;
    let mut archive = zip::ZipArchive::new(BufReader::new(file)).map_err(|e| not_npz(path, e))?;
    let names: Vec<String> = archive
        .file_names()
        .filter_map(|n| n.ok())
        .filter_map(|n| n.strip_suffix(".npy").map(str::to_string))
        .collect();
    let mut entry = match archive.by_name(&member(name)) {
        Ok(entry) => entry,
        Err(zip::result::ZipError::FileNotFound) => {
            return Err(Fault::new(
                DATA_FORMAT,
                format!(
                    "`{path}` has no array `{name}`; its arrays are {}",
                    if names.is_empty() {
                        "none".to_string()
                    } else {
                        names
                            .iter()
                            .map(|n| format!("`{n}`"))
                            .collect::<Vec<_>>()
                            .join(", ")
                    }
                ),
            ))
        }
        Err(e) => return Err(not_npz(path, e)),
    };
    let available = entry.size();
    let label = format!("the array `{name}` of `{path}`");
    let io = |e: std::io::Error| {
        if e.kind() == std::io::ErrorKind::InvalidData {
            Fault::new(
                DATA_FORMAT,
                format!("`{path}` is not a valid .npz archive: {e}"),
            )
        } else {
            file_error("read", path, &e)
        }
    };
    read_npy(&mut entry, label, layout, available, limits, &io)
}

/// Write the archive `path` with the array `name` added: the other members of an existing
/// archive are copied as they are (still compressed) into a new file that then replaces it.
fn save_npz(path: &str, name: &str, layout: &Layout, array: &Value) -> Result<(), Fault> {
    let io = |e: std::io::Error| file_error("write", path, &e);
    let zip_error = |e: zip::result::ZipError| match e {
        zip::result::ZipError::Io(e) => io(e),
        other => Fault::new(DATA_FORMAT, format!("cannot write `{path}`: {other}")),
    };
    let mut existing = match File::open(path) {
        Ok(file) => Some(zip::ZipArchive::new(BufReader::new(file)).map_err(|e| not_npz(path, e))?),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
        Err(e) => return Err(file_error("open", path, &e)),
    };
    let temporary = format!("{path}.tessera-tmp");
    let file = File::create(&temporary).map_err(|e| file_error("write", &temporary, &e))?;
    let result = (|| {
        let mut writer = zip::ZipWriter::new(BufWriter::with_capacity(1 << 20, file));
        let own = member(name);
        if let Some(archive) = existing.as_mut() {
            for i in 0..archive.len() {
                let entry = archive.by_index_raw(i).map_err(|e| not_npz(path, e))?;
                if entry.name().is_ok_and(|n| n != own) {
                    writer.raw_copy_file(entry).map_err(zip_error)?;
                }
            }
        }
        let bytes = npy_size(layout, array);
        let options = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Stored)
            .large_file(bytes >= u32::MAX as u64);
        writer.start_file(own, options).map_err(zip_error)?;
        write_npy(&mut writer, layout, array, &io)?;
        let mut out = writer.finish().map_err(zip_error)?;
        out.flush().map_err(io)
    })();
    match result {
        Ok(()) => std::fs::rename(&temporary, path).map_err(|e| {
            let _ = std::fs::remove_file(&temporary);
            io(e)
        }),
        Err(fault) => {
            let _ = std::fs::remove_file(&temporary);
            Err(fault)
        }
    }
}

/// The bytes of the `.npy` file of an array of this layout.
fn npy_size(layout: &Layout, array: &Value) -> u64 {
    let count = match array {
        Value::Array(view) => view.len as u64,
        _ => 0,
    };
    count * npy::Dtype::of(layout.element).width as u64 + 128
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::ty::{Kind, TyVar};

    fn size_var(id: u32) -> Type {
        Type::Var(TyVar {
            id,
            name: format!("n{id}").into(),
            kind: Kind::Unitsum,
        })
    }

    fn scratch(name: &str) -> String {
        let dir = std::env::temp_dir().join(format!("tessera-unit-data-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a scratch folder");
        dir.join(name).to_string_lossy().into_owned()
    }

    fn doubles(value: &Value) -> Vec<f64> {
        match value {
            Value::Array(view) => (0..view.len)
                .map(|i| view.buf.get(view.start + i).as_float_lossy())
                .collect(),
            _ => Vec::new(),
        }
    }

    #[test]
    fn unknown_dimensions_are_the_files() {
        let limits = Limits::default();
        let known = Layout::of(&Type::array(
            Type::Double,
            Type::cproduct(vec![Type::Unitsum(2), Type::Unitsum(3)]),
        ))
        .expect("a layout");
        let path = scratch("unknown.npy");
        let data: Vec<f64> = (0..6).map(f64::from).collect();
        let array = Value::Array(ArrayVal::new(Buffer::Scalars(
            crate::eval::value::Scalars::F64(data.clone()),
        )));
        save_npy(&path, &known, &array).expect("saved");
        // Both sizes unknown: the file gives them.
        let both = Layout::of(&Type::array(
            Type::Double,
            Type::cproduct(vec![size_var(1), size_var(2)]),
        ))
        .expect("a layout");
        assert_eq!(both.dims, vec![None, None]);
        let (value, dims) = load_npy(&path, &both, &limits).expect("loaded");
        assert_eq!(dims, vec![2, 3]);
        assert_eq!(doubles(&value), data);
        // One known, one not: the known one is checked.
        let rows = Layout::of(&Type::array(
            Type::array(Type::Double, size_var(1)),
            Type::Unitsum(2),
        ))
        .expect("a layout");
        assert_eq!(rows.dims, vec![Some(2), None]);
        assert_eq!(
            load_npy(&path, &rows, &limits).expect("loaded").1,
            vec![2, 3]
        );
        let wrong = Layout::of(&Type::array(
            Type::Double,
            Type::cproduct(vec![size_var(1), Type::Unitsum(4)]),
        ))
        .expect("a layout");
        let fault = load_npy(&path, &wrong, &limits).expect_err("a mismatch");
        assert!(fault.message.contains("shape (?, 4)"), "{}", fault.message);
        // A wrong rank is refused whatever the sizes.
        let flat = Layout::of(&Type::array(Type::Double, size_var(1))).expect("a layout");
        assert!(load_npy(&path, &flat, &limits).is_err());
    }

    #[test]
    fn an_unknown_dimension_is_solved_from_the_length() {
        let ty = Type::Double;
        assert_eq!(
            dims_for(&[None, Some(4)], 12, &ty).expect("solved"),
            vec![3, 4]
        );
        assert_eq!(
            dims_for(&[Some(2), Some(3)], 6, &ty).expect("solved"),
            vec![2, 3]
        );
        assert_eq!(
            dims_for(&[None, Some(0)], 0, &ty).expect("solved"),
            vec![0, 0]
        );
        assert!(dims_for(&[None, Some(5)], 12, &ty).is_err());
        assert!(dims_for(&[None, None], 12, &ty).is_err());
        assert!(dims_for(&[Some(2), Some(2)], 5, &ty).is_err());
    }

    #[test]
    fn csv_loads_give_their_dimensions() {
        let limits = Limits::default();
        let path = scratch("dims.csv");
        std::fs::write(&path, "a,b,c\n1,2,3\n4,5,6\n").expect("written");
        let matrix = Type::array(Type::Double, Type::cproduct(vec![size_var(1), size_var(2)]));
        let shape = csv::Shape::of(&matrix).expect("a shape");
        let (value, dims) =
            csv::load(&path, &shape, &matrix, csv::Options::default(), &limits).expect("loaded");
        assert_eq!(dims, vec![2, 3]);
        assert_eq!(doubles(&value), vec![1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
        let records = Type::array(
            Type::record(vec![("b".into(), Type::Int(IntTy::Int))]),
            size_var(1),
        );
        let shape = csv::Shape::of(&records).expect("a shape");
        let (_, dims) =
            csv::load(&path, &shape, &records, csv::Options::default(), &limits).expect("loaded");
        assert_eq!(dims, vec![2]);
        let column = Type::array(Type::Double, size_var(1));
        let shape = csv::Shape::of(&column).expect("a shape");
        std::fs::write(&path, "x\n1\n2\n3\n").expect("written");
        let (_, dims) =
            csv::load(&path, &shape, &column, csv::Options::default(), &limits).expect("loaded");
        assert_eq!(dims, vec![3]);
    }
}
