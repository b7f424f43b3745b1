//! `tessera lsp` end to end: the built binary spawned, spoken to in JSON-RPC over its stdin and
//! stdout (`Content-Length` framing), through an editing session. The features themselves are
//! tested on an in-memory connection (`src/lsp/tests.rs`).
//!
//! `TESSERA_LSP_TRANSCRIPT=1 cargo test --test lsp -- --nocapture` prints the session.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};

use serde_json::{json, Value};

struct Server {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    transcript: bool,
}

impl Server {
    fn start() -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_tessera"))
            .arg("lsp")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("tessera lsp starts");
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        Server {
            child,
            stdin,
            stdout,
            transcript: std::env::var_os("TESSERA_LSP_TRANSCRIPT").is_some(),
        }
    }

    fn send(&mut self, message: Value) {
        let text = message.to_string();
        if self.transcript {
            println!("--> {text}");
        }
        write!(self.stdin, "Content-Length: {}\r\n\r\n{text}", text.len()).unwrap();
        self.stdin.flush().unwrap();
    }

    fn receive(&mut self) -> Value {
        let mut length = None;
        loop {
            let mut line = String::new();
            assert!(
                self.stdout.read_line(&mut line).unwrap() > 0,
                "the server closed"
            );
            let line = line.trim_end();
            if line.is_empty() {
                break;
            }
            if let Some(n) = line.strip_prefix("Content-Length: ") {
                length = Some(n.parse::<usize>().unwrap());
            }
        }
        let mut body = vec![0; length.expect("a Content-Length header")];
        self.stdout.read_exact(&mut body).unwrap();
        let message: Value = serde_json::from_slice(&body).unwrap();
        if self.transcript {
            println!("<-- {message}");
        }
        message
    }

    /// The reply to a request (notifications before it are skipped).
    fn request(&mut self, id: i64, method: &str, params: Value) -> Value {
        self.send(json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }));
        loop {
            let message = self.receive();
            if message["id"] == id {
                return message;
            }
        }
    }

    fn notify(&mut self, method: &str, params: Value) {
        self.send(json!({ "jsonrpc": "2.0", "method": method, "params": params }));
    }

    fn diagnostics(&mut self) -> Value {
        loop {
            let message = self.receive();
            if message["method"] == "textDocument/publishDiagnostics" {
                return message["params"].clone();
            }
        }
    }
}

const URI: &str = "file:///tmp/session.flx";

#[test]
fn an_editing_session_over_stdio() {
    let mut server = Server::start();
    let reply = server.request(1, "initialize", json!({ "capabilities": {} }));
    assert_eq!(reply["result"]["serverInfo"]["name"], "tessera");
    server.notify("initialized", json!({}));
    let text = "val grid = (1, 2, 3, 4, 5, 6) :>> int ^ (2 \\* 3);\nprintln$ len grid;\n";
    server.notify(
        "textDocument/didOpen",
        json!({ "textDocument": { "uri": URI, "languageId": "tessera", "version": 1, "text": text } }),
    );
    assert_eq!(server.diagnostics()["diagnostics"], json!([]));
    // `grid` becomes `gird` in the second line: an undefined name.
    server.notify(
        "textDocument/didChange",
        json!({
            "textDocument": { "uri": URI, "version": 2 },
            "contentChanges": [{
                "range": { "start": { "line": 1, "character": 13 }, "end": { "line": 1, "character": 17 } },
                "text": "gird"
            }]
        }),
    );
    let published = server.diagnostics();
    assert_eq!(published["version"], 2);
    assert_eq!(published["diagnostics"][0]["code"], "E0201");
    assert_eq!(
        published["diagnostics"][0]["range"],
        json!({ "start": { "line": 1, "character": 13 }, "end": { "line": 1, "character": 17 } })
    );
    // Back to `grid`; hover and definition on it.
    server.notify(
        "textDocument/didChange",
        json!({
            "textDocument": { "uri": URI, "version": 3 },
            "contentChanges": [{ "text": text }]
        }),
    );
    let position =
        json!({ "textDocument": { "uri": URI }, "position": { "line": 1, "character": 14 } });
    let hover = server.request(2, "textDocument/hover", position.clone());
    let shown = hover["result"]["contents"]["value"].as_str().unwrap();
    assert!(shown.contains("grid : int ^ (2 \\* 3)"), "{shown}");
    assert!(shown.contains("(6 elements)"), "{shown}");
    let definition = server.request(3, "textDocument/definition", position);
    assert_eq!(
        definition["result"],
        json!({ "uri": URI, "range": { "start": { "line": 0, "character": 4 }, "end": { "line": 0, "character": 8 } } })
    );
    // A request that panics is answered with an internal error; the server goes on.
    let reply = server.request(4, "tessera/panic", Value::Null);
    assert_eq!(reply["error"]["code"], -32603, "{reply}");
    let position =
        json!({ "textDocument": { "uri": URI }, "position": { "line": 1, "character": 10 } });
    let hover = server.request(5, "textDocument/hover", position);
    let shown = hover["result"]["contents"]["value"].as_str().unwrap();
    assert!(shown.contains("len : "), "{shown}");
    let reply = server.request(6, "shutdown", Value::Null);
    assert_eq!(reply["result"], Value::Null);
    server.notify("exit", Value::Null);
    let status = server.child.wait().unwrap();
    assert!(status.success(), "{status}");
}
