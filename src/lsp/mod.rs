//! `tessera lsp`: a Language Server Protocol server over stdio (rust-analyzer's `lsp-server`
//! transport, `lsp-types` for the protocol's values).
//!
//! The server only checks: every open document is parsed and checked in a clone of a checker
//! that has checked the prelude, with the checker's index on (`check::index`); nothing runs.
//! Diagnostics are published after an edit once the document has been quiet for
//! `DEBOUNCE`; a request on a document edited since is answered after checking it. Each
//! request runs under `catch_internal_error` (`catch_unwind`): a panic is answered with an error and the server goes
//! on.

mod analysis;
mod complete;
mod features;
mod position;
#[cfg(test)]
mod tests;

use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use lsp_server::{Connection, ErrorCode, Message, Notification, Request, Response};
use lsp_types::notification::Notification as _;
use lsp_types::request::Request as _;
use lsp_types::{
    notification, request, CompletionOptions, HoverProviderCapability, InitializeResult, OneOf,
    Position, PositionEncodingKind, PublishDiagnosticsParams, ServerCapabilities, ServerInfo,
    SignatureHelpOptions, TextDocumentContentChangeEvent, TextDocumentSyncCapability,
    TextDocumentSyncKind, Uri,
};
use serde_json::Value;

use analysis::{Analysis, Base};
use position::LineIndex;

/// How long a document must go unedited before it is checked and its diagnostics published.
pub const DEBOUNCE: Duration = Duration::from_millis(120);

/// A request method the tests use to check that a panicking request does not stop the
/// server.
const PANIC_METHOD: &str = "tessera/panic";

/// Serve on stdin and stdout until the client exits; the exit status.
pub fn run_stdio() -> i32 {
    let (connection, threads) = Connection::stdio();
    let status = match serve(connection) {
        Ok(()) => 0,
        Err(message) => {
            eprintln!("tessera lsp: {message}");
            1
        }
    };
    match threads.join() {
        Ok(()) => status,
        Err(error) => {
            eprintln!("tessera lsp: {error}");
            1
        }
    }
}

/// The server's capabilities.
fn capabilities() -> ServerCapabilities {
    ServerCapabilities {
        position_encoding: Some(PositionEncodingKind::UTF16),
        text_document_sync: Some(TextDocumentSyncCapability::Kind(
            TextDocumentSyncKind::INCREMENTAL,
        )),
        hover_provider: Some(HoverProviderCapability::Simple(true)),
        definition_provider: Some(OneOf::Left(true)),
        references_provider: Some(OneOf::Left(true)),
        document_symbol_provider: Some(OneOf::Left(true)),
        completion_provider: Some(CompletionOptions {
            trigger_characters: Some(vec![".".into()]),
            ..Default::default()
        }),
        signature_help_provider: Some(SignatureHelpOptions {
            trigger_characters: Some(vec!["(".into(), ",".into()]),
            retrigger_characters: None,
            work_done_progress_options: Default::default(),
        }),
        ..Default::default()
    }
}

/// Run the server on a connection: the initialisation handshake, then messages until `exit`.
pub fn serve(connection: Connection) -> Result<(), String> {
    let (id, _params) = connection.initialize_start().map_err(|e| e.to_string())?;
    let result = InitializeResult {
        capabilities: capabilities(),
        server_info: Some(ServerInfo {
            name: "tessera".into(),
            version: Some(env!("CARGO_PKG_VERSION").into()),
        }),
    };
    let result = serde_json::to_value(result).map_err(|e| e.to_string())?;
    connection
        .initialize_finish(id, result)
        .map_err(|e| e.to_string())?;
    let mut server = Server {
        base: Base::new(),
        documents: HashMap::new(),
        connection: &connection,
        timing: std::env::var_os("TESSERA_LSP_TIMING").is_some(),
    };
    server.run()
}

/// An open document.
struct Document {
    text: String,
    version: i32,
    /// When it was edited and not checked since.
    dirty: Option<Instant>,
    /// Its latest check.
    analysis: Option<Arc<Analysis>>,
    /// Its latest check of a text that parsed (for the fields after a `.` being typed).
    good: Option<Arc<Analysis>>,
}

struct Server<'a> {
    base: Base,
    documents: HashMap<Uri, Document>,
    connection: &'a Connection,
    timing: bool,
}

impl Server<'_> {
    fn run(&mut self) -> Result<(), String> {
        loop {
            self.publish_quiet_documents();
            let deadline = self
                .documents
                .values()
                .filter_map(|d| d.dirty)
                .min()
                .map(|at| at + DEBOUNCE);
            let message = match deadline {
                None => match self.connection.receiver.recv() {
                    Ok(message) => message,
                    Err(_) => return Ok(()),
                },
                Some(deadline) => {
                    let wait = deadline.saturating_duration_since(Instant::now());
                    match self.connection.receiver.recv_timeout(wait) {
                        Ok(message) => message,
                        Err(crossbeam_channel::RecvTimeoutError::Timeout) => continue,
                        Err(crossbeam_channel::RecvTimeoutError::Disconnected) => return Ok(()),
                    }
                }
            };
            match message {
                Message::Request(request) => {
                    if self
                        .connection
                        .handle_shutdown(&request)
                        .map_err(|e| e.to_string())?
                    {
                        return Ok(());
                    }
                    let response = self.respond(request);
                    self.send(Message::Response(response));
                }
                Message::Notification(note) => self.notified(note),
                Message::Response(_) => {}
            }
        }
    }

    fn send(&self, message: Message) {
        let _ = self.connection.sender.send(message);
    }

    /// Check and publish every document edited at least `DEBOUNCE` ago.
    fn publish_quiet_documents(&mut self) {
        let now = Instant::now();
        let quiet: Vec<Uri> = self
            .documents
            .iter()
            .filter(|(_, d)| d.dirty.is_some_and(|at| at + DEBOUNCE <= now))
            .map(|(uri, _)| uri.clone())
            .collect();
        for uri in quiet {
            self.analysis(&uri);
        }
    }

    /// The document's analysis, checking it first when it was edited since (and then
    /// publishing its diagnostics).
    fn analysis(&mut self, uri: &Uri) -> Option<Arc<Analysis>> {
        let document = self.documents.get_mut(uri)?;
        if document.dirty.is_none() {
            if let Some(analysis) = &document.analysis {
                return Some(analysis.clone());
            }
        }
        let started = Instant::now();
        let cpu = thread_cpu_seconds();
        let analysis = Arc::new(self.base.check(uri.clone(), document.text.clone()));
        if self.timing {
            eprintln!(
                "tessera lsp: checked {} ({} lines) in {:.1} ms ({:.1} ms of CPU)",
                uri.as_str(),
                document.text.lines().count(),
                started.elapsed().as_secs_f64() * 1000.0,
                (thread_cpu_seconds() - cpu) * 1000.0
            );
        }
        document.dirty = None;
        document.analysis = Some(analysis.clone());
        if analysis.parsed {
            document.good = Some(analysis.clone());
        }
        let params = PublishDiagnosticsParams {
            uri: uri.clone(),
            diagnostics: analysis::lsp_diagnostics(&analysis),
            version: Some(document.version),
        };
        self.send(Message::Notification(Notification::new(
            notification::PublishDiagnostics::METHOD.into(),
            params,
        )));
        Some(analysis)
    }

    fn notified(&mut self, note: Notification) {
        match note.method.as_str() {
            notification::DidOpenTextDocument::METHOD => {
                let Ok(params) =
                    serde_json::from_value::<lsp_types::DidOpenTextDocumentParams>(note.params)
                else {
                    return;
                };
                let uri = params.text_document.uri;
                self.documents.insert(
                    uri.clone(),
                    Document {
                        text: params.text_document.text,
                        version: params.text_document.version,
                        dirty: Some(Instant::now()),
                        analysis: None,
                        good: None,
                    },
                );
                // A document just opened is checked at once.
                self.analysis(&uri);
            }
            notification::DidChangeTextDocument::METHOD => {
                let Ok(params) =
                    serde_json::from_value::<lsp_types::DidChangeTextDocumentParams>(note.params)
                else {
                    return;
                };
                let Some(document) = self.documents.get_mut(&params.text_document.uri) else {
                    return;
                };
                for change in params.content_changes {
                    apply_change(&mut document.text, change);
                }
                document.version = params.text_document.version;
                document.dirty = Some(Instant::now());
            }
            notification::DidCloseTextDocument::METHOD => {
                let Ok(params) =
                    serde_json::from_value::<lsp_types::DidCloseTextDocumentParams>(note.params)
                else {
                    return;
                };
                self.documents.remove(&params.text_document.uri);
                let params = PublishDiagnosticsParams {
                    uri: params.text_document.uri,
                    diagnostics: Vec::new(),
                    version: None,
                };
                self.send(Message::Notification(Notification::new(
                    notification::PublishDiagnostics::METHOD.into(),
                    params,
                )));
            }
            _ => {}
        }
    }

    /// Answer a request; a panic while answering is an internal error reply.
    fn respond(&mut self, request: Request) -> Response {
        let id = request.id.clone();
        let outcome = crate::catch_internal_error(|| self.answer(&request.method, request.params));
        match outcome {
            Ok(Ok(result)) => Response {
                id,
                result: Some(result),
                error: None,
            },
            Ok(Err((code, message))) => Response::new_err(id, code as i32, message),
            Err(message) => Response::new_err(
                id,
                ErrorCode::InternalError as i32,
                format!("internal error (a bug in Tessera): {message}"),
            ),
        }
    }

    /// The document and the byte offset a request names.
    fn at(
        &mut self,
        position: &lsp_types::TextDocumentPositionParams,
    ) -> Result<(Arc<Analysis>, usize), (ErrorCode, String)> {
        let uri = &position.text_document.uri;
        let analysis = self.analysis(uri).ok_or_else(|| {
            (
                ErrorCode::InvalidParams,
                format!("`{}` is not open", uri.as_str()),
            )
        })?;
        let offset = analysis.lines.offset(&analysis.text, position.position);
        Ok((analysis, offset))
    }

    fn answer(&mut self, method: &str, params: Value) -> Result<Value, (ErrorCode, String)> {
        fn parse<T: serde::de::DeserializeOwned>(params: Value) -> Result<T, (ErrorCode, String)> {
            serde_json::from_value(params).map_err(|e| (ErrorCode::InvalidParams, e.to_string()))
        }
        fn json<T: serde::Serialize>(value: T) -> Result<Value, (ErrorCode, String)> {
            serde_json::to_value(value).map_err(|e| (ErrorCode::InternalError, e.to_string()))
        }
        match method {
            request::HoverRequest::METHOD => {
                let p: lsp_types::HoverParams = parse(params)?;
                let (analysis, offset) = self.at(&p.text_document_position_params)?;
                json(features::hover(&self.base, &analysis, offset))
            }
            request::GotoDefinition::METHOD => {
                let p: lsp_types::GotoDefinitionParams = parse(params)?;
                let (analysis, offset) = self.at(&p.text_document_position_params)?;
                json(
                    features::definition(&self.base, &analysis, offset)
                        .map(lsp_types::GotoDefinitionResponse::Scalar),
                )
            }
            request::References::METHOD => {
                let p: lsp_types::ReferenceParams = parse(params)?;
                let (analysis, offset) = self.at(&p.text_document_position)?;
                json(features::references(
                    &self.base,
                    &analysis,
                    offset,
                    p.context.include_declaration,
                ))
            }
            request::DocumentSymbolRequest::METHOD => {
                let p: lsp_types::DocumentSymbolParams = parse(params)?;
                let position = lsp_types::TextDocumentPositionParams {
                    text_document: p.text_document,
                    position: Position::new(0, 0),
                };
                let (analysis, _) = self.at(&position)?;
                json(lsp_types::DocumentSymbolResponse::Nested(
                    features::symbols(&analysis),
                ))
            }
            request::Completion::METHOD => {
                let p: lsp_types::CompletionParams = parse(params)?;
                let (analysis, offset) = self.at(&p.text_document_position)?;
                let good = self
                    .documents
                    .get(&p.text_document_position.text_document.uri)
                    .and_then(|d| d.good.clone());
                json(lsp_types::CompletionResponse::Array(complete::completion(
                    &self.base,
                    &analysis,
                    good.as_deref(),
                    offset,
                )))
            }
            request::SignatureHelpRequest::METHOD => {
                let p: lsp_types::SignatureHelpParams = parse(params)?;
                let (analysis, offset) = self.at(&p.text_document_position_params)?;
                json(complete::signature_help(&self.base, &analysis, offset))
            }
            PANIC_METHOD => panic!("the request `{PANIC_METHOD}` panics on purpose"),
            _ => Err((
                ErrorCode::MethodNotFound,
                format!("`tessera lsp` does not answer `{method}`"),
            )),
        }
    }
}

/// The CPU time this thread has used, in seconds (the check's own cost, whatever else the
/// machine is doing).
fn thread_cpu_seconds() -> f64 {
    let mut time = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `clock_gettime` writes the `timespec` it is given, which lives for the call.
    let status = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut time) };
    if status != 0 {
        return 0.0;
    }
    time.tv_sec as f64 + time.tv_nsec as f64 * 1e-9
}

/// Apply one edit of `didChange` to a document's text (the whole text when it has no
/// range).
fn apply_change(text: &mut String, change: TextDocumentContentChangeEvent) {
    match change.range {
        None => *text = change.text,
        Some(range) => {
            let lines = LineIndex::new(text);
            let start = lines.offset(text, range.start);
            let end = lines.offset(text, range.end).max(start);
            text.replace_range(start..end, &change.text);
        }
    }
}
