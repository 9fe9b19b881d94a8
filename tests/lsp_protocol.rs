//! `proclint server` on bad input, end to end through the binary (the
//! hardening issue, item 10): framing it cannot trust, messages that are not
//! JSON it can read, the shutdown sequence, and a burst of opened modules.
//! Every run has a deadline: a hang fails the test, not the suite.

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

fn frame(body: &[u8]) -> Vec<u8> {
    let mut out = format!("Content-Length: {}\r\n\r\n", body.len()).into_bytes();
    out.extend_from_slice(body);
    out
}

fn message(v: Value) -> Vec<u8> {
    frame(v.to_string().as_bytes())
}

fn initialize() -> Vec<u8> {
    let mut out = message(
        json!({ "jsonrpc": "2.0", "id": 0, "method": "initialize", "params": { "capabilities": {} } }),
    );
    out.extend(message(
        json!({ "jsonrpc": "2.0", "method": "initialized", "params": {} }),
    ));
    out
}

fn shutdown_and_exit(id: i64) -> Vec<u8> {
    let mut out = message(json!({ "jsonrpc": "2.0", "id": id, "method": "shutdown" }));
    out.extend(message(json!({ "jsonrpc": "2.0", "method": "exit" })));
    out
}

/// A running server: its stdin, the messages it writes (read by a thread)
/// and its stderr.
struct Server {
    child: Child,
    stdin: Option<ChildStdin>,
    messages: Receiver<Value>,
    seen: Vec<Value>,
}

impl Server {
    fn start(dir: &Path) -> Server {
        let mut child = Command::new(env!("CARGO_BIN_EXE_proclint"))
            .arg("server")
            .current_dir(dir)
            .env("RAYON_NUM_THREADS", "2")
            .env_remove("PROCLINT_INJECT_PANIC")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("cannot run proclint: {e}"));
        let stdout = child.stdout.take().unwrap_or_else(|| panic!("no stdout"));
        let (tx, messages) = mpsc::channel();
        std::thread::spawn(move || {
            let mut out = BufReader::new(stdout);
            loop {
                let mut length = None;
                loop {
                    let mut line = String::new();
                    if out.read_line(&mut line).unwrap_or(0) == 0 {
                        return;
                    }
                    let line = line.trim_end();
                    if line.is_empty() {
                        break;
                    }
                    if let Some(v) = line.strip_prefix("Content-Length: ") {
                        length = v.parse::<usize>().ok();
                    }
                }
                let mut body = vec![0; length.unwrap_or_else(|| panic!("no length"))];
                if out.read_exact(&mut body).is_err() {
                    return;
                }
                let v: Value = serde_json::from_slice(&body)
                    .unwrap_or_else(|e| panic!("server wrote bad JSON: {e}"));
                if tx.send(v).is_err() {
                    return;
                }
            }
        });
        let stdin = child.stdin.take();
        Server {
            child,
            stdin,
            messages,
            seen: Vec::new(),
        }
    }

    fn send(&mut self, bytes: &[u8]) {
        if let Some(stdin) = &mut self.stdin {
            // The server may have closed the connection already.
            let _ = stdin.write_all(bytes).and_then(|()| stdin.flush());
        }
    }

    /// Waits for a message `until` accepts (keeping every one seen).
    fn wait_for(&mut self, until: impl Fn(&Value) -> bool) -> Value {
        let deadline = Instant::now() + Duration::from_secs(120);
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.messages.recv_timeout(left) {
                Ok(m) => {
                    self.seen.push(m.clone());
                    if until(&m) {
                        return m;
                    }
                }
                Err(e) => panic!("no such message ({e}); seen: {:?}", self.seen),
            }
        }
    }

    fn reply(&mut self, id: i64) -> Value {
        self.wait_for(|m| m["id"] == id && m.get("method").is_none())
    }

    /// Closes stdin and waits for the exit (a hang or a kill by a signal
    /// fails); the messages and stderr written until then.
    fn finish(mut self) -> (ExitStatus, Vec<Value>, String) {
        drop(self.stdin.take());
        let id = self.child.id();
        let mut stderr = self
            .child
            .stderr
            .take()
            .unwrap_or_else(|| panic!("no stderr"));
        let (tx, rx) = mpsc::channel();
        let mut child = self.child;
        std::thread::spawn(move || {
            let mut err = String::new();
            let _ = stderr.read_to_string(&mut err);
            let _ = tx.send((child.wait(), err));
        });
        let (status, stderr) = match rx.recv_timeout(Duration::from_secs(60)) {
            Ok((status, err)) => (status.unwrap_or_else(|e| panic!("wait: {e}")), err),
            Err(_) => {
                let _ = Command::new("kill").arg("-9").arg(id.to_string()).status();
                panic!("proclint server did not exit in 60 s");
            }
        };
        let mut seen = self.seen;
        while let Ok(m) = self.messages.recv_timeout(Duration::from_secs(5)) {
            seen.push(m);
        }
        (status, seen, stderr)
    }
}

/// Runs the server on `input` (stdin closed after it).
fn run(input: &[u8]) -> (ExitStatus, Vec<Value>, String) {
    let dir = common::tempdir();
    let mut server = Server::start(dir.path());
    server.send(input);
    server.finish()
}

fn replies(messages: &[Value], id: i64) -> Vec<&Value> {
    messages
        .iter()
        .filter(|m| m["id"] == id && m.get("method").is_none())
        .collect()
}

/// lsp-server allocated the declared length before reading a byte: 10^11
/// aborted (allocation failure), 2^64 − 1 panicked (capacity overflow) and
/// exited 101. A length over the 64 MiB limit, or one that is not a
/// number, now closes the connection: exit code 2 and the reason on stderr.
#[test]
fn absurd_content_lengths_close_the_connection() {
    for length in [
        "100000000000",
        "18446744073709551615",
        "340282366920938463463374607431768211456",
        "67108865",
        "-1",
        "12 34",
    ] {
        let mut input = initialize();
        input.extend(format!("Content-Length: {length}\r\n\r\n{{\"jsonrpc\":\"2.0\"}}").bytes());
        let (status, messages, stderr) = run(&input);
        assert_eq!(status.code(), Some(2), "{length}: {status:?} {stderr}");
        assert!(stderr.contains("Content-Length"), "{length}: {stderr}");
        assert_eq!(replies(&messages, 0).len(), 1, "{length}: {messages:?}");
    }
}

/// A header line without an end, or an endless series of headers, is not
/// read forever into memory.
#[test]
fn endless_headers_close_the_connection() {
    let endless_line = "X".repeat(1 << 20);
    let many: String = (0..10_000).map(|i| format!("X-{i}: y\r\n")).collect();
    for header in [endless_line, many] {
        let mut input = initialize();
        input.extend(header.bytes());
        let (status, _, stderr) = run(&input);
        assert_eq!(status.code(), Some(2), "{status:?} {stderr}");
        assert!(stderr.contains("header"), "{stderr}");
    }
}

/// A lone surrogate escape (valid JSON, but no string holds it) or a byte
/// that is not UTF-8 made lsp-server's reader fail and the server exit;
/// now each is an error reply to its request (its id read from what is
/// left), or, for a notification or a batch, a logged message, and the
/// server goes on.
#[test]
fn unreadable_messages_get_an_error_reply_and_the_server_goes_on() {
    let mut input = initialize();
    input.extend(frame(
        br#"{"jsonrpc":"2.0","id":7,"method":"textDocument/hover","params":{"textDocument":{"uri":"file:///x/\ud800.js"},"position":{"line":0,"character":0}}}"#,
    ));
    input.extend(frame(
        b"{\"jsonrpc\":\"2.0\",\"id\":\"eight\",\"method\":\"textDocument/hover\",\"params\":{\"textDocument\":{\"uri\":\"file:///x/\xff.js\"},\"position\":{\"line\":0,\"character\":0}}}",
    ));
    input.extend(frame(
        br#"{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///x/a.js","languageId":"javascript","version":1,"text":"\udc00"}}}"#,
    ));
    input.extend(frame(br#"[{"jsonrpc":"2.0","id":10,"method":"shutdown"}]"#));
    input.extend(frame(br#"{"jsonrpc":"2.0","id":11,"method":"#));
    input.extend(shutdown_and_exit(12));
    let (status, messages, stderr) = run(&input);
    assert_eq!(status.code(), Some(0), "{status:?} {stderr} {messages:?}");
    for id in [json!(7), json!("eight")] {
        let reply: Vec<&Value> = messages
            .iter()
            .filter(|m| m["id"] == id && m.get("method").is_none())
            .collect();
        assert_eq!(reply.len(), 1, "{id}: {messages:?}");
        assert_eq!(reply[0]["error"]["code"], -32700, "{id}: {messages:?}");
    }
    // The batch is not served, the truncated message has no id: logged.
    assert!(replies(&messages, 10).is_empty(), "{messages:?}");
    let logged = messages
        .iter()
        .filter(|m| m["method"] == "window/logMessage")
        .count();
    assert_eq!(logged, 3, "{messages:?}");
    assert_eq!(replies(&messages, 12)[0]["result"], Value::Null);
}

/// The LSP spec: `exit` without a `shutdown` before it ends the server with
/// exit code 1 (lsp-server's loop made it 0), and after one with 0.
#[test]
fn exit_without_shutdown_is_exit_code_1() {
    let mut input = initialize();
    input.extend(message(json!({ "jsonrpc": "2.0", "method": "exit" })));
    let (status, _, stderr) = run(&input);
    assert_eq!(status.code(), Some(1), "{stderr}");
    // Before `initialize`, too.
    let (status, _, stderr) = run(&message(json!({ "jsonrpc": "2.0", "method": "exit" })));
    assert_eq!(status.code(), Some(1), "{stderr}");
    let mut input = initialize();
    input.extend(shutdown_and_exit(1));
    let (status, messages, stderr) = run(&input);
    assert_eq!(status.code(), Some(0), "{stderr}");
    assert_eq!(replies(&messages, 1)[0]["result"], Value::Null);
}

/// After `shutdown` a request is an `InvalidRequest` error (lsp-server
/// took it for a protocol error and the server exited 2 without a reply),
/// and `exit` still ends it with 0.
#[test]
fn a_request_after_shutdown_is_an_invalid_request() {
    let mut input = initialize();
    input.extend(message(
        json!({ "jsonrpc": "2.0", "id": 1, "method": "shutdown" }),
    ));
    input.extend(message(json!({ "jsonrpc": "2.0", "id": 2, "method": "textDocument/hover",
        "params": { "textDocument": { "uri": "file:///x/a.js" }, "position": { "line": 0, "character": 0 } } })));
    input.extend(message(json!({ "jsonrpc": "2.0", "method": "exit" })));
    let (status, messages, stderr) = run(&input);
    assert_eq!(status.code(), Some(0), "{stderr} {messages:?}");
    assert_eq!(replies(&messages, 1)[0]["result"], Value::Null);
    let after = replies(&messages, 2);
    assert_eq!(after.len(), 1, "{messages:?}");
    assert_eq!(after[0]["error"]["code"], -32600, "{messages:?}");
}

/// An editor restoring 80 tabs sends 80 `didOpen`s at once. lsp-server's
/// reader hands over one message at a time, so the server linted and
/// published after almost every one, and each open re-lints the project's
/// other open modules: thousands of `publishDiagnostics` (n²/2). Now the
/// queued messages are read before linting, and a set already published
/// for a document is not sent again: one per document.
#[test]
fn a_burst_of_opens_publishes_each_document_once() {
    let dir = common::tempdir();
    common::write(
        dir.path(),
        "package.json",
        r#"{"name": "p", "type": "module"}"#,
    );
    let n = 80;
    let mut input = initialize();
    let mut uris = Vec::new();
    for i in 0..n {
        let text = format!(
            "import {{ defineTask }} from '@a5c-ai/babysitter-sdk';\n\n\
             export async function process{i}(inputs, ctx) {{\n  \
             await ctx.breakpoint({{ question: 'Ship {i}?' }});\n  return {{}};\n}}\n"
        );
        let path = common::write(dir.path(), &format!("m{i}.js"), &text);
        let uri = format!("file://{}", path.display());
        input.extend(message(json!({ "jsonrpc": "2.0", "method": "textDocument/didOpen",
            "params": { "textDocument": { "uri": uri, "languageId": "javascript", "version": 1, "text": text } } })));
        uris.push(uri);
    }
    let started = Instant::now();
    let mut server = Server::start(dir.path());
    server.send(&input);
    let mut published = std::collections::BTreeSet::new();
    while published.len() < n {
        let m = server.wait_for(|m| m["method"] == "textDocument/publishDiagnostics");
        published.insert(m["params"]["uri"].as_str().unwrap_or_default().to_string());
    }
    // Everything queued is handled before a request is answered.
    server.send(&message(json!({ "jsonrpc": "2.0", "id": 1, "method": "textDocument/hover",
        "params": { "textDocument": { "uri": uris[0] }, "position": { "line": 0, "character": 0 } } })));
    server.reply(1);
    let elapsed = started.elapsed();
    server.send(&shutdown_and_exit(2));
    let (status, messages, stderr) = server.finish();
    assert_eq!(status.code(), Some(0), "{stderr}");
    let sets: Vec<&Value> = messages
        .iter()
        .filter(|m| m["method"] == "textDocument/publishDiagnostics")
        .collect();
    assert_eq!(sets.len(), n, "{} sets for {n} documents", sets.len());
    for set in sets {
        assert_eq!(
            set["params"]["diagnostics"][0]["code"],
            "unchecked-breakpoint"
        );
    }
    // A backstop: seconds in a debug build, minutes when every open
    // re-linted every open module.
    assert!(elapsed < Duration::from_secs(60), "{elapsed:?}");
}

/// The server advertises `quickfix` and `source.fixAll.proclint`; the
/// fix-all action, asked for as VS Code asks on save, applies the safe
/// fix (labels moved into the definition) and not the unsafe one (the
/// unchecked breakpoint stays), and Node still loads the result.
#[test]
fn fix_all_on_save_applies_the_safe_fixes() {
    let dir = common::tempdir();
    common::write(
        dir.path(),
        "package.json",
        r#"{"name": "p", "type": "module"}"#,
    );
    let text = "import { defineTask } from '@a5c-ai/babysitter-sdk';\n\n\
        export const lint = defineTask('lint', (args) => ({\n  kind: 'shell',\n  title: 'Lint',\n}), {\n  labels: ['lint'],\n});\n\n\
        export async function process(inputs, ctx) {\n  await ctx.task(lint, {});\n  \
        await ctx.breakpoint({ question: 'Ship?' });\n  return {};\n}\n";
    let path = common::write(dir.path(), "m.js", text);
    let uri = format!("file://{}", path.display());
    let mut input = initialize();
    input.extend(message(json!({ "jsonrpc": "2.0", "method": "textDocument/didOpen",
        "params": { "textDocument": { "uri": uri, "languageId": "javascript", "version": 1, "text": text } } })));
    input.extend(message(json!({ "jsonrpc": "2.0", "id": 1, "method": "textDocument/codeAction",
        "params": { "textDocument": { "uri": uri },
            "range": { "start": { "line": 0, "character": 0 }, "end": { "line": 15, "character": 0 } },
            "context": { "diagnostics": [], "only": ["source.fixAll.proclint"], "triggerKind": 2 } } })));
    let mut server = Server::start(dir.path());
    server.send(&input);
    let init = server.reply(0);
    assert_eq!(
        init["result"]["capabilities"]["codeActionProvider"]["codeActionKinds"],
        json!(["quickfix", "source.fixAll.proclint"])
    );
    let reply = server.reply(1);
    let actions = reply["result"].as_array().cloned().unwrap_or_default();
    assert_eq!(actions.len(), 1, "{reply}");
    assert_eq!(actions[0]["kind"], "source.fixAll.proclint");
    // ASCII text: UTF-16 units are bytes. Ranges refer to the text before
    // the edit, so apply from the end.
    let starts: Vec<usize> = std::iter::once(0)
        .chain(text.match_indices('\n').map(|(i, _)| i + 1))
        .collect();
    let at = |p: &Value| {
        starts[p["line"].as_u64().unwrap_or(0) as usize]
            + p["character"].as_u64().unwrap_or(0) as usize
    };
    let mut edits: Vec<(usize, usize, String)> = actions[0]["edit"]["changes"][uri.as_str()]
        .as_array()
        .unwrap_or_else(|| panic!("no edits: {reply}"))
        .iter()
        .map(|e| {
            let r = &e["range"];
            (
                at(&r["start"]),
                at(&r["end"]),
                e["newText"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    edits.sort_by_key(|e| std::cmp::Reverse((e.0, e.1)));
    let mut fixed = text.to_string();
    for (s, e, t) in edits {
        fixed.replace_range(s..e, &t);
    }
    assert!(
        fixed.contains("  kind: 'shell',\n  labels: ['lint'],\n"),
        "{fixed}"
    );
    assert!(fixed.contains("}), {\n});"), "{fixed}");
    assert!(
        fixed.contains("  await ctx.breakpoint({ question: 'Ship?' });"),
        "{fixed}"
    );
    server.send(&shutdown_and_exit(2));
    let (status, _, stderr) = server.finish();
    assert_eq!(status.code(), Some(0), "{stderr}");
    let fixed_path = common::write(dir.path(), "fixed.mjs", &fixed);
    if let Ok(o) = Command::new("node")
        .arg("--check")
        .arg(&fixed_path)
        .output()
    {
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
}

/// Issue 35: in a repository with a nested `sub/proclint.toml`, `check` took
/// the working directory's configuration and the editor the nearest one, so
/// the same file got 14 findings from one and 8 from the other. Both now
/// give every file the nearest configuration at or above it (here one that
/// extends the root's and adds a per-file ignore): the same findings.
#[test]
fn check_and_the_language_server_agree_under_a_nested_config() {
    let dir = common::tempdir();
    let repo = dir.path();
    std::fs::create_dir(repo.join(".git")).unwrap_or_else(|e| panic!("{e}"));
    common::write(repo, "package.json", r#"{"name": "p", "type": "module"}"#);
    common::write(repo, "proclint.toml", "[rules]\nmissing-labels = \"off\"\n");
    common::write(
        repo,
        "sub/proclint.toml",
        "extend = \"../proclint.toml\"\n\n[rules]\nunchecked-breakpoint = \"warning\"\n\n\
         [per-file-ignores]\n\"*.js\" = [\"missing-stable-key\"]\n",
    );
    let text = "import { defineTask } from '@a5c-ai/babysitter-sdk';\n\n\
        export const build = defineTask('build', () => ({ kind: 'shell', shell: { command: 'make' } }));\n\n\
        export async function process(inputs, ctx) {\n  \
        await ctx.breakpoint({ question: 'Ship?', label: 'Ship?' });\n  \
        for (const x of inputs.items) {\n    await ctx.task(build, { x });\n  }\n  return {};\n}\n";
    let path = common::write(repo, "sub/p.js", text);
    let o = common::proclint_in(repo, &["check", ".", "--format", "json", "--no-cache"]);
    let from_check: Vec<(String, u64, String)> = common::findings(&common::report_json(&o))
        .into_iter()
        .filter(|f| f.1 == "sub/p.js")
        .map(|f| {
            let d = common::report_json(&o)["diagnostics"]
                .as_array()
                .and_then(|a| {
                    a.iter()
                        .find(|d| d["rule"] == f.0.as_str() && d["line"] == f.2)
                        .cloned()
                })
                .unwrap_or_default();
            (f.0, f.2, d["severity"].as_str().unwrap_or("").to_string())
        })
        .collect();
    let rules: Vec<&str> = from_check.iter().map(|f| f.0.as_str()).collect();
    // The nested configuration applies (the breakpoint is a warning, the
    // loop's key is ignored) on top of what it extends (no labels rule).
    assert!(rules.contains(&"unchecked-breakpoint"), "{from_check:?}");
    assert!(!rules.contains(&"missing-stable-key"), "{from_check:?}");
    assert!(!rules.contains(&"missing-labels"), "{from_check:?}");
    assert!(
        from_check
            .iter()
            .any(|f| f.0 == "unchecked-breakpoint" && f.2 == "warning"),
        "{from_check:?}"
    );
    let uri = format!("file://{}", path.display());
    let mut input = initialize();
    input.extend(message(json!({ "jsonrpc": "2.0", "method": "textDocument/didOpen",
        "params": { "textDocument": { "uri": uri, "languageId": "javascript", "version": 1, "text": text } } })));
    let mut server = Server::start(repo);
    server.send(&input);
    let published = server.wait_for(|m| m["method"] == "textDocument/publishDiagnostics");
    server.send(&shutdown_and_exit(1));
    let (status, _, stderr) = server.finish();
    assert_eq!(status.code(), Some(0), "{stderr}");
    let severity = |n: &Value| match n.as_u64() {
        Some(1) => "error",
        Some(2) => "warning",
        Some(3) => "info",
        _ => "hint",
    };
    let mut from_server: Vec<(String, u64, String)> = published["params"]["diagnostics"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .iter()
        .map(|d| {
            (
                d["code"].as_str().unwrap_or("").to_string(),
                d["range"]["start"]["line"].as_u64().unwrap_or(0) + 1,
                severity(&d["severity"]).to_string(),
            )
        })
        .collect();
    let mut from_check = from_check;
    from_check.sort();
    from_server.sort();
    assert_eq!(from_check, from_server);
}
