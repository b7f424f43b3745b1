//! A mutation-fuzzing campaign, in process. The seeds are the golden programs of `examples/`,
//! the `flx` blocks of the book and the templates below (records, structs, pointers, secrets,
//! format strings, patterns, run-time shapes, loaded `.npy` and CSV files); each case is a seed
//! changed in one to four places (tokens deleted, repeated, swapped for syntax of the libFuzzer
//! dictionary or for a number at a boundary, lines spliced in from another seed, the text
//! cut), and a loaded file may be a mutated fixture. Each case runs twice, with native code and
//! on the closure compiler, with lowered limits and a one-second watchdog (the Ctrl-C flag).
//!
//! The properties: never a panic or an internal error (R0000), every diagnostic inside the
//! source, no placeholder (`<?>`) or inference variable (`?N`) in a message, exit status 0, 1
//! or 3, no static phase past two seconds, and the two back ends print the same output and
//! diagnostics and end with the same status (unless the watchdog stopped one).
//!
//! The default is a short run from a fixed seed; `TESSERA_FUZZ_CASES` sets the number of
//! cases, `TESSERA_FUZZ_SEED` the seed, and `TESSERA_FUZZ_FINDINGS=DIR` keeps going past a
//! finding, writing each new one (one per kind and first diagnostic) to `DIR` and a count of
//! cases, runs and findings to `DIR/summary.txt`.

use std::collections::BTreeMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use tessera::{exit_status, render, ChunkResult, Diagnostic, Origin, Session, Settings};

#[path = "support/rng.rs"]
mod rng;
use rng::Rng;

/// Picking from a list, for the generators here.
trait Pick {
    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T;
}

impl Pick for Rng {
    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
}

/// Seeds written for the constructs past the parser. `m.npy` and `m.csv` are the loaded
/// files of the case (a fixture, or a mutation of one).
const TEMPLATES: &[&str] = &[
    // Records and structs.
    "var r = (a=1, b=\"r\", c=2.5);\nr = (a=r.a + 1, b=r.b + \"s\", c=r.c);\nprintln$ r.a, r.b, r.c;\n\
     struct P { u: int; w: string; }\nval p = P (3, \"w\");\nprintln$ p.u, p.w;\n\
     fun f (q: (a:int, b:string)) => q.a;\nprintln$ f (a=4, b=\"z\");\n",
    "struct S { x: int; y: double; }\nvar sa : S ^ 4;\nfor i in 0 ..< 4 do &sa.i.x <- i * 2; done\n\
     println$ sa.(2).x, sa.(3).y;\nval t = (x=1, y=(z=2, w=3));\nprintln$ t.y.z + t.y.w;\n",
    // Pointers.
    "var x = 3;\nvar p = &x;\np <- *p + 4;\nprintln$ x;\nvar a = 1, 2, 3;\n&a.1 <- 9;\n\
     println$ a;\nvar q = &a;\nprintln$ (*q).2;\nfun g (r: &int) { r <- *r * 2; }\ng &x;\n\
     println$ x;\n",
    "var m : int ^ (3 \\* 4);\nfor i in 0 ..< 3 do for j in 0 ..< 4 do &m.(i, j) <- i * j; done done\n\
     println$ m;\nvar pm = &m;\nprintln$ \\sum (*pm);\n",
    // Secrets.
    "var k : secret int = 7;\nval s = k * 3 + 1;\nprintln$ reveal s;\n\
     fun h (z: secret int) => z + 1;\nprintln$ reveal (h k);\nval b = k > 3;\n\
     println$ reveal (if b then 1 else 2 endif);\n",
    "val xs : secret (int ^ 4) = 1, 2, 3, 4;\nprintln$ reveal (\\sum xs);\n\
     val m = map (fun (v: int) => v * v) xs;\nprintln$ reveal m;\n",
    // Format strings.
    "println$ f\"%d and %s\" (3, \"x\");\nprintln$ f\"%5.2f|%03d|%x|%%\" (2.5, 7, 255);\n\
     val n = 42;\nprintln$ f\"%S %d\" (\"q\", n);\nprint$ f\"%-6d|\\n\" 12;\n",
    // Patterns.
    "variant W = | N | V of int | T of int * string;\n\
     fun show (w: W) => match w with | N => \"n\" | V v => str v | T (a, b) => b + str a endmatch;\n\
     println$ show N, show (V 3), show (T (4, \"t\"));\n\
     println$ match (1, 2) with | (0, _) => 0 | (a, b) => a + b endmatch;\n\
     val d1, d2 = 5, \"d\";\nprintln$ d1, d2;\n",
    "val c = `1:3 \\, `2:4;\nprintln$ match c with | (`0:3, _) => 0 | _ => 1 endmatch;\n\
     val u = `2:5;\nprintln$ match u with | `2:5 => \"two\" | _ => \"other\" endmatch;\n\
     println$ match 7 with | 0 => \"z\" | n when n > 3 => \"big\" | _ => \"small\" endmatch;\n",
    // Run-time shapes.
    "val n = len (str 12345);\nvar b : int ^ n;\nfor i in 0 ..< n do &b.i <- i; done\n\
     println$ len b, \\sum b;\nval f = filter (fun (y:int) => y > 1) b;\nprintln$ \\sum f, len f;\n",
    "val ws = split (\"a,bb,ccc\", ',');\nprintln$ len ws;\nval ls = lines \"x\\ny\\nz\";\n\
     println$ ls;\nval [k] zs : int ^ k = filter (fun (y:int) => y % 2 == 0) (1, 2, 3, 4, 5, 6);\n\
     println$ k, zs;\n",
    // Loaded files.
    "val a : double ^ (2 \\* 3 \\* 4) = load_npy \"m.npy\";\nprintln$ \\sum a;\n\
     val [r, c, d] b : double ^ (r \\* c \\* d) = load_npy \"m.npy\";\nprintln$ r, c, d, \\sum b;\n",
    "val [n] a : double ^ n = load_npy \"m.npy\";\nprintln$ n, a;\n",
    "val [r, c] m : double ^ (r \\* c) = load_csv \"m.csv\";\nprintln$ r, c, \\sum m;\n\
     val [q] w : double ^ (q \\* 4) = load_csv \"m.csv\";\nprintln$ q;\n",
    // Compact linear values, digits and big codes.
    "var x : 3 \\^ 40;\nfor i in ..[40] do &x.i <- `2:3; done\nprintln$ x :>> natural;\n\
     val y = x.(7);\nprintln$ y;\nval z : 5 \\* 7 = `3:5 \\, `6:7;\nprintln$ z.0, z.1, z :>> int;\n",
    "val big : 2 \\^ 100 = (2 :>> natural) :>> 2 \\^ 100;\nprintln$ big :>> natural;\n\
     var acc = 0;\nfor i in ..[7 \\* 3] do acc = acc + (i :>> int); done\nprintln$ acc;\n",
];

/// Numbers at the edges of the types.
const NUMBERS: &[&str] = &[
    "0",
    "1",
    "-1",
    "2",
    "3",
    "7",
    "64",
    "4096",
    "65536",
    "2147483647",
    "2147483648",
    "-2147483648",
    "9223372036854775807",
    "18446744073709551616",
    "1.5",
    "1e308",
    "0.0",
    "100000000",
];

/// The syntax snippets of the libFuzzer dictionary (`fuzz/tessera.dict`) and a few more.
fn snippets() -> Vec<String> {
    let dict = std::fs::read_to_string(root().join("fuzz/tessera.dict")).expect("the dictionary");
    let mut out: Vec<String> = dict
        .lines()
        .filter(|l| !l.starts_with('#'))
        .filter_map(|l| {
            let start = l.find('"')?;
            let end = l.rfind('"')?;
            (end > start).then(|| l[start + 1..end].replace("\\\"", "\""))
        })
        .collect();
    for s in [
        "(", ")", ",", ";", ".", "..", "..<", "$", "|", "&", "<-", "=>", ":>>", "=", "==", "+",
        "*", "-", "/", "%", "\\*", "\\+", "\\^", "\\,", "`1:3", "int", "double", "natural",
        "string", "bool", "x", "i", "a", "str", "len", "\\sum", "map", "true", "reveal",
    ] {
        out.push(s.to_string());
    }
    out
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The `flx` blocks of a markdown file.
fn flx_blocks(markdown: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut current: Option<String> = None;
    for line in markdown.lines() {
        let trimmed = line.trim_start();
        match &mut current {
            None if trimmed == "```flx" || trimmed == "```felix" => current = Some(String::new()),
            Some(block) if trimmed.starts_with("```") => {
                blocks.push(std::mem::take(block));
                current = None;
            }
            Some(block) => {
                block.push_str(line);
                block.push('\n');
            }
            None => {}
        }
    }
    blocks
}

fn seeds() -> Vec<String> {
    let mut seeds: Vec<String> = TEMPLATES.iter().map(|t| t.to_string()).collect();
    let mut files: Vec<PathBuf> = std::fs::read_dir(root().join("examples"))
        .expect("examples/")
        .map(|e| e.expect("an entry").path())
        .collect();
    files.sort();
    for path in files {
        if path.extension().is_some_and(|e| e == "flx") {
            seeds.push(std::fs::read_to_string(&path).expect("an example"));
        }
    }
    let mut pages: Vec<PathBuf> = std::fs::read_dir(root().join("book/src"))
        .expect("book/src/")
        .map(|e| e.expect("an entry").path())
        .collect();
    pages.sort();
    for page in pages {
        if page.extension().is_some_and(|e| e == "md") {
            let text = std::fs::read_to_string(&page).expect("a page");
            seeds.extend(flx_blocks(&text));
        }
    }
    seeds
}

/// `src` cut into tokens: identifiers and numbers, spaces, strings, single other characters.
fn tokens(src: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let bytes = src.as_bytes();
    let mut i = 0;
    while i < bytes.len() {
        let start = i;
        let c = bytes[i];
        if c.is_ascii_alphanumeric() || c == b'_' {
            while i < bytes.len() && (bytes[i].is_ascii_alphanumeric() || bytes[i] == b'_') {
                i += 1;
            }
        } else if c.is_ascii_whitespace() {
            while i < bytes.len() && bytes[i].is_ascii_whitespace() {
                i += 1;
            }
        } else if c == b'"' {
            i += 1;
            while i < bytes.len() && bytes[i] != b'"' && bytes[i] != b'\n' {
                i += 1;
            }
            i = (i + 1).min(bytes.len());
        } else {
            i += 1;
            while i < bytes.len() && !src.is_char_boundary(i) {
                i += 1;
            }
        }
        out.push(&src[start..i]);
    }
    out
}

/// `src` changed in one to four places.
fn mutate(src: &str, rng: &mut Rng, seeds: &[String], snippets: &[String]) -> String {
    let mut toks: Vec<String> = tokens(src).into_iter().map(str::to_string).collect();
    for _ in 0..1 + rng.below(4) {
        let at = rng.below(toks.len() + 1);
        match rng.below(9) {
            0 => {
                let end = (at + 1 + rng.below(6)).min(toks.len());
                toks.drain(at..end);
            }
            1 if at < toks.len() => {
                let end = (at + 1 + rng.below(12)).min(toks.len());
                let piece = toks[at..end].to_vec();
                let times = 1 + rng.below(3);
                for _ in 0..times {
                    toks.splice(at..at, piece.iter().cloned());
                }
            }
            2 if at < toks.len() => toks[at] = rng.pick(snippets).clone(),
            3 => toks.insert(at, format!(" {} ", rng.pick(snippets))),
            4 => {
                if let Some(i) = (at..toks.len()).find(|&i| toks[i].as_bytes()[0].is_ascii_digit())
                {
                    toks[i] = rng.pick(NUMBERS).to_string();
                }
            }
            5 => {
                let other = rng.pick(seeds);
                let lines: Vec<&str> = other.lines().collect();
                if !lines.is_empty() {
                    let from = rng.below(lines.len());
                    let to = (from + 1 + rng.below(4)).min(lines.len());
                    toks.insert(at, format!("\n{}\n", lines[from..to].join("\n")));
                }
            }
            6 => toks.truncate(at),
            7 if toks.len() > 1 => {
                let j = rng.below(toks.len());
                let i = at.min(toks.len() - 1);
                toks.swap(i, j);
            }
            _ => {
                let ident = toks
                    .iter()
                    .filter(|t| t.as_bytes()[0].is_ascii_alphabetic())
                    .nth(rng.below(8))
                    .cloned();
                if let (Some(name), true) = (ident, at < toks.len()) {
                    toks[at] = name;
                }
            }
        }
    }
    toks.concat()
}

/// A writer that keeps the first `CAP` bytes and drops the rest.
#[derive(Clone, Default)]
struct Capped(Arc<Mutex<Vec<u8>>>);

const CAP: usize = 1 << 20;

impl Write for Capped {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let mut v = self.0.lock().unwrap();
        let room = CAP.saturating_sub(v.len()).min(buf.len());
        v.extend_from_slice(&buf[..room]);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl Capped {
    fn text(&self) -> String {
        String::from_utf8_lossy(&self.0.lock().unwrap()).into_owned()
    }
}

/// Milliseconds since `epoch()` after which the watchdog raises the Ctrl-C flag (0: none).
static DEADLINE: AtomicU64 = AtomicU64::new(0);

/// Set when the watchdog raised the flag for the current run.
static FIRED: AtomicBool = AtomicBool::new(false);

fn epoch() -> Instant {
    static EPOCH: OnceLock<Instant> = OnceLock::new();
    *EPOCH.get_or_init(Instant::now)
}

fn start_watchdog() {
    static STARTED: OnceLock<()> = OnceLock::new();
    STARTED.get_or_init(|| {
        epoch();
        std::thread::spawn(|| loop {
            let deadline = DEADLINE.load(Ordering::Relaxed);
            if deadline != 0 && epoch().elapsed().as_millis() as u64 > deadline {
                FIRED.store(true, Ordering::Relaxed);
                tessera::interrupt::request();
            }
            std::thread::sleep(Duration::from_millis(5));
        });
    });
}

/// What one run printed, how it ended and how long it took.
#[derive(Debug, Default, PartialEq)]
struct Outcome {
    out: String,
    err: String,
    status: i32,
    /// The watchdog raised the Ctrl-C flag.
    stopped: bool,
    /// A property of the diagnostics failed (a span, a placeholder, an internal type).
    bad_diag: Option<String>,
}

/// Does `text` name an inference variable other than by the numbering of messages (`?1`, `?2`,
/// … in order of first appearance, `seen` the numbers met so far in the diagnostic)?
fn is_internal_type(text: &str, seen: &mut Vec<u64>) -> bool {
    let mut rest = text;
    while let Some(at) = rest.find('?') {
        let after = &rest[at + 1..];
        let digits = after.len() - after.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        rest = &after[digits..];
        if digits == 0 {
            continue;
        }
        let Ok(n) = after[..digits].parse::<u64>() else {
            return true;
        };
        if !seen.contains(&n) {
            if n != seen.len() as u64 + 1 {
                return true;
            }
            seen.push(n);
        }
    }
    false
}

fn diag_problem(src: &str, diags: &[Diagnostic]) -> Option<String> {
    for d in diags {
        let here = matches!(d.origin, Origin::Here);
        if d.span.start > d.span.end || (here && d.span.end > src.len()) {
            return Some(format!("{} span {:?} outside the source", d.code, d.span));
        }
        let mut seen = Vec::new();
        let mut texts = vec![d.message.clone(), d.label.clone()];
        texts.extend(d.notes.iter().cloned());
        texts.extend(d.help.iter().cloned());
        texts.extend(d.secondary.iter().map(|(_, l)| l.clone()));
        for t in texts {
            if t.contains("<?>") || is_internal_type(&t, &mut seen) {
                return Some(format!("{} leaks an internal name: {t}", d.code));
            }
        }
    }
    None
}

/// A session with the campaign's lowered limits, printing into `out` and `err`.
fn session(jit: bool, out: &Capped, err: &Capped) -> Session {
    let mut settings = Settings::default()
        .with_stdout(out.clone())
        .with_stderr(err.clone())
        .with_stdin(std::io::empty())
        .with_threads(1)
        .with_validate(true)
        .with_jit(jit)
        .with_jit_all(true);
    settings.limits.max_alloc_bytes = 64 << 20;
    settings.limits.max_natural_bits = 1 << 16;
    settings.limits.max_call_depth = 2000;
    settings.limits.max_memory_bytes = 1 << 30;
    Session::new(settings)
}

/// A session kept from case to case (its chunks run as in the REPL), with its writers.
struct Kept {
    session: Session,
    out: Capped,
    err: Capped,
}

impl Kept {
    fn new(jit: bool) -> Kept {
        let (out, err) = (Capped::default(), Capped::default());
        Kept {
            session: session(jit, &out, &err),
            out,
            err,
        }
    }
}

/// Run `src` as a file in a fresh session (`kept` is `None`) or as a REPL chunk in a kept
/// one, within the watchdog's second.
fn run(src: &str, jit: bool, kept: Option<&mut Kept>) -> (Outcome, Duration) {
    tessera::interrupt::clear();
    FIRED.store(false, Ordering::Relaxed);
    let start = Instant::now();
    DEADLINE.store(
        epoch().elapsed().as_millis() as u64 + 1000,
        Ordering::Relaxed,
    );
    let (result, out, err) = match kept {
        Some(kept) => {
            kept.out.0.lock().unwrap().clear();
            kept.err.0.lock().unwrap().clear();
            let result = match kept.session.eval_chunk(src) {
                ChunkResult::Done | ChunkResult::Incomplete => Ok(Ok(())),
                ChunkResult::Failed(diags) => Ok(Err(diags)),
            };
            kept.session.flush();
            (result, kept.out.clone(), kept.err.clone())
        }
        None => {
            let mut fresh = Kept::new(jit);
            let result = tessera::catch_internal_error(|| fresh.session.run_source(src));
            fresh.session.flush();
            (result, fresh.out.clone(), fresh.err.clone())
        }
    };
    DEADLINE.store(0, Ordering::Relaxed);
    let mut bad_diag = None;
    let status = match result {
        Ok(Ok(())) => 0,
        Ok(Err(diags)) => {
            bad_diag = diag_problem(src, &diags);
            let rendered = render(&diags, "fuzz.flx", src, false);
            err.clone().write_all(rendered.as_bytes()).unwrap();
            if diags.iter().any(|d| d.code == "R0000") {
                101
            } else {
                exit_status(&diags)
            }
        }
        Err(message) => {
            let _ = write!(err.clone(), "internal error: {message}");
            101
        }
    };
    let outcome = Outcome {
        out: out.text(),
        err: err.text(),
        status,
        stopped: FIRED.load(Ordering::Relaxed),
        bad_diag,
    };
    tessera::interrupt::clear();
    (outcome, start.elapsed())
}

/// The finding of one case, as a kind and a detail, if any.
fn judge(
    src: &str,
    native: &(Outcome, Duration),
    closures: &(Outcome, Duration),
) -> Option<(String, String)> {
    for (name, (o, time)) in [("native", native), ("closures", closures)] {
        if o.status == 101 || o.err.contains("R0000") || o.err.contains("internal error") {
            return Some(("internal".into(), format!("{name}: {}", first_line(&o.err))));
        }
        if let Some(problem) = &o.bad_diag {
            return Some(("diagnostic".into(), format!("{name}: {problem}")));
        }
        if !o.stopped && ![0, 1, 3].contains(&o.status) {
            return Some(("status".into(), format!("{name}: status {}", o.status)));
        }
        if *time > Duration::from_millis(2500) {
            return Some((
                "slow".into(),
                format!("{name}: {:.1} s", time.as_secs_f64()),
            ));
        }
    }
    let (n, c) = (&native.0, &closures.0);
    let nondeterministic = ["time", "rand", "random", "getenv", "R0007"]
        .iter()
        .any(|w| src.contains(w) || n.err.contains(w) || c.err.contains(w));
    if !n.stopped
        && !c.stopped
        && !nondeterministic
        && (&n.out, &n.err, n.status) != (&c.out, &c.err, c.status)
    {
        let what = if n.status != c.status {
            format!("status {} vs {}", n.status, c.status)
        } else if n.err != c.err {
            format!(
                "diagnostics: {} vs {}",
                first_line(&n.err),
                first_line(&c.err)
            )
        } else {
            "stdout".to_string()
        };
        return Some(("disagree".into(), what));
    }
    None
}

/// A finding's text with its numbers and quoted types elided, so one kind of finding is kept
/// once.
fn normalise(text: &str) -> String {
    let mut out = String::new();
    let mut quoted = false;
    for c in text.chars() {
        match c {
            '`' => {
                quoted = !quoted;
                if quoted {
                    out.push_str("`…`");
                }
            }
            _ if quoted => {}
            '0'..='9' if out.ends_with('N') => {}
            '0'..='9' => out.push('N'),
            _ => out.push(c),
        }
    }
    out
}

fn first_line(text: &str) -> String {
    text.lines()
        .next()
        .unwrap_or("")
        .chars()
        .take(160)
        .collect()
}

const FIXTURES: &[(&str, &str)] = &[
    ("float64_3d.npy", "m.npy"),
    ("float64_flat.npy", "m.npy"),
    ("int64_le.npy", "m.npy"),
    ("numpy_savetxt.csv", "m.csv"),
    ("ragged.csv", "m.csv"),
];

/// Bytes changed in one to four places (flipped, cut, inserted, repeated, dropped).
fn mutate_bytes(bytes: &[u8], rng: &mut Rng) -> Vec<u8> {
    let mut out = bytes.to_vec();
    for _ in 0..1 + rng.below(4) {
        let at = rng.below(out.len() + 1);
        match rng.below(5) {
            0 if !out.is_empty() => {
                let i = at.min(out.len() - 1);
                out[i] ^= 1 << rng.below(8);
            }
            1 => out.truncate(at),
            2 => out.insert(at, *rng.pick(b"09,\n\"-e()\xff")),
            3 if at < out.len() => {
                let end = (at + 1 + rng.below(16)).min(out.len());
                let piece = out[at..end].to_vec();
                out.splice(at..at, piece);
            }
            _ => {
                let end = (at + rng.below(8)).min(out.len());
                out.drain(at..end);
            }
        }
    }
    out
}

/// A scratch folder made the working directory: the loaded files of the cases, a copy of
/// `examples/data`, and whatever a case saves.
fn enter_scratch() -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tessera-fuzz-{}", std::process::id()));
    std::fs::create_dir_all(dir.join("data")).expect("a scratch folder");
    for entry in std::fs::read_dir(root().join("examples/data")).expect("examples/data") {
        let path = entry.expect("an entry").path();
        std::fs::copy(&path, dir.join("data").join(path.file_name().unwrap())).expect("a copy");
    }
    std::env::set_current_dir(&dir).expect("the scratch folder");
    dir
}

fn write_fixtures(dir: &Path, rng: &mut Rng) {
    for (fixture, name) in FIXTURES {
        if rng.below(FIXTURES.len()) != 0 {
            continue;
        }
        let bytes = std::fs::read(root().join("tests/data").join(fixture)).expect("a fixture");
        let bytes = if rng.below(2) == 0 {
            mutate_bytes(&bytes, rng)
        } else {
            bytes
        };
        std::fs::write(dir.join(name), bytes).expect("a loaded file");
    }
}

fn env_u64(name: &str) -> Option<u64> {
    std::env::var(name).ok().and_then(|v| v.parse().ok())
}

/// Cases a kept session runs before it is replaced by a fresh one.
const KEPT_CASES: u64 = 64;

#[test]
fn mutated_programs_never_crash_and_both_back_ends_agree() {
    start_watchdog();
    // Every case runs on one thread with the interpreter thread's large stack, where the kept
    // sessions live.
    std::thread::Builder::new()
        .stack_size(256 << 20)
        .spawn(campaign)
        .expect("a thread")
        .join()
        .expect("the campaign ends");
}

fn campaign() {
    let cases = env_u64("TESSERA_FUZZ_CASES").unwrap_or(150);
    let seed = env_u64("TESSERA_FUZZ_SEED").unwrap_or(1);
    let findings_dir = std::env::var("TESSERA_FUZZ_FINDINGS")
        .ok()
        .map(PathBuf::from);
    let seeds = seeds();
    let snippets = snippets();
    let scratch = enter_scratch();
    let mut rng = Rng(seed);
    std::fs::copy(
        root().join("tests/data/float64_3d.npy"),
        scratch.join("m.npy"),
    )
    .unwrap();
    std::fs::copy(
        root().join("tests/data/numpy_savetxt.csv"),
        scratch.join("m.csv"),
    )
    .unwrap();
    let (mut runs, mut chunks) = (0u64, 0u64);
    let mut seen: BTreeMap<String, usize> = BTreeMap::new();
    let mut statuses: BTreeMap<&str, u64> = BTreeMap::new();
    let mut kept = (Kept::new(true), Kept::new(false));
    let started = Instant::now();
    for case in 0..cases {
        if rng.below(8) == 0 {
            write_fixtures(&scratch, &mut rng);
        }
        if case % KEPT_CASES == 0 && case > 0 {
            kept = (Kept::new(true), Kept::new(false));
        }
        let base = rng.pick(&seeds).clone();
        let src = if rng.below(16) == 0 {
            base
        } else {
            mutate(&base, &mut rng, &seeds, &snippets)
        };
        // One case in eight runs as a file in fresh sessions, the others as REPL chunks.
        let as_file = rng.below(8) == 0;
        let (native, closures) = if as_file {
            (run(&src, true, None), run(&src, false, None))
        } else {
            chunks += 2;
            (
                run(&src, true, Some(&mut kept.0)),
                run(&src, false, Some(&mut kept.1)),
            )
        };
        runs += 2;
        for (o, _) in [&native, &closures] {
            let key = match o.status {
                _ if o.stopped => "stopped by the watchdog",
                0 => "ran to the end (status 0)",
                1 if o.err.contains("[E01") => "syntax error (status 1)",
                1 => "static error past the parser (status 1)",
                3 => "runtime error (status 3)",
                _ => "other status",
            };
            *statuses.entry(key).or_insert(0u64) += 1;
        }
        let Some((kind, detail)) = judge(&src, &native, &closures) else {
            continue;
        };
        let key = normalise(&format!("{kind}: {detail}"));
        let count = seen.entry(key.clone()).or_insert(0);
        *count += 1;
        let mode = if as_file { "file" } else { "chunk" };
        let report = format!(
            "// case {case} (seed {seed}, as a {mode}): {kind}: {detail}\n{src}\n/* native (status {}):\n{}{}\nclosures (status {}):\n{}{}*/\n",
            native.0.status, native.0.out, native.0.err, closures.0.status, closures.0.out, closures.0.err
        );
        match &findings_dir {
            None => panic!("{report}"),
            Some(dir) if *count == 1 => {
                std::fs::create_dir_all(dir).expect("the findings folder");
                let file = dir.join(format!("{kind}-{seed}-{case}.flx"));
                std::fs::write(file, report).expect("a finding");
            }
            Some(_) => {}
        }
    }
    drop(kept);
    if let Some(dir) = &findings_dir {
        std::fs::create_dir_all(dir).expect("the findings folder");
        let mut summary = format!(
            "seed {seed}: {cases} cases, {runs} runs ({chunks} as REPL chunks) in {:.0} s, {} finding kinds\n",
            started.elapsed().as_secs_f64(),
            seen.len()
        );
        for (key, count) in &statuses {
            summary.push_str(&format!("{count:8} runs: {key}\n"));
        }
        for (key, count) in &seen {
            summary.push_str(&format!("{count:8} {key}\n"));
        }
        std::fs::write(dir.join(format!("summary-{seed}.txt")), &summary).expect("a summary");
        eprint!("{summary}");
    }
    let _ = std::env::set_current_dir(root());
    let _ = std::fs::remove_dir_all(&scratch);
}
