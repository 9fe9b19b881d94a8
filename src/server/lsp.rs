//! The language server's message loop and its document state.
//!
//! Each open document keeps its text and, for a process module, its
//! tree-sitter tree: a notification's changes are applied to both in one
//! pass (the tree with one `Tree::edit`, see `document.rs`), so the next
//! parse re-uses what the edits did not touch. The per-file pass (model,
//! per-file rules, summary) runs on the new tree; its outcome is kept, and the cross-module pass
//! runs over it, the other open documents as they are in the editor
//! (saved or not) and the project's other modules, read from disk once
//! per project and again after a save or a reported file change. The
//! configuration is read afresh on every lint, so a saved `proclint.toml`
//! applies to the next one.
//!
//! Changes are coalesced: the loop handles every message already queued
//! (the transport reads ahead, see `transport.rs`) before it lints the
//! documents they made dirty, goes back to the queue as soon as a message
//! arrives during those lints, and a request about a dirty document lints
//! it first. A document's diagnostics are published when they differ from
//! the last set published for its version, so re-linting a project's open
//! modules after each open does not send their unchanged sets again.
//!
//! The lifecycle is the spec's: requests before `initialize` get
//! `ServerNotInitialized`, requests after `shutdown` `InvalidRequest`;
//! `exit` ends the loop ([`Ended`]: exit code 0 after `shutdown`, 1
//! without).

use std::cell::OnceCell;
use std::collections::{BTreeSet, HashMap, HashSet};
use std::path::{Path, PathBuf};

use lsp_server::{Connection, Message, Notification, Request, RequestId, Response};
use lsp_types as lsp;
use serde_json::{json, Value};

use crate::diagnostic::{Diagnostic, Edit, Fix, Severity};
use crate::engine::discover::FileKind;
use crate::engine::{open, FileOutcome};
use crate::server::document::Text;
use crate::server::{jsonrpc, lint, transport};
use crate::source::{LineIndex, Pos};

/// The code action that applies every safe fix of a document, as
/// ESLint's `source.fixAll.eslint`: VS Code runs it on save with
/// `"editor.codeActionsOnSave": { "source.fixAll.proclint": "explicit" }`.
const FIX_ALL: &str = "source.fixAll.proclint";

/// An open document.
struct Doc {
    path: PathBuf,
    /// The path the engine lints it as (relative to the working directory
    /// when inside it, as context modules display).
    rel: PathBuf,
    /// The project it belongs to: its context's key.
    root: Option<PathBuf>,
    text: Text,
    version: i32,
    /// Edited since its last per-file analysis.
    edited: bool,
    /// Its findings may have changed (its text, another open module, the
    /// configuration, files on disk) since its last lint.
    dirty: bool,
    analysis: Option<Analysis>,
    /// The last lint: the text it read and its findings on this document.
    linted: Option<Linted>,
}

/// The last per-file analysis of a document's text, under the
/// configuration it ran with (`None`: not a file proclint reads).
struct Analysis {
    config: String,
    outcome: Option<FileOutcome>,
    /// JavaScript that is not process code: no findings of its own, but
    /// context for the process modules that import it.
    helper: bool,
}

/// A project's modules on disk, as context for its open documents.
struct Context {
    config: String,
    modules: Vec<FileOutcome>,
}

struct Linted {
    text: String,
    index: LineIndex,
    kind: Option<FileKind>,
    diagnostics: Vec<Diagnostic>,
    /// Whether each diagnostic's fix passed verification, and the
    /// fix-all edits: computed when first asked for (an editor asks for
    /// code actions at every cursor move), kept until the next lint.
    holds: Vec<OnceCell<bool>>,
    fix_all: OnceCell<Vec<Edit>>,
    /// What fixes are re-linted with ([`crate::engine::fix::verify`]).
    verify: Verify,
}

/// A document's place and config, and its project's modules as they were
/// at the lint (`None` when it was linted alone).
struct Verify {
    display: String,
    rel: PathBuf,
    config: crate::project::config::Config,
    context: Option<Vec<FileOutcome>>,
}

impl Linted {
    fn new(
        text: String,
        kind: Option<FileKind>,
        diagnostics: Vec<Diagnostic>,
        verify: Verify,
    ) -> Linted {
        Linted {
            index: LineIndex::new(&text),
            holds: diagnostics.iter().map(|_| OnceCell::new()).collect(),
            fix_all: OnceCell::new(),
            text,
            kind,
            diagnostics,
            verify,
        }
    }

    fn buffer(&self, kind: FileKind) -> lint::Buffer<'_> {
        lint::Buffer {
            display: &self.verify.display,
            path: &self.verify.rel,
            kind,
            text: &self.text,
            baseline: crate::engine::fix::Baseline {
                diagnostics: &self.diagnostics,
                context: self.verify.context.as_deref(),
            },
            config: &self.verify.config,
        }
    }

    /// The fix of the `i`th diagnostic, if the document still loads as it
    /// did with it applied ([`crate::engine::fix::apply_verified`]).
    fn verified_fix(&self, i: usize) -> Option<&Fix> {
        let fix = self.diagnostics.get(i)?.fix.as_ref()?;
        let kind = self.kind?;
        let holds = self.holds.get(i)?.get_or_init(|| {
            !fix.edits.is_empty() && self.buffer(kind).fix_holds(&self.diagnostics[i])
        });
        holds.then_some(fix)
    }

    /// Every safe fix applied in one verified pass, as line edits; empty
    /// when none applies.
    fn fix_all(&self) -> &[Edit] {
        self.fix_all.get_or_init(|| {
            let Some(kind) = self.kind else {
                return Vec::new();
            };
            let all: Vec<&Diagnostic> = self.diagnostics.iter().collect();
            let (fixed, applied) = self.buffer(kind).apply_fixes(&all, false);
            if applied == 0 || fixed == self.text {
                return Vec::new();
            }
            lint::line_edits(&self.text, &fixed)
        })
    }
}

pub(super) struct Server {
    connection: Connection,
    docs: HashMap<String, Doc>,
    /// By project root.
    contexts: HashMap<PathBuf, Context>,
    /// The client pulls diagnostics (`textDocument/diagnostic`); otherwise
    /// they are published.
    pull: bool,
    refresh: bool,
    /// A `workspace/diagnostic/refresh` is due (sent once the queue is
    /// drained, however many changes asked for it).
    refresh_due: bool,
    /// Register file watchers once the client is `initialized`.
    watch: bool,
    next_id: i32,
    /// The last configuration error shown, so it is shown once.
    shown_config_error: Option<String>,
    /// The last set published for each document, with the version it was
    /// published for: the same set for the same version is not sent again
    /// (each open re-lints the project's other open modules).
    published: HashMap<String, (i32, Vec<Value>)>,
    /// `shutdown` was received: only `exit` is served now.
    shut_down: bool,
}

/// How the connection ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Ended {
    /// `exit` (or the end of the input) after `shutdown`.
    AfterShutdown,
    /// `exit`, or the end of the input, without `shutdown` before it.
    WithoutShutdown,
}

/// Waits for `initialize`: other requests get `ServerNotInitialized`,
/// notifications are dropped. `None` on `exit` or the end of the input.
fn initialize_request(connection: &Connection) -> Result<Option<(RequestId, Value)>, String> {
    let send = |m: Message| connection.sender.send(m).map_err(|e| e.to_string());
    while let Ok(message) = connection.receiver.recv() {
        match message {
            Message::Request(req) if req.method == "initialize" => {
                return Ok(Some((req.id, req.params)))
            }
            Message::Request(req) => send(Message::Response(Response::new_err(
                req.id,
                lsp_server::ErrorCode::ServerNotInitialized as i32,
                format!("`{}` before `initialize`", req.method),
            )))?,
            Message::Notification(n) if n.method == "exit" => return Ok(None),
            Message::Notification(n) if n.method == transport::INVALID => {
                send(invalid_reply(n.params))?
            }
            Message::Notification(_) | Message::Response(_) => {}
        }
    }
    Ok(None)
}

/// The answer to a message the transport could not read (the params of
/// its [`transport::INVALID`] notification): an error reply to a request
/// whose id it read, else a log message. Either way it goes to stderr too.
fn invalid_reply(params: Value) -> Message {
    let message = params["message"].as_str().unwrap_or("invalid message");
    let code = params["code"].as_i64().unwrap_or(jsonrpc::PARSE_ERROR) as i32;
    eprintln!("proclint server: {message}");
    match serde_json::from_value::<RequestId>(params["id"].clone()) {
        Ok(id) if !params["id"].is_null() => {
            Message::Response(Response::new_err(id, code, message.to_string()))
        }
        _ => Message::Notification(Notification::new(
            "window/logMessage".into(),
            json!({ "type": 1, "message": format!("proclint: ignored a message: {message}") }),
        )),
    }
}

/// Serves until `exit` or the end of the input. Errors are failures of the
/// connection itself (its output gone).
pub(super) fn serve(connection: Connection) -> Result<Ended, String> {
    let Some((id, params)) = initialize_request(&connection)? else {
        return Ok(Ended::WithoutShutdown);
    };
    let init: lsp::InitializeParams = serde_json::from_value(params).unwrap_or_default();
    let caps = &init.capabilities;
    let pull = caps
        .text_document
        .as_ref()
        .is_some_and(|t| t.diagnostic.is_some());
    let refresh = caps
        .workspace
        .as_ref()
        .and_then(|w| w.diagnostic.as_ref())
        .and_then(|d| d.refresh_support)
        .unwrap_or(false);
    let watch = caps
        .workspace
        .as_ref()
        .and_then(|w| w.did_change_watched_files.as_ref())
        .and_then(|w| w.dynamic_registration)
        .unwrap_or(false);
    let mut capabilities = json!({
        "positionEncoding": "utf-16",
        "textDocumentSync": {
            "openClose": true,
            "change": 2,
            "save": { "includeText": false },
        },
        "codeActionProvider": { "codeActionKinds": ["quickfix", FIX_ALL] },
        "hoverProvider": true,
    });
    if pull {
        capabilities["diagnosticProvider"] = json!({
            "identifier": "proclint",
            "interFileDependencies": true,
            "workspaceDiagnostics": false,
        });
    }
    let result = json!({
        "capabilities": capabilities,
        "serverInfo": { "name": "proclint", "version": env!("CARGO_PKG_VERSION") },
    });
    connection
        .sender
        .send(Message::Response(Response::new_ok(id, result)))
        .map_err(|e| e.to_string())?;
    let mut server = Server::new(connection, pull, refresh);
    server.watch = watch;
    server.run()
}

impl Server {
    fn new(connection: Connection, pull: bool, refresh: bool) -> Server {
        Server {
            connection,
            docs: HashMap::new(),
            contexts: HashMap::new(),
            pull,
            refresh,
            refresh_due: false,
            watch: false,
            next_id: 0,
            shown_config_error: None,
            published: HashMap::new(),
            shut_down: false,
        }
    }

    fn run(&mut self) -> Result<Ended, String> {
        let ended = |s: &Server| match s.shut_down {
            true => Ended::AfterShutdown,
            false => Ended::WithoutShutdown,
        };
        loop {
            let Ok(message) = self.connection.receiver.recv() else {
                return Ok(ended(self));
            };
            if self.handle(message)? {
                return Ok(ended(self));
            }
            // Everything already queued first (the transport reads ahead):
            // a burst of keystrokes, or of opened modules, is linted once.
            while let Ok(message) = self.connection.receiver.try_recv() {
                if self.handle(message)? {
                    return Ok(ended(self));
                }
            }
            if self.shut_down {
                continue;
            }
            if std::mem::take(&mut self.refresh_due) && self.pull && self.refresh {
                self.request("workspace/diagnostic/refresh", Value::Null)?;
            }
            if !self.pull {
                self.publish_dirty()?;
            }
        }
    }

    /// Handles one message; `true` on `exit`.
    fn handle(&mut self, message: Message) -> Result<bool, String> {
        match message {
            Message::Request(req) => {
                let refused = if self.shut_down {
                    Some("the server is shut down: only `exit` is served now")
                } else if req.method == "initialize" {
                    Some("`initialize` was already received")
                } else {
                    None
                };
                if let Some(why) = refused {
                    return self
                        .send(Message::Response(Response::new_err(
                            req.id,
                            lsp_server::ErrorCode::InvalidRequest as i32,
                            why.into(),
                        )))
                        .map(|()| false);
                }
                if req.method == "shutdown" {
                    self.shut_down = true;
                    return self
                        .send(Message::Response(Response::new_ok(req.id, Value::Null)))
                        .map(|()| false);
                }
                let id = req.id.clone();
                // A panic in a handler fails that request, never the
                // connection.
                let response = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    self.request_reply(req)
                }))
                .unwrap_or_else(|p| {
                    Response::new_err(
                        id,
                        lsp_server::ErrorCode::InternalError as i32,
                        format!(
                            "internal error in proclint: {}",
                            crate::engine::panic_message(&p)
                        ),
                    )
                });
                self.send(Message::Response(response))?;
            }
            Message::Notification(n) => match n.method.as_str() {
                "exit" => return Ok(true),
                transport::INVALID => self.send(invalid_reply(n.params))?,
                _ if self.shut_down => {}
                "initialized" if self.watch => self.register_watchers()?,
                _ => {
                    let method = n.method.clone();
                    // A panic on a notification loses that notification,
                    // never the connection.
                    let handled = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        self.notification(n)
                    }));
                    match handled {
                        Ok(result) => result?,
                        Err(p) => {
                            let message = format!(
                                "internal error in proclint on {method}: {}",
                                crate::engine::panic_message(&p)
                            );
                            eprintln!("proclint server: {message}");
                            self.notify(
                                "window/logMessage",
                                json!({ "type": 1, "message": message }),
                            )?;
                        }
                    }
                }
            },
            Message::Response(_) => {}
        }
        Ok(false)
    }

    /// Watches config edits and other modules saved outside the editor.
    fn register_watchers(&mut self) -> Result<(), String> {
        self.request(
            "client/registerCapability",
            json!({ "registrations": [{
                "id": "proclint-watch",
                "method": "workspace/didChangeWatchedFiles",
                "registerOptions": { "watchers": [
                    { "globPattern": "**/proclint.toml" },
                    { "globPattern": "**/*.{js,mjs,cjs}" },
                    { "globPattern": "**/package.json" },
                    { "globPattern": "**/SKILL.md" },
                ]},
            }]}),
        )
    }

    fn send(&self, message: Message) -> Result<(), String> {
        self.connection
            .sender
            .send(message)
            .map_err(|e| e.to_string())
    }

    fn request(&mut self, method: &str, params: Value) -> Result<(), String> {
        self.next_id += 1;
        let id = RequestId::from(format!("proclint-{}", self.next_id));
        self.send(Message::Request(Request::new(id, method.into(), params)))
    }

    fn notify(&self, method: &str, params: impl serde::Serialize) -> Result<(), String> {
        self.send(Message::Notification(Notification::new(
            method.into(),
            params,
        )))
    }

    fn request_reply(&mut self, req: Request) -> Response {
        let id = req.id.clone();
        let result = match req.method.as_str() {
            "textDocument/diagnostic" => {
                serde_json::from_value::<lsp::DocumentDiagnosticParams>(req.params)
                    .map(|p| self.pull_diagnostics(&p.text_document.uri))
            }
            "textDocument/codeAction" => {
                serde_json::from_value::<lsp::CodeActionParams>(req.params)
                    .map(|p| self.code_actions(&p.text_document.uri, p.range, &p.context))
            }
            "textDocument/hover" => {
                serde_json::from_value::<lsp::HoverParams>(req.params).map(|p| {
                    let at = p.text_document_position_params;
                    self.hover(&at.text_document.uri, at.position)
                })
            }
            _ => {
                return Response::new_err(
                    id,
                    lsp_server::ErrorCode::MethodNotFound as i32,
                    format!("unsupported request: {}", req.method),
                )
            }
        };
        match result {
            Ok(value) => Response::new_ok(id, value),
            Err(e) => Response::new_err(
                id,
                lsp_server::ErrorCode::InvalidParams as i32,
                e.to_string(),
            ),
        }
    }

    fn notification(&mut self, n: Notification) -> Result<(), String> {
        match n.method.as_str() {
            "textDocument/didOpen" => {
                if let Ok(p) = serde_json::from_value::<lsp::DidOpenTextDocumentParams>(n.params) {
                    let doc = p.text_document;
                    if let Some(path) = uri_to_path(doc.uri.as_str()) {
                        let rel = lint::relative(&path);
                        let root = crate::engine::project_root(&rel);
                        self.docs.insert(
                            doc.uri.as_str().to_string(),
                            Doc {
                                path,
                                rel,
                                root,
                                text: Text::new(doc.text),
                                version: doc.version,
                                edited: true,
                                dirty: true,
                                analysis: None,
                                linted: None,
                            },
                        );
                    }
                }
            }
            "textDocument/didChange" => {
                if let Ok(p) = serde_json::from_value::<lsp::DidChangeTextDocumentParams>(n.params)
                {
                    if let Some(doc) = self.docs.get_mut(p.text_document.uri.as_str()) {
                        doc.text.apply_all(
                            p.content_changes.iter().map(|c| (c.range, c.text.as_str())),
                        );
                        doc.version = p.text_document.version;
                        doc.edited = true;
                        doc.dirty = true;
                    }
                }
            }
            "textDocument/didClose" => {
                if let Ok(p) = serde_json::from_value::<lsp::DidCloseTextDocumentParams>(n.params) {
                    let uri = p.text_document.uri;
                    if let Some(closed) = self.docs.remove(uri.as_str()) {
                        // Its project sees the file on disk again.
                        self.contexts.clear();
                        self.touch_project(&closed.root, uri.as_str());
                        // Its findings go with it, if the client has any.
                        let shown = self.published.remove(uri.as_str());
                        if !self.pull && shown.is_some_and(|(_, d)| !d.is_empty()) {
                            self.notify(
                                "textDocument/publishDiagnostics",
                                json!({ "uri": uri, "diagnostics": [] }),
                            )?;
                        }
                    }
                }
            }
            // Saved modules are the context of the others (cross-module
            // rules read them from disk), and a saved proclint.toml changes
            // every document's configuration: re-lint everything open.
            "textDocument/didSave" | "workspace/didChangeWatchedFiles" => {
                self.contexts.clear();
                for doc in self.docs.values_mut() {
                    doc.dirty = true;
                    // The configuration may have changed.
                    doc.analysis = None;
                }
                self.refresh_due = true;
            }
            _ => {}
        }
        Ok(())
    }

    /// Marks the open documents of a project dirty (but `except`): a
    /// module of it changed, and cross-module findings may follow.
    fn touch_project(&mut self, root: &Option<PathBuf>, except: &str) {
        let mut touched = false;
        for (uri, doc) in &mut self.docs {
            if uri != except && doc.root == *root && !doc.dirty {
                doc.dirty = true;
                touched = true;
            }
        }
        if touched {
            self.refresh_due = true;
        }
    }

    /// Runs the per-file pass on every document edited since its last
    /// one, so the cross-module pass of any of them sees the others as
    /// they are in the editor.
    fn analyse_edited(&mut self) {
        let edited: BTreeSet<String> = self
            .docs
            .iter()
            .filter(|(_, d)| d.edited || d.analysis.is_none())
            .map(|(u, _)| u.clone())
            .collect();
        for uri in edited {
            let root = self.docs.get(&uri).map(|d| d.root.clone());
            self.analyse(&uri);
            if let Some(root) = root {
                self.touch_project(&root, &uri);
            }
        }
    }

    /// The per-file pass over one document, re-parsing from its tree.
    fn analyse(&mut self, uri: &str) {
        let Some(doc) = self.docs.get_mut(uri) else {
            return;
        };
        let (config, config_error) = lint::config_for(&doc.path);
        let key = format!("{config:?}");
        let kind = lint::kind_of(&doc.path, &doc.text.text);
        let helper = kind.is_none() && crate::engine::kind_of(&doc.path) == Some(FileKind::Process);
        let old = doc.text.tree.take();
        let analysed = match (kind, helper) {
            (None, false) => Ok(None),
            (None, true) => std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                open::analyse_helper(&doc.rel, &doc.text.text, old.as_ref(), &config)
            })),
            (Some(_), _) => std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                open::analyse_buffer(&doc.rel, &doc.text.text, old.as_ref(), &config)
            })),
        };
        let outcome = match analysed {
            Ok(Some((outcome, tree))) => {
                doc.text.tree = tree;
                Some(outcome)
            }
            Ok(None) => None,
            Err(p) if !helper => Some(internal_outcome(&doc.rel, crate::engine::panic_message(&p))),
            Err(_) => None,
        };
        doc.analysis = Some(Analysis {
            config: key,
            outcome,
            helper,
        });
        doc.edited = false;
        doc.dirty = true;
        self.show_config_error(config_error);
    }

    fn show_config_error(&mut self, config_error: Option<String>) {
        if config_error != self.shown_config_error {
            if let Some(message) = &config_error {
                // Shown once per distinct error; the defaults apply meanwhile.
                let _ = self.notify(
                    "window/showMessage",
                    json!({ "type": 1, "message": format!("proclint.toml ignored: {message}") }),
                );
            }
            self.shown_config_error = config_error;
        }
    }

    /// Lints a document if its findings may have changed since its last
    /// lint: the cross-module pass over its per-file outcome.
    fn ensure_linted(&mut self, uri: &str) {
        self.analyse_edited();
        let Some(doc) = self.docs.get(uri) else {
            return;
        };
        if !doc.dirty && doc.linted.is_some() {
            return;
        }
        let (config, config_error) = lint::config_for(&doc.path);
        let key = format!("{config:?}");
        if doc.analysis.as_ref().is_none_or(|a| a.config != key) {
            // The configuration changed under it.
            self.analyse(uri);
        }
        self.show_config_error(config_error);
        let Some(doc) = self.docs.get(uri) else {
            return;
        };
        let text = doc.text.text.clone();
        let kind = lint::kind_of(&doc.path, &text);
        let rel = doc.rel.clone();
        let outcome = doc
            .analysis
            .as_ref()
            .filter(|a| !a.helper)
            .and_then(|a| a.outcome.clone());
        let (diagnostics, context) = match outcome {
            None => (Vec::new(), None),
            Some(outcome) => {
                let run = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                    self.lint_in_project(uri, outcome, &config, &key)
                }));
                run.unwrap_or_else(|p| {
                    let file = crate::source::SourceFile::new(
                        crate::engine::discover::display_path(&rel),
                        String::new(),
                    );
                    let d =
                        crate::engine::internal(&file, "server", crate::engine::panic_message(&p));
                    (vec![d], None)
                })
            }
        };
        let verify = Verify {
            display: crate::engine::discover::display_path(&rel).to_string(),
            rel,
            config,
            context,
        };
        if let Some(doc) = self.docs.get_mut(uri) {
            doc.linted = Some(Linted::new(text, kind, diagnostics, verify));
            doc.dirty = false;
        }
    }

    /// The cross-module pass over one document's per-file outcome, with
    /// the other open documents of its project and the project's modules
    /// on disk (loaded once) as context; its findings on the document, and
    /// the project's modules for verifying its fixes.
    fn lint_in_project(
        &mut self,
        uri: &str,
        outcome: FileOutcome,
        config: &crate::project::config::Config,
        key: &str,
    ) -> (Vec<Diagnostic>, Option<Vec<FileOutcome>>) {
        let display = outcome.display.clone();
        let cache = lint::cache_for(config);
        let mut others = Vec::new();
        let mut helpers = Vec::new();
        if let Some((root, rel)) = self
            .docs
            .get(uri)
            .filter(|_| outcome.kind == FileKind::Process)
            .and_then(|d| Some((d.root.clone()?, d.rel.clone())))
        {
            let fresh = self.contexts.get(&root).is_some_and(|c| c.config == key);
            if !fresh {
                let modules = open::project_context(&rel, config, Some(&cache));
                self.contexts.insert(
                    root.clone(),
                    Context {
                        config: key.to_string(),
                        modules,
                    },
                );
            }
            let open_docs: Vec<(&FileOutcome, bool)> = self
                .docs
                .iter()
                .filter(|(u, d)| *u != uri && d.root.as_ref() == Some(&root))
                .filter_map(|(_, d)| {
                    let a = d.analysis.as_ref()?;
                    Some((a.outcome.as_ref()?, a.helper))
                })
                .filter(|(o, _)| o.kind == FileKind::Process)
                .collect();
            let shadowed: HashSet<PathBuf> = open_docs
                .iter()
                .map(|(o, _)| crate::project::module_key(&o.path))
                .collect();
            if let Some(context) = self.contexts.get(&root) {
                others.extend(
                    context
                        .modules
                        .iter()
                        .filter(|m| !shadowed.contains(&crate::project::module_key(&m.path)))
                        .cloned(),
                );
            }
            for (o, helper) in open_docs {
                let o = open::as_context(o.clone());
                if helper {
                    helpers.push(o);
                } else {
                    others.push(o);
                }
            }
        }
        let mut keep = config.clone();
        keep.keep_summaries = true;
        let outcome = open::finish_buffer(outcome, others, helpers, &keep, Some(&cache));
        let mine = outcome
            .diagnostics
            .into_iter()
            .filter(|d| d.location.path == display)
            .collect();
        (mine, outcome.context)
    }

    fn publish_dirty(&mut self) -> Result<(), String> {
        self.analyse_edited();
        let dirty: BTreeSet<String> = self
            .docs
            .iter()
            .filter(|(_, d)| d.dirty)
            .map(|(u, _)| u.clone())
            .collect();
        for uri in dirty {
            // Messages that arrived meanwhile first: they may change what
            // this lint reads (another module opened or edited), and the
            // loop comes back here once they are handled.
            if !self.connection.receiver.is_empty() {
                return Ok(());
            }
            self.ensure_linted(&uri);
            let Some(doc) = self.docs.get(&uri) else {
                continue;
            };
            let diagnostics = doc.linted.as_ref().map(to_lsp).unwrap_or_default();
            let version = doc.version;
            if self
                .published
                .get(&uri)
                .is_some_and(|(v, d)| *v == version && *d == diagnostics)
            {
                continue;
            }
            self.notify(
                "textDocument/publishDiagnostics",
                json!({ "uri": uri, "version": version, "diagnostics": diagnostics }),
            )?;
            self.published.insert(uri, (version, diagnostics));
        }
        Ok(())
    }

    fn pull_diagnostics(&mut self, uri: &lsp::Uri) -> Value {
        self.ensure_linted(uri.as_str());
        let items = self
            .docs
            .get(uri.as_str())
            .and_then(|d| d.linted.as_ref())
            .map(to_lsp)
            .unwrap_or_default();
        json!({ "kind": "full", "items": items })
    }

    /// Quick fixes on the findings in `range`: each finding's fix
    /// (preferred when safe), then "disable" comments; and
    /// [`FIX_ALL`], every safe fix of the document in one edit. A fix is
    /// offered only when [`crate::engine::fix::apply_verified`] keeps it:
    /// the document still loads as it did with it applied.
    fn code_actions(
        &mut self,
        uri: &lsp::Uri,
        range: lsp::Range,
        context: &lsp::CodeActionContext,
    ) -> Value {
        // A kind is asked for when `only` names it or a kind above it
        // (`source.fixAll` and `source` cover `source.fixAll.proclint`).
        let wants = |kind: &str| {
            context.only.as_ref().is_none_or(|only| {
                only.iter().any(|o| {
                    let o = o.as_str();
                    kind == o || kind.strip_prefix(o).is_some_and(|r| r.starts_with('.'))
                })
            })
        };
        let (quickfix, fix_all) = (wants("quickfix"), wants(FIX_ALL));
        if !quickfix && !fix_all {
            return json!([]);
        }
        self.ensure_linted(uri.as_str());
        let Some(linted) = self.docs.get(uri.as_str()).and_then(|d| d.linted.as_ref()) else {
            return json!([]);
        };
        let edit = |edits: &[Edit]| -> Value {
            let edits: Vec<Value> = edits
                .iter()
                .map(|e| {
                    let (s, t) = lint::edit_range(&linted.index, &linted.text, e);
                    json!({ "range": { "start": lsp_pos(s), "end": lsp_pos(t) }, "newText": e.replacement })
                })
                .collect();
            json!({ "changes": { (uri.as_str()): edits } })
        };
        let mut actions = Vec::new();
        let mut disabled_file = BTreeSet::new();
        for (i, d) in linted.diagnostics.iter().enumerate().filter(|_| quickfix) {
            let (start, end) = (lsp_pos(d.location.start), lsp_pos(d.location.end));
            if !overlaps((start, end), (range.start, range.end)) {
                continue;
            }
            let lsp_diag = to_lsp_one(d);
            if let Some(fix) = linted.verified_fix(i) {
                let mut action = json!({
                    "title": format!("Fix {}: {}", d.rule, fix.description),
                    "kind": "quickfix",
                    "diagnostics": [lsp_diag],
                    "edit": edit(&fix.edits),
                });
                if fix.safe {
                    action["isPreferred"] = json!(true);
                } else {
                    // Not what `--fix` or fix-all applies: the title says why.
                    action["title"] = json!(format!(
                        "Fix {}: {} (unsafe: changes what the process does)",
                        d.rule, fix.description
                    ));
                }
                actions.push(action);
            }
            if d.rule == "internal-error" {
                continue;
            }
            let Some(kind) = linted.kind else {
                continue;
            };
            if let Some(e) = lint::disable_line_edit(kind, &linted.text, d) {
                actions.push(json!({
                    "title": format!("Disable {} for this line", d.rule),
                    "kind": "quickfix",
                    "diagnostics": [lsp_diag],
                    "edit": edit(std::slice::from_ref(&e)),
                }));
            }
            if disabled_file.insert(d.rule) {
                if let Some(e) = lint::disable_file_edit(kind, &linted.text, d.rule) {
                    actions.push(json!({
                        "title": format!("Disable {} for this file", d.rule),
                        "kind": "quickfix",
                        "diagnostics": [lsp_diag],
                        "edit": edit(std::slice::from_ref(&e)),
                    }));
                }
            }
        }
        if fix_all && !linted.fix_all().is_empty() {
            actions.push(json!({
                "title": "Fix all safe proclint findings",
                "kind": FIX_ALL,
                "edit": edit(linted.fix_all()),
            }));
        }
        Value::Array(actions)
    }

    fn hover(&mut self, uri: &lsp::Uri, at: lsp::Position) -> Value {
        self.ensure_linted(uri.as_str());
        let Some(linted) = self.docs.get(uri.as_str()).and_then(|d| d.linted.as_ref()) else {
            return Value::Null;
        };
        let mut docs: Vec<&str> = Vec::new();
        let mut range = None;
        for d in &linted.diagnostics {
            let (start, end) = (lsp_pos(d.location.start), lsp_pos(d.location.end));
            if !(start <= at && at <= end) {
                continue;
            }
            if let Some(m) = crate::rules::meta(d.rule) {
                if !docs.contains(&m.doc) {
                    docs.push(m.doc);
                    range.get_or_insert((start, end));
                }
            }
        }
        let Some((start, end)) = range else {
            return Value::Null;
        };
        json!({
            "contents": { "kind": "markdown", "value": docs.join("\n\n---\n\n") },
            "range": { "start": start, "end": end },
        })
    }
}

/// The outcome of a per-file pass that panicked outside the engine's own
/// guards: one `internal-error` on the document.
fn internal_outcome(rel: &Path, message: String) -> FileOutcome {
    let display = crate::engine::discover::display_path(rel);
    let file = crate::source::SourceFile::new(display.clone(), String::new());
    FileOutcome {
        display,
        path: rel.to_path_buf(),
        kind: FileKind::Process,
        lines: 0,
        report: true,
        diagnostics: vec![crate::engine::internal(&file, "server", message)],
        directives: Vec::new(),
        summary: None,
        facts: None,
        hash: None,
        cache_key: None,
        looked_up: Vec::new(),
    }
}

fn to_lsp(linted: &Linted) -> Vec<Value> {
    linted.diagnostics.iter().map(to_lsp_one).collect()
}

/// One finding as an LSP diagnostic: proclint's positions are 1-based
/// lines and 1-based UTF-16 columns, LSP's 0-based lines and UTF-16
/// characters.
fn to_lsp_one(d: &Diagnostic) -> Value {
    let severity = match d.severity {
        Severity::Error => 1,
        Severity::Warning => 2,
        Severity::Info => 3,
    };
    let mut message = d.message.clone();
    if let Some(help) = &d.help {
        message.push_str("\nhelp: ");
        message.push_str(help);
    }
    let related: Vec<Value> = d
        .related
        .iter()
        .map(|r| {
            json!({
                "location": {
                    "uri": path_to_uri(&lint::absolute(Path::new(&*r.location.path))),
                    "range": { "start": lsp_pos(r.location.start), "end": lsp_pos(r.location.end) },
                },
                "message": r.message,
            })
        })
        .collect();
    let mut v = json!({
        "range": { "start": lsp_pos(d.location.start), "end": lsp_pos(d.location.end) },
        "severity": severity,
        "code": d.rule,
        "source": "proclint",
        "message": message,
    });
    if crate::rules::meta(d.rule).is_some() {
        v["codeDescription"] = json!({ "href": lint::doc_url(d.rule) });
    }
    if !related.is_empty() {
        v["relatedInformation"] = Value::Array(related);
    }
    v
}

fn lsp_pos(p: Pos) -> lsp::Position {
    lsp::Position {
        line: p.line.saturating_sub(1),
        character: p.column.saturating_sub(1),
    }
}

fn overlaps(a: (lsp::Position, lsp::Position), b: (lsp::Position, lsp::Position)) -> bool {
    a.0 <= b.1 && b.0 <= a.1
}

/// The file path of a `file:` URI (percent-decoded); `None` for other
/// schemes (untitled buffers have no project to lint them in).
pub(super) fn uri_to_path(uri: &str) -> Option<PathBuf> {
    let rest = uri.strip_prefix("file://")?;
    // Skip the authority (empty or `localhost` on local files).
    let path = &rest[rest.find('/')?..];
    let bytes = path.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        match (bytes[i], bytes.get(i + 1), bytes.get(i + 2)) {
            (b'%', Some(&h), Some(&l)) if hex(h).is_some() && hex(l).is_some() => {
                out.push((hex(h).unwrap_or(0) * 16 + hex(l).unwrap_or(0)) as u8);
                i += 3;
            }
            (b, _, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    let path = String::from_utf8(out).ok()?;
    // `file:///C:/x` on Windows.
    #[cfg(windows)]
    let path = path.strip_prefix('/').unwrap_or(&path).to_string();
    Some(PathBuf::from(path))
}

/// The `file:` URI of an absolute path, percent-encoding what RFC 3986
/// does not allow in a path.
pub(super) fn path_to_uri(path: &Path) -> String {
    let s = path.to_string_lossy().replace('\\', "/");
    let mut out = String::from("file://");
    if !s.starts_with('/') {
        out.push('/');
    }
    for b in s.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => {
                out.push(b as char)
            }
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

#[cfg(test)]
mod tests;
