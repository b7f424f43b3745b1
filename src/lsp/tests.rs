//! The server on an in-memory connection: one client per test, speaking the protocol.

use std::str::FromStr;
use std::time::Duration;

use lsp_server::{Connection, Message, Notification, Request, RequestId};
use serde_json::{json, Value};

struct Client {
    connection: Connection,
    server: Option<std::thread::JoinHandle<Result<(), String>>>,
    next_id: i32,
}

const URI: &str = "file:///work/test.flx";

impl Client {
    fn start() -> Client {
        let (server, connection) = Connection::memory();
        let server = std::thread::Builder::new()
            .stack_size(64 << 20)
            .spawn(move || super::serve(server))
            .expect("a server thread");
        let mut client = Client {
            connection,
            server: Some(server),
            next_id: 0,
        };
        let reply = client.request("initialize", json!({ "capabilities": {} }));
        assert!(reply["capabilities"]["hoverProvider"].as_bool().unwrap());
        client.notify("initialized", json!({}));
        client
    }

    fn notify(&self, method: &str, params: Value) {
        let note = Notification::new(method.to_string(), params);
        self.connection
            .sender
            .send(Message::Notification(note))
            .unwrap();
    }

    /// The reply's result, or its error as `{"error": …}`.
    fn request(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = RequestId::from(self.next_id);
        let request = Request::new(id.clone(), method.to_string(), params);
        self.connection
            .sender
            .send(Message::Request(request))
            .unwrap();
        loop {
            match self.receive() {
                Message::Response(r) if r.id == id => {
                    return match r.error {
                        Some(e) => json!({ "error": e.message, "code": e.code }),
                        None => r.result.unwrap_or(Value::Null),
                    }
                }
                _ => continue,
            }
        }
    }

    fn receive(&self) -> Message {
        self.connection
            .receiver
            .recv_timeout(Duration::from_secs(60))
            .expect("a message from the server")
    }

    /// The next diagnostics published.
    fn diagnostics(&self) -> Value {
        loop {
            if let Message::Notification(n) = self.receive() {
                if n.method == "textDocument/publishDiagnostics" {
                    return n.params;
                }
            }
        }
    }

    fn open(&self, text: &str) -> Value {
        self.notify(
            "textDocument/didOpen",
            json!({ "textDocument": { "uri": URI, "languageId": "tessera", "version": 1, "text": text } }),
        );
        self.diagnostics()
    }

    fn at(&mut self, method: &str, line: u32, character: u32) -> Value {
        let mut params = json!({
            "textDocument": { "uri": URI },
            "position": { "line": line, "character": character },
        });
        if method == "textDocument/references" {
            params["context"] = json!({ "includeDeclaration": true });
        }
        self.request(method, params)
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        if std::thread::panicking() {
            return;
        }
        let _ = self.request("shutdown", Value::Null);
        self.notify("exit", Value::Null);
        if let Some(server) = self.server.take() {
            assert_eq!(server.join().expect("the server thread"), Ok(()));
        }
    }
}

const PROGRAM: &str = "\
struct point { x : int; y : double; }
fun norm (p : point) : double => p.y;
val origin = point (1, 2.5);
var a : int ^ 3 = (1, 2, 3);
println$ norm origin;
println$ a;
";

#[test]
fn diagnostics_on_open_and_after_a_change() {
    let mut client = Client::start();
    let published = client.open(PROGRAM);
    assert_eq!(published["diagnostics"], json!([]), "{published}");
    client.notify(
        "textDocument/didChange",
        json!({
            "textDocument": { "uri": URI, "version": 2 },
            "contentChanges": [{
                "range": { "start": { "line": 4, "character": 9 }, "end": { "line": 4, "character": 13 } },
                "text": "nrom"
            }, {
                "range": { "start": { "line": 5, "character": 9 }, "end": { "line": 5, "character": 10 } },
                "text": "b"
            }]
        }),
    );
    let published = client.diagnostics();
    assert_eq!(published["version"], 2);
    let diagnostics = published["diagnostics"].as_array().unwrap();
    assert_eq!(diagnostics.len(), 2, "{published}");
    assert_eq!(diagnostics[0]["code"], "E0201");
    assert_eq!(
        diagnostics[0]["range"]["start"],
        json!({ "line": 4, "character": 9 })
    );
    assert!(diagnostics[0]["message"].as_str().unwrap().contains("nrom"));
    assert_eq!(diagnostics[1]["range"]["start"]["line"], 5);
    let _ = client.at("textDocument/hover", 0, 0);
}

#[test]
fn hover_shows_the_type_shape_and_doc() {
    let mut client = Client::start();
    client.open(PROGRAM);
    let hover = client.at("textDocument/hover", 5, 9);
    let text = hover["contents"]["value"].as_str().unwrap();
    assert!(text.contains("a : int ^ 3"), "{text}");
    assert!(text.contains("shape: `3` (3 elements)"), "{text}");
    let hover = client.at("textDocument/hover", 4, 0);
    let text = hover["contents"]["value"].as_str().unwrap();
    assert!(text.contains("println"), "{text}");
}

#[test]
fn definition_and_references() {
    let mut client = Client::start();
    client.open(PROGRAM);
    // `norm` in `println$ norm origin;` goes to its definition's name.
    let location = client.at("textDocument/definition", 4, 10);
    assert_eq!(location["uri"], URI);
    assert_eq!(
        location["range"],
        json!({ "start": { "line": 1, "character": 4 }, "end": { "line": 1, "character": 8 } })
    );
    // A field goes to its declaration.
    let location = client.at("textDocument/definition", 1, 35);
    assert_eq!(
        location["range"]["start"],
        json!({ "line": 0, "character": 24 })
    );
    // A type name.
    let location = client.at("textDocument/definition", 1, 15);
    assert_eq!(
        location["range"]["start"],
        json!({ "line": 0, "character": 7 })
    );
    let references = client.at("textDocument/references", 2, 5);
    let lines: Vec<u64> = references
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["range"]["start"]["line"].as_u64().unwrap())
        .collect();
    assert_eq!(lines, [2, 4]);
}

#[test]
fn definition_into_the_prelude() {
    let mut client = Client::start();
    let first = "rev_map";
    let published = client.open("val r = rev_map (fun (x : int) => x + 1) (1, 2, 3);\n");
    assert_eq!(published["diagnostics"], json!([]), "{published}");
    let location = client.at("textDocument/definition", 0, 9);
    let uri = location["uri"].as_str().unwrap();
    assert!(uri.ends_with("prelude.flx"), "{location}");
    let path = uri.trim_start_matches("file://");
    let text = std::fs::read_to_string(path).expect("the prelude's file");
    let line = location["range"]["start"]["line"].as_u64().unwrap() as usize;
    assert!(
        text.lines().nth(line).unwrap().contains(first),
        "{location}"
    );
}

#[test]
fn completion_of_names_keywords_and_fields() {
    let mut client = Client::start();
    client.open(PROGRAM);
    let items = client.at("textDocument/completion", 5, 9);
    let labels: Vec<&str> = items
        .as_array()
        .unwrap_or_else(|| panic!("{items}"))
        .iter()
        .map(|i| i["label"].as_str().unwrap())
        .collect();
    for expected in ["a", "norm", "origin", "len", "double", "while"] {
        assert!(labels.contains(&expected), "{expected} in {labels:?}");
    }
    // `norm`'s parameter is not in scope after it; inside its body it is.
    assert!(!labels.contains(&"p"), "{labels:?}");
    let inside = client.at("textDocument/completion", 1, 33);
    assert!(
        inside.as_array().unwrap().iter().any(|i| i["label"] == "p"),
        "{inside}"
    );
    let norm = items
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["label"] == "norm")
        .unwrap();
    assert_eq!(norm["detail"], "point -> double");
    // Typing `origin.` (a syntax error for now): the fields of `origin`, with their types.
    client.notify(
        "textDocument/didChange",
        json!({
            "textDocument": { "uri": URI, "version": 2 },
            "contentChanges": [{ "text": format!("{PROGRAM}println$ origin.") }]
        }),
    );
    let items = client.at("textDocument/completion", 6, 16);
    assert_eq!(
        items,
        json!([
            { "label": "x", "kind": 5, "detail": "int" },
            { "label": "y", "kind": 5, "detail": "double" }
        ])
    );
}

#[test]
fn document_symbols() {
    let mut client = Client::start();
    client.open(PROGRAM);
    let symbols = client.request(
        "textDocument/documentSymbol",
        json!({ "textDocument": { "uri": URI } }),
    );
    let names: Vec<&str> = symbols
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["point", "norm", "origin", "a"]);
    assert_eq!(symbols[0]["children"][1]["name"], "y");
    assert_eq!(symbols[1]["detail"], "point -> double");
}

#[test]
fn signature_help_for_calls() {
    let mut client = Client::start();
    let text = "fun add (x : int, y : int) : int => x + y;\nval s = add (1, ";
    client.open(text);
    let help = client.at("textDocument/signatureHelp", 1, 16);
    assert_eq!(
        help["signatures"][0]["label"], "add(x: int, y: int) : int",
        "{help}"
    );
    assert_eq!(help["activeParameter"], 1);
}

#[test]
fn positions_are_utf16() {
    let mut client = Client::start();
    // `é` is one UTF-16 unit and two bytes; `𝄞` two units and four bytes.
    client.open("val s = \"é𝄞\"; val n = 1;\nprintln$ n;\n");
    let hover = client.at("textDocument/hover", 1, 9);
    assert_eq!(
        hover["range"],
        json!({ "start": { "line": 1, "character": 9 }, "end": { "line": 1, "character": 10 } })
    );
    let location = client.at("textDocument/definition", 1, 9);
    assert_eq!(
        location["range"],
        json!({ "start": { "line": 0, "character": 19 }, "end": { "line": 0, "character": 20 } })
    );
}

#[test]
fn a_request_that_panics_does_not_stop_the_server() {
    let mut client = Client::start();
    client.open(PROGRAM);
    let reply = client.request(super::PANIC_METHOD, Value::Null);
    assert_eq!(reply["code"], lsp_server::ErrorCode::InternalError as i32);
    let hover = client.at("textDocument/hover", 5, 9);
    assert!(hover["contents"]["value"]
        .as_str()
        .unwrap()
        .contains("int ^ 3"));
    let unknown = client.request("textDocument/frobnicate", json!({}));
    assert_eq!(
        unknown["code"],
        lsp_server::ErrorCode::MethodNotFound as i32
    );
}

/// A program of about 2,000 lines, checked again after an edit: prints the time (run with
/// `cargo test --release --lib lsp::tests::recheck_time -- --ignored --nocapture`).
#[test]
#[ignore]
fn recheck_time() {
    let program = big_program();
    assert!(program.lines().count() >= 2000);
    let base = super::Base::new();
    let uri = lsp_types::Uri::from_str(URI).unwrap();
    let first = base.check(uri.clone(), program.clone());
    assert!(first.diagnostics.is_empty(), "{:?}", first.diagnostics);
    let edited = program.replacen("+ 1", "+ 2", 1);
    let runs = 10;
    let started = std::time::Instant::now();
    let cpu = super::thread_cpu_seconds();
    for _ in 0..runs {
        let analysis = base.check(uri.clone(), edited.clone());
        assert!(analysis.diagnostics.is_empty());
    }
    let each = started.elapsed().as_secs_f64() * 1000.0 / runs as f64;
    let each_cpu = (super::thread_cpu_seconds() - cpu) * 1000.0 / runs as f64;
    println!(
        "re-check of {} lines after an edit: {each:.1} ms ({each_cpu:.1} ms of CPU)",
        program.lines().count()
    );
}

fn big_program() -> String {
    let mut text = String::new();
    for i in 0..250 {
        text.push_str(&format!(
            "struct s{i} {{ a : int; b : double; }}\n\
             fun f{i} (x : int) : int => x + 1;\n\
             fun g{i} (v : s{i}) : double =\n{{\n  var t = v.b;\n  t = t * 2.0;\n  return t + double (f{i} v.a);\n}}\n"
        ));
    }
    text
}
