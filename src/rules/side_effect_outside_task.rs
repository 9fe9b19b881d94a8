//! `side-effect-outside-task`: file writes, child processes, network calls
//! and `process.exit` in code that re-runs on every replay.

use super::{Area, Category, JsContext, ReportMeta, Rule, RuleMeta, Sink, Sites};
use crate::diagnostic::Severity;
use crate::js::replay::{origin, Origin, Replay};
use crate::js::syntax::span;

pub struct SideEffectOutsideTask;

static META: RuleMeta = RuleMeta {
    id: "side-effect-outside-task",
    summary: "Process code that re-runs on replay writes files, runs commands or calls the network outside a task.",
    severity: Severity::Warning,
    area: Area::Idempotency,
    category: Category::Suspicious,
    doc: include_str!("../../rules/side-effect-outside-task.md"),
    builtin: false,
    options: &[],
};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Effect {
    FileWrite,
    FileRead,
    Command,
    Network,
    Exit,
}

const FS_WRITES: &[&str] = &[
    "writeFile",
    "writeFileSync",
    "appendFile",
    "appendFileSync",
    "mkdir",
    "mkdirSync",
    "mkdtemp",
    "mkdtempSync",
    "rm",
    "rmSync",
    "rmdir",
    "rmdirSync",
    "unlink",
    "unlinkSync",
    "rename",
    "renameSync",
    "copyFile",
    "copyFileSync",
    "cp",
    "cpSync",
    "createWriteStream",
    "truncate",
    "truncateSync",
    "symlink",
    "symlinkSync",
    "link",
    "linkSync",
    "chmod",
    "chmodSync",
    "chown",
    "chownSync",
    "utimes",
    "utimesSync",
    // fs-extra
    "outputFile",
    "outputFileSync",
    "outputJson",
    "outputJsonSync",
    "writeJson",
    "writeJsonSync",
    "remove",
    "removeSync",
    "emptyDir",
    "emptyDirSync",
    "ensureDir",
    "ensureDirSync",
    "ensureFile",
    "ensureFileSync",
    "copy",
    "copySync",
    "move",
    "moveSync",
];

const FS_READS: &[&str] = &[
    "readFile",
    "readFileSync",
    "readdir",
    "readdirSync",
    "exists",
    "existsSync",
    "stat",
    "statSync",
    "lstat",
    "lstatSync",
    "access",
    "accessSync",
    "createReadStream",
    "opendir",
    "opendirSync",
    "realpath",
    "realpathSync",
    "readJson",
    "readJsonSync",
    "pathExists",
    "pathExistsSync",
];

const CHILD_PROCESS: &[&str] = &[
    "exec",
    "execSync",
    "execFile",
    "execFileSync",
    "spawn",
    "spawnSync",
    "fork",
];

/// Modules whose every call runs a command or a request.
const COMMAND_MODULES: &[&str] = &["execa", "zx", "shelljs", "cross-spawn"];
const NETWORK_MODULES: &[&str] = &["axios", "node-fetch", "got", "undici", "superagent"];

fn classify(o: &Origin) -> Option<Effect> {
    let first = o.path.first().map(String::as_str);
    let only = (o.path.len() == 1).then_some(first).flatten();
    match o.module.as_deref() {
        Some("fs" | "fs/promises" | "fs-extra" | "graceful-fs") => {
            let name = only?;
            if FS_WRITES.contains(&name) {
                Some(Effect::FileWrite)
            } else if FS_READS.contains(&name) {
                Some(Effect::FileRead)
            } else {
                None
            }
        }
        Some("child_process") => only
            .filter(|n| CHILD_PROCESS.contains(n))
            .map(|_| Effect::Command),
        Some("http" | "https" | "http2") => only
            .filter(|n| matches!(*n, "request" | "get" | "connect"))
            .map(|_| Effect::Network),
        Some(m) if COMMAND_MODULES.contains(&m) => Some(Effect::Command),
        Some(m) if NETWORK_MODULES.contains(&m) => Some(Effect::Network),
        Some(_) => None,
        None => {
            if o.is(None, &["fetch"]) {
                Some(Effect::Network)
            } else if o.is(None, &["process", "exit"]) || o.is(None, &["process", "abort"]) {
                Some(Effect::Exit)
            } else {
                None
            }
        }
    }
}

impl Rule for SideEffectOutsideTask {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn report(&self) -> ReportMeta {
        ReportMeta {
            sites: Sites::ProcessModules,
            praise: "Every side effect runs inside a task",
            sdk_hint: "",
        }
    }

    fn check_js(&self, cx: &JsContext, sink: &mut Sink) {
        let m = cx.model;
        let replay = Replay::of(m);
        for c in &m.calls {
            let Some(o) = origin(m, c.callee) else {
                continue;
            };
            let Some(effect) = classify(&o) else { continue };
            if !replay.covers(m, c.node) {
                continue;
            }
            let written = m.text(c.callee);
            let resolved = o.display();
            let name = if resolved == written {
                format!("`{written}(…)`")
            } else {
                format!("`{written}(…)` (`{resolved}`)")
            };
            let d = match effect {
                Effect::FileRead => sink
                    .diag_at(
                        Severity::Info,
                        span(c.node),
                        format!(
                            "{name} reads the file system in process code, which re-runs on every replay: \
                             what it reads can differ between iterations, and the journal does not record it"
                        ),
                    )
                    .with_help(
                        "read the file inside a task (or pass its content in the inputs) so replay sees the recorded value",
                    ),
                Effect::Exit => sink
                    .diag(
                        span(c.node),
                        format!(
                            "{name} in process code stops the orchestrator's process mid-iteration, outside the journal"
                        ),
                    )
                    .with_help(
                        "end the run through the SDK instead: return a result, throw, or call `ctx.halt(reason)`",
                    ),
                _ => {
                    let what = match effect {
                        Effect::FileWrite => "writes to the file system",
                        Effect::Command => "runs a command",
                        _ => "calls the network",
                    };
                    sink.diag(
                        span(c.node),
                        format!(
                            "{name} {what} in process code, which re-runs on every replay: \
                             it happens again on each iteration and is not recorded in the journal"
                        ),
                    )
                    .with_help(
                        "move it into a task: `kind: 'shell'` (`shell: { command, expectedExitCode: 0 }`) for commands and file operations, or an agent task; dispatch it with `ctx.task` and a key",
                    )
                }
            };
            sink.push(d);
        }
    }
}
