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
