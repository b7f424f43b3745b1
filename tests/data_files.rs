//! numpy files: the fixtures of `tests/data/` (written by numpy, `make_fixtures.py`) read by
//! the binary for every dtype, byte order and memory order; files the binary writes read back
//! by the binary, and by numpy when it is installed; every fault with its diagnostic.

mod support;

use std::path::{Path, PathBuf};

use support::run_tessera;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data")
}

fn fixture(name: &str) -> String {
    fixtures().join(name).to_string_lossy().into_owned()
}

/// A fresh scratch folder for one test.
fn scratch(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("tessera-data-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a scratch folder");
    dir
}

/// Run `program` (written to `dir`) and return (status, stdout, stderr).
fn run(dir: &Path, program: &str) -> (i32, String, String) {
    let file = dir.join("program.flx");
    std::fs::write(&file, program).expect("write the program");
    let outcome = run_tessera(&[file.to_str().expect("a path")], b"");
    assert!(
        !outcome.stderr.contains("panicked"),
        "a crash:\n{}",
        outcome.stderr
    );
    (outcome.status, outcome.stdout, outcome.stderr)
}

fn prints(dir: &Path, program: &str) -> String {
    let (status, stdout, stderr) = run(dir, program);
    assert_eq!(status, 0, "{program}\n{stderr}");
    stdout
}

/// The first line of the diagnostic of a program that fails at run time.
fn fails(dir: &Path, program: &str) -> String {
    let (status, _, stderr) = run(dir, program);
    assert_eq!(status, 3, "{program}\n{stderr}");
    stderr.lines().next().unwrap_or("").to_string()
}

#[test]
fn every_dtype_in_both_byte_orders_and_both_memory_orders() {
    let dir = scratch("dtypes");
    // (dtype, a Tessera element type of it, the 2 x 3 array `make_fixtures.py` wrote as
    // `println` shows it).
    let signed = "(-5, -4, -3, -2, -1, 0)";
    let cases = [
        ("bool", "bool", "(false, true, false, true, false, true)"),
        ("int8", "int8", "(-5i8, -4i8, -3i8, -2i8, -1i8, 0i8)"),
        ("int16", "short", "(-5s, -4s, -3s, -2s, -1s, 0s)"),
        ("int32", "int", signed),
        ("int64", "long", "(-5l, -4l, -3l, -2l, -1l, 0l)"),
        ("uint8", "utiny", "(0ut, 1ut, 2ut, 3ut, 4ut, 5ut)"),
        ("uint16", "uint16", "(0u16, 1u16, 2u16, 3u16, 4u16, 5u16)"),
        ("uint32", "uint", "(0u, 1u, 2u, 3u, 4u, 5u)"),
        ("uint64", "uint64", "(0u64, 1u64, 2u64, 3u64, 4u64, 5u64)"),
        ("float32", "float", "(0, 0.25, 0.5, 0.75, 1, 1.25)"),
        ("float64", "double", "(0, 0.25, 0.5, 0.75, 1, 1.25)"),
    ];
    let mut program = String::new();
    let mut expected = String::new();
    for (dtype, element, printed) in cases {
        let mut files = vec![format!("{dtype}_le.npy"), format!("{dtype}_fortran.npy")];
        if fixtures().join(format!("{dtype}_be.npy")).exists() {
            files.push(format!("{dtype}_be.npy"));
        }
        for file in files {
            program.push_str(&format!(
                "{{ val a : {element} ^ (2 \\* 3) = load_npy \"{}\"; println a; }};\n",
                fixture(&file)
            ));
            expected.push_str(printed);
            expected.push('\n');
        }
    }
    assert_eq!(prints(&dir, &program), expected);
}

#[test]
fn arrays_of_any_rank_and_their_shapes() {
    let dir = scratch("ranks");
    let program = format!(
        "val a : double ^ (2 \\* 3 \\* 4) = load_npy \"{c}\";\n\
         val b : double ^ (2 \\* 3 \\* 4) = load_npy \"{f}\";\n\
         println$ \\sum a; println$ a == b;\n\
         val rows : double ^ 3 ^ 2 = load_npy \"{two}\"; println rows;\n\
         val flat : double ^ 12 = load_npy \"{flat}\"; println$ \\sum flat;\n",
        c = fixture("float64_3d.npy"),
        f = fixture("float64_3d_fortran.npy"),
        two = fixture("float64_le.npy"),
        flat = fixture("float64_flat.npy"),
    );
    assert_eq!(
        prints(&dir, &program),
        "69\ntrue\n((0, 0.25, 0.5), (0.75, 1, 1.25))\n16.5\n"
    );
}

#[test]
fn npz_archives_stored_and_compressed() {
    let dir = scratch("npz");
    let program = format!(
        "val x : double ^ (2 \\* 3) = load_npz (\"{p}\", \"x\"); println x;\n\
         val n : int ^ 4 = load_npz (\"{c}\", \"n\"); println n;\n",
        p = fixture("pair.npz"),
        c = fixture("pair_compressed.npz"),
    );
    assert_eq!(
        prints(&dir, &program),
        "(0, 0.25, 0.5, 0.75, 1, 1.25)\n(-5, -4, -3, -2)\n"
    );
}

#[test]
fn saved_files_read_back_in_tessera_and_in_numpy() {
    let dir = scratch("round-trip");
    let d = dir.to_string_lossy();
    let program = format!(
        "val m : double ^ (2 \\* 3) = (1.5, -2.0, 3.25, 4.0, 5.0, 6.0) :>> double ^ (2 \\* 3);\n\
         val t : tiny ^ 4 = (1t, -2t, 3t, 127t);\n\
         val u : uint64 ^ 2 = (0u64, 18446744073709551615u64);\n\
         val f : float ^ 2 = (0.5f, -1.25f);\n\
         val b : bool ^ 3 = (true, false, true);\n\
         val s : int ^ (3 \\+ 2) = (1, 2, 3, 4, 5) :>> int ^ (3 \\+ 2);\n\
         save_npy (\"{d}/m.npy\", m); save_npy (\"{d}/t.npy\", t); save_npy (\"{d}/u.npy\", u);\n\
         save_npy (\"{d}/f.npy\", f); save_npy (\"{d}/b.npy\", b); save_npy (\"{d}/s.npy\", s);\n\
         save_npz (\"{d}/all.npz\", \"m\", m); save_npz (\"{d}/all.npz\", \"t\", t);\n\
         save_npz (\"{d}/all.npz\", \"m\", m);\n\
         val q : int ^ (2 \\* 2) = (1, 2, 3, 4) :>> int ^ (2 \\* 2); save_npy (\"{d}/q.npy\", q);\n\
         val m2 : double ^ (2 \\* 3) = load_npy \"{d}/m.npy\"; println$ m2 == m;\n\
         val t2 : tiny ^ 4 = load_npy \"{d}/t.npy\"; println$ t2 == t;\n\
         val u2 : uint64 ^ 2 = load_npy \"{d}/u.npy\"; println$ u2 == u;\n\
         val f2 : float ^ 2 = load_npy \"{d}/f.npy\"; println$ f2 == f;\n\
         val b2 : bool ^ 3 = load_npy \"{d}/b.npy\"; println$ b2 == b;\n\
         val s2 : int ^ 5 = load_npy \"{d}/s.npy\"; println$ s2 == (s :>> int ^ 5);\n\
         val t3 : tiny ^ 4 = load_npz (\"{d}/all.npz\", \"t\"); println$ t3 == t;\n"
    );
    assert_eq!(prints(&dir, &program), "true\n".repeat(7));
    let check = format!(
        "import numpy as np\n\
         d = '{d}'\n\
         m = np.load(d + '/m.npy'); assert m.dtype == np.float64 and m.shape == (2, 3), m\n\
         assert (m == [[1.5, -2.0, 3.25], [4.0, 5.0, 6.0]]).all()\n\
         t = np.load(d + '/t.npy'); assert t.dtype == np.int8 and list(t) == [1, -2, 3, 127]\n\
         u = np.load(d + '/u.npy'); assert u.dtype == np.uint64 and list(u) == [0, 2**64 - 1]\n\
         f = np.load(d + '/f.npy'); assert f.dtype == np.float32 and list(f) == [0.5, -1.25]\n\
         b = np.load(d + '/b.npy'); assert b.dtype == np.bool_ and list(b) == [True, False, True]\n\
         s = np.load(d + '/s.npy'); assert s.dtype == np.int32 and s.shape == (5,)\n\
         q = np.load(d + '/q.npy'); assert (q == [[1, 2], [3, 4]]).all(), q\n\
         z = np.load(d + '/all.npz'); assert sorted(z.files) == ['m', 't'], z.files\n\
         assert (z['m'] == m).all() and list(z['t']) == [1, -2, 3, 127]\n\
         print('numpy agrees')\n"
    );
    let numpy = std::process::Command::new("python3")
        .args(["-c", "import numpy"])
        .status()
        .is_ok_and(|s| s.success());
    if !numpy {
        eprintln!("numpy is not installed: the files Tessera wrote were checked by Tessera only");
        return;
    }
    let out = std::process::Command::new("python3")
        .args(["-c", &check])
        .output()
        .expect("python3 runs");
    assert!(
        out.status.success(),
        "numpy disagrees:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn faults_name_the_file_and_what_was_expected() {
    let dir = scratch("faults");
    let load = |ty: &str, file: &str| format!("val a : {ty} = load_npy \"{}\";", fixture(file));
    let path = |file: &str| fixture(file);
    assert_eq!(
        fails(&dir, &load("double ^ (2 \\* 3)", "truncated.npy")),
        format!(
            "[R0015] Error: `{}` is not a valid .npy file: it is truncated: its header declares \
             6 elements of float64 (48 bytes) and 41 bytes follow it",
            path("truncated.npy")
        )
    );
    assert_eq!(
        fails(&dir, &load("double ^ (2 \\* 3)", "bad_magic.npy")),
        format!(
            "[R0015] Error: `{}` is not a valid .npy file: it does not start with the .npy magic string",
            path("bad_magic.npy")
        )
    );
    assert_eq!(
        fails(&dir, &load("double ^ (2 \\* 3)", "int32_le.npy")),
        format!(
            "[R0015] Error: `{}` holds int32 data of shape (2, 3), not the `double ^ (2 \\* 3)` \
             expected: int32 reads as `int` or `int32`",
            path("int32_le.npy")
        )
    );
    assert_eq!(
        fails(&dir, &load("double ^ 6", "float64_le.npy")),
        format!(
            "[R0015] Error: `{}` holds float64 data of shape (2, 3), not the `double ^ 6` \
             expected (shape (6,))",
            path("float64_le.npy")
        )
    );
    assert_eq!(
        fails(&dir, &load("double ^ (2 \\* 3)", "missing.npy")),
        format!(
            "[R0013] Error: cannot open `{}`: no such file or directory",
            path("missing.npy")
        )
    );
    assert_eq!(
        fails(
            &dir,
            &format!(
                "val a : double ^ 3 = load_npz (\"{}\", \"y\");",
                path("pair.npz")
            )
        ),
        format!(
            "[R0015] Error: `{}` has no array `y`; its arrays are `x`, `n`",
            path("pair.npz")
        )
    );
    // A header declaring 16 * 10^18 elements: no allocation is tried.
    let huge = format!(
        "val a : double ^ (4000000000 \\* 4000000000) = load_npy \"{}\";",
        path("huge_shape.npy")
    );
    assert_eq!(
        fails(&dir, &huge),
        format!(
            "[R0007] Error: `{}` declares an array of shape (4000000000, 4000000000) \
             (128000000000000000000 bytes are more than the limit of 4294967296 bytes for one \
             allocation (raise it with `--max-alloc`)), too large to load",
            path("huge_shape.npy")
        )
    );
    let (status, _, stderr) = run(&dir, "println$ load_npy \"a.npy\";");
    assert_eq!(status, 1, "{stderr}");
    assert!(
        stderr.starts_with("[E0302] Error: cannot infer the type `load_npy f` gives here"),
        "{stderr}"
    );
}

/// Does `python3 -c "import MODULE"` work? When not, say which check is skipped.
fn python_has(module: &str, skipped: &str) -> bool {
    let found = std::process::Command::new("python3")
        .args(["-c", &format!("import {module}")])
        .output()
        .is_ok_and(|o| o.status.success());
    if !found {
        eprintln!("{module} is not installed: {skipped} was not checked");
    }
    found
}

/// Run a Python check; it must print `ok`.
fn python_agrees(check: &str) {
    let out = std::process::Command::new("python3")
        .args(["-c", check])
        .output()
        .expect("python3 runs");
    assert!(
        out.status.success() && String::from_utf8_lossy(&out.stdout).trim() == "ok",
        "python disagrees:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn csv_matrices_records_and_options_round_trip() {
    let dir = scratch("csv-round-trip");
    let d = dir.to_string_lossy();
    let program = format!(
        "val m : double ^ (2 \\* 3) = (1.5, -2.0, 1.0e-7, 4.0, 1.0e300, 0.1) :>> double ^ (2 \\* 3);\n\
         save_csv (\"{d}/m.csv\", m);\n\
         val m2 : double ^ (2 \\* 3) = load_csv \"{d}/m.csv\"; println$ m2 == m;\n\
         val n : int ^ 3 ^ 2 = ((1, -2, 3), (4, 5, 2147483647));\n\
         save_csv (\"{d}/n.csv\", n);\n\
         val n2 : int ^ 3 ^ 2 = load_csv \"{d}/n.csv\"; println$ n2 == n;\n\
         val u : uint64 ^ 2 = (0u64, 18446744073709551615u64);\n\
         save_csv (\"{d}/u.csv\", u);\n\
         val u2 : uint64 ^ 2 = load_csv \"{d}/u.csv\"; println$ u2 == u;\n\
         val f : float ^ 2 = (0.1f, -1.25f);\n\
         save_csv (\"{d}/f.csv\", f);\n\
         val f2 : float ^ 2 = load_csv \"{d}/f.csv\"; println$ f2 == f;\n\
         val b : bool ^ (1 \\* 3) = (true, false, true) :>> bool ^ (1 \\* 3);\n\
         save_csv (\"{d}/b.csv\", b);\n\
         val b2 : bool ^ (1 \\* 3) = load_csv \"{d}/b.csv\"; println$ b2 == b;\n\
         val r : (name: string, mass: double, count: int) ^ 3 =\n\
           ((name = \"plain\", mass = 1.5, count = 1), (name = \"with, comma\", mass = -0.25, count = 2),\n\
            (name = \"a \\\"quote\\\"\", mass = 3.0, count = -3));\n\
         save_csv (\"{d}/r.csv\", r);\n\
         val r2 : (name: string, mass: double, count: int) ^ 3 = load_csv \"{d}/r.csv\";\n\
         println$ map (fun (x: (name: string, mass: double, count: int)) => x.name) r2 == map (fun (x: (name: string, mass: double, count: int)) => x.name) r;\n\
         val picked : (count: int) ^ 3 = load_csv \"{d}/r.csv\"; println picked;\n\
         struct Sample {{ mass: double; name: string; }}\n\
         val s : Sample ^ 3 = load_csv \"{d}/r.csv\"; println$ s.1.name, s.2.mass;\n\
         val opts = (comment = \"#\", delimiter = \";\", header = false);\n\
         save_csv_with (\"{d}/semi.csv\", opts, m);\n\
         val m3 : double ^ (2 \\* 3) = load_csv_with (\"{d}/semi.csv\", opts); println$ m3 == m;\n\
         val c : double ^ (2 \\* 2) = load_csv_with (\"{}\", (comment = \"#\", delimiter = \";\", header = true));\n\
         println c;\n\
         val np : double ^ (3 \\* 4) = load_csv \"{}\"; println$ np.(`2:3 \\, `3:4);\n\
         val w : string ^ (2 \\* 2) = (\"a\", \"b, c\", \"\", \"e\") :>> string ^ (2 \\* 2);\n\
         save_csv (\"{d}/w.csv\", w);\n\
         val w2 : string ^ (2 \\* 2) = load_csv \"{d}/w.csv\"; println$ w2 == w;\n",
        fixture("semicolons.csv"),
        fixture("numpy_savetxt.csv"),
    );
    assert_eq!(
        prints(&dir, &program),
        "true\ntrue\ntrue\ntrue\ntrue\ntrue\n((count=1), (count=2), (count=-3))\n(with, comma, 3)\ntrue\n(1, 2, 3, 4)\n4125\ntrue\n"
    );
    assert_eq!(
        std::fs::read_to_string(dir.join("r.csv")).expect("r.csv"),
        "count,mass,name\n1,1.5,plain\n2,-0.25,\"with, comma\"\n-3,3.0,\"a \"\"quote\"\"\"\n"
    );
    if python_has("numpy", "numpy reading Tessera's CSV files") {
        python_agrees(&format!(
            "import numpy as np\n\
             m = np.loadtxt('{d}/m.csv', delimiter=',', skiprows=1)\n\
             assert (m == [[1.5, -2.0, 1e-7], [4.0, 1e300, 0.1]]).all(), m\n\
             s = np.loadtxt('{d}/semi.csv', delimiter=';')\n\
             assert (s == m).all(), s\n\
             print('ok')\n"
        ));
    }
    if python_has("pandas", "pandas reading Tessera's CSV files") {
        python_agrees(&format!(
            "import pandas as pd\n\
             r = pd.read_csv('{d}/r.csv')\n\
             assert list(r.columns) == ['count', 'mass', 'name'], r.columns\n\
             assert list(r['name']) == ['plain', 'with, comma', 'a \"quote\"'], r\n\
             assert list(r['mass']) == [1.5, -0.25, 3.0]\n\
             print('ok')\n"
        ));
    }
}

#[test]
fn csv_faults_name_the_file_line_column_text_and_type() {
    let dir = scratch("csv-faults");
    let path = |file: &str| fixture(file);
    assert_eq!(
        fails(
            &dir,
            &format!(
                "val r : (label: string, x: double, y: double) ^ 2 = load_csv \"{}\";",
                path("bad_field.csv")
            )
        ),
        format!(
            "[R0015] Error: `{}` line 3, column 2 (`y`): `oops` is not a `double`",
            path("bad_field.csv")
        )
    );
    assert_eq!(
        fails(
            &dir,
            &format!(
                "val m : int ^ (2 \\* 2) = load_csv \"{}\";",
                path("ragged.csv")
            )
        ),
        format!(
            "[R0015] Error: `{}` line 3: 1 field, not the 2 of `int ^ (2 \\* 2)`",
            path("ragged.csv")
        )
    );
    assert_eq!(
        fails(
            &dir,
            &format!("val m : int ^ (3 \\* 4) = load_csv \"{}\";", path("numpy_savetxt.csv"))
        ),
        format!(
            "[R0015] Error: `{}` line 2, column 1 (`a`): `0.000000000000000000e+00` is not an `int`",
            path("numpy_savetxt.csv")
        )
    );
    assert_eq!(
        fails(
            &dir,
            &format!(
                "val m : double ^ (2 \\* 4) = load_csv \"{}\";",
                path("numpy_savetxt.csv")
            )
        ),
        format!(
            "[R0015] Error: `{}` has 3 rows of data, not the 2 of `double ^ (2 \\* 4)`",
            path("numpy_savetxt.csv")
        )
    );
    assert_eq!(
        fails(
            &dir,
            &format!(
                "val r : (z: int) ^ 3 = load_csv \"{}\";",
                path("numpy_savetxt.csv")
            )
        ),
        format!(
            "[R0015] Error: `{}` has no column `z` for the field of `(z:int) ^ 3`; its header is \
             `a`, `b`, `c`, `d`",
            path("numpy_savetxt.csv")
        )
    );
    assert_eq!(
        fails(&dir, "val m : double ^ (2 \\* 2) = load_csv \"/\";"),
        "[R0013] Error: cannot read `/`: it is a directory"
    );
    // Output written before a failed write stays.
    let (status, stdout, stderr) = run(
        &dir,
        "println \"before\";\nval v : double ^ 2 = (1.0, 2.0);\nsave_csv (\"/dev/full\", v);",
    );
    assert_eq!(status, 3, "{stderr}");
    assert_eq!(stdout, "before\n");
    assert!(
        stderr.starts_with("[R0013] Error: cannot write `/dev/full`: no space left on the device"),
        "{stderr}"
    );
}

#[test]
fn permission_errors_name_the_file() {
    let dir = scratch("permission");
    let locked = dir.join("locked.csv");
    std::fs::write(&locked, "x\n1\n").expect("write");
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o000)).expect("chmod");
    if std::fs::read(&locked).is_ok() {
        eprintln!(
            "this user reads a file of mode 000 (root): the permission error was not checked"
        );
        return;
    }
    let l = locked.to_string_lossy();
    assert_eq!(
        fails(&dir, &format!("val v : int ^ 1 = load_csv \"{l}\";")),
        format!("[R0013] Error: cannot open `{l}`: permission denied")
    );
    assert_eq!(
        fails(&dir, &format!("val v : int ^ 1 = load_npy \"{l}\";")),
        format!("[R0013] Error: cannot open `{l}`: permission denied")
    );
}

#[test]
fn lines_and_split_have_run_time_sizes() {
    let dir = scratch("lines");
    let program = "val ls = lines \"a,b\\n1,2\\r\\n\\n3,4\";\n\
         println$ len ls, ls.(3uz);\n\
         println$ len (lines \"\"), len (lines \"x\\n\");\n\
         val parts = split (\"x,,y,\", \",\");\n\
         println$ len parts, parts.(2uz);\n\
         println$ len (split (\"a b\", char 32)), len (split (\"a::b::c\", \"::\"));\n";
    // A string separator is a set of separator chars, as in Felix: "::" splits at each colon.
    assert_eq!(prints(&dir, program), "(4, 3,4)\n(0, 1)\n(4, y)\n(2, 5)\n");
}

#[test]
fn random_fills_depend_only_on_the_seed_and_the_position() {
    let dir = scratch("random");
    // 200000 elements: filled in parallel blocks.
    let program = "val u = random_uniform[200000] 42;\n\
         val z = random_normal[200000] 42;\n\
         println$ u.(123456uz), z.(654321uz % 200000uz);\n\
         println$ minimum u >= 0.0, maximum u < 1.0;\n\
         println$ abs (mean u - 0.5) < 0.01, abs (mean z) < 0.01;\n\
         val first = random_uniform[3] 42;\n\
         println$ first.(0uz) == u.(0uz), first.(2uz) == u.(2uz);\n\
         println$ random_uniform[2 \\* 2] 7 == (random_uniform[4] 7 :>> double ^ (2 \\* 2));\n\
         println$ random_uniform[3] 1 == random_uniform[3] 2;\n";
    let file = dir.join("program.flx");
    std::fs::write(&file, program).expect("write");
    let one = run_tessera(&["--threads", "1", file.to_str().expect("a path")], b"");
    let two = run_tessera(&["--threads", "2", file.to_str().expect("a path")], b"");
    assert_eq!(one.status, 0, "{}", one.stderr);
    assert_eq!(two.status, 0, "on 2 threads: {}", two.stderr);
    assert_eq!(one.stdout, two.stdout, "on 2 threads: {}", two.stderr);
    let lines: Vec<&str> = one.stdout.lines().collect();
    assert_eq!(
        lines[1..],
        [
            "(true, true)",
            "(true, true)",
            "(true, true)",
            "true",
            "false"
        ]
    );
}

#[test]
fn the_stats_example_agrees_with_numpy() {
    let dir = scratch("stats");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = dir.join("stats.npy");
    let outcome = run_tessera(
        &[
            root.join("examples/stats.flx").to_str().expect("a path"),
            root.join("examples/data/measurements.csv")
                .to_str()
                .expect("a path"),
            out.to_str().expect("a path"),
        ],
        b"",
    );
    assert_eq!(outcome.status, 0, "{}", outcome.stderr);
    // The golden run (no arguments: the sample file, the default output) prints the same
    // table.
    let golden = std::fs::read_to_string(root.join("examples/stats.expect")).expect("the golden");
    let table = golden.lines().take_while(|l| !l.starts_with("saved"));
    let mut expected: String = table.map(|l| format!("{l}\n")).collect();
    expected.push_str(&format!("saved {}\n", out.display()));
    assert_eq!(outcome.stdout, expected);
    if python_has("numpy", "the statistics against numpy's") {
        python_agrees(&format!(
            "import numpy as np\n\
             d = np.loadtxt('{}', delimiter=',', skiprows=1)\n\
             s = np.load('{}')\n\
             want = np.stack([d.mean(0), d.min(0), d.max(0), d.std(0)], axis=1)\n\
             assert s.shape == (4, 4) and np.allclose(s, want, rtol=1e-12), (s, want)\n\
             print('ok')\n",
            root.join("examples/data/measurements.csv").display(),
            out.display()
        ));
    }
}
