//! `.npy` files of distributed arrays: each process reads, and writes, only the bytes of the
//! positions it owns (`eval::distributed::owned`), in one file every process sees. The other
//! positions of a loaded array are zeros (untouched pages of a zeroed buffer cost no memory).
//! A Fortran-order file of two or more dimensions stores the positions of a chunk scattered
//! through the file, so it is read whole.

use std::fs::{File, OpenOptions};
use std::io::{BufReader, BufWriter, Seek, SeekFrom, Write};
use std::ops::Range;

use crate::limits::Limits;

use super::super::error::{file_error, Fault};
use super::super::value::{ArrayVal, Buffer, Scalars, Value};
use super::{npy, Layout, NpyStream};

/// `load_npy path` into a distributed array of `layout`: the positions `owned(n)` of its `n`.
pub fn load_owned(
    path: &str,
    layout: &Layout,
    limits: &Limits,
    owned: impl Fn(usize) -> Range<usize>,
) -> Result<Value, Fault> {
    let io = |e: std::io::Error| file_error("read", path, &e);
    let file = File::open(path).map_err(|e| file_error("open", path, &e))?;
    let length = file.metadata().map_err(io)?.len();
    let mut reader = BufReader::new(file);
    let stream = NpyStream::open(&mut reader, format!("`{path}`"), &io)?;
    stream.check(layout)?;
    if stream.header.fortran && stream.header.shape.len() > 1 {
        let buffer = stream.read(&mut reader, layout.element, length, limits, &io)?;
        return Ok(Value::Array(ArrayVal::new(buffer)));
    }
    let n = npy::check_size(&stream.label, &stream.header, limits)?;
    let width = stream.header.dtype.width as u64;
    let data = length.saturating_sub(stream.header_len as u64);
    let range = owned(n);
    // The whole file must hold the data its header declares, as for a plain load.
    if data < n as u64 * width {
        return npy::read_data(
            &mut reader,
            &stream.label,
            &stream.header,
            n,
            layout.element,
            data,
            &io,
        )
        .map(|b| Value::Array(ArrayVal::new(b)));
    }
    let start = stream.header_len as u64 + range.start as u64 * width;
    reader.seek(SeekFrom::Start(start)).map_err(io)?;
    let part = npy::read_data(
        &mut reader,
        &stream.label,
        &stream.header,
        range.len(),
        layout.element,
        range.len() as u64 * width,
        &io,
    )?;
    let buffer = match part {
        Buffer::Scalars(part) => {
            let mut all = Scalars::zeros(part.kind(), n);
            let width = part.kind().bytes();
            all.bytes_mut()[range.start * width..range.end * width]
                .copy_from_slice(part.bytes(0..part.len()));
            Buffer::Scalars(all)
        }
        other => other,
    };
    Ok(Value::Array(ArrayVal::new(buffer)))
}

/// `save_npy (path, a)` of a distributed array: the first process writes the header and sizes
/// the file, then (after `barrier`) every process writes the bytes of its positions `owned`.
pub fn save_owned(
    path: &str,
    layout: &Layout,
    array: &Value,
    first: bool,
    owned: Range<usize>,
    barrier: &dyn Fn() -> Result<(), Fault>,
) -> Result<(), Fault> {
    let io = |e: std::io::Error| file_error("write", path, &e);
    let Value::Array(view) = array else {
        // Not an array of numbers held unboxed: written whole by the first process.
        return if first {
            super::save_npy(path, layout, array)
        } else {
            Ok(())
        };
    };
    let header = npy::header_bytes(layout.element, &layout.dims_for(view.len)?);
    let width = npy::Dtype::of(layout.element).width as u64;
    let created = if first {
        (|| {
            let mut file = File::create(path)?;
            file.write_all(&header)?;
            file.set_len(header.len() as u64 + view.len as u64 * width)
        })()
        .map_err(io)
    } else {
        Ok(())
    };
    // The file exists and has its length before any process writes into it (a process that
    // failed stops at once: the others learn of it at the barrier).
    created?;
    barrier()?;
    let file = OpenOptions::new().write(true).open(path).map_err(io)?;
    let mut out = BufWriter::with_capacity(1 << 20, file);
    out.seek(SeekFrom::Start(
        header.len() as u64 + owned.start as u64 * width,
    ))
    .map_err(io)?;
    npy::write_data(
        &mut out,
        &view.buf,
        view.start + owned.start..view.start + owned.end,
        layout.element,
    )
    .map_err(io)?;
    let file = out.into_inner().map_err(|e| io(e.into_error()))?;
    file.sync_data().map_err(io)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::distributed::chunk;
    use crate::types::Type;

    fn scratch(name: &str) -> String {
        let dir = std::env::temp_dir().join(format!("tessera-unit-chunk-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a scratch folder");
        dir.join(name).to_string_lossy().into_owned()
    }

    fn array(values: Vec<f64>) -> Value {
        Value::Array(ArrayVal::new(Buffer::Scalars(Scalars::F64(values))))
    }

    fn values(v: &Value) -> Vec<f64> {
        match v {
            Value::Array(view) => (0..view.len)
                .map(|i| view.buf.get(view.start + i).as_float_lossy())
                .collect(),
            _ => Vec::new(),
        }
    }

    #[test]
    fn processes_writing_their_chunks_make_the_file_one_process_writes() {
        let n = 1001;
        let ty = Type::array(Type::Double, Type::Unitsum(n as u64));
        let layout = Layout::of(&ty).expect("a layout");
        let whole: Vec<f64> = (0..n).map(|i| (i as f64).sqrt()).collect();
        let (one, many) = (scratch("one.npy"), scratch("many.npy"));
        super::super::save_npy(&one, &layout, &array(whole.clone())).expect("saved");
        for rank in 0..3 {
            let (lo, hi) = chunk(n, rank, 3);
            save_owned(
                &many,
                &layout,
                &array(whole.clone()),
                rank == 0,
                lo..hi,
                &|| Ok(()),
            )
            .expect("saved");
        }
        assert_eq!(std::fs::read(&one).unwrap(), std::fs::read(&many).unwrap());
        // Each process reads its positions; the others are zeros.
        let limits = Limits::default();
        let (lo, hi) = chunk(n, 1, 3);
        let part = values(
            &load_owned(&many, &layout, &limits, |n| {
                let (lo, hi) = chunk(n, 1, 3);
                lo..hi
            })
            .expect("loaded"),
        );
        assert_eq!(part.len(), n);
        for (i, (p, w)) in part.iter().zip(&whole).enumerate() {
            let expected = if (lo..hi).contains(&i) { *w } else { 0.0 };
            assert_eq!(p.to_bits(), expected.to_bits(), "position {i}");
        }
    }

    #[test]
    fn a_truncated_file_is_refused_by_every_process() {
        let n = 64;
        let ty = Type::array(Type::Double, Type::Unitsum(n as u64));
        let layout = Layout::of(&ty).expect("a layout");
        let path = scratch("short.npy");
        super::super::save_npy(&path, &layout, &array(vec![1.0; n])).expect("saved");
        let bytes = std::fs::read(&path).unwrap();
        std::fs::write(&path, &bytes[..bytes.len() - 8]).unwrap();
        // The last process owns only the intact start of its range, yet is refused too.
        let refused = load_owned(&path, &layout, &Limits::default(), |_| 0..1);
        assert!(refused.is_err());
    }
}
