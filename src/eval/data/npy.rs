//! numpy's `.npy` format: the header (a Python dict literal after a magic string), then the
//! elements in C or Fortran order. Reading checks the header against the element type asked
//! for and reads the elements straight into the array's buffer (no second copy); writing
//! sends the array's leaves out with a version 1.0 header, little-endian, C order.

use std::io::{Read, Write};

use crate::limits::Limits;
use crate::types::ty::IntTy;
use crate::types::Type;

use super::super::error::{poll_interrupt, Fault, DATA_FORMAT, TOO_LARGE};
use super::super::scalars::{each, Elem, ScalarKind, Scalars};
use super::super::value::Buffer;
use super::Element;

const MAGIC: &[u8] = b"\x93NUMPY";
/// Headers longer than this are malformed (numpy writes a few hundred bytes; it refuses
/// more than 10,000 by default).
const MAX_HEADER: usize = 1 << 20;
/// Elements converted per step when the file's dtype is not the buffer's own layout.
const CHUNK: usize = 1 << 16;

/// The element type of a file: numpy's kind (`b`, `i`, `u`, `f`), width and byte order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Dtype {
    pub kind: u8,
    pub width: usize,
    pub big_endian: bool,
}

impl Dtype {
    /// The dtype that holds `element` exactly (little-endian).
    pub fn of(element: Element) -> Dtype {
        let (kind, width) = match element {
            Element::Bool => (b'b', 1),
            Element::Int(t) => (if t.signed() { b'i' } else { b'u' }, t.bits() as usize / 8),
            Element::Float => (b'f', 4),
            Element::Double => (b'f', 8),
        };
        Dtype {
            kind,
            width,
            big_endian: false,
        }
    }

    /// numpy's name of the dtype (`float64`, `int32`, `bool`), with its byte order when it is
    /// big-endian.
    pub fn name(&self) -> String {
        let base = match self.kind {
            b'b' => "bool".to_string(),
            b'i' => format!("int{}", self.width * 8),
            b'u' => format!("uint{}", self.width * 8),
            _ => format!("float{}", self.width * 8),
        };
        if self.big_endian && self.width > 1 {
            format!("{base} (big-endian)")
        } else {
            base
        }
    }

    /// The descriptor in the header (`<f8`, `|u1`).
    fn descr(&self) -> String {
        let order = match (self.width, self.big_endian) {
            (1, _) => '|',
            (_, true) => '>',
            _ => '<',
        };
        format!("{order}{}{}", self.kind as char, self.width)
    }

    fn parse(descr: &str) -> Option<Dtype> {
        let bytes = descr.as_bytes();
        let (order, rest) = bytes.split_first()?;
        let big_endian = match order {
            b'<' | b'|' | b'=' => false,
            b'>' => true,
            _ => return None,
        };
        let (&kind, width) = rest.split_first()?;
        let width: usize = std::str::from_utf8(width).ok()?.parse().ok()?;
        let valid = match kind {
            b'b' => width == 1,
            b'i' | b'u' => matches!(width, 1 | 2 | 4 | 8),
            b'f' => matches!(width, 4 | 8),
            _ => false,
        };
        valid.then_some(Dtype {
            kind,
            width,
            big_endian,
        })
    }

    /// Does an element of the file read exactly as `element`?
    pub fn fits(&self, element: Element) -> bool {
        let own = Dtype::of(element);
        own.kind == self.kind && own.width == self.width
    }
}

/// The Tessera element types a dtype reads as, for a message (`int` or `int32`).
pub fn readable_as(dtype: &Dtype) -> String {
    let mut names: Vec<&str> = IntTy::ALL
        .iter()
        .filter(|t| dtype.fits(Element::Int(**t)))
        .map(|t| t.name())
        .collect();
    for (element, name) in [
        (Element::Bool, "bool"),
        (Element::Float, "float"),
        (Element::Double, "double"),
    ] {
        if dtype.fits(element) {
            names.push(name);
        }
    }
    let quoted: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
    match quoted.split_last() {
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => "nothing".to_string(),
    }
}

/// The header of a `.npy` file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Header {
    pub dtype: Dtype,
    pub fortran: bool,
    pub shape: Vec<usize>,
}

impl Header {
    /// The number of elements, `None` if it overflows.
    pub fn count(&self) -> Option<usize> {
        self.shape.iter().try_fold(1usize, |n, &d| n.checked_mul(d))
    }

    /// The shape as numpy prints it: `(3, 4)`, `(12,)`, `()`.
    pub fn shape_text(&self) -> String {
        shape_text(&self.shape)
    }
}

/// The shape of a layout as numpy prints one, a dimension known only from the file as `?`.
pub fn shape_text_of(shape: &[Option<usize>]) -> String {
    let dims: Vec<String> = shape
        .iter()
        .map(|d| d.map_or("?".to_string(), |d| d.to_string()))
        .collect();
    match dims.as_slice() {
        [one] => format!("({one},)"),
        _ => format!("({})", dims.join(", ")),
    }
}

pub fn shape_text(shape: &[usize]) -> String {
    shape_text_of(&shape.iter().map(|&d| Some(d)).collect::<Vec<_>>())
}

fn malformed(path: &str, what: impl std::fmt::Display) -> Fault {
    Fault::new(
        DATA_FORMAT,
        format!("{path} is not a valid .npy file: {what}"),
    )
}

/// Read the header of a `.npy` stream at `path` (for messages), leaving `reader` at the first
/// element. `io` turns a read error into the fault of the caller's file.
pub fn read_header(
    reader: &mut impl Read,
    path: &str,
    io: &dyn Fn(std::io::Error) -> Fault,
) -> Result<(Header, usize), Fault> {
    let mut preamble = [0u8; 8];
    read_fully(reader, &mut preamble, io).map_err(|e| {
        e.unwrap_or_else(|| malformed(path, "it is shorter than the .npy magic string"))
    })?;
    if &preamble[..6] != MAGIC {
        return Err(malformed(
            path,
            "it does not start with the .npy magic string",
        ));
    }
    let major = preamble[6];
    let length_bytes = match major {
        1 => 2,
        2 | 3 => 4,
        _ => return Err(malformed(path, format!("unknown format version {major}"))),
    };
    let mut length = [0u8; 4];
    read_fully(reader, &mut length[..length_bytes], io)
        .map_err(|e| e.unwrap_or_else(|| malformed(path, "the header is cut short")))?;
    let length = u32::from_le_bytes(length) as usize;
    if length > MAX_HEADER {
        return Err(malformed(path, format!("a header of {length} bytes")));
    }
    let mut text = vec![0u8; length];
    read_fully(reader, &mut text, io)
        .map_err(|e| e.unwrap_or_else(|| malformed(path, "the header is cut short")))?;
    let text = String::from_utf8(text).map_err(|_| malformed(path, "the header is not text"))?;
    let header = parse_header(&text).map_err(|what| malformed(path, what))?;
    Ok((header, 8 + length_bytes + length))
}

/// `Err(None)` at the end of the stream, `Err(Some(fault))` for a read error.
fn read_fully(
    reader: &mut impl Read,
    buf: &mut [u8],
    io: &dyn Fn(std::io::Error) -> Fault,
) -> Result<(), Option<Fault>> {
    reader.read_exact(buf).map_err(|e| match e.kind() {
        std::io::ErrorKind::UnexpectedEof => None,
        _ => Some(io(e)),
    })
}

/// The header dict: `{'descr': '<f8', 'fortran_order': False, 'shape': (3, 4), }`.
fn parse_header(text: &str) -> Result<Header, String> {
    let mut p = Literal {
        s: text.as_bytes(),
        i: 0,
    };
    let (mut descr, mut fortran, mut shape) = (None, None, None);
    p.expect(b'{')?;
    while !p.eat(b'}') {
        let key = p.string()?;
        p.expect(b':')?;
        match key.as_str() {
            "descr" => {
                p.skip_space();
                if p.peek() != Some(b'\'') && p.peek() != Some(b'"') {
                    return Err("its dtype is a structured dtype, which is not supported".into());
                }
                let text = p.string()?;
                descr = Some(Dtype::parse(&text).ok_or_else(|| {
                    format!("its dtype `{text}` is not a number type (bool, intN, uintN, float32, float64)")
                })?);
            }
            "fortran_order" => fortran = Some(p.boolean()?),
            "shape" => shape = Some(p.tuple()?),
            other => return Err(format!("its header has an unknown key `{other}`")),
        }
        if !p.eat(b',') {
            p.expect(b'}')?;
            break;
        }
    }
    match (descr, fortran, shape) {
        (Some(dtype), Some(fortran), Some(shape)) => Ok(Header {
            dtype,
            fortran,
            shape,
        }),
        _ => Err("its header lacks `descr`, `fortran_order` or `shape`".into()),
    }
}

/// A reader of the Python literals of a header.
struct Literal<'a> {
    s: &'a [u8],
    i: usize,
}

impl Literal<'_> {
    fn skip_space(&mut self) {
        while self.s.get(self.i).is_some_and(|c| c.is_ascii_whitespace()) {
            self.i += 1;
        }
    }

    fn peek(&mut self) -> Option<u8> {
        self.skip_space();
        self.s.get(self.i).copied()
    }

    fn eat(&mut self, c: u8) -> bool {
        if self.peek() == Some(c) {
            self.i += 1;
            true
        } else {
            false
        }
    }

    fn expect(&mut self, c: u8) -> Result<(), String> {
        if self.eat(c) {
            Ok(())
        } else {
            Err(format!(
                "its header has no `{}` at byte {}",
                c as char, self.i
            ))
        }
    }

    fn string(&mut self) -> Result<String, String> {
        let quote = match self.peek() {
            Some(q @ (b'\'' | b'"')) => q,
            _ => return Err(format!("its header has no string at byte {}", self.i)),
        };
        let start = self.i + 1;
        let end = self.s[start..]
            .iter()
            .position(|&c| c == quote)
            .ok_or("its header has an unterminated string")?;
        self.i = start + end + 1;
        Ok(String::from_utf8_lossy(&self.s[start..start + end]).into_owned())
    }

    fn word(&mut self) -> &[u8] {
        self.skip_space();
        let start = self.i;
        while self
            .s
            .get(self.i)
            .is_some_and(|c| c.is_ascii_alphanumeric())
        {
            self.i += 1;
        }
        &self.s[start..self.i]
    }

    fn boolean(&mut self) -> Result<bool, String> {
        match self.word() {
            b"True" => Ok(true),
            b"False" => Ok(false),
            _ => Err("its `fortran_order` is not True or False".into()),
        }
    }

    fn tuple(&mut self) -> Result<Vec<usize>, String> {
        self.expect(b'(')?;
        let mut dims = Vec::new();
        while !self.eat(b')') {
            let word = self.word();
            let dim = std::str::from_utf8(word)
                .ok()
                .and_then(|w| w.trim_end_matches('L').parse::<usize>().ok())
                .ok_or("its `shape` is not a tuple of sizes")?;
            dims.push(dim);
            if !self.eat(b',') {
                self.expect(b')')?;
                break;
            }
        }
        Ok(dims)
    }
}

/// R0007 unless `count` elements fit in memory and in `--max-alloc`.
pub fn check_size(path: &str, header: &Header, limits: &Limits) -> Result<usize, Fault> {
    let too_large = |what: String| {
        Fault::new(
            TOO_LARGE,
            format!(
                "{path} declares an array of shape {} ({what}), too large to load",
                header.shape_text()
            ),
        )
    };
    let count = header
        .count()
        .ok_or_else(|| too_large("more elements than memory can index".into()))?;
    let bytes = count as u128 * 8;
    // `--max-alloc`, then the memory budget (`--max-memory`) and what the system grants.
    let refusal = if count > super::super::array::MAX_LEAVES {
        Err(crate::limits::Refusal::OverLimit(limits.max_alloc_bytes))
    } else {
        limits.check_allocation(bytes)
    };
    refusal.map_err(|refusal| too_large(refusal.describe(bytes)))?;
    Ok(count)
}

/// Read `count` elements of `header`'s dtype from `reader` into a fresh buffer of `element`s
/// in row-major order. `available` is the number of data bytes the container holds (the
/// file's length after the header), checked before anything is allocated.
pub fn read_data(
    reader: &mut impl Read,
    path: &str,
    header: &Header,
    count: usize,
    element: Element,
    available: u64,
    io: &dyn Fn(std::io::Error) -> Fault,
) -> Result<Buffer, Fault> {
    let width = header.dtype.width;
    let needed = count as u128 * width as u128;
    if (available as u128) < needed {
        return Err(malformed(
            path,
            format!(
                "it is truncated: its header declares {} elements of {} ({needed} bytes) \
                 and {available} bytes follow it",
                count,
                header.dtype.name()
            ),
        ));
    }
    let truncated = || {
        malformed(
            path,
            format!("it is truncated: fewer than {needed} bytes of data follow its header"),
        )
    };
    let read = |reader: &mut _, buf: &mut [u8]| {
        read_fully(reader, buf, io).map_err(|e| e.unwrap_or_else(truncated))
    };
    let order = Order::new(&header.shape, header.fortran);
    let native = !header.dtype.big_endian || width == 1;
    let kind = storage(element);
    let mut out = Scalars::zeros(kind, count);
    let own = Dtype::of(element);
    if header.dtype.kind == own.kind && width == kind.bytes() && order.is_identity() && native {
        // The file's bytes are the buffer's: read straight into it.
        read_in_steps(reader, out.bytes_mut(), &read)?;
        if element == Element::Bool {
            if let Scalars::U8(v) = &mut out {
                v.iter_mut().for_each(|b| *b = (*b != 0) as u8);
            }
        }
        return Ok(Buffer::Scalars(out));
    }
    let (file_kind, floating) = (header.dtype.kind, kind.is_float());
    // Each element of the file as the 64 bits of a register (`Elem::from_bits`).
    let bits = |bytes: &[u8], dtype: &Dtype| -> u64 {
        let raw = u64_of(bytes, dtype.big_endian);
        if floating {
            if dtype.width == 8 {
                raw
            } else {
                (f32::from_bits(raw as u32) as f64).to_bits()
            }
        } else if file_kind == b'b' {
            (raw != 0) as u64
        } else if file_kind == b'i' {
            let shift = 64 - 8 * dtype.width as u32;
            (((raw << shift) as i64) >> shift) as u64
        } else {
            raw
        }
    };
    each!(&mut out, v => convert(
        reader,
        header,
        count,
        &order,
        &read,
        |bytes, dtype| Elem::from_bits(bits(bytes, dtype)),
        &mut v[..],
    ))?;
    Ok(Buffer::Scalars(out))
}

/// How leaves of `element` are stored.
fn storage(element: Element) -> ScalarKind {
    match element {
        Element::Bool => ScalarKind::U8,
        Element::Int(t) => ScalarKind::of(&Type::Int(t)).unwrap_or(ScalarKind::I64),
        Element::Float => ScalarKind::F32,
        Element::Double => ScalarKind::F64,
    }
}

/// Fills a buffer from the stream, or fails with the fault of the file.
type ReadExact<'a, R> = dyn Fn(&mut R, &mut [u8]) -> Result<(), Fault> + 'a;

/// Read into `bytes` a few megabytes at a time, polling Ctrl-C between reads.
fn read_in_steps<R: Read>(
    reader: &mut R,
    bytes: &mut [u8],
    read: &ReadExact<'_, R>,
) -> Result<(), Fault> {
    for step in bytes.chunks_mut(64 << 20) {
        poll_interrupt()?;
        read(reader, step)?;
    }
    Ok(())
}

/// The unsigned integer of the bytes of one element (`bytes.len()` at most 8).
#[inline]
fn u64_of(bytes: &[u8], big_endian: bool) -> u64 {
    let mut word = [0u8; 8];
    if big_endian {
        word[8 - bytes.len()..].copy_from_slice(bytes);
        u64::from_be_bytes(word)
    } else {
        word[..bytes.len()].copy_from_slice(bytes);
        u64::from_le_bytes(word)
    }
}

/// Read the elements a chunk at a time, each converted by `leaf` and stored at its
/// row-major position.
fn convert<R: Read, T: Copy>(
    reader: &mut R,
    header: &Header,
    count: usize,
    order: &Order,
    read: &ReadExact<'_, R>,
    leaf: impl Fn(&[u8], &Dtype) -> T,
    out: &mut [T],
) -> Result<(), Fault> {
    let width = header.dtype.width;
    let mut chunk = vec![0u8; CHUNK * width];
    let mut positions = order.positions();
    let mut done = 0;
    while done < count {
        poll_interrupt()?;
        let n = (count - done).min(CHUNK);
        let bytes = &mut chunk[..n * width];
        read(reader, bytes)?;
        for element in bytes.chunks_exact(width) {
            let at = positions.next_position(done);
            out[at] = leaf(element, &header.dtype);
            done += 1;
        }
    }
    Ok(())
}

/// Where the elements of a file go in the row-major buffer: in order for a C-order file; for
/// a Fortran-order file the first index varies fastest, so the position steps by the
/// row-major strides of the dimensions from the first.
struct Order {
    /// The dimensions and their row-major strides, first dimension first; empty for C order.
    dims: Vec<(usize, usize)>,
}

impl Order {
    fn new(shape: &[usize], fortran: bool) -> Order {
        if !fortran || shape.len() < 2 {
            return Order { dims: Vec::new() };
        }
        let mut strides = vec![1usize; shape.len()];
        for k in (0..shape.len() - 1).rev() {
            strides[k] = strides[k + 1] * shape[k + 1];
        }
        Order {
            dims: shape.iter().copied().zip(strides).collect(),
        }
    }

    fn is_identity(&self) -> bool {
        self.dims.is_empty()
    }

    fn positions(&self) -> Positions<'_> {
        Positions {
            order: self,
            digits: vec![0; self.dims.len()],
            at: 0,
        }
    }
}

/// An odometer over the file's order of elements, giving each one's row-major position.
struct Positions<'a> {
    order: &'a Order,
    digits: Vec<usize>,
    at: usize,
}

impl Positions<'_> {
    /// The row-major position of the `k`-th element of the file (called with 0, 1, 2, …).
    #[inline]
    fn next_position(&mut self, k: usize) -> usize {
        if self.order.dims.is_empty() {
            return k;
        }
        let here = self.at;
        for (digit, &(size, stride)) in self.digits.iter_mut().zip(&self.order.dims) {
            *digit += 1;
            self.at += stride;
            if *digit < size {
                break;
            }
            self.at -= stride * size;
            *digit = 0;
        }
        here
    }
}

/// The header bytes of a version 1.0 file of `element`s with `shape`, C order, padded so the
/// data starts at a multiple of 64 bytes as numpy does.
pub fn header_bytes(element: Element, shape: &[usize]) -> Vec<u8> {
    let dims: Vec<String> = shape.iter().map(|d| d.to_string()).collect();
    let shape = match dims.as_slice() {
        [one] => format!("({one},)"),
        _ => format!("({})", dims.join(", ")),
    };
    let mut dict = format!(
        "{{'descr': '{}', 'fortran_order': False, 'shape': {shape}, }}",
        Dtype::of(element).descr()
    );
    let unpadded = MAGIC.len() + 2 + 2 + dict.len() + 1;
    dict.push_str(&" ".repeat((64 - unpadded % 64) % 64));
    dict.push('\n');
    let mut out = Vec::with_capacity(dict.len() + 10);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&[1, 0]);
    out.extend_from_slice(&(dict.len() as u16).to_le_bytes());
    out.extend_from_slice(dict.as_bytes());
    out
}

/// Write the leaves of an array (row-major) as the data of a `.npy` file of `element`s.
pub fn write_data(
    out: &mut impl Write,
    buffer: &Buffer,
    range: std::ops::Range<usize>,
    element: Element,
) -> std::io::Result<()> {
    let Buffer::Scalars(leaves) = buffer else {
        return Err(std::io::Error::other(
            "internal: an array of numbers is not stored unboxed",
        ));
    };
    let own = Dtype::of(element);
    if cfg!(target_endian = "little") && leaves.kind() == storage(element) {
        // The buffer's bytes are the file's.
        return out.write_all(leaves.bytes(range));
    }
    let single = element == Element::Float;
    let floating = matches!(element, Element::Float | Element::Double);
    each!(leaves, v => write_converted(out, &v[range], |x, bytes| {
        let x = Elem::to_bits(*x);
        if !floating {
            bytes.extend_from_slice(&x.to_le_bytes()[..own.width])
        } else if single {
            bytes.extend_from_slice(&(f64::from_bits(x) as f32).to_le_bytes())
        } else {
            bytes.extend_from_slice(&x.to_le_bytes())
        }
    }))
}

fn write_converted<T>(
    out: &mut impl Write,
    leaves: &[T],
    put: impl Fn(&T, &mut Vec<u8>),
) -> std::io::Result<()> {
    let mut bytes = Vec::with_capacity(CHUNK * 8);
    for chunk in leaves.chunks(CHUNK) {
        bytes.clear();
        for x in chunk {
            put(x, &mut bytes);
        }
        out.write_all(&bytes)?;
    }
    Ok(())
}

/// The element of `ty` stored in a `.npy` file, if it is one numpy has.
pub fn element_of(ty: &Type) -> Option<Element> {
    match ty {
        Type::Int(t) => Some(Element::Int(*t)),
        Type::Double => Some(Element::Double),
        Type::Float => Some(Element::Float),
        t if *t == Type::BOOL => Some(Element::Bool),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_parse_as_numpy_writes_them() {
        let h = parse_header("{'descr': '>i2', 'fortran_order': True, 'shape': (3, 4), }    \n")
            .expect("a header");
        assert_eq!(
            h,
            Header {
                dtype: Dtype {
                    kind: b'i',
                    width: 2,
                    big_endian: true
                },
                fortran: true,
                shape: vec![3, 4]
            }
        );
        let h = parse_header("{'descr': '|b1', 'fortran_order': False, 'shape': (5,), }")
            .expect("a header");
        assert_eq!(h.shape, vec![5]);
        assert_eq!(h.shape_text(), "(5,)");
        assert!(
            parse_header("{'descr': [('a', '<f8')], 'fortran_order': False, 'shape': (2,)}")
                .is_err()
        );
        assert!(parse_header("{'descr': '<c16', 'fortran_order': False, 'shape': (2,)}").is_err());
    }

    #[test]
    fn a_written_header_reads_back_and_aligns_the_data() {
        let bytes = header_bytes(Element::Double, &[3, 4]);
        assert_eq!(bytes.len() % 64, 0);
        let io = |e: std::io::Error| Fault::new("R0013", e.to_string());
        let (h, at) = read_header(&mut &bytes[..], "x.npy", &io).expect("a header");
        assert_eq!(at, bytes.len());
        assert_eq!(h.shape, vec![3, 4]);
        assert_eq!(h.dtype.descr(), "<f8");
    }

    #[test]
    fn fortran_order_visits_columns_first() {
        let order = Order::new(&[2, 3], true);
        let mut p = order.positions();
        let got: Vec<usize> = (0..6).map(|k| p.next_position(k)).collect();
        assert_eq!(got, vec![0, 3, 1, 4, 2, 5]);
    }
}
