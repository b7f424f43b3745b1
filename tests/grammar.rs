//! The VS Code extension's TextMate grammar (`editors/vscode/syntaxes/`), run by VS Code's
//! own tokeniser (`editors/vscode/grammar-check/check.js`, vscode-textmate from npm): every
//! `examples/*.flx` tokenises without an `invalid` scope, and text that is wrong does get one.
//!
//! Needs Node.js: skipped, with the reason printed, only when `node` or `npm` is missing. The
//! checker's two npm packages are installed (`npm ci`) when they are not yet.

use std::path::{Path, PathBuf};
use std::process::Command;

fn checker_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("editors/vscode/grammar-check")
}

fn have(program: &str) -> bool {
    Command::new(program)
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

/// Run the checker on `files`: its success and its output.
fn tokenise(files: &[PathBuf]) -> Option<(bool, String)> {
    if !have("node") || !have("npm") {
        println!("skipped: the grammar test needs `node` and `npm` (Node.js), not found here");
        return None;
    }
    let dir = checker_dir();
    if !dir.join("node_modules/vscode-textmate").exists() {
        let status = Command::new("npm")
            .args(["ci", "--no-audit", "--no-fund"])
            .current_dir(&dir)
            .status()
            .expect("npm runs");
        assert!(status.success(), "`npm ci` failed in {}", dir.display());
    }
    let output = Command::new("node")
        .arg(dir.join("check.js"))
        .args(files)
        .output()
        .expect("node runs");
    let text = String::from_utf8_lossy(&output.stdout).into_owned()
        + &String::from_utf8_lossy(&output.stderr);
    Some((output.status.success(), text))
}

#[test]
fn every_example_tokenises_without_an_invalid_scope() {
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&examples)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "flx"))
        .collect();
    files.sort();
    assert!(files.len() > 100);
    let prelude = Path::new(env!("CARGO_MANIFEST_DIR")).join("stdlib/prelude.flx");
    files.push(prelude);
    if let Some((ok, output)) = tokenise(&files) {
        assert!(ok, "{output}");
        assert!(output.contains(" 0 invalid tokens"), "{output}");
    }
}

#[test]
fn stray_backslashes_and_comment_ends_are_invalid() {
    let dir = std::env::temp_dir().join(format!("tessera-grammar-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let bad = dir.join("bad.flx");
    std::fs::write(
        &bad,
        "val x = 1 \\ 2; */\n/* a /* nested */ comment */ val u = `1:3;\n",
    )
    .unwrap();
    let result = tokenise(std::slice::from_ref(&bad));
    let _ = std::fs::remove_dir_all(&dir);
    if let Some((ok, output)) = result {
        assert!(!ok, "{output}");
        assert!(output.contains("bad.flx:1:11: `\\` is invalid"), "{output}");
        assert!(output.contains("bad.flx:1:16: `*/` is invalid"), "{output}");
        assert!(output.contains("2 invalid tokens"), "{output}");
    }
}
