//! The language server driven in-process: edits, publishing, lifecycle.

#![allow(clippy::unwrap_used)]

use super::*;
use std::time::{Duration, Instant};

fn test_server() -> (Server, Connection) {
    let (server, client) = Connection::memory();
    (Server::new(server, false, false), client)
}

fn notification(method: &str, params: Value) -> Notification {
    Notification::new(method.into(), params)
}

fn did_open(uri: &str, text: &str) -> Notification {
    notification(
        "textDocument/didOpen",
        json!({ "textDocument": { "uri": uri, "languageId": "javascript", "version": 1, "text": text } }),
    )
}

fn change(a: (usize, usize), b: (usize, usize), text: &str) -> Value {
    json!({ "range": { "start": { "line": a.0, "character": a.1 }, "end": { "line": b.0, "character": b.1 } }, "text": text })
}

/// A notification carrying 40,000 edits to a 40,000-line buffer is
/// applied in one pass over the text: recomputing the line starts per
/// change took about 30 s. Last line first (VS Code's order for
/// multi-cursor edits), first line first, and edits that add lines.
#[test]
fn a_change_with_many_edits_is_linear() {
    let lines = 40_000;
    let line = |i: usize| format!("  const value{i} = compute({i}); // \u{1F600} é\r\n");
    let text: String = (0..lines).map(line).collect();
    let uri = "file:///tmp/proclint-linear/big.txt";
    let (mut server, _client) = test_server();
    server.notification(did_open(uri, &text)).unwrap();
    // One edit per line; the second set also splits every line in two.
    let last_first: Vec<Value> = (0..lines)
        .rev()
        .map(|i| change((i, 2), (i, 7), "let"))
        .collect();
    // After the 😀 (two UTF-16 units): "é" is at character 36 + digits.
    let first_first: Vec<Value> = (0..lines)
        .map(|i| {
            let at = 2 * i; // each earlier edit added a line
            let col = line(i).replace("const", "let").encode_utf16().count() - 2;
            change((at, col - 1), (at, col), "e\n")
        })
        .collect();
    let mut expected = text.replace("  const", "  let");
    let started = Instant::now();
    for (version, changes) in [(2, last_first), (3, first_first)] {
        server
            .notification(notification(
                "textDocument/didChange",
                json!({ "textDocument": { "uri": uri, "version": version }, "contentChanges": changes }),
            ))
            .unwrap();
        if version == 3 {
            expected = expected.replace("é\r\n", "e\n\r\n");
        }
        assert!(server.docs[uri].text.text == expected, "version {version}");
    }
    let elapsed = started.elapsed();
    // A backstop, not a benchmark: a few hundred milliseconds in a
    // debug build; the quadratic version took minutes.
    assert!(elapsed < Duration::from_secs(10), "{elapsed:?}");
}

/// A client over the in-memory connection, the server's loop running
/// in a thread.
struct Client {
    connection: Connection,
    server: Option<std::thread::JoinHandle<Result<Ended, String>>>,
    next_id: i32,
    published: Vec<Value>,
}

impl Client {
    fn start() -> Client {
        let (server, connection) = Connection::memory();
        let server = std::thread::spawn(move || serve(server));
        let mut client = Client {
            connection,
            server: Some(server),
            next_id: 0,
            published: Vec::new(),
        };
        let reply = client.request("initialize", json!({ "capabilities": {} }));
        assert!(reply.result.is_some(), "{reply:?}");
        client.notify("initialized", json!({}));
        client
    }

    fn notify(&self, method: &str, params: Value) {
        self.send(Message::Notification(notification(method, params)));
    }

    fn send(&self, message: Message) {
        self.connection.sender.send(message).unwrap();
    }

    fn recv(&mut self) -> Message {
        let message = self
            .connection
            .receiver
            .recv_timeout(Duration::from_secs(120))
            .unwrap();
        if let Message::Notification(n) = &message {
            if n.method == "textDocument/publishDiagnostics" {
                self.published.push(n.params.clone());
            }
        }
        message
    }

    /// Sends a request and waits for its reply (keeping what is
    /// published meanwhile).
    fn request(&mut self, method: &str, params: Value) -> Response {
        self.next_id += 1;
        let id = RequestId::from(self.next_id);
        self.send(Message::Request(Request::new(
            id.clone(),
            method.into(),
            params,
        )));
        loop {
            if let Message::Response(r) = self.recv() {
                if r.id == id {
                    return r;
                }
            }
        }
    }

    /// Waits until every uri of `uris` has been published at least once.
    fn wait_published(&mut self, uris: &[String]) {
        while !uris
            .iter()
            .all(|u| self.published.iter().any(|p| p["uri"] == u.as_str()))
        {
            self.recv();
        }
    }

    fn shutdown(mut self) -> Result<Ended, String> {
        let reply = self.request("shutdown", Value::Null);
        assert!(reply.error.is_none(), "{reply:?}");
        self.notify("exit", Value::Null);
        self.server.take().unwrap().join().unwrap()
    }
}

/// A project of `n` process modules, each with an unchecked breakpoint.
fn project(n: usize) -> (tempfile::TempDir, Vec<(String, String)>) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("package.json"),
        r#"{"name": "p", "type": "module"}"#,
    )
    .unwrap();
    let mut modules = Vec::new();
    for i in 0..n {
        let text = format!(
            "import {{ defineTask }} from '@a5c-ai/babysitter-sdk';\n\n\
             export async function process{i}(inputs, ctx) {{\n  \
             await ctx.breakpoint({{ question: 'Ship {i}?' }});\n  return {{}};\n}}\n"
        );
        let path = dir.path().join(format!("m{i}.js"));
        std::fs::write(&path, &text).unwrap();
        modules.push((path_to_uri(&path), text));
    }
    (dir, modules)
}

/// Opening modules a few at a time (an editor restoring its tabs while
/// the server lints) re-lints the project's other open modules each
/// time, and their unchanged diagnostics are not published again: one
/// publish per document, not one per document per open.
#[test]
fn unchanged_diagnostics_are_not_published_again() {
    let (_dir, modules) = project(60);
    let mut client = Client::start();
    for batch in modules.chunks(6) {
        for (uri, text) in batch {
            client.send(Message::Notification(did_open(uri, text)));
        }
        let uris: Vec<String> = batch.iter().map(|(u, _)| u.clone()).collect();
        client.wait_published(&uris);
    }
    // Everything settled: a request is answered after the queue drains.
    client.request(
        "textDocument/hover",
        json!({ "textDocument": { "uri": modules[0].0 }, "position": { "line": 0, "character": 0 } }),
    );
    let published = std::mem::take(&mut client.published);
    assert_eq!(client.shutdown(), Ok(Ended::AfterShutdown));
    for (uri, _) in &modules {
        let sets: Vec<&Value> = published
            .iter()
            .filter(|p| p["uri"] == uri.as_str())
            .collect();
        assert_eq!(sets.len(), 1, "{uri}: {sets:?}");
        let codes: Vec<&Value> = sets[0]["diagnostics"]
            .as_array()
            .unwrap()
            .iter()
            .map(|d| &d["code"])
            .collect();
        assert_eq!(codes, [&json!("unchecked-breakpoint")], "{uri}");
    }
    assert_eq!(published.len(), modules.len());
}

#[test]
fn uris_round_trip() {
    let p = Path::new("/tmp/a b/ünï/SKILL.md");
    let uri = path_to_uri(p);
    assert_eq!(uri, "file:///tmp/a%20b/%C3%BCn%C3%AF/SKILL.md");
    assert_eq!(uri_to_path(&uri).unwrap(), p);
    assert_eq!(
        uri_to_path("file://localhost/x/y.js").unwrap(),
        Path::new("/x/y.js")
    );
    assert!(uri_to_path("untitled:Untitled-1").is_none());
}

/// A module with a safe fix (labels given to `defineTask`'s options move
/// into the definition) and an unsafe one (the unchecked breakpoint gets
/// bound and guarded), after non-ASCII text so UTF-16 columns matter.
const FIXABLE: &str = "import { defineTask } from '@a5c-ai/babysitter-sdk';\n\n\
export const lint = defineTask('lint', (args) => ({\n  kind: 'shell',\n  title: 'Lint “α” 😀',\n  \
shell: { command: 'npm run lint' },\n}), {\n  labels: ['lint'],\n});\n\n\
export async function process(inputs, ctx) {\n  await ctx.task(lint, {});\n  \
await ctx.breakpoint({ question: 'Ship 😀 “it”?' });\n  return {};\n}\n";

/// A project holding `FIXABLE` as m.js, open in a started client; the
/// module's uri and its published diagnostics.
fn open_fixable() -> (tempfile::TempDir, Client, String, Vec<Value>) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("package.json"),
        r#"{"name": "p", "type": "module"}"#,
    )
    .unwrap();
    let path = dir.path().join("m.js");
    std::fs::write(&path, FIXABLE).unwrap();
    let uri = path_to_uri(&path);
    let mut client = Client::start();
    client.send(Message::Notification(did_open(&uri, FIXABLE)));
    client.wait_published(std::slice::from_ref(&uri));
    let published = client
        .published
        .iter()
        .rev()
        .find(|p| p["uri"] == uri.as_str())
        .unwrap();
    let diagnostics = published["diagnostics"].as_array().unwrap().clone();
    (dir, client, uri, diagnostics)
}

fn code_actions(
    client: &mut Client,
    uri: &str,
    range: &Value,
    only: Option<&[&str]>,
) -> Vec<Value> {
    let mut context = json!({ "diagnostics": [] });
    if let Some(only) = only {
        context["only"] = json!(only);
    }
    let reply = client.request(
        "textDocument/codeAction",
        json!({ "textDocument": { "uri": uri }, "range": range, "context": context }),
    );
    reply.result.unwrap().as_array().unwrap().clone()
}

/// A workspace edit's changes to `uri` applied to `text`, as a client
/// applies them: every range refers to the text before the edit.
fn apply_edit(text: &str, edit: &Value, uri: &str) -> String {
    let mut edits: Vec<(lsp::Range, String)> = edit["changes"][uri]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| {
            (
                serde_json::from_value(e["range"].clone()).unwrap(),
                e["newText"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    edits.sort_by_key(|(r, _)| std::cmp::Reverse((r.start, r.end)));
    let mut doc = Text::new(text.to_string());
    doc.apply_all(edits.iter().map(|(r, t)| (Some(*r), t.as_str())));
    doc.text
}

fn diagnostic<'a>(diagnostics: &'a [Value], rule: &str) -> &'a Value {
    diagnostics
        .iter()
        .find(|d| d["code"] == rule)
        .unwrap_or_else(|| panic!("no {rule} in {diagnostics:?}"))
}

/// Every finding's fix is a quick fix on its diagnostic: the safe one
/// preferred, the unsafe one offered but not preferred and saying so.
#[test]
fn each_fix_is_a_quick_fix_on_its_diagnostic() {
    let (_dir, mut client, uri, diagnostics) = open_fixable();
    let labels = diagnostic(&diagnostics, "missing-labels");
    let actions = code_actions(&mut client, &uri, &labels["range"], None);
    let fix = actions
        .iter()
        .find(|a| {
            a["title"]
                .as_str()
                .unwrap()
                .starts_with("Fix missing-labels")
        })
        .unwrap_or_else(|| panic!("{actions:#?}"));
    assert_eq!(fix["kind"], "quickfix");
    assert_eq!(fix["isPreferred"], true);
    assert_eq!(fix["diagnostics"], json!([labels]));
    let fixed = apply_edit(FIXABLE, &fix["edit"], &uri);
    assert!(
        fixed.contains("  kind: 'shell',\n  labels: ['lint'],\n  title: 'Lint “α” 😀',"),
        "{fixed}"
    );
    // The disable actions are still there, and not preferred.
    let titles: Vec<&str> = actions
        .iter()
        .map(|a| a["title"].as_str().unwrap())
        .collect();
    assert!(
        titles.contains(&"Disable missing-labels for this line"),
        "{titles:?}"
    );
    assert!(actions
        .iter()
        .filter(|a| a["isPreferred"] == true)
        .all(|a| a["title"] == fix["title"]));

    let breakpoint = diagnostic(&diagnostics, "unchecked-breakpoint");
    // It ends after the emoji: 53 UTF-16 units (59 bytes, 52 chars).
    assert_eq!(
        breakpoint["range"]["end"],
        json!({ "line": 12, "character": 53 })
    );
    let actions = code_actions(&mut client, &uri, &breakpoint["range"], Some(&["quickfix"]));
    let fix = actions
        .iter()
        .find(|a| {
            a["title"]
                .as_str()
                .unwrap()
                .starts_with("Fix unchecked-breakpoint")
        })
        .unwrap_or_else(|| panic!("{actions:#?}"));
    assert!(fix.get("isPreferred").is_none(), "{fix}");
    assert!(fix["title"].as_str().unwrap().contains("unsafe"), "{fix}");
    assert_eq!(fix["diagnostics"], json!([breakpoint]));
    let fixed = apply_edit(FIXABLE, &fix["edit"], &uri);
    assert!(
        fixed.contains("  const decision = await ctx.breakpoint({ question: 'Ship 😀 “it”?' });\n  if (!decision.approved) {"),
        "{fixed}"
    );
    // `quickfix` asked for alone: no source action.
    assert!(actions.iter().all(|a| a["kind"] == "quickfix"));
    assert_eq!(client.shutdown(), Ok(Ended::AfterShutdown));
}

/// `source.fixAll.proclint` applies the safe fixes, and only those, in
/// one edit; the result still loads, and re-linted it keeps only the
/// finding whose fix is unsafe.
#[test]
fn fix_all_applies_the_safe_fixes_in_one_edit() {
    let (_dir, mut client, uri, _) = open_fixable();
    let whole =
        json!({ "start": { "line": 0, "character": 0 }, "end": { "line": 16, "character": 0 } });
    for only in [
        &["source.fixAll.proclint"][..],
        &["source.fixAll"],
        &["source"],
    ] {
        let actions = code_actions(&mut client, &uri, &whole, Some(only));
        assert_eq!(actions.len(), 1, "{only:?}: {actions:#?}");
        assert_eq!(actions[0]["kind"], FIX_ALL);
    }
    assert!(code_actions(&mut client, &uri, &whole, Some(&["source.organizeImports"])).is_empty());
    assert!(code_actions(&mut client, &uri, &whole, Some(&["source.fixAllx"])).is_empty());
    // Without `only` (a client's lightbulb), fix-all comes last.
    let all = code_actions(&mut client, &uri, &whole, None);
    assert_eq!(all.last().unwrap()["kind"], FIX_ALL);

    let actions = code_actions(&mut client, &uri, &whole, Some(&[FIX_ALL]));
    let fixed = apply_edit(FIXABLE, &actions[0]["edit"], &uri);
    let expected = FIXABLE
        .replace(
            "  kind: 'shell',\n",
            "  kind: 'shell',\n  labels: ['lint'],\n",
        )
        .replace("}), {\n  labels: ['lint'],\n});", "}), {\n});");
    assert_eq!(fixed, expected);
    let loads = crate::js::syntax::oxc::loads(&fixed).unwrap();
    assert!(loads.module, "{fixed}");

    client.notify(
        "textDocument/didChange",
        json!({ "textDocument": { "uri": uri, "version": 2 }, "contentChanges": [{ "text": fixed }] }),
    );
    let reply = client.request(
        "textDocument/diagnostic",
        json!({ "textDocument": { "uri": uri } }),
    );
    let codes: Vec<Value> = reply.result.unwrap()["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|d| d["code"].clone())
        .collect();
    // The lint's result is discarded before the breakpoint: no fix for that.
    assert_eq!(
        codes,
        [
            json!("unchecked-shell-result"),
            json!("unchecked-breakpoint")
        ]
    );
    // Nothing safe is left: no fix-all.
    assert!(code_actions(&mut client, &uri, &whole, Some(&[FIX_ALL])).is_empty());
    assert_eq!(client.shutdown(), Ok(Ended::AfterShutdown));
}

/// A fix whose edits would keep the module from loading is not offered,
/// alone or in fix-all (`engine::fix::apply_verified` judges it).
#[test]
fn a_fix_that_breaks_loading_is_not_offered() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("m.js");
    std::fs::write(&path, FIXABLE).unwrap();
    let uri = path_to_uri(&path);
    let (mut server, _client) = test_server();
    server.notification(did_open(&uri, FIXABLE)).unwrap();
    server.ensure_linted(&uri);
    let linted = server.docs.get_mut(&uri).unwrap().linted.as_mut().unwrap();
    for d in &mut linted.diagnostics {
        if let Some(fix) = &mut d.fix {
            // `lint` declared twice: an early error, the module no longer loads.
            fix.safe = true;
            fix.edits.push(Edit {
                span: crate::source::Span::new(0, 0),
                replacement: "let lint;\n".into(),
            });
        }
    }
    let uri: lsp::Uri = uri.parse().unwrap();
    let whole = lsp::Range::new(lsp::Position::new(0, 0), lsp::Position::new(16, 0));
    let actions = server.code_actions(&uri, whole, &lsp::CodeActionContext::default());
    let titles: Vec<&str> = actions
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["title"].as_str().unwrap())
        .collect();
    assert!(!titles.is_empty());
    assert!(
        titles.iter().all(|t| t.starts_with("Disable")),
        "{titles:?}"
    );
}

#[test]
fn capabilities_name_both_kinds() {
    let (server, client) = Connection::memory();
    let thread = std::thread::spawn(move || serve(server));
    client
        .sender
        .send(Message::Request(Request::new(
            RequestId::from(1),
            "initialize".into(),
            json!({ "capabilities": {} }),
        )))
        .unwrap();
    let Message::Response(reply) = client.receiver.recv().unwrap() else {
        panic!("no reply");
    };
    let kinds = &reply.result.unwrap()["capabilities"]["codeActionProvider"]["codeActionKinds"];
    assert_eq!(*kinds, json!(["quickfix", "source.fixAll.proclint"]));
    client
        .sender
        .send(Message::Notification(notification("exit", Value::Null)))
        .unwrap();
    assert_eq!(thread.join().unwrap(), Ok(Ended::WithoutShutdown));
}
