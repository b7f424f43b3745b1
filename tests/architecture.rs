//! The shape of the code, checked: the stages import each other in one direction only, no
//! source file outgrows a size a reader can hold, and no setting is process-wide state.
//!
//! The import graph is read from the source text: every `crate::a::b` path (and, in `lib.rs`,
//! every path through a top-level module) is an edge from the file's stage to the stage it
//! names. A stage is a folder of `src/` (`check`, `core`, `eval`, …) or a top-level file
//! (`diag`, `docs`, …); `lib.rs` is the stage `lib`. Test modules are left out: a test may
//! reach anything.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Source files longer than this are a sign that one file does several things.
const MAX_LINES: usize = 1200;

/// Stages that a stage must never import, whatever else changes: the pipeline runs
/// syntax -> check -> core IR -> eval, and the lower stages know nothing of the higher ones.
const FORBIDDEN: &[(&str, &[&str])] = &[
    (
        "syntax",
        &["check", "core", "eval", "lib", "docs", "repl", "display"],
    ),
    (
        "types",
        &["check", "core", "eval", "lib", "docs", "repl", "display"],
    ),
    ("core", &["check", "eval", "lib", "docs", "repl", "display"]),
    ("check", &["eval", "lib", "docs", "repl", "display"]),
    ("eval", &["check", "lib", "docs", "repl", "display"]),
    ("diag", &["check", "eval", "lib", "repl"]),
];

fn source_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("src/ is readable") {
        let path = entry.expect("a directory entry").path();
        if path.is_dir() {
            source_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

fn src_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// The stage of a file: its first folder under `src/`, or its own name for a top-level file.
fn stage_of(src: &Path, file: &Path) -> String {
    let relative = file.strip_prefix(src).expect("a file under src/");
    let first = relative.components().next().expect("a path component");
    let name = first.as_os_str().to_string_lossy();
    name.trim_end_matches(".rs").to_string()
}

/// The text of a file without its comments and without its inline test module.
fn code_of(text: &str) -> String {
    let text = match text.find("#[cfg(test)]\nmod tests {") {
        Some(at) => &text[..at],
        None => text,
    };
    text.lines()
        .map(|line| match line.find("//") {
            Some(at) => &line[..at],
            None => line,
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The stages a file's code names through `crate::` paths (and, for `lib.rs`, `stage::`).
fn imports(code: &str, stages: &BTreeSet<String>, own: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    let mut note = |name: &str| {
        let stage = if stages.contains(name) { name } else { "lib" };
        if stage != own {
            found.insert(stage.to_string());
        }
    };
    let ident = |s: &str| -> String {
        s.chars()
            .take_while(|c| c.is_alphanumeric() || *c == '_')
            .collect()
    };
    for (at, _) in code.match_indices("crate::") {
        let after = &code[at + "crate::".len()..];
        if let Some(group) = after.strip_prefix('{') {
            for item in group.split('}').next().unwrap_or("").split(',') {
                let name = ident(item.trim());
                if !name.is_empty() {
                    note(&name);
                }
            }
        } else {
            let name = ident(after);
            // `crate::name!` is a macro exported at the crate root, not an import of `lib`.
            let is_macro = after[name.len()..].starts_with('!');
            if !name.is_empty() && !is_macro {
                note(&name);
            }
        }
    }
    if own == "lib" {
        for stage in stages {
            let needle = format!("{stage}::");
            for (at, _) in code.match_indices(&needle) {
                let before = code[..at].chars().next_back();
                if !before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':') {
                    note(stage);
                }
            }
        }
    }
    found
}

/// Every stage's imports of other stages, with one file that makes each edge.
fn stage_graph() -> BTreeMap<String, BTreeMap<String, String>> {
    let src = src_dir();
    let mut files = Vec::new();
    source_files(&src, &mut files);
    files.retain(|f| !f.ends_with("main.rs"));
    let stages: BTreeSet<String> = files.iter().map(|f| stage_of(&src, f)).collect();
    let mut graph: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    for file in &files {
        let own = stage_of(&src, file);
        let text = std::fs::read_to_string(file).expect("a readable source file");
        let name = file.strip_prefix(&src).unwrap().display().to_string();
        if name.ends_with("tests.rs") || name.contains("test_") {
            continue;
        }
        for target in imports(&code_of(&text), &stages, &own) {
            graph
                .entry(own.clone())
                .or_default()
                .entry(target)
                .or_insert_with(|| name.clone());
        }
    }
    graph
}

/// The strongly connected components of more than one stage (Tarjan's algorithm).
fn cycles(graph: &BTreeMap<String, BTreeMap<String, String>>) -> Vec<Vec<String>> {
    struct State<'a> {
        graph: &'a BTreeMap<String, BTreeMap<String, String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        found: Vec<Vec<String>>,
    }
    fn visit<'a>(s: &mut State<'a>, v: &'a str) {
        let n = s.index.len();
        s.index.insert(v, n);
        s.low.insert(v, n);
        s.stack.push(v);
        if let Some(targets) = s.graph.get(v) {
            for w in targets.keys() {
                let w = w.as_str();
                if !s.index.contains_key(w) {
                    visit(s, w);
                    let low = s.low[v].min(s.low[w]);
                    s.low.insert(v, low);
                } else if s.stack.contains(&w) {
                    let low = s.low[v].min(s.index[w]);
                    s.low.insert(v, low);
                }
            }
        }
        if s.low[v] == s.index[v] {
            let mut component = Vec::new();
            while let Some(w) = s.stack.pop() {
                component.push(w.to_string());
                if w == v {
                    break;
                }
            }
            if component.len() > 1 {
                component.sort();
                s.found.push(component);
            }
        }
    }
    let mut state = State {
        graph,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        found: Vec::new(),
    };
    for v in graph.keys() {
        if !state.index.contains_key(v.as_str()) {
            visit(&mut state, v);
        }
    }
    state.found
}

#[test]
fn stages_import_each_other_in_one_direction() {
    let graph = stage_graph();
    let mut problems = Vec::new();
    for component in cycles(&graph) {
        let edges: Vec<String> = component
            .iter()
            .flat_map(|a| {
                let graph = &graph;
                component.iter().filter_map(move |b| {
                    graph
                        .get(a)
                        .and_then(|t| t.get(b))
                        .map(|file| format!("{a} -> {b} ({file})"))
                })
            })
            .collect();
        problems.push(format!("cycle: {}", edges.join(", ")));
    }
    for (stage, banned) in FORBIDDEN {
        for target in *banned {
            if let Some(file) = graph.get(*stage).and_then(|t| t.get(*target)) {
                problems.push(format!("{stage} imports {target} ({file})"));
            }
        }
    }
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}

#[test]
fn no_source_file_outgrows_a_reader() {
    let src = src_dir();
    let mut files = Vec::new();
    source_files(&src, &mut files);
    let mut long = Vec::new();
    for file in files {
        let lines = std::fs::read_to_string(&file)
            .expect("readable")
            .lines()
            .count();
        if lines > MAX_LINES {
            let name = file.strip_prefix(src.parent().unwrap()).unwrap_or(&file);
            long.push(format!("{} has {lines} lines", name.display()));
        }
    }
    assert!(
        long.is_empty(),
        "over {MAX_LINES} lines:\n{}",
        long.join("\n")
    );
}

#[test]
fn no_setting_is_process_wide_state() {
    // The only process-wide mutable state: the Ctrl-C flag (a signal handler can only reach a
    // static), the heap's live bytes and the memory budget (so can the global allocator) and
    // counters that hand out fresh identities.
    let allowed = ["src/interrupt.rs", "src/memory.rs", "src/types/ty.rs"];
    let src = src_dir();
    let mut files = Vec::new();
    source_files(&src, &mut files);
    let mut found = Vec::new();
    for file in files {
        let name = file
            .strip_prefix(src.parent().unwrap())
            .unwrap()
            .display()
            .to_string();
        if allowed.contains(&name.as_str()) {
            continue;
        }
        let text = std::fs::read_to_string(&file).expect("readable");
        for (n, line) in code_of(&text).lines().enumerate() {
            let line = line.trim_start();
            let line = line
                .trim_start_matches("pub(crate) ")
                .trim_start_matches("pub ");
            let is_static = line.starts_with("static ");
            if is_static && (line.contains("Atomic") || line.contains("static mut")) {
                found.push(format!("{name}:{}: {line}", n + 1));
            }
        }
    }
    assert!(
        found.is_empty(),
        "process-wide settings:\n{}",
        found.join("\n")
    );
}
