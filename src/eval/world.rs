//! The program's world: its command-line arguments, its standard input, the files it has
//! opened, its exit request and its random number generator. One `World` belongs to a
//! session's machine and outlives the units it runs (a REPL's open files stay open from one
//! chunk to the next); each run lends it to the `Runtime`.
//!
//! A file handle (`ifile`, `ofile`) is an `int` naming an entry of the file table; 0, 1 and 2
//! are the standard streams. Opening never fails (Felix's `fopen_input` gives a handle for
//! which `valid` is false); using a handle that is not open, and every failed read or write,
//! is R0013 naming the file.

use std::fs::File;
use std::io::{BufRead, BufReader, BufWriter, Read, Write};

use crate::core::ir::{OpenMode, WorldOp};
use crate::syntax::span::Span;

use super::code::ExprCode;
use super::error::{file_error, runtime_error, Fault, CONVERSION_OUT_OF_RANGE, FILE_ERROR};
use super::error::{PARSE_ERROR, TOO_LARGE};
use super::value::{ArgForm, Text, Value};
use super::{Ctrl, Runtime};

/// The handle of standard input.
pub const STDIN: i64 = 0;
/// The handle of standard output.
pub const STDOUT: i64 = 1;
/// The handle of standard error.
pub const STDERR: i64 = 2;

/// The code of the control flow that carries `System::exit` out of the program: never
/// rendered (the machine turns it into the end of the run, `Machine::exit_request`).
pub const EXIT: &str = "exit";

/// What the program sees of the world outside it.
pub struct World {
    /// The arguments, the program's path first (`System::argv 0`).
    args: Vec<String>,
    /// The program's standard input (`cstdin`).
    stdin: Box<dyn BufRead + Send>,
    /// The files the program opened, by handle; the first three are the standard streams.
    files: Vec<Entry>,
    /// The status `System::exit` asked for.
    exit: Option<i32>,
    /// The random number generator of `rand`, `rand_int`, `rand_double`.
    random: Generator,
    /// Where `readln` reads a line before copying it out at its length.
    line: Vec<u8>,
}

impl Default for World {
    fn default() -> World {
        World::new(Vec::new(), Box::new(std::io::empty()))
    }
}

/// One entry of the file table.
enum Entry {
    /// Standard input, output or error.
    Standard,
    Reader {
        path: String,
        reader: BufReader<File>,
    },
    Writer {
        path: String,
        writer: BufWriter<File>,
        /// Where the program last wrote to it: a write that fails only when the buffer is
        /// flushed at the end of the run is reported there.
        last_write: Span,
    },
    /// A file that could not be opened, and why.
    Failed {
        path: String,
        reason: Fault,
    },
    Closed {
        path: String,
    },
}

impl World {
    /// A world with these arguments (the program's path first) and standard input.
    pub fn new(args: Vec<String>, stdin: Box<dyn BufRead + Send>) -> World {
        World {
            args,
            stdin,
            files: vec![Entry::Standard, Entry::Standard, Entry::Standard],
            exit: None,
            random: Generator::new(DEFAULT_SEED),
            line: Vec::new(),
        }
    }

    /// Replace the arguments after the program's path (the REPL's `:set args`).
    pub fn set_args(&mut self, args: Vec<String>) {
        self.args.truncate(1);
        if self.args.is_empty() {
            self.args.push(String::new());
        }
        self.args.extend(args);
    }

    /// The arguments, the program's path first.
    pub fn args(&self) -> &[String] {
        &self.args
    }

    /// The status `System::exit` asked for, once asked; taking it lets the session go on.
    pub fn take_exit(&mut self) -> Option<i32> {
        self.exit.take()
    }

    /// Flush every file open for output; the first failure as R0013 at the last write to it.
    pub fn flush_files(&mut self) -> Result<(), Ctrl> {
        for entry in &mut self.files {
            if let Entry::Writer {
                path,
                writer,
                last_write,
            } = entry
            {
                if let Err(error) = writer.flush() {
                    return Err(file_error("write", path, &error).at(*last_write));
                }
            }
        }
        Ok(())
    }

    fn entry(&mut self, handle: i64) -> Option<&mut Entry> {
        usize::try_from(handle)
            .ok()
            .and_then(|i| self.files.get_mut(i))
    }

    fn open(&mut self, path: &str, mode: OpenMode) -> i64 {
        let opened = match mode {
            OpenMode::Input => open_for_reading(path).map(|file| Entry::Reader {
                path: path.to_string(),
                reader: BufReader::new(file),
            }),
            OpenMode::Output | OpenMode::Append => {
                let mut options = std::fs::OpenOptions::new();
                match mode {
                    OpenMode::Append => options.append(true).create(true),
                    _ => options.write(true).create(true).truncate(true),
                };
                options.open(path).map(|file| Entry::Writer {
                    path: path.to_string(),
                    writer: BufWriter::new(file),
                    last_write: Span::default(),
                })
            }
        };
        let entry = opened.unwrap_or_else(|error| Entry::Failed {
            path: path.to_string(),
            reason: file_error("open", path, &error),
        });
        self.files.push(entry);
        (self.files.len() - 1) as i64
    }

    fn valid(&mut self, handle: i64) -> bool {
        matches!(
            self.entry(handle),
            Some(Entry::Standard | Entry::Reader { .. } | Entry::Writer { .. })
        )
    }

    /// Close a file (a standard stream is flushed and stays open).
    fn close(&mut self, handle: i64, out: &Runtime<'_>, span: Span) -> Result<(), Fault> {
        self.flush(handle, out, span)?;
        let Some(entry) = self.entry(handle) else {
            return Ok(());
        };
        let path = match entry {
            Entry::Standard | Entry::Closed { .. } | Entry::Failed { .. } => return Ok(()),
            Entry::Reader { path, .. } | Entry::Writer { path, .. } => std::mem::take(path),
        };
        *entry = Entry::Closed { path };
        Ok(())
    }

    fn flush(&mut self, handle: i64, rt: &Runtime<'_>, span: Span) -> Result<(), Fault> {
        match self.entry(handle) {
            Some(Entry::Standard) => {
                let _ = rt.out.borrow_mut().flush();
                let _ = rt.err.borrow_mut().flush();
                Ok(())
            }
            Some(Entry::Writer {
                path,
                writer,
                last_write,
            }) => {
                *last_write = span;
                writer
                    .flush()
                    .map_err(|error| file_error("write", path, &error))
            }
            _ => Ok(()),
        }
    }

    /// Write to an output handle: the standard streams through the run's writers.
    pub fn write(
        &mut self,
        handle: i64,
        rt: &Runtime<'_>,
        bytes: &[u8],
        span: Span,
    ) -> Result<(), Fault> {
        match handle {
            STDOUT => rt.write(bytes),
            STDERR => rt.write_err(bytes),
            _ => match self.entry(handle) {
                Some(Entry::Writer {
                    path,
                    writer,
                    last_write,
                }) => {
                    *last_write = span;
                    writer
                        .write_all(bytes)
                        .map_err(|error| file_error("write", path, &error))?
                }
                other => return Err(unusable("write", other)),
            },
        }
        Ok(())
    }

    /// The next line of an input handle with its newline; empty at the end. It is read into
    /// the buffer every line reuses, then copied out at its length.
    fn readln(&mut self, handle: i64) -> Result<Vec<u8>, Fault> {
        let mut line = std::mem::take(&mut self.line);
        line.clear();
        let read = match self.entry(handle) {
            _ if handle == STDIN => (self.stdin.read_until(b'\n', &mut line))
                .map_err(|error| file_error("read", "<stdin>", &error)),
            Some(Entry::Reader { path, reader }) => (reader.read_until(b'\n', &mut line))
                .map_err(|error| file_error("read", path, &error)),
            other => Err(unusable("read", other)),
        };
        let text = line.to_vec();
        // A very long line's buffer is not kept.
        if line.capacity() <= 1 << 20 {
            self.line = line;
        }
        read.map(|_| text)
    }

    /// The rest of an input handle.
    fn read_rest(&mut self, handle: i64, limit: u64) -> Result<Vec<u8>, Fault> {
        let mut text = Vec::new();
        let (path, read) = match self.entry(handle) {
            _ if handle == STDIN => (
                "<stdin>".to_string(),
                (&mut self.stdin).take(limit + 1).read_to_end(&mut text),
            ),
            Some(Entry::Reader { path, reader }) => {
                (path.clone(), reader.take(limit + 1).read_to_end(&mut text))
            }
            other => return Err(unusable("read", other)),
        };
        read.map_err(|error| file_error("read", &path, &error))?;
        if text.len() as u64 > limit {
            return Err(too_large(&path, limit));
        }
        Ok(text)
    }
}

/// R0013 for a handle that cannot be used to `action`: not opened, closed, or open the other
/// way.
fn unusable(action: &str, entry: Option<&mut Entry>) -> Fault {
    let message = match entry {
        Some(Entry::Failed { path, reason }) => {
            let prefix = format!("cannot open `{path}`: ");
            let why = reason
                .message
                .strip_prefix(&prefix)
                .unwrap_or(&reason.message);
            format!("cannot {action} `{path}`: it could not be opened ({why})")
        }
        Some(Entry::Closed { path }) => format!("cannot {action} `{path}`: the file is closed"),
        Some(Entry::Reader { path, .. } | Entry::Writer { path, .. }) => {
            format!("cannot {action} `{path}`: the file is not open for that")
        }
        Some(Entry::Standard) | None => format!("cannot {action} this stream"),
    };
    Fault::new(FILE_ERROR, message)
}

fn too_large(path: &str, limit: u64) -> Fault {
    Fault::new(
        TOO_LARGE,
        format!(
            "`{path}` is larger than the limit of {limit} bytes for one string (raise it with `--max-alloc`)"
        ),
    )
}

/// A file opened for reading; a directory is refused here (the system opens one, then fails
/// every read).
fn open_for_reading(path: &str) -> std::io::Result<File> {
    let file = File::open(path)?;
    if file.metadata()?.is_dir() {
        return Err(std::io::Error::from(std::io::ErrorKind::IsADirectory));
    }
    Ok(file)
}

/// The whole file at `path`, R0013 when it cannot be read, R0007 over the allocation limit.
fn load(path: &str, limit: u64) -> Result<Vec<u8>, Fault> {
    let file = open_for_reading(path).map_err(|error| file_error("read", path, &error))?;
    let mut text = Vec::new();
    file.take(limit + 1)
        .read_to_end(&mut text)
        .map_err(|error| file_error("read", path, &error))?;
    if text.len() as u64 > limit {
        return Err(too_large(path, limit));
    }
    Ok(text)
}

/// Write `text` as the whole content of the file at `path`.
fn save(path: &str, text: &[u8]) -> Result<(), Fault> {
    let mut file = File::create(path).map_err(|error| file_error("write", path, &error))?;
    file.write_all(text)
        .and_then(|()| file.flush())
        .map_err(|error| file_error("write", path, &error))
}

// ----- the generator -----

/// The seed of a session whose program never called `srand` or `rand_seed` (C's `rand` starts
/// as if seeded with 1).
const DEFAULT_SEED: u64 = 1;

/// A counter-based generator: value `n` of seed `s` is `random_at(s, n)`, a function of the two
/// alone, so any element of a stream can be computed without the ones before it (a parallel
/// fill keyed by position gives the same values on any number of threads).
struct Generator {
    key: u64,
    counter: u64,
}

impl Generator {
    fn new(seed: u64) -> Generator {
        Generator {
            key: seed_key(seed),
            counter: 0,
        }
    }

    fn next(&mut self) -> u64 {
        let value = random_at(self.key, self.counter);
        self.counter = self.counter.wrapping_add(1);
        value
    }
}

/// SplitMix64's increment, the odd integer closest to 2^64 / φ.
const GAMMA: u64 = 0x9e37_79b9_7f4a_7c15;

/// SplitMix64's output function (Steele, Lea and Flood, "Fast splittable pseudorandom number
/// generators", 2014, with Stafford's "Mix13" constants): a bijection of 64-bit words whose
/// outputs over consecutive multiples of `GAMMA` pass BigCrush.
fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The stream key of a seed: seeds that differ in one bit start far apart.
fn seed_key(seed: u64) -> u64 {
    mix64(seed.wrapping_add(GAMMA))
}

/// Value `counter` of the stream `key`: SplitMix64's state after `counter + 1` steps from
/// `key`, mixed.
pub fn random_at(key: u64, counter: u64) -> u64 {
    mix64(key.wrapping_add(counter.wrapping_add(1).wrapping_mul(GAMMA)))
}

/// A double uniform in [0, 1) from 53 random bits.
fn unit_double(bits: u64) -> f64 {
    (bits >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// An integer uniform in `lo ..= hi` (`lo <= hi`), by the high half of a 64 × 64-bit product:
/// the bias is below 2^-32 for every range of `int`.
fn int_in(bits: u64, lo: i64, hi: i64) -> i64 {
    let span = (hi as i128 - lo as i128 + 1) as u128;
    let offset = (u128::from(bits) * span) >> 64;
    (lo as i128 + offset as i128) as i64
}

// ----- checked number parsing -----

/// `parse_int s`: an optional sign and decimal digits, white space around them allowed; the
/// value must fit an `int`.
pub fn parse_int(text: &[u8]) -> Result<i64, Fault> {
    let (start, end) = trimmed(text);
    let body = &text[start..end];
    let digits_from = usize::from(matches!(body.first(), Some(b'+' | b'-')));
    let digits = &body[digits_from..];
    if digits.is_empty() {
        return Err(not_a_number(text, start + digits_from, "int"));
    }
    if let Some(bad) = digits.iter().position(|b| !b.is_ascii_digit()) {
        return Err(not_a_number(text, start + digits_from + bad, "int"));
    }
    let value = std::str::from_utf8(body)
        .ok()
        .and_then(|s| s.parse::<i32>().ok());
    match value {
        Some(v) => Ok(i64::from(v)),
        None => Err(Fault::new(
            PARSE_ERROR,
            format!("`{}` does not fit int", show(text)),
        )),
    }
}

/// `parse_double s`: a decimal number with an optional sign, fraction and exponent, or `inf`,
/// `infinity`, `nan` (any case), white space around it allowed.
pub fn parse_double(text: &[u8]) -> Result<f64, Fault> {
    let (start, end) = trimmed(text);
    let body = &text[start..end];
    let valid = float_prefix(body);
    if valid < body.len() || body.is_empty() {
        return Err(not_a_number(text, start + valid, "double"));
    }
    let s = std::str::from_utf8(body).unwrap_or_default();
    s.parse::<f64>()
        .map_err(|_| not_a_number(text, start, "double"))
}

/// The length of the longest prefix of `s` that begins a valid floating literal.
fn float_prefix(s: &[u8]) -> usize {
    let mut i = usize::from(matches!(s.first(), Some(b'+' | b'-')));
    let rest = &s[i..];
    for word in ["infinity", "inf", "nan"] {
        if rest.len() >= word.len() && rest[..word.len()].eq_ignore_ascii_case(word.as_bytes()) {
            return i + word.len();
        }
    }
    let digits = |i: &mut usize| {
        let from = *i;
        while s.get(*i).is_some_and(u8::is_ascii_digit) {
            *i += 1;
        }
        *i > from
    };
    let whole = digits(&mut i);
    let mut fraction = false;
    if s.get(i) == Some(&b'.') {
        let mut j = i + 1;
        fraction = digits(&mut j);
        if whole || fraction {
            i = j;
        }
    }
    if !whole && !fraction {
        return i;
    }
    if matches!(s.get(i), Some(b'e' | b'E')) {
        let mut j = i + 1;
        if matches!(s.get(j), Some(b'+' | b'-')) {
            j += 1;
        }
        if digits(&mut j) {
            i = j;
        }
    }
    i
}

/// The bounds of `text` without the ASCII white space around it.
fn trimmed(text: &[u8]) -> (usize, usize) {
    let start = text
        .iter()
        .position(|b| !b.is_ascii_whitespace())
        .unwrap_or(text.len());
    let end = text
        .iter()
        .rposition(|b| !b.is_ascii_whitespace())
        .map_or(start, |i| i + 1);
    (start, end)
}

/// R0014: `text` is not a `what`; the first byte that cannot be part of one is at `at`.
fn not_a_number(text: &[u8], at: usize, what: &str) -> Fault {
    let shown = show(text);
    let message = match text.get(at) {
        _ if text.iter().all(u8::is_ascii_whitespace) => {
            format!(
                "`{shown}` is not a{} {what}: there is no number",
                article(what)
            )
        }
        Some(byte) => format!(
            "`{shown}` is not a{} {what}: unexpected `{}` at position {}",
            article(what),
            show(&[*byte]),
            at + 1
        ),
        None => format!(
            "`{shown}` is not a{} {what}: it ends after position {}",
            article(what),
            at
        ),
    };
    Fault::new(PARSE_ERROR, message)
}

fn article(what: &str) -> &'static str {
    if what.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "n"
    } else {
        ""
    }
}

/// Text for a message: escapes for control bytes, at most 60 bytes.
fn show(text: &[u8]) -> String {
    let mut out = String::new();
    for &b in text.iter().take(60) {
        match b {
            b'\n' => out.push_str("\\n"),
            b'\t' => out.push_str("\\t"),
            b'\r' => out.push_str("\\r"),
            0x20..=0x7e => out.push(b as char),
            _ => out.push_str(&format!("\\x{b:02x}")),
        }
    }
    if text.len() > 60 {
        out.push('…');
    }
    out
}

// ----- the kernels -----

fn text_of(value: Value) -> Text {
    match value {
        Value::Str(s) => s,
        _ => std::sync::Arc::new(Vec::new()),
    }
}

fn path_of(value: Value) -> String {
    String::from_utf8_lossy(&text_of(value)).into_owned()
}

/// `readln f`: the next line of the file with handle `f`, with its newline; `""` at the end.
pub fn read_line(rt: &Runtime<'_>, f: i64, span: Span) -> Result<Value, Ctrl> {
    let line = rt.world.borrow_mut().readln(f);
    Ok(Value::Str(std::sync::Arc::new(
        line.map_err(|e| e.at(span))?,
    )))
}

/// `write (f, text)`, and `writeln (f, text)` when `newline`: the text written to the file
/// with handle `f`, then the newline.
pub fn write_text(
    rt: &Runtime<'_>,
    f: i64,
    text: &[u8],
    newline: bool,
    span: Span,
) -> Result<(), Ctrl> {
    let mut world = rt.world.borrow_mut();
    let mut written = world.write(f, rt, text, span);
    if newline && written.is_ok() {
        written = world.write(f, rt, b"\n", span);
    }
    written.map_err(|e| e.at(span))
}

/// The compiled code of `Prim::World(op)` with its operands' codes.
pub fn compile(op: WorldOp, mut codes: Vec<ExprCode>, span: Span) -> ExprCode {
    let mut pop = || codes.pop().expect("the operand count was checked");
    match op {
        WorldOp::Argc => {
            let unit = pop();
            Box::new(move |frame| {
                unit(frame)?;
                let n = frame.rt.world.borrow().args.len();
                Ok(Value::Int(n as i64))
            })
        }
        WorldOp::Argv => {
            let i = pop();
            Box::new(move |frame| {
                let i = i(frame)?.as_int_lossy();
                let world = frame.rt.world.borrow();
                let arg = usize::try_from(i).ok().and_then(|i| world.args.get(i));
                Ok(Value::str(arg.map_or(&b""[..], |a| a.as_bytes())))
            })
        }
        WorldOp::Getenv => {
            let name = pop();
            Box::new(move |frame| {
                let name = path_of(name(frame)?);
                let value = std::env::var_os(&name).unwrap_or_default();
                Ok(Value::str(value.as_encoded_bytes()))
            })
        }
        WorldOp::Exit => {
            let code = pop();
            Box::new(move |frame| {
                let code = code(frame)?.as_int_lossy();
                frame.rt.world.borrow_mut().exit = Some(code.rem_euclid(256) as i32);
                Err(runtime_error(EXIT, "exit", span))
            })
        }
        WorldOp::Stream(handle) => {
            let unit = pop();
            Box::new(move |frame| {
                unit(frame)?;
                Ok(Value::Int(i64::from(handle)))
            })
        }
        WorldOp::Open(mode) => {
            let path = pop();
            Box::new(move |frame| {
                let path = path_of(path(frame)?);
                Ok(Value::Int(frame.rt.world.borrow_mut().open(&path, mode)))
            })
        }
        WorldOp::Valid => {
            let f = pop();
            Box::new(move |frame| {
                let f = f(frame)?.as_int_lossy();
                Ok(Value::bool(frame.rt.world.borrow_mut().valid(f)))
            })
        }
        WorldOp::Close | WorldOp::Flush => {
            let f = pop();
            Box::new(move |frame| {
                let f = f(frame)?.as_int_lossy();
                let mut world = frame.rt.world.borrow_mut();
                match op {
                    WorldOp::Close => world.close(f, frame.rt, span),
                    _ => world.flush(f, frame.rt, span),
                }
                .map_err(|fault| fault.at(span))?;
                Ok(Value::Unit)
            })
        }
        WorldOp::Readln => {
            let f = pop();
            Box::new(move |frame| {
                let f = f(frame)?.as_int_lossy();
                read_line(frame.rt, f, span)
            })
        }
        WorldOp::LoadRest => {
            let f = pop();
            Box::new(move |frame| {
                let f = f(frame)?.as_int_lossy();
                let limit = frame.rt.limits.max_alloc_bytes;
                let text = frame.rt.world.borrow_mut().read_rest(f, limit);
                Ok(Value::Str(std::sync::Arc::new(
                    text.map_err(|e| e.at(span))?,
                )))
            })
        }
        WorldOp::Load => {
            let path = pop();
            Box::new(move |frame| {
                let path = path_of(path(frame)?);
                let text = load(&path, frame.rt.limits.max_alloc_bytes);
                Ok(Value::Str(std::sync::Arc::new(
                    text.map_err(|e| e.at(span))?,
                )))
            })
        }
        WorldOp::Save => {
            let text = pop();
            let path = pop();
            Box::new(move |frame| {
                let path = path_of(path(frame)?);
                let text = text_of(text(frame)?);
                save(&path, &text).map_err(|e| e.at(span))?;
                Ok(Value::Unit)
            })
        }
        WorldOp::Write(newline) => {
            let text = pop();
            let f = pop();
            Box::new(move |frame| {
                let f = f(frame)?.as_int_lossy();
                let text = text_of(text(frame)?);
                write_text(frame.rt, f, &text, newline, span)?;
                Ok(Value::Unit)
            })
        }
        WorldOp::Rand => {
            let unit = pop();
            Box::new(move |frame| {
                unit(frame)?;
                let bits = frame.rt.world.borrow_mut().random.next();
                Ok(Value::Int((bits >> 33) as i64))
            })
        }
        WorldOp::Seed => {
            let seed = pop();
            Box::new(move |frame| {
                let seed = seed(frame)?.as_int_lossy() as u64;
                frame.rt.world.borrow_mut().random = Generator::new(seed);
                Ok(Value::Unit)
            })
        }
        WorldOp::RandInt => {
            let hi = pop();
            let lo = pop();
            Box::new(move |frame| {
                let lo = lo(frame)?.as_int_lossy();
                let hi = hi(frame)?.as_int_lossy();
                if lo > hi {
                    return Err(runtime_error(
                        CONVERSION_OUT_OF_RANGE,
                        format!("rand_int ({lo}, {hi}): the range {lo} .. {hi} is empty"),
                        span,
                    ));
                }
                let bits = frame.rt.world.borrow_mut().random.next();
                Ok(Value::Int(int_in(bits, lo, hi)))
            })
        }
        WorldOp::RandDouble => {
            let unit = pop();
            Box::new(move |frame| {
                unit(frame)?;
                let bits = frame.rt.world.borrow_mut().random.next();
                Ok(Value::Float(unit_double(bits)))
            })
        }
        WorldOp::Time => {
            let unit = pop();
            Box::new(move |frame| {
                unit(frame)?;
                let now = std::time::SystemTime::now()
                    .duration_since(std::time::UNIX_EPOCH)
                    .map_or(0.0, |d| d.as_secs_f64());
                Ok(Value::Float(now))
            })
        }
    }
}

/// The compiled code of `lines s` and `split (s, c)`: arrays of strings of a run-time size.
pub fn compile_pieces(
    prim: &crate::core::ir::Prim,
    mut codes: Vec<ExprCode>,
    ty: &crate::types::Type,
    span: Span,
) -> ExprCode {
    let ty = ty.clone();
    let separator = (*prim == crate::core::ir::Prim::Split)
        .then(|| codes.pop().expect("the operand count was checked"));
    let text = codes.pop().expect("the operand count was checked");
    Box::new(move |frame| {
        let text = text_of(text(frame)?);
        let pieces = match &separator {
            None => lines(&text),
            Some(separator) => match separator(frame)? {
                Value::Str(separators) => split(&text, &separators),
                Value::Int(c) => split(&text, &[c as u8]),
                _ => vec![&text[..]],
            },
        };
        let piece = |p: &[u8]| Value::Str(std::sync::Arc::new(p.to_vec()));
        // Felix's form: the prelude's `list[string]`, `Empty` (tag 0) or `Cons (h, t)` (1).
        if !matches!(ty, crate::types::Type::Array(..)) {
            let empty = Value::sum(0, ArgForm::Whole, Value::Unit);
            return Ok(pieces.into_iter().rev().fold(empty, |t, h| {
                Value::sum_taking(1, ArgForm::Tuple, &mut [piece(h), t])
            }));
        }
        super::array::check_allocation(Some(pieces.len()), &ty, &frame.rt.limits)
            .map_err(|f| f.at(span))?;
        let values: super::value::Leaves = pieces.into_iter().map(piece).collect();
        Ok(Value::Array(super::value::ArrayVal::new(
            super::value::Buffer::Boxed(values),
        )))
    })
}

/// The lines of `text` without their `\n` or `\r\n`; no empty line after a final line end.
fn lines(text: &[u8]) -> Vec<&[u8]> {
    let mut out: Vec<&[u8]> = text
        .split(|&b| b == b'\n')
        .map(|l| l.strip_suffix(b"\r").unwrap_or(l))
        .collect();
    if text.is_empty() || text.ends_with(b"\n") {
        out.pop();
    }
    out
}

/// The pieces of `text` between the separator bytes (any byte of `separators`, as Felix's
/// `split` takes a string as a set of separators; the whole text when there are none).
fn split<'a>(text: &'a [u8], separators: &[u8]) -> Vec<&'a [u8]> {
    text.split(|b| separators.contains(b)).collect()
}

/// The compiled code of `_random_uniform seed` and (`normal`) `_random_normal seed`: the array
/// of the result type whose element k is value k of the stream `seed`, uniform in [0, 1) or
/// standard normal. Each
/// element depends on (seed, k) alone, so the blocks are filled in parallel with the same
/// values on any number of threads.
pub fn compile_random_fill(
    normal: bool,
    mut codes: Vec<ExprCode>,
    ty: &crate::types::Type,
    span: Span,
) -> ExprCode {
    let ty = ty.clone();
    let leaves = super::value::leaf_count(&ty);
    let seed = codes.pop().expect("the operand count was checked");
    Box::new(move |frame| {
        let key = match seed(frame)? {
            Value::Int(s) => seed_key(s as u64),
            _ => seed_key(0),
        };
        let n = super::array::check_allocation(leaves, &ty, &frame.rt.limits)
            .map_err(|f| f.at(span))?;
        let mut values = vec![0.0f64; n];
        let fill = |start: usize, block: &mut [f64]| {
            for (i, x) in block.iter_mut().enumerate() {
                *x = random_double(key, (start + i) as u64, normal);
            }
        };
        if n >= 1 << 16 {
            super::parallel::fill_blocks(&mut values, fill);
        } else {
            fill(0, &mut values);
        }
        Ok(Value::Array(super::value::ArrayVal::new(
            super::value::Buffer::Scalars(super::value::Scalars::F64(values)),
        )))
    })
}

/// Element `k` of a fill keyed by `key`: uniform from value k of the stream, or normal by the
/// Box-Muller transform of values 2k and 2k + 1 (its cosine half).
fn random_double(key: u64, k: u64, normal: bool) -> f64 {
    if !normal {
        return unit_double(random_at(key, k));
    }
    // 1 - u is in (0, 1], so its logarithm is finite.
    let u = 1.0 - unit_double(random_at(key, 2 * k));
    let v = unit_double(random_at(key, 2 * k + 1));
    (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
}

/// The compiled code of `parse_int` (`double` false) or `parse_double`.
pub fn compile_parse(double: bool, mut codes: Vec<ExprCode>, span: Span) -> ExprCode {
    let text = codes.pop().expect("the operand count was checked");
    Box::new(move |frame| {
        let text = text_of(text(frame)?);
        let value = if double {
            parse_double(&text).map(Value::Float)
        } else {
            parse_int(&text).map(Value::Int)
        };
        value.map_err(|fault| fault.at(span))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn int(text: &str) -> Result<i64, String> {
        parse_int(text.as_bytes()).map_err(|f| f.message)
    }

    fn double(text: &str) -> Result<f64, String> {
        parse_double(text.as_bytes()).map_err(|f| f.message)
    }

    #[test]
    fn parse_int_reads_whole_numbers_only() {
        assert_eq!(int("42"), Ok(42));
        assert_eq!(int(" -17\n"), Ok(-17));
        assert_eq!(int("+5"), Ok(5));
        assert_eq!(
            int("12x"),
            Err("`12x` is not an int: unexpected `x` at position 3".into())
        );
        assert_eq!(
            int("abc"),
            Err("`abc` is not an int: unexpected `a` at position 1".into())
        );
        assert_eq!(int(""), Err("`` is not an int: there is no number".into()));
        assert_eq!(
            int("-"),
            Err("`-` is not an int: it ends after position 1".into())
        );
        assert_eq!(
            int("2147483648"),
            Err("`2147483648` does not fit int".into())
        );
        assert_eq!(int("-2147483648"), Ok(-2147483648));
    }

    #[test]
    fn parse_double_reads_c_literals() {
        assert_eq!(double("2.5"), Ok(2.5));
        assert_eq!(double(" 1e3 "), Ok(1000.0));
        assert_eq!(double("-.5"), Ok(-0.5));
        assert_eq!(double("7."), Ok(7.0));
        assert_eq!(double("-inf"), Ok(f64::NEG_INFINITY));
        assert!(double("NaN").is_ok_and(f64::is_nan));
        assert_eq!(double("+InFiNiTy"), Ok(f64::INFINITY));
        assert_eq!(
            double("in"),
            Err("`in` is not a double: unexpected `i` at position 1".into())
        );
        assert_eq!(
            double("infx"),
            Err("`infx` is not a double: unexpected `x` at position 4".into())
        );
        assert_eq!(
            double("1.5.2"),
            Err("`1.5.2` is not a double: unexpected `.` at position 4".into())
        );
        assert_eq!(
            double("1e"),
            Err("`1e` is not a double: unexpected `e` at position 2".into())
        );
        assert_eq!(
            double("."),
            Err("`.` is not a double: unexpected `.` at position 1".into())
        );
    }

    #[test]
    fn readln_gives_each_line_whole_whatever_the_one_before() {
        let text = format!("{}\nab\n\nlast", "x".repeat(5000));
        let mut world = World::new(Vec::new(), Box::new(std::io::Cursor::new(text)));
        let lines: Vec<Vec<u8>> = (0..5).map(|_| world.readln(STDIN).unwrap()).collect();
        assert_eq!(lines[0].len(), 5001);
        assert_eq!(
            lines[1..],
            [
                b"ab\n".to_vec(),
                b"\n".to_vec(),
                b"last".to_vec(),
                Vec::new()
            ]
        );
    }

    #[test]
    fn the_generator_is_a_function_of_seed_and_position() {
        let mut g = Generator::new(42);
        let stream: Vec<u64> = (0..5).map(|_| g.next()).collect();
        let key = seed_key(42);
        let direct: Vec<u64> = (0..5).map(|n| random_at(key, n)).collect();
        assert_eq!(stream, direct);
        let mut other = Generator::new(43);
        assert_ne!(stream[0], other.next());
        for bits in [0, u64::MAX, 1 << 63] {
            let x = unit_double(bits);
            assert!((0.0..1.0).contains(&x));
            let k = int_in(bits, -3, 3);
            assert!((-3..=3).contains(&k));
        }
        assert_eq!(
            int_in(u64::MAX, i64::from(i32::MIN), i64::from(i32::MAX)),
            2147483647
        );
        assert_eq!(int_in(0, 5, 5), 5);
    }
}
