//! Tests of the REPL driven line by line in process, on a session writing to a buffer.

use super::commands::COMMANDS;
use super::*;

use tessera::SharedBuffer;

/// Feed `input` to a piped REPL; returns (stdout, stderr).
fn transcript(input: &str) -> (String, String) {
    let stdout = SharedBuffer::default();
    let stderr = SharedBuffer::default();
    let session = Session::new(tessera::Settings::default().with_stdout(stdout.clone()));
    let mut repl = Repl::new(session, Box::new(stderr.clone()), false);
    run_lines(&mut repl, input.as_bytes());
    drop(repl);
    (stdout.text(), stderr.text())
}

#[test]
fn blank_and_comment_lines_print_nothing() {
    assert_eq!(
        transcript("\n// a comment\n   \n/* block */\n"),
        (String::new(), String::new())
    );
}

#[test]
fn help_lists_every_command_after_a_comment() {
    let (stdout, stderr) = transcript("// first a comment\n:help\n");
    for info in COMMANDS {
        let usage = info.usage;
        assert!(stdout.contains(usage), "{usage} missing from\n{stdout}");
    }
    assert_eq!(stderr, "");
}

#[test]
fn quit_stops_reading() {
    let (stdout, stderr) = transcript(":quit\n:help\n");
    assert_eq!((stdout.as_str(), stderr.as_str()), ("", ""));
}

#[test]
fn bad_commands_are_errors_on_stderr_and_the_session_goes_on() {
    let (stdout, stderr) =
        transcript(":bogus\n:type\n:iso   \n:reset now\n:load\n:load no_such_file.flx\n:help\n");
    assert!(stdout.contains(":type [-n|-v] EXPR"), "{stdout}");
    for expected in [
        "unknown command `:bogus`",
        "`:type` needs an expression",
        "`:iso` needs two types",
        "`:reset` takes no argument",
        "`:load` needs a file name",
        "cannot read `no_such_file.flx`",
    ] {
        assert!(
            stderr.contains(expected),
            "{expected:?} missing from\n{stderr}"
        );
    }
}

#[test]
fn commands_are_recognised_after_leading_spaces_and_crlf() {
    let (stdout, _) = transcript("  :help\r\n");
    assert!(stdout.starts_with("Commands"), "{stdout}");
}

#[test]
fn browse_lists_the_user_definitions_first_then_the_library_grouped() {
    let (stdout, stderr) = transcript(
        "var count = 3;\nfun twice (x:int) => 2 * x;\ntypedef pair = int * int;\n:browse\n",
    );
    assert_eq!(stderr, "");
    let at = |text: &str| {
        stdout
            .find(text)
            .unwrap_or_else(|| panic!("{text:?} missing from\n{stdout}"))
    };
    let order = [
        at("// your definitions"),
        at("twice : int -> int"),
        at("count : int"),
        at("// library: written in Tessera (the prelude)"),
        at("\nfold_right : [T, U, N:COMPACTLINEAR]"),
        at("// library: functions"),
        at("\nmap : [T, U, N:COMPACTLINEAR] (T -> U) -> T ^ N -> U ^ N"),
        at("// library: conversions"),
        at("// library: operators"),
    ];
    assert!(order.windows(2).all(|w| w[0] < w[1]), "{stdout}");
    assert!(stdout.contains("type pair = int ^ 2"), "{stdout}");
}

#[test]
fn time_prints_the_value_and_then_the_wall_time() {
    let (stdout, stderr) = transcript(":time 6 * 7\n:ti var x = 1;\n:time (1,\n");
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines.len(), 3, "{stdout}");
    assert_eq!(lines[0], "42 : int");
    for line in &lines[1..] {
        let seconds = line
            .strip_prefix("time: ")
            .and_then(|rest| rest.strip_suffix(" s"))
            .unwrap_or_else(|| panic!("{line:?}"));
        assert!(seconds.parse::<f64>().is_ok_and(|s| s >= 0.0), "{line:?}");
    }
    assert!(stderr.contains("the chunk is incomplete"), "{stderr}");
}

#[test]
fn it_names_the_last_printed_value_and_void_leaves_it_alone() {
    let (stdout, stderr) = transcript("20 + 1\nprintln \"x\";\nit * 2\n:type it\n");
    assert_eq!(stdout, "21 : int\nx\n42 : int\nint\n");
    assert_eq!(stderr, "");
}

#[test]
fn jit_lists_what_native_code_was_made_of() {
    let (stdout, stderr) =
        transcript("fun twice (x: int) : int => x + x;\nprintln$ twice 21;\n:jit\n:jit now\n");
    let mut lines = stdout.lines();
    assert_eq!(lines.next(), Some("42"), "{stdout}");
    let mut report: Vec<&str> = lines.collect();
    let time = report.pop().unwrap_or_default();
    assert!(
        time.starts_with("compiling to native code took ") && time.ends_with(" ms in this session"),
        "the report does not end with the time compiling took:\n{stdout}"
    );
    assert!(
        report.iter().any(|l| l.ends_with(": native")),
        "no native entry in\n{stdout}"
    );
    assert!(
        report
            .iter()
            .all(|l| l.starts_with("    ") || l.ends_with(": native") || l.ends_with(": closures")),
        "an entry is neither native nor closures:\n{stdout}"
    );
    assert!(stderr.contains("`:jit` takes no argument"), "{stderr}");
}

#[test]
fn jit_says_when_native_code_is_off() {
    let stdout = SharedBuffer::default();
    let settings = tessera::Settings::default()
        .with_stdout(stdout.clone())
        .with_jit(false);
    let mut repl = Repl::new(Session::new(settings), Box::new(std::io::sink()), false);
    run_lines(&mut repl, "println$ 1;\n:jit\n".as_bytes());
    drop(repl);
    let text = stdout.text();
    assert!(text.starts_with("1\n"), "{text}");
    assert!(text.contains("native code is off"), "{text}");
}

#[test]
fn an_open_ended_if_or_match_ends_its_chunk_at_the_semicolon() {
    let (stdout, stderr) = transcript(
        "val x = if 1 < 2 then 3 else 4;\nprintln x;\nval y = match x with | 3 => \"three\" | _ => \"other\";\nprintln y;\n",
    );
    assert_eq!((stdout.as_str(), stderr.as_str()), ("3\nthree\n", ""));
}
