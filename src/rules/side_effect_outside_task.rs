//! `side-effect-outside-task`: file writes, child processes, network calls
//! and `process.exit` in code that re-runs on every replay.

use super::{Area, Category, JsContext, ReportMeta, Rule, RuleMeta, Sink, Sites};
use crate::diagnostic::Severity;
use crate::js::syntax::tree::Node;

use crate::js::analysis::loops::walk;
use crate::js::analysis::replay::{origin, Origin, Replay};
use crate::js::analysis::strings::returned_exprs;
use crate::js::syntax::{is_function, span, unparen};
use crate::js::JsModel;

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
    fix: crate::rules::FixAvailability::Never,
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
        // A `node:test` file exercises processes; it is not one.
        if m.imports.iter().any(|i| i.source == "node:test") {
            return;
        }
        let replay = Replay::of_process(m);
        let mut hand_built: Vec<(crate::source::Span, String)> = Vec::new();
        for c in &m.calls {
            let Some(o) = origin(m, c.callee) else {
                continue;
            };
            let Some(effect) = classify(&o) else { continue };
            if !replay.covers(m, c.node) {
                continue;
            }
            // `mkdirSync(dir)` followed by the write into it is one side
            // effect: the write is reported.
            if effect == Effect::FileWrite
                && o.path.first().is_some_and(|n| MKDIRS.contains(&n.as_str()))
                && next_statement_writes(m, c.node)
            {
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
                Effect::FileWrite
                    if c.args
                        .first()
                        .is_some_and(|a| derives_from(m, *a, RUN_DIRS, 0)) =>
                {
                    sink.diag_at(
                        Severity::Info,
                        span(c.node),
                        format!(
                            "{name} writes under the run's directory (`ctx.artifactsDir`/`ctx.runDir`) from process code, \
                             where the SDK expects process-written files; it runs again on every iteration"
                        ),
                    )
                    .with_help(
                        "keep what it writes a function of recorded results (inputs and effect results), so every iteration writes the same file",
                    )
                }
                // A run directory rebuilt by hand (`.a5c/runs/${ctx.runId}`)
                // is where the SDK keeps the run only when runs live in the
                // repository; by default they are under `~/.a5c/runs`.
                // Reported once per module: the writes share one cause, the
                // path, and one fix.
                Effect::FileWrite
                    if c.args.first().is_some_and(|a| {
                        derives_from(m, *a, &["runId"], 0) && derives_from(m, *a, &[RUNS_SEGMENT], 0)
                    }) =>
                {
                    hand_built.push((span(c.node), name));
                    continue;
                }
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
                        "move it into a task: `kind: 'shell'` (`shell: { command }`) for commands and file operations, or an agent task, dispatched with `ctx.task`; or, for a file the process itself writes, write it under `ctx.artifactsDir`",
                    )
                }
            };
            sink.push(d);
        }
        if let Some((at, name)) = hand_built.first() {
            let others = match hand_built.len() {
                1 => String::new(),
                2 => " (and 1 other write)".to_string(),
                n => format!(" (and {} other writes)", n - 1),
            };
            let mut d = sink
                .diag(
                    *at,
                    format!(
                        "{name}{others} writes to a path built by hand from `ctx.runId` in process code, which re-runs on every replay: \
                         it happens again on each iteration, and the path is the run's directory only when runs are kept \
                         in the repository (`BABYSITTER_RUNS_SCOPE=repo`); by default the SDK keeps them under `~/.a5c/runs`"
                    ),
                )
                .with_help(
                    "build the path from `ctx.artifactsDir` (or `ctx.runDir`), which the SDK sets to the run's own directory wherever runs are kept",
                );
            d.occurrences = hand_built.len();
            for (at, name) in &hand_built[1..] {
                d = d.with_related(sink.location(*at), format!("{name} writes there too"));
            }
            sink.push(d);
        }
    }
}

/// Directory-creating calls, reported with the write that follows.
const MKDIRS: &[&str] = &["mkdir", "mkdirSync", "ensureDir", "ensureDirSync"];

/// Whether the statement after the one holding `call` calls a file write.
fn next_statement_writes(m: &JsModel, call: Node) -> bool {
    let mut stmt = call;
    while let Some(p) = stmt.parent() {
        if stmt.kind_str() == "expression_statement" || is_function(p) {
            break;
        }
        stmt = p;
    }
    if stmt.kind_str() != "expression_statement" {
        return false;
    }
    let Some(next) = stmt.next_named_sibling() else {
        return false;
    };
    let mut found = false;
    walk(next, |n| {
        if found || is_function(n) {
            return false;
        }
        if let Some(ci) = m.call_of_node(n) {
            let writes = origin(m, m.calls[ci].callee)
                .and_then(|o| classify(&o))
                .is_some_and(|e| e == Effect::FileWrite);
            found |= writes;
        }
        !found
    });
    found
}

/// Context properties that name the run's own directories.
const RUN_DIRS: &[&str] = &["artifactsDir", "runDir"];

/// The repository's runs folder, as a string a path is built from; in
/// [`derives_from`]'s list it matches string literals containing it.
const RUNS_SEGMENT: &str = ".a5c";

/// Whether a path expression is built from one of the context's `props`
/// (`ctx.artifactsDir`), through the variables, calls (`join`, `dirname`)
/// and same-module helpers (`artifact(ctx, 'a.json')`) it is made of.
fn derives_from(m: &JsModel, expr: Node, props: &[&str], depth: usize) -> bool {
    if depth > 6 {
        return false;
    }
    let mut found = false;
    walk(expr, |n| {
        if found || is_function(n) {
            return false;
        }
        match n.kind_str() {
            "string" | "template_string" if props.contains(&RUNS_SEGMENT) => {
                found = m.text(n).contains(RUNS_SEGMENT);
            }
            "member_expression" => {
                let prop = n.field("property").map(|p| m.text(p));
                if prop.is_some_and(|p| props.contains(&p))
                    && n.field("object")
                        .is_some_and(|o| m.is_context_expr(unparen(o)))
                {
                    found = true;
                }
            }
            // A helper of the module that returns such a path.
            "call_expression" => {
                if let Some(f) = n.field("function").and_then(|c| m.function_of_expr(c)) {
                    let returns = returned_exprs(m, f);
                    found = !returns.is_empty()
                        && returns
                            .iter()
                            .all(|r| derives_from(m, *r, props, depth + 1));
                }
            }
            "identifier" => {
                if let Some(b) = m.binding_of_expr(n) {
                    let bind = m.scopes.get(b);
                    // A `let` assigned later (`p = join(artifactsDir, …)`).
                    let assigned = bind.writes.iter().any(|w| {
                        w.parent()
                            .filter(|a| a.kind_str() == "assignment_expression")
                            .and_then(|a| a.field("right"))
                            .is_some_and(|v| derives_from(m, v, props, depth + 1))
                    });
                    if assigned {
                        found = true;
                    } else if let Some(init) = bind.init {
                        found = derives_from(m, init, props, depth + 1);
                    } else if let Some((f, i)) = param_of(m, b) {
                        // A helper's parameter (`writeIndex(path, …)`): every
                        // caller passes such a path.
                        let sites = m.call_sites_of(f);
                        found = !sites.is_empty()
                            && sites.iter().all(|&c| {
                                m.calls[c]
                                    .args
                                    .get(i)
                                    .is_some_and(|a| derives_from(m, *a, props, depth + 1))
                            });
                    } else if props.contains(&m.text(n)) {
                        // `const { artifactsDir } = ctx`: the declarator's
                        // value is the context.
                        let mut d = Some(bind.node);
                        while let Some(x) = d.filter(|x| x.kind_str() != "variable_declarator") {
                            d = x.parent().filter(|p| !is_function(*p));
                        }
                        found = d
                            .and_then(|d| d.field("value"))
                            .is_some_and(|v| m.is_context_expr(unparen(v)));
                    }
                }
            }
            _ => {}
        }
        !found
    });
    found
}

/// The function and position of a parameter binding.
fn param_of(
    m: &JsModel,
    b: crate::js::model::scope::BindingId,
) -> Option<(crate::js::model::scope::FnId, usize)> {
    m.functions.iter().enumerate().find_map(|(f, func)| {
        func.param_bindings
            .iter()
            .position(|p| *p == Some(b))
            .map(|i| (f, i))
    })
}
