//! `proclint mcp`: a Model Context Protocol server over stdio, so an agent
//! can check what it writes before it runs it.
//!
//! The transport is MCP's stdio one: one JSON-RPC 2.0 message per line on
//! stdin and stdout, nothing else on stdout. The subset implemented is what
//! a tools-only server needs: `initialize`, `ping`, `tools/list`,
//! `tools/call`, and notifications (accepted, ignored). It is written here
//! over serde_json rather than with the `rmcp` SDK, whose async runtime
//! (tokio) and schema derivation would more than double the build for a
//! protocol that is five methods of line-delimited JSON (see
//! docs/development.md, "Crates and why").
//!
//! Tools: `check` (paths, or a source text and the file name it will have:
//! a line per finding and the counts, narrowed by rule, severity and count;
//! with `detail`, fixes as edits with positions), `explain` (a rule's
//! doc) and `fix` (the unified diff of the safe fixes, or with `unsafe`
//! of every fix; nothing is written).

use std::io::{BufRead, Read, Write};
use std::path::{Path, PathBuf};

use serde_json::{json, Map, Value};

use crate::diagnostic::Diagnostic;
use crate::engine::{self, Outcome, Stage};
use crate::server::{jsonrpc, lint};
use crate::source::{LineIndex, Location};

/// Protocol versions this server speaks, newest first. The client's is
/// echoed when known (the handshake's rule), else the newest is offered.
const VERSIONS: &[&str] = &["2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"];

/// Serves on stdin/stdout until stdin closes. The exit code is 0 then, 2
/// if stdout fails.
pub fn run() -> i32 {
    let stdin = std::io::stdin();
    let stdout = std::io::stdout();
    match serve(stdin.lock(), stdout.lock()) {
        Ok(()) => crate::source::output::EXIT_OK,
        Err(e) => {
            eprintln!("error: proclint mcp: {e}");
            crate::source::output::EXIT_ERROR
        }
    }
}

/// The message loop, over any reader and writer (the tests drive it in
/// memory).
///
/// A line it cannot read is answered, never the end of the loop: bytes
/// that are not UTF-8, a lone surrogate escape (`"\ud800"`) or text that is
/// not JSON get a parse error (-32700) carrying the request's id when what
/// is left of the line still names one (else null); a batch (a JSON
/// array: batching was removed from MCP in 2025-06-18) or a value that is
/// not an object gets an invalid-request error (-32600, id null); a line
/// over [`jsonrpc::MAX_MESSAGE`] (64 MiB) is skipped unread and gets an
/// invalid-request error. Only a failing input or output ends it early.
pub fn serve(input: impl BufRead, output: impl Write) -> std::io::Result<()> {
    serve_limited(input, output, jsonrpc::MAX_MESSAGE)
}

fn serve_limited(
    mut input: impl BufRead,
    mut output: impl Write,
    limit: usize,
) -> std::io::Result<()> {
    let mut line = Vec::new();
    loop {
        line.clear();
        let reply = match read_line(&mut input, &mut line, limit)? {
            Line::End => return Ok(()),
            Line::TooLong => Some(error(
                Value::Null,
                jsonrpc::INVALID_REQUEST,
                &format!("a message over the limit of {limit} bytes (skipped)"),
            )),
            Line::Read if line.trim_ascii().is_empty() => None,
            Line::Read => match jsonrpc::parse(&line) {
                Ok(message) => handle(&message),
                Err(invalid) => Some(error(invalid.id, invalid.code, &invalid.message)),
            },
        };
        if let Some(reply) = reply {
            serde_json::to_writer(&mut output, &reply)?;
            output.write_all(b"\n")?;
            output.flush()?;
        }
    }
}

enum Line {
    /// The end of the input.
    End,
    /// A line (without its end), in the buffer.
    Read,
    /// A line over the limit, read past without keeping it.
    TooLong,
}

/// Reads one line of at most `limit` bytes into `line`.
fn read_line(input: &mut impl BufRead, line: &mut Vec<u8>, limit: usize) -> std::io::Result<Line> {
    let read = input
        .by_ref()
        .take(limit as u64 + 1)
        .read_until(b'\n', line)?;
    if read == 0 {
        return Ok(Line::End);
    }
    if line.last() == Some(&b'\n') {
        line.pop();
        return Ok(Line::Read);
    }
    if line.len() <= limit {
        // The last line, without a line break.
        return Ok(Line::Read);
    }
    line.clear();
    loop {
        let buf = input.fill_buf()?;
        if buf.is_empty() {
            return Ok(Line::TooLong);
        }
        if let Some(end) = memchr::memchr(b'\n', buf) {
            input.consume(end + 1);
            return Ok(Line::TooLong);
        }
        let n = buf.len();
        input.consume(n);
    }
}

/// The reply to one message; `None` for notifications and responses.
fn handle(message: &Value) -> Option<Value> {
    if message.is_array() {
        return Some(error(
            Value::Null,
            jsonrpc::INVALID_REQUEST,
            "invalid request: a batch (JSON array); send one message per line \
             (batching was removed from MCP in 2025-06-18)",
        ));
    }
    if !message.is_object() {
        return Some(error(
            Value::Null,
            jsonrpc::INVALID_REQUEST,
            "invalid request: not a JSON object",
        ));
    }
    let id = message.get("id").cloned();
    let Some(method) = message.get("method").and_then(Value::as_str) else {
        // A response to a request we never send, or no method.
        return id.map(|id| error(id, -32600, "invalid request"));
    };
    // Notifications (`notifications/initialized`, `…/cancelled`) need no
    // answer: every call here finishes before the next line is read.
    let id = id?;
    let params = message.get("params").cloned().unwrap_or(Value::Null);
    let result = match method {
        "initialize" => Ok(initialize(&params)),
        "ping" => Ok(json!({})),
        "tools/list" => Ok(json!({ "tools": tools() })),
        "tools/call" => call(&params),
        _ => Err((-32601, format!("method not found: {method}"))),
    };
    Some(match result {
        Ok(result) => json!({ "jsonrpc": "2.0", "id": id, "result": result }),
        Err((code, message)) => error(id, code, &message),
    })
}

fn error(id: Value, code: i64, message: &str) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "error": { "code": code, "message": message } })
}

fn initialize(params: &Value) -> Value {
    let asked = params.get("protocolVersion").and_then(Value::as_str);
    let version = asked
        .filter(|v| VERSIONS.contains(v))
        .unwrap_or(VERSIONS[0]);
    json!({
        "protocolVersion": version,
        "capabilities": { "tools": { "listChanged": false } },
        "serverInfo": { "name": "proclint", "version": env!("CARGO_PKG_VERSION") },
        "instructions": "Check babysitter process modules (JavaScript), SKILL.md files and \
            package.json with `check` before running them; `fix` gives the safe fixes as a \
            diff (with `unsafe: true`, every fix; review those); `explain` gives a rule's \
            documentation.",
    })
}

fn tools() -> Value {
    let target = json!({
        "paths": {
            "type": "array", "items": { "type": "string" },
            "description": "Files or directories to lint (relative to the server's working directory)."
        },
        "source": {
            "type": "string",
            "description": "A file's text to lint instead of paths; give `filename` too."
        },
        "filename": {
            "type": "string",
            "description": "The path `source` will have (its name picks process module, SKILL.md or package.json; its folder gives the project's other modules as context)."
        }
    });
    let mut check_args = target.clone();
    check_args["select"] = json!({
        "type": "array", "items": { "type": "string" },
        "description": "Only these rules: ids or categories (correctness, suspicious, pedantic, run, tooling, all). Default: every finding."
    });
    check_args["min_severity"] = json!({
        "type": "string", "enum": ["info", "warning", "error"],
        "description": "Only findings of this severity or higher. Default: info (all)."
    });
    check_args["limit"] = json!({
        "type": "integer", "minimum": 0, "default": DEFAULT_LIMIT,
        "description": "At most this many findings (the counts cover them all)."
    });
    check_args["detail"] = json!({
        "type": "boolean", "default": false,
        "description": "Each finding in full: help, doc_url, related locations and the fix's edits with positions. Default: path, position, rule, severity, message and whether a fix exists."
    });
    let mut fix_args = target.clone();
    fix_args["unsafe"] = json!({
        "type": "boolean",
        "default": false,
        "description": "Apply the unsafe fixes too (they change what the process does at run time, as most fixes of real findings intend to; review the diff). Default: safe fixes only."
    });
    json!([
        {
            "name": "check",
            "title": "Lint with proclint",
            "description": "Lint babysitter process modules, SKILL.md files and package.json: \
                paths, or a source text plus the file name it will have. Returns one line per \
                finding (path:line:column, severity, rule, message, whether a fix exists) and \
                the counts; the structured result holds the findings (1-based line/column in \
                UTF-16 units). `select`, `min_severity` and `limit` (default 50) narrow it; \
                `detail: true` adds help, related locations and each fix's edits.",
            "inputSchema": { "type": "object", "properties": check_args },
            "annotations": { "readOnlyHint": true, "openWorldHint": false },
        },
        {
            "name": "fix",
            "title": "Fixes as a diff",
            "description": "The unified diff of every safe fix for paths or a source text \
                (with `filename`); with `unsafe: true`, of the unsafe fixes too (they change \
                what the process does at run time: review them). Nothing is written. For a \
                source text the fixed text is returned too.",
            "inputSchema": { "type": "object", "properties": fix_args },
            "annotations": { "readOnlyHint": true, "openWorldHint": false },
        },
        {
            "name": "explain",
            "title": "A rule's documentation",
            "description": "The documentation of a proclint rule: what it finds, why it matters, \
                examples, how to suppress it.",
            "inputSchema": {
                "type": "object",
                "properties": { "rule": { "type": "string", "description": "Rule id, e.g. unchecked-breakpoint." } },
                "required": ["rule"]
            },
            "annotations": { "readOnlyHint": true, "openWorldHint": false },
        }
    ])
}

/// `tools/call`: protocol errors for an unknown tool; a tool's own
/// failure (bad arguments, a panic) is a result with `isError`, which the
/// agent sees and can correct.
fn call(params: &Value) -> Result<Value, (i64, String)> {
    let name = params.get("name").and_then(Value::as_str).unwrap_or("");
    let empty = Map::new();
    let args = params
        .get("arguments")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let tool: fn(&Map<String, Value>) -> Result<Value, String> = match name {
        "check" => check,
        "fix" => fix,
        "explain" => explain,
        _ => return Err((-32602, format!("unknown tool: {name}"))),
    };
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| tool(args)))
        .unwrap_or_else(|p| {
            Err(format!(
                "internal error in proclint: {}",
                engine::panic_message(&p)
            ))
        });
    Ok(match outcome {
        Ok(mut structured) => {
            // A tool's text for the agent to read (`check`'s lines, `fix`'s
            // diff, a rule's doc) rather than the structured result again.
            let text = match &mut structured {
                Value::Object(o) if o.len() == 1 && o.contains_key("doc") => {
                    o["doc"].as_str().unwrap_or("").to_string()
                }
                Value::Object(o) => match o.remove("text") {
                    Some(Value::String(t)) => t,
                    _ => serde_json::to_string(&Value::Object(o.clone())).unwrap_or_default(),
                },
                v => serde_json::to_string(v).unwrap_or_default(),
            };
            json!({
                "content": [{ "type": "text", "text": text }],
                "structuredContent": structured,
                "isError": false,
            })
        }
        Err(message) => json!({
            "content": [{ "type": "text", "text": message }],
            "isError": true,
        }),
    })
}

/// What a tool lints: a buffer, or paths on disk.
enum Target {
    Source { path: PathBuf, text: String },
    Paths(Vec<PathBuf>),
}

fn target(args: &Map<String, Value>) -> Result<Target, String> {
    if let Some(text) = args.get("source").and_then(Value::as_str) {
        let Some(name) = args.get("filename").and_then(Value::as_str) else {
            return Err("`source` needs `filename`, the path the text will have \
                        (e.g. processes/deploy.js, SKILL.md, package.json)"
                .into());
        };
        return Ok(Target::Source {
            path: PathBuf::from(name),
            text: text.to_string(),
        });
    }
    let paths: Vec<PathBuf> = match args.get("paths") {
        Some(Value::Array(items)) => items
            .iter()
            .filter_map(Value::as_str)
            .map(PathBuf::from)
            .collect(),
        Some(Value::String(p)) => vec![PathBuf::from(p)],
        _ => Vec::new(),
    };
    if paths.is_empty() {
        return Err("give `paths`, or `source` with `filename`".into());
    }
    for p in &paths {
        if std::fs::symlink_metadata(p).is_err() {
            return Err(format!("{}: no such file or directory", p.display()));
        }
    }
    Ok(Target::Paths(paths))
}

/// The configuration for a target, and a warning if its proclint.toml is
/// invalid (the defaults are used then).
fn config(anchor: &Path) -> (crate::project::config::Config, Option<String>) {
    let (config, error) = lint::config_for(anchor);
    (config, error.map(|e| format!("proclint.toml ignored: {e}")))
}

fn lint_target(target: &Target) -> (Outcome, Option<String>, Option<(String, String)>) {
    match target {
        Target::Source { path, text } => {
            let (config, warning) = config(path);
            let (outcome, display) = lint::lint_buffer(path, text.clone(), &config);
            (outcome, warning, Some((display, text.clone())))
        }
        Target::Paths(paths) => {
            let (config, warning) = config(&paths[0]);
            (lint_paths(paths, &config), warning, None)
        }
    }
}

fn lint_paths(paths: &[PathBuf], config: &crate::project::config::Config) -> Outcome {
    // The result cache, as `check` uses it: an agent checks the same tree
    // again after each edit.
    let cache = crate::engine::cache::Cache::new(
        config.cache_dir(),
        &crate::engine::cache::Cache::build_id(),
        config,
    );
    engine::run_cached(paths, None, config, Stage::Full, None, Some(&cache))
}

/// Findings `check` returns unless `limit` says otherwise: an agent's
/// context is the budget (a small project's every finding in full was
/// 204 KB of JSON).
const DEFAULT_LIMIT: usize = 50;

/// What `check` is asked to return: which rules, from which severity, how
/// many findings, in brief or in full.
struct Narrowing {
    select: Vec<String>,
    min_severity: Option<crate::diagnostic::Severity>,
    limit: usize,
    detail: bool,
}

fn narrowing(args: &Map<String, Value>) -> Result<Narrowing, String> {
    let select: Vec<String> = match args.get("select") {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::String(s)) => s.split(',').map(|s| s.trim().to_string()).collect(),
        Some(Value::Array(items)) => items
            .iter()
            .map(|v| {
                v.as_str()
                    .map(str::to_string)
                    .ok_or("`select` lists rule ids")
            })
            .collect::<Result<_, _>>()?,
        Some(other) => {
            return Err(format!(
                "`select` is a list of rule ids or categories, not {other}"
            ))
        }
    };
    let select: Vec<String> = select.into_iter().filter(|s| !s.is_empty()).collect();
    for s in &select {
        if !crate::rules::is_group(s) && crate::rules::meta(s).is_none() {
            return Err(format!(
                "`select`: `{s}` is neither a rule id nor a category (correctness, suspicious, pedantic, run, tooling, all)"
            ));
        }
    }
    let min_severity = match args.get("min_severity") {
        None | Some(Value::Null) => None,
        Some(Value::String(s)) => Some(
            crate::diagnostic::Severity::parse(s)
                .ok_or_else(|| format!("`min_severity` is info, warning or error, not `{s}`"))?,
        ),
        Some(other) => {
            return Err(format!(
                "`min_severity` is info, warning or error, not {other}"
            ))
        }
    };
    let limit = match args.get("limit") {
        None | Some(Value::Null) => DEFAULT_LIMIT,
        Some(v) => v
            .as_u64()
            .and_then(|n| usize::try_from(n).ok())
            .ok_or_else(|| format!("`limit` is a count of findings (0 or more), not {v}"))?,
    };
    let detail = match args.get("detail") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(other) => return Err(format!("`detail` is true or false, not {other}")),
    };
    Ok(Narrowing {
        select,
        min_severity,
        limit,
        detail,
    })
}

impl Narrowing {
    fn keeps(&self, d: &Diagnostic) -> bool {
        let rule_kept = self.select.is_empty()
            || self.select.iter().any(|s| {
                s == "all"
                    || s == d.rule
                    || crate::rules::meta(d.rule)
                        .is_some_and(|m| crate::rules::Category::parse(s) == Some(m.category))
            });
        rule_kept && self.min_severity.is_none_or(|min| d.severity >= min)
    }
}

/// `check`'s result: the findings (in brief unless `detail`), their counts
/// and, as text, one line per finding and a line of counts — the text is
/// what an agent reads, not the structured result again.
fn check(args: &Map<String, Value>) -> Result<Value, String> {
    let narrowing = narrowing(args)?;
    let target = target(args)?;
    let (outcome, warning, buffer) = lint_target(&target);
    // Texts by display path, read once, for the positions of fixes.
    let mut texts: std::collections::HashMap<String, Option<(String, LineIndex)>> =
        Default::default();
    if let Some((display, text)) = buffer {
        let index = LineIndex::new(&text);
        texts.insert(display, Some((text, index)));
    }
    let kept: Vec<&Diagnostic> = outcome
        .diagnostics
        .iter()
        .filter(|d| narrowing.keeps(d))
        .collect();
    let mut findings = Vec::new();
    let mut lines = Vec::new();
    for d in kept.iter().take(narrowing.limit) {
        lines.push(line(d));
        if !narrowing.detail {
            findings.push(brief(d));
            continue;
        }
        let path = d.location.path.to_string();
        let text = texts.entry(path).or_insert_with(|| {
            let file = outcome
                .files
                .iter()
                .find(|f| f.display == d.location.path)?;
            let bytes = std::fs::read(&file.path).ok()?;
            let (text, _) = crate::source::decode(bytes);
            let index = LineIndex::new(&text);
            Some((text, index))
        });
        findings.push(finding(d, text.as_ref()));
    }
    let count = |s| kept.iter().filter(|d| d.severity == s).count();
    let files = outcome.files.iter().filter(|f| f.report).count();
    let (errors, warnings, infos) = (
        count(crate::diagnostic::Severity::Error),
        count(crate::diagnostic::Severity::Warning),
        count(crate::diagnostic::Severity::Info),
    );
    let omitted = kept.len().saturating_sub(narrowing.limit);
    let mut counts =
        format!("{errors} error(s), {warnings} warning(s), {infos} info(s) in {files} file(s)");
    if omitted > 0 {
        counts.push_str(&format!(
            "; {omitted} more not shown (raise `limit`, or narrow with `select` or `min_severity`)"
        ));
    }
    if let Some(w) = &warning {
        counts.push_str(&format!("; {w}"));
    }
    lines.push(counts);
    let mut result = json!({
        "findings": findings,
        "summary": {
            "files": files,
            "errors": errors,
            "warnings": warnings,
            "infos": infos,
            "omitted": omitted,
        },
    });
    if let Some(w) = warning {
        result["warning"] = Value::String(w);
    }
    result["text"] = Value::String(lines.join("\n"));
    Ok(result)
}

/// A finding on one line: `path:line:col: severity rule: message`, and
/// whether `fix` can fix it.
fn line(d: &Diagnostic) -> String {
    let fix = match &d.fix {
        Some(f) if f.safe => " [safe fix]",
        Some(_) => " [unsafe fix]",
        None => "",
    };
    format!(
        "{}:{}:{}: {} {}: {}{fix}",
        d.location.path,
        d.location.start.line,
        d.location.start.column,
        d.severity.as_str(),
        d.rule,
        d.message.replace(['\n', '\r'], " "),
    )
}

/// A finding in brief: where, which rule, what, and whether a fix exists.
fn brief(d: &Diagnostic) -> Value {
    let mut v = range(&d.location);
    v["rule"] = json!(d.rule);
    v["severity"] = json!(d.severity.as_str());
    v["message"] = json!(d.message);
    v["fixable"] = match &d.fix {
        Some(f) if f.safe => json!("safe"),
        Some(_) => json!("unsafe"),
        None => Value::Null,
    };
    v
}

fn range(location: &Location) -> Value {
    json!({
        "path": &*location.path,
        "line": location.start.line,
        "column": location.start.column,
        "end_line": location.end.line,
        "end_column": location.end.column,
    })
}

fn finding(d: &Diagnostic, text: Option<&(String, LineIndex)>) -> Value {
    let mut v = range(&d.location);
    v["rule"] = json!(d.rule);
    v["severity"] = json!(d.severity.as_str());
    v["message"] = json!(d.message);
    v["help"] = json!(d.help);
    v["doc_url"] = json!(lint::doc_url(d.rule));
    v["related"] = d
        .related
        .iter()
        .map(|r| {
            let mut l = range(&r.location);
            l["message"] = json!(r.message);
            l
        })
        .collect();
    v["fix"] = match (&d.fix, text) {
        (Some(f), Some((text, index))) => json!({
            "description": f.description,
            "safe": f.safe,
            "edits": f.edits.iter().map(|e| {
                let (start, end) = lint::edit_range(index, text, e);
                json!({
                    "line": start.line, "column": start.column,
                    "end_line": end.line, "end_column": end.column,
                    "start_byte": e.span.start, "end_byte": e.span.end,
                    "replacement": e.replacement,
                })
            }).collect::<Vec<_>>(),
        }),
        _ => Value::Null,
    };
    v
}

fn fix(args: &Map<String, Value>) -> Result<Value, String> {
    let unsafe_fixes = match args.get("unsafe") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(other) => return Err(format!("`unsafe` is true or false, not {other}")),
    };
    let target = target(args)?;
    let mut result = match &target {
        Target::Source { path, text } => {
            let (config, warning) = config(path);
            let (fixed, applied, left_out) = lint::fix_buffer(path, text, &config, unsafe_fixes);
            let display = crate::engine::discover::display_path(&lint::relative(path)).to_string();
            let diff = if applied > 0 {
                lint::diff(&display, text, &fixed)
            } else {
                String::new()
            };
            let mut result = json!({
                "diff": diff,
                "applied": applied,
                "fixed": fixed,
                "unsafe_left_out": left_out,
            });
            if let Some(w) = warning {
                result["warning"] = Value::String(w);
            }
            result
        }
        Target::Paths(paths) => {
            let (mut config, warning) = config(&paths[0]);
            // Each fix is re-linted beside the project's modules as they were.
            config.keep_summaries = true;
            let outcome = lint_paths(paths, &config);
            let plan = crate::engine::fix::plan_with(&outcome, None, unsafe_fixes, &config);
            if let Some(d) = plan.failed.first() {
                return Err(format!("{}: {}", d.location.path, d.message));
            }
            let left_out = outcome
                .diagnostics
                .iter()
                .filter(|d| !unsafe_fixes && d.fix.as_ref().is_some_and(|f| !f.safe))
                .count();
            let mut result = json!({
                "diff": crate::engine::fix::diff(&plan),
                "applied": plan.applied(),
                "files": plan.files.iter().map(|f| f.display.clone()).collect::<Vec<_>>(),
                "changed_on_disk": plan.changed,
                "unsafe_left_out": left_out,
            });
            if let Some(w) = warning {
                result["warning"] = Value::String(w);
            }
            result
        }
    };
    result["unsafe"] = json!(unsafe_fixes);
    let diff = result["diff"].as_str().unwrap_or("");
    let mut text = if diff.is_empty() {
        "no fix applies\n".to_string()
    } else {
        diff.to_string()
    };
    text.push_str(&format!("{} fix(es) in the diff", result["applied"]));
    let left_out = result["unsafe_left_out"].as_u64().unwrap_or(0);
    if left_out > 0 {
        text.push_str(&format!(
            "; {left_out} unsafe fix(es) left out (`unsafe: true` applies them)"
        ));
    }
    result["text"] = Value::String(text);
    Ok(result)
}

fn explain(args: &Map<String, Value>) -> Result<Value, String> {
    let id = args.get("rule").and_then(Value::as_str).unwrap_or("");
    match crate::rules::meta(id) {
        Some(m) => Ok(json!({ "doc": m.doc })),
        None => {
            let hint = crate::rules::closest_rule(id)
                .map(|c| format!(" (did you mean `{c}`?)"))
                .unwrap_or_default();
            Err(format!("unknown rule `{id}`{hint}"))
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// Lines that cannot be read were the end of the server (bytes that
    /// are not UTF-8 failed `lines()`, and `serve` returned the error), or
    /// went unanswered (a batch): each now gets an error reply carrying the
    /// request's id when it can be read, and the next line is served.
    #[test]
    fn unreadable_lines_get_an_error_reply_and_serving_goes_on() {
        let lines: Vec<&[u8]> = vec![
            br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
            b"{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"tools/call\",\"params\":{\"name\":\"explain\",\"arguments\":{\"rule\":\"\xff\"}}}",
            br#"{"jsonrpc":"2.0","id":"three","method":"tools/call","params":{"name":"explain","arguments":{"rule":"\ud800"}}}"#,
            br#"{"jsonrpc":"2.0","method":"tools/call","params":{"name":"\udc00"},"id":4}"#,
            br#"{"jsonrpc":"2.0","id":5,"method":"ping","params":{"s":"\ud800"#,
            br#"[{"jsonrpc":"2.0","id":6,"method":"ping"}]"#,
            b"[]",
            b"7",
            br#"{"jsonrpc":"2.0","id":8,"method":"ping"}"#,
        ];
        let mut input = Vec::new();
        for line in &lines {
            input.extend_from_slice(line);
            input.push(b'\n');
        }
        let mut out = Vec::new();
        serve(&input[..], &mut out).unwrap();
        let replies: Vec<Value> = String::from_utf8(out)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        let got: Vec<(Value, Value)> = replies
            .iter()
            .map(|r| (r["id"].clone(), r["error"]["code"].clone()))
            .collect();
        assert_eq!(
            got,
            [
                (json!(1), Value::Null),
                (json!(2), json!(-32700)),
                (json!("three"), json!(-32700)),
                (json!(4), json!(-32700)),
                (Value::Null, json!(-32700)),
                (Value::Null, json!(-32600)),
                (Value::Null, json!(-32600)),
                (Value::Null, json!(-32600)),
                (json!(8), Value::Null),
            ],
            "{replies:?}"
        );
        assert_eq!(replies[8]["result"], json!({}));
        assert!(replies[5]["error"]["message"]
            .as_str()
            .unwrap()
            .contains("batch"));
    }

    /// A line over the limit is skipped without being kept, and answered.
    #[test]
    fn an_overlong_line_is_skipped() {
        let mut input = format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"ping","params":{{"s":"{}"}}}}"#,
            "x".repeat(5000)
        );
        input.push('\n');
        input.push_str(&"y".repeat(3000));
        input.push_str("\n{\"jsonrpc\":\"2.0\",\"id\":2,\"method\":\"ping\"}");
        let mut out = Vec::new();
        serve_limited(
            std::io::BufReader::with_capacity(64, input.as_bytes()),
            &mut out,
            1024,
        )
        .unwrap();
        let replies: Vec<Value> = String::from_utf8(out)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect();
        assert_eq!(replies.len(), 3, "{replies:?}");
        assert_eq!(replies[0]["error"]["code"], -32600);
        assert_eq!(replies[1]["error"]["code"], -32600);
        assert_eq!(replies[2]["id"], 2);
        assert_eq!(replies[2]["result"], json!({}));
    }

    fn exchange(lines: &[Value]) -> Vec<Value> {
        let input: String = lines.iter().map(|l| format!("{l}\n")).collect();
        let mut out = Vec::new();
        serve(input.as_bytes(), &mut out).unwrap();
        String::from_utf8(out)
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap())
            .collect()
    }

    #[test]
    fn handshake_and_tools() {
        let replies = exchange(&[
            json!({"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-03-26","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}),
            json!({"jsonrpc":"2.0","method":"notifications/initialized"}),
            json!({"jsonrpc":"2.0","id":2,"method":"tools/list"}),
            json!({"jsonrpc":"2.0","id":3,"method":"ping"}),
            json!({"jsonrpc":"2.0","id":4,"method":"nope"}),
            json!({"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"explain","arguments":{"rule":"unchecked-breakpointt"}}}),
        ]);
        assert_eq!(replies.len(), 5, "{replies:?}");
        assert_eq!(replies[0]["result"]["protocolVersion"], "2025-03-26");
        let names: Vec<&str> = replies[1]["result"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["name"].as_str().unwrap())
            .collect();
        assert_eq!(names, ["check", "fix", "explain"]);
        assert_eq!(replies[2]["result"], json!({}));
        assert_eq!(replies[3]["error"]["code"], -32601);
        assert_eq!(replies[4]["result"]["isError"], true);
        assert!(replies[4]["result"]["content"][0]["text"]
            .as_str()
            .unwrap()
            .contains("did you mean `unchecked-breakpoint`"));
    }

    /// A module with a safe fix (missing-labels) and an unsafe one
    /// (unchecked-breakpoint).
    const FIXABLE: &str = "import { defineTask } from '@a5c-ai/babysitter-sdk';\n\n\
export const lint = defineTask('lint', (args) => ({\n  kind: 'shell',\n  title: 'Lint',\n}), {\n  labels: ['lint'],\n});\n\n\
export async function process(inputs, ctx) {\n  await ctx.task(lint, {});\n  \
await ctx.breakpoint({ question: 'Ship?' });\n  return {};\n}\n";

    fn call_fix(arguments: Value) -> Value {
        let replies = exchange(&[json!({"jsonrpc":"2.0","id":1,"method":"tools/call",
            "params":{"name":"fix","arguments":arguments}})]);
        replies[0]["result"].clone()
    }

    fn call_check(arguments: Value) -> Value {
        let replies = exchange(&[json!({"jsonrpc":"2.0","id":1,"method":"tools/call",
            "params":{"name":"check","arguments":arguments}})]);
        replies[0]["result"].clone()
    }

    /// Issue 35: `check` answers in a line per finding and the counts, the
    /// structured result holding the same findings in brief (not the text
    /// again); `select`, `min_severity` and `limit` narrow it, `detail`
    /// gives help, related locations and fix edits.
    #[test]
    fn check_is_a_line_per_finding_and_narrows_on_request() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("m.js");
        std::fs::write(&path, FIXABLE).unwrap();
        let filename = path.to_str().unwrap();
        let base = json!({ "source": FIXABLE, "filename": filename });
        let result = call_check(base.clone());
        assert_eq!(result["isError"], false, "{result}");
        let text = result["content"][0]["text"].as_str().unwrap();
        let findings = result["structuredContent"]["findings"].as_array().unwrap();
        assert!(findings.len() >= 2, "{result}");
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), findings.len() + 1, "{text}");
        assert!(serde_json::from_str::<Value>(text).is_err(), "{text}");
        assert!(
            lines
                .iter()
                .any(|l| l.contains("error unchecked-breakpoint:")
                    && l.contains("m.js:12:9")
                    && l.ends_with("[unsafe fix]")),
            "{text}"
        );
        assert!(
            lines
                .last()
                .unwrap()
                .starts_with("2 error(s), 1 warning(s)"),
            "{text}"
        );
        // Brief by default: no help, related or edits.
        assert!(findings
            .iter()
            .all(|f| f.get("help").is_none() && f.get("fix").is_none()));

        let mut only = base.clone();
        only["select"] = json!(["unchecked-breakpoint"]);
        let out = &call_check(only)["structuredContent"];
        let rules: Vec<&str> = out["findings"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| f["rule"].as_str().unwrap())
            .collect();
        assert_eq!(rules, ["unchecked-breakpoint"], "{out}");

        let mut errors = base.clone();
        errors["min_severity"] = json!("error");
        let out = &call_check(errors)["structuredContent"];
        assert!(
            out["findings"]
                .as_array()
                .unwrap()
                .iter()
                .all(|f| f["severity"] == "error"),
            "{out}"
        );

        let mut one = base.clone();
        one["limit"] = json!(1);
        let result = call_check(one);
        let out = &result["structuredContent"];
        assert_eq!(out["findings"].as_array().unwrap().len(), 1, "{out}");
        assert_eq!(out["summary"]["omitted"], findings.len() - 1, "{out}");
        let text = result["content"][0]["text"].as_str().unwrap();
        assert!(text.contains("`limit`"), "{text}");

        let mut detail = base.clone();
        detail["detail"] = json!(true);
        detail["select"] = json!("unchecked-breakpoint");
        let out = &call_check(detail)["structuredContent"];
        let f = &out["findings"][0];
        assert!(f["help"].is_string() && f["fix"]["safe"] == false, "{out}");

        for (key, bad) in [
            ("select", json!(["no-such-rule"])),
            ("min_severity", json!("loud")),
            ("limit", json!(-1)),
        ] {
            let mut args = base.clone();
            args[key] = bad;
            let result = call_check(args);
            assert_eq!(result["isError"], true, "{key}: {result}");
        }
    }

    /// `unsafe` false (the default) applies the safe fixes and counts the
    /// unsafe ones left out; true applies both. For a source text and for
    /// paths; nothing is written either way.
    #[test]
    fn fix_applies_unsafe_fixes_only_when_asked() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("package.json"),
            r#"{"name": "p", "type": "module"}"#,
        )
        .unwrap();
        let path = dir.path().join("m.js");
        std::fs::write(&path, FIXABLE).unwrap();
        let filename = path.to_str().unwrap();
        let safe_line = "+  labels: ['lint'],";
        let guard = "+  const decision = await ctx.breakpoint({ question: 'Ship?' });";
        for args in [
            json!({ "source": FIXABLE, "filename": filename }),
            json!({ "paths": [filename] }),
        ] {
            for unsafe_fixes in [None, Some(false), Some(true)] {
                let mut args = args.clone();
                if let Some(u) = unsafe_fixes {
                    args["unsafe"] = json!(u);
                }
                let result = call_fix(args.clone());
                assert_eq!(result["isError"], false, "{result}");
                let out = &result["structuredContent"];
                let diff = out["diff"].as_str().unwrap();
                let all = unsafe_fixes == Some(true);
                assert!(diff.contains(safe_line), "{args}: {diff}");
                assert_eq!(diff.contains(guard), all, "{args}: {diff}");
                assert_eq!(out["applied"], if all { 2 } else { 1 }, "{args}: {out}");
                assert_eq!(out["unsafe"], all);
                assert_eq!(out["unsafe_left_out"], if all { 0 } else { 1 }, "{out}");
                if let Some(fixed) = out["fixed"].as_str() {
                    assert_eq!(fixed.contains("if (!decision.approved)"), all);
                    assert!(crate::js::syntax::oxc::loads(fixed).unwrap().module);
                }
            }
        }
        assert_eq!(std::fs::read_to_string(&path).unwrap(), FIXABLE);
        let result = call_fix(json!({ "paths": [filename], "unsafe": "yes" }));
        assert_eq!(result["isError"], true, "{result}");
    }
}
