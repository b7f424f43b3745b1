//! The REPL in a real pseudo-terminal: the built binary driven as a person
//! would, through `rexpect`. Ctrl-C stops a running chunk and keeps the session; completion
//! knows the user's names and lists several candidates; history persists across sessions
//! (a multi-line chunk is one entry); Ctrl-D discards an unfinished chunk and quits at an
//! empty prompt; `tessera FILE` exits 130 on Ctrl-C after flushing its output.
//!
//! Written for a loaded two-core machine: every wait is generous and nothing asserts a time.

#![cfg(unix)]

use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

use rexpect::process::WaitStatus;
use rexpect::session::{spawn_command, PtySession};

/// How long any one expected text may take (the debug binary loads its prelude first).
const TIMEOUT_MS: u64 = 60_000;

/// A fresh folder for one test's files.
fn scratch(test: &str) -> PathBuf {
    let folder =
        std::env::temp_dir().join(format!("tessera-terminal-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&folder);
    std::fs::create_dir_all(&folder).expect("a scratch folder");
    folder
}

/// The REPL in a pseudo-terminal with its history in `history`, colours off.
fn repl(history: &std::path::Path) -> PtySession {
    let mut command = Command::new(env!("CARGO_BIN_EXE_tessera"));
    command
        .env("TESSERA_HISTORY", history)
        .env("NO_COLOR", "1")
        .env("TERM", "xterm");
    let mut session = spawn_command(command, Some(TIMEOUT_MS)).expect("the REPL starts");
    session.exp_string("Tessera").expect("the banner");
    session.exp_string("> ").expect("the first prompt");
    session
}

/// Wait until the running chunk has written `started` (to stderr, unbuffered: the line
/// editor has handed the terminal back, so Ctrl-C is a signal), then press Ctrl-C and wait
/// for `Interrupted.`; returns what came before it.
fn interrupt(session: &mut PtySession, started: &str) -> String {
    session.exp_string(started).expect("the chunk started");
    std::thread::sleep(Duration::from_millis(300));
    session.send_control('c').expect("Ctrl-C is sent");
    session
        .exp_string("Interrupted.")
        .expect("Ctrl-C interrupted the evaluation")
}

/// Type `line` (which must not contain the prompt `> `) and Enter, wait for `output` (when
/// given) and then for the next prompt (lines stay shorter than the terminal, whose line
/// editor redraws a wrapped line with its prompt): a
/// person waits for the prompt before typing on, and so does the test (keys typed while the
/// line editor is still reading the previous line may be lost).
fn enter(session: &mut PtySession, line: &str, output: Option<&str>) {
    session.send_line(line).expect("the line is sent");
    if let Some(output) = output {
        session.exp_string(output).expect("the expected output");
    }
    session.exp_string("> ").expect("the next prompt");
}

/// Type keys without Enter.
fn keys(session: &mut PtySession, keys: &str) {
    session.send(keys).expect("the keys are sent");
    session.flush().expect("the keys are flushed");
}

#[test]
fn ctrl_c_stops_a_long_loop_and_keeps_the_definitions() {
    let folder = scratch("interrupt");
    let mut session = repl(&folder.join("history"));
    enter(&mut session, "var k = 7;", None);
    session
        .send_line("fprintln (cstderr, \"loop\" + \"ing\"); while true do k = k + 1; done")
        .unwrap();
    interrupt(&mut session, "looping");
    session.exp_string("> ").unwrap();
    // `k` survives, with the increments the loop made before Ctrl-C.
    enter(&mut session, "k >= 7", Some("true : bool"));
    // A recursive function inside a map is stopped too (each element recurses 50 000 calls
    // deep, so the map runs far longer than the wait before Ctrl-C).
    session.send_line("fun spin (n:int) : int = {").unwrap();
    session.exp_string(". ").unwrap();
    enter(
        &mut session,
        "  return if n < 1 then 0 else 1 + spin (n - 1) endif; }",
        None,
    );
    enter(&mut session, "var a : int ^ 10000000;", None);
    enter(
        &mut session,
        "val deep = fun (x: int) => spin (x + 50000);",
        None,
    );
    session
        .send_line("fprintln (cstderr, \"mapp\" + \"ing\"); println$ \\sum (map deep a);")
        .unwrap();
    interrupt(&mut session, "mapping");
    session.exp_string("> ").unwrap();
    enter(&mut session, "k + 1 > 7", Some("true : bool"));
    // Ctrl-D at an empty prompt leaves.
    session.send_control('d').unwrap();
    session.exp_eof().unwrap();
}

#[test]
fn tab_completes_a_user_defined_name_and_lists_several() {
    let folder = scratch("completion");
    let mut session = repl(&folder.join("history"));
    enter(&mut session, "var total_count = 41;", None);
    // One candidate: Tab completes the name.
    keys(&mut session, "total_c\t");
    session.exp_string("total_count").unwrap();
    enter(&mut session, " + 1", Some("42 : int"));
    // Several: the second Tab lists them.
    enter(&mut session, "var totals = (1, 2);", None);
    keys(&mut session, "tot\t");
    session.exp_string("tot").unwrap();
    keys(&mut session, "\t");
    session.exp_string("total_count").unwrap();
    session.exp_string("totals").unwrap();
    session.send_control('u').unwrap();
    session.send_line(":q").unwrap();
    session.exp_eof().unwrap();
}

#[test]
fn history_is_appended_per_chunk_and_shared_with_the_next_session() {
    let folder = scratch("history");
    let history = folder.join("history");
    let mut first = repl(&history);
    first.send_line("var h = 40 +").unwrap();
    first.exp_string(". ").unwrap();
    enter(&mut first, "  2;", None);
    enter(&mut first, "h", Some("42 : int"));
    // Written after every chunk, before the session ends; the two lines are one entry.
    let text = std::fs::read_to_string(&history).expect("the history file exists");
    assert!(text.contains("var h = 40 +"), "{text:?}");
    assert!(text.contains("  2;"), "{text:?}");
    // An unfinished chunk and Ctrl-D: the chunk is discarded, the session goes on.
    first.send_line("var lost = (1,").unwrap();
    first.exp_string(". ").unwrap();
    first.send_control('d').unwrap();
    first.exp_string("> ").unwrap();
    enter(&mut first, "h + 1", Some("43 : int"));
    first.send_line(":quit").unwrap();
    first.exp_eof().unwrap();

    // The next session recalls the two-line chunk as one entry (Up: `:quit`, `h + 1`, `h`,
    // the chunk) and runs it again.
    let mut second = repl(&history);
    for _ in 0..4 {
        keys(&mut second, "\x1b[A");
        std::thread::sleep(Duration::from_millis(200));
    }
    second.exp_string("2;").unwrap();
    keys(&mut second, "\r");
    second.exp_string("> ").unwrap();
    enter(&mut second, "h * 2", Some("84 : int"));
    second.send_line(":q").unwrap();
    second.exp_eof().unwrap();
}

#[test]
fn ctrl_c_stops_a_program_with_status_130_after_its_output() {
    let folder = scratch("program");
    let program = folder.join("spin.flx");
    std::fs::write(
        &program,
        "println \"before the loop\";\nfprintln (cstderr, \"looping\");\nvar n = 0;\nwhile true do n = n + 1; done\n",
    )
    .unwrap();
    let mut command = Command::new(env!("CARGO_BIN_EXE_tessera"));
    command.arg(&program).env("NO_COLOR", "1");
    let mut session = spawn_command(command, Some(TIMEOUT_MS)).expect("the program starts");
    let before = session.exp_string("looping").expect("the program runs");
    std::thread::sleep(Duration::from_millis(300));
    session.send_control('c').unwrap();
    let after = session.exp_string("Interrupted.").expect("Ctrl-C stops it");
    // The output written before Ctrl-C is flushed, before the error.
    assert!(
        format!("{before}{after}").contains("before the loop"),
        "{before:?} {after:?}"
    );
    let status = session.process().wait().expect("the program ends");
    assert!(
        matches!(status, WaitStatus::Exited(_, 130)),
        "status {status:?}"
    );
}

#[test]
fn a_square_matrix_is_a_grid_and_an_interrupt_is_one_line_keeping_the_chunk_s_var() {
    let folder = scratch("grid");
    let mut session = repl(&folder.join("history"));
    // `int ^ (3 \* 3)` keeps its written type and prints as a grid on a terminal.
    session
        .send_line("(1,2,3,4,5,6,7,8,9) :>> int ^ (3 \\* 3)")
        .unwrap();
    session.exp_string("4 5 6").unwrap();
    session.exp_string("7 8 9").unwrap();
    session.exp_string(": int ^ (3 \\* 3)").unwrap();
    session.exp_string("> ").unwrap();
    enter(&mut session, ":type -n it", Some("int ^ (3 \\^ 2)"));
    // A `var` declared before the interrupted loop stays.
    session
        .send_line(
            "var kept = 5; fprintln (cstderr, \"spin\" + \"ning\"); while true do kept = kept + 1; done",
        )
        .unwrap();
    let before = interrupt(&mut session, "spinning");
    assert!(!before.contains("Error"), "an error box: {before}");
    session.exp_string("at <repl>:1:").unwrap();
    session.exp_string("> ").unwrap();
    enter(&mut session, "kept >= 5", Some("true : bool"));
    // A picture of a sine wave, with its axes.
    enter(&mut session, "var wave : double ^ 63;", None);
    enter(
        &mut session,
        "for i in ..[63] do &wave.i <- sin (double (i :>>int) / 10.0); done",
        None,
    );
    enter(&mut session, ":plot wave", Some(": double ^ 63"));
    session.send_line(":q").unwrap();
    session.exp_eof().unwrap();
}

#[test]
fn edit_runs_the_editor_then_loads_and_shell_commands_share_the_terminal() {
    let folder = scratch("edit");
    // An "editor" that appends a definition to the file it is given.
    let editor = folder.join("append-editor.sh");
    std::fs::write(
        &editor,
        "#!/bin/sh\nprintf 'val edited = 6 * 7;\\n' >> \"$1\"\n",
    )
    .unwrap();
    Command::new("chmod")
        .arg("+x")
        .arg(&editor)
        .status()
        .unwrap();
    let script = folder.join("work.flx");
    std::fs::write(&script, "val base = 1;\n").unwrap();
    let mut command = Command::new(env!("CARGO_BIN_EXE_tessera"));
    command
        .current_dir(&folder)
        .env("TESSERA_HISTORY", folder.join("history"))
        .env("NO_COLOR", "1")
        .env("TERM", "xterm")
        .env_remove("VISUAL")
        .env("EDITOR", &editor);
    let mut session = spawn_command(command, Some(TIMEOUT_MS)).expect("the REPL starts");
    session.exp_string("> ").unwrap();
    enter(&mut session, ":edit work.flx", None);
    enter(&mut session, "edited + base", Some("43 : int"));
    assert!(std::fs::read_to_string(&script)
        .unwrap()
        .contains("val edited"));
    // With no file, `:edit` edits the last file loaded again.
    enter(&mut session, ":edit", None);
    let appended = std::fs::read_to_string(&script).unwrap();
    assert_eq!(appended.matches("val edited").count(), 2, "{appended}");
    // A shell command's output reaches the terminal, in the folder `:cd` chose.
    std::fs::create_dir_all(folder.join("inner")).unwrap();
    enter(&mut session, ":cd inner", Some("inner"));
    enter(
        &mut session,
        ":! echo shell-$((6 * 7)) && pwd",
        Some("shell-42"),
    );
    session.send_line(":! exit 3").unwrap();
    session.exp_string("failed").unwrap();
    session.exp_string("> ").unwrap();
    session.send_line(":q").unwrap();
    session.exp_eof().unwrap();
}
