//! `node-task-kind`: `kind: 'node'` task definitions.

use super::{Area, Category, JsContext, ReportMeta, Rule, RuleMeta, Sink, Sites};
use crate::diagnostic::Severity;
use crate::js::model::objects;
use crate::js::syntax::{is_function, span, string_value};
use std::path::{Path, PathBuf};

pub struct NodeTaskKind;

static META: RuleMeta = RuleMeta {
    id: "node-task-kind",
    summary: "A task uses `kind: 'node'`, which the SDK's own process rules forbid, or names a script that does not exist.",
    severity: Severity::Warning,
    area: Area::Idempotency,
    category: Category::Correctness,
    doc: include_str!("../../rules/node-task-kind.md"),
    builtin: false,
    options: &[],
    fix: crate::rules::FixAvailability::Never,
};

impl Rule for NodeTaskKind {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn report(&self) -> ReportMeta {
        ReportMeta {
            sites: Sites::TaskDefinitions,
            praise: "No `kind: 'node'` tasks",
            sdk_hint: "",
        }
    }

    fn check_js(&self, cx: &JsContext, sink: &mut Sink) {
        let m = cx.model;
        let dirs = search_dirs(cx);
        for t in &m.task_defs {
            if t.kind_value_of("shell").is_some() {
                check_shell_scripts(cx, t, &dirs, sink);
            }
            // Any object of a factory's returns: `kind: 'node'` on one
            // path is a finding even where another path is a shell task.
            let Some(kind) = t.kind_value_of("node") else {
                continue;
            };
            let id = t.id.as_deref().unwrap_or("task");
            let node_field = |name: &str| {
                t.objects
                    .iter()
                    .find_map(|o| objects::path(m, *o, &["node", name]))
            };
            let entry = node_field("entry");
            // Functions in the definition (`script: async () => {…}`): the task
            // definition is written to task.json as JSON, which has no functions.
            let mut inline: Vec<String> = Vec::new();
            for o in &t.objects {
                for (name, p) in objects::properties(m, *o) {
                    if is_function(p.value) {
                        inline.push(format!("`{name}`"));
                    } else if name == "node" {
                        let nested = m.object_of_expr(p.value).map(|n| objects::properties(m, n));
                        for (inner, q) in nested.unwrap_or_default() {
                            if is_function(q.value) {
                                inline.push(format!("`node.{inner}`"));
                            }
                        }
                    }
                }
            }
            // `node: { entry: 'scripts/bump.js', args: ['--major'] }` →
            // `node scripts/bump.js --major`: the same script with the same
            // arguments.
            let script = entry
                .or_else(|| node_field("script"))
                .and_then(|v| string_value(v, m.src()))
                .filter(|s| !s.contains(['\'', '`', '\n', '$', '\\']));
            let shell = match script {
                Some(path) => shell_suggestion(m, &path, node_field("args")),
                None => {
                    "`kind: 'shell'` with `shell: { command: 'node scripts/<step>.js' }`".into()
                }
            };
            if entry.is_none() {
                let functions = if inline.is_empty() {
                    String::new()
                } else {
                    format!(
                        ", and its inline function{} {} cannot run: the task definition is written to task.json as JSON, which drops functions",
                        if inline.len() == 1 { "" } else { "s" },
                        inline.join(", ")
                    )
                };
                let help = if inline.is_empty() {
                    format!("give the script to run: {shell}")
                } else {
                    format!(
                        "a pure computation over the task's args can run in the process function itself (its inputs are recorded results, so it replays the same); a script can run as {shell}"
                    )
                };
                sink.push(
                    sink.diag_at(
                        Severity::Error,
                        span(kind),
                        format!(
                            "task `{id}` has `kind: 'node'` but nothing to run: no `node.entry`{functions}; the effect is recorded with no script for the orchestrating agent to run"
                        ),
                    )
                    .with_help(help),
                );
                continue;
            }
            // A missing script is the error to fix first: the legacy-kind
            // advice (run the same script as a shell command) would point
            // at the file that is not there.
            let mut missing = false;
            if let Some(entry) = entry {
                if let (Some(path), Some(dirs)) = (string_value(entry, m.src()), &dirs) {
                    let cwd = node_field("cwd");
                    missing = check_script(cx, sink, dirs, cwd, entry, &path, |p| {
                        format!(
                            "task `{id}`'s `node.entry` `{p}` does not exist{}, so the orchestrating agent has no \
                             script to run: `node {p}` fails with \"Cannot find module\" whenever the task is dispatched",
                            NOT_FOUND
                        )
                    });
                }
            }
            if missing {
                continue;
            }
            sink.push(
                sink.diag(
                    span(kind),
                    format!(
                        "task `{id}` has `kind: 'node'`, a legacy kind the SDK's process-authoring prompts forbid: \
                         the SDK runs neither node nor shell tasks itself (the orchestrating agent runs both and posts the result), \
                         so a `shell` task running the same command does the same work in the kind the prompts allow"
                    ),
                )
                .with_help(format!(
                    "use {shell} for scripts, or an `agent`/`skill` task for judgement"
                )),
            );
        }
    }
}

/// Where the search for a script looked, for the message.
const NOT_FOUND: &str =
    " in this module's folder or any folder above it (the repository root included)";

const MISSING_HELP: &str = "create the script, or correct the path: the orchestrating agent runs \
     tasks from the repository root, where the SDK's prompts tell it to run the CLI";

/// The folders a relative script path may be meant from: the module's own
/// and every one above it. The agent runs commands from the project root
/// (`prompts/templates/process-creation.md`: "always run the CLI from the
/// project root"), which is one of them; a path found from any of them is
/// not reported. `None` for text with no file on disk (an editor's unsaved
/// buffer, a doc example): there is no repository to look in.
fn search_dirs(cx: &JsContext) -> Option<Vec<PathBuf>> {
    let file = Path::new(&*cx.file.path);
    if !file.is_file() {
        return None;
    }
    let abs = std::path::absolute(file).ok()?;
    Some(abs.parent()?.ancestors().map(Path::to_path_buf).collect())
}

/// Reports `path` (a script a task names) when it exists from none of
/// `dirs`, also under the task's literal `cwd`, and says whether it did; a
/// computed `cwd`, an absolute path or one with shell syntax is not judged.
fn check_script(
    cx: &JsContext,
    sink: &mut Sink,
    dirs: &[PathBuf],
    cwd: Option<crate::js::syntax::tree::Node>,
    at: crate::js::syntax::tree::Node,
    path: &str,
    message: impl Fn(&str) -> String,
) -> bool {
    if !is_checkable(path) {
        return false;
    }
    let cwd = match cwd {
        None => None,
        Some(c) => match string_value(c, cx.model.src()) {
            Some(c) if !c.starts_with(['/', '~', '$']) && !c.contains('$') => Some(c),
            _ => return false,
        },
    };
    let found = dirs.iter().any(|d| {
        cwd.as_ref()
            .is_some_and(|c| sink.file_exists(&d.join(c).join(path)))
            || sink.file_exists(&d.join(path))
    });
    if !found {
        sink.push(
            sink.diag_at(Severity::Error, span(at), message(path))
                .with_help(MISSING_HELP),
        );
    }
    !found
}

/// A relative path to a script file, with nothing the shell or the
/// runtime would expand.
fn is_checkable(path: &str) -> bool {
    let lower = path.to_ascii_lowercase();
    [".js", ".mjs", ".cjs", ".sh"]
        .iter()
        .any(|ext| lower.ends_with(ext))
        && !path.starts_with(['/', '~', '-'])
        && !path.contains(|c: char| c.is_whitespace() || "$*?[]{}<>|&;'\"`\\\u{1}%".contains(c))
        && !path.contains(':')
}

/// The scripts a shell task's literal command runs: the file given to
/// `node`/`bash`/`sh`/`zsh`, or a command word that is a path
/// (`./tools/smoke.sh`). A command that changes directory first is not
/// judged: its paths are relative to somewhere else.
fn check_shell_scripts(
    cx: &JsContext,
    t: &crate::js::model::TaskDef,
    dirs: &Option<Vec<PathBuf>>,
    sink: &mut Sink,
) {
    let Some(dirs) = dirs else { return };
    let m = cx.model;
    let id = t.id.as_deref().unwrap_or("task");
    for o in &t.objects {
        let Some(command) = objects::path(m, *o, &["shell", "command"]) else {
            continue;
        };
        let Some(text) = static_text(command, m.src()) else {
            continue;
        };
        let cwd = objects::path(m, *o, &["shell", "cwd"]);
        for script in command_scripts(&text) {
            check_script(cx, sink, dirs, cwd, command, &script, |p| {
                format!(
                    "task `{id}` runs `{p}`, which does not exist{NOT_FOUND}: the command fails \
                     every time the orchestrating agent runs it"
                )
            });
        }
    }
}

/// A string's text, with each `${…}` of a template as U+0001 (never part
/// of a path judged).
fn static_text(node: crate::js::syntax::tree::Node, src: &str) -> Option<String> {
    if let Some(s) = string_value(node, src) {
        return Some(s);
    }
    let node = crate::js::syntax::unparen(node);
    if node.kind_str() != "template_string" {
        return None;
    }
    let mut out = String::new();
    let mut at = node.start_byte() + 1;
    for sub in node
        .named()
        .filter(|c| c.kind_str() == "template_substitution")
    {
        out.push_str(src.get(at..sub.start_byte())?);
        out.push('\u{1}');
        at = sub.end_byte();
    }
    out.push_str(src.get(at..node.end_byte().checked_sub(1)?)?);
    Some(out)
}

/// The script paths a command line runs (see [`check_shell_scripts`]).
fn command_scripts(command: &str) -> Vec<String> {
    let words = |s: &str| -> Vec<String> {
        s.split_whitespace()
            .map(|w| w.trim_matches(['\'', '"']).to_string())
            .collect()
    };
    let all = words(command);
    if all.iter().any(|w| w == "cd" || w == "pushd") {
        return Vec::new();
    }
    let mut out = Vec::new();
    for part in command.split(['\n', ';', '|', '&', '(', ')']) {
        let ws = words(part);
        // Leading `NAME=value` assignments set the environment.
        let mut rest = ws
            .iter()
            .skip_while(|w| w.contains('=') && !w.starts_with('='));
        let Some(first) = rest.next() else { continue };
        let interpreter = matches!(first.as_str(), "node" | "bash" | "sh" | "zsh");
        let script = if interpreter {
            // The first word after the options; an option that runs code
            // (`node -e`, `bash -c`) leaves no script to look for.
            let mut script = None;
            for w in rest {
                if matches!(
                    w.as_str(),
                    "-e" | "-p" | "-c" | "--eval" | "--print" | "-r" | "--require" | "--import"
                ) {
                    break;
                }
                if !w.starts_with('-') {
                    script = Some(w.clone());
                    break;
                }
            }
            script
        } else {
            first.contains('/').then(|| first.clone())
        };
        if let Some(s) = script.filter(|s| is_checkable(s)) {
            out.push(s);
        }
    }
    out.dedup();
    out
}

/// `kind: 'shell'` running `node <path>` with the task's `node.args`: a
/// literal command when every argument is a literal, a template when the
/// arguments are expressions, and a sentence when they cannot be written
/// into one.
fn shell_suggestion(
    m: &crate::js::JsModel,
    path: &str,
    args: Option<crate::js::syntax::tree::Node>,
) -> String {
    let Some(args) = args else {
        return format!("`kind: 'shell'` with `shell: {{ command: 'node {path}' }}`");
    };
    let args = crate::js::syntax::unparen(args);
    let mut literal = true;
    let mut parts: Vec<String> = Vec::new();
    let elements: Vec<_> = if args.kind_str() == "array" {
        args.named().filter(|n| n.kind_str() != "comment").collect()
    } else {
        Vec::new()
    };
    let writable = args.kind_str() == "array"
        && elements.iter().all(|e| {
            let t = crate::js::syntax::text(*e, m.src());
            e.kind_str() != "spread_element" && t.len() <= 80 && !t.contains('\n')
        });
    if !writable {
        return format!(
            "`kind: 'shell'` with `shell: {{ command: 'node {path} …' }}` followed by the task's `node.args`"
        );
    }
    for e in &elements {
        match string_value(*e, m.src()) {
            Some(s) if !s.contains(['`', '$', '\\', '\n']) => parts.push(shell_word(&s)),
            _ if e.kind_str() == "number" => {
                parts.push(crate::js::syntax::text(*e, m.src()).to_string())
            }
            _ if e.kind_str() == "template_string" => {
                literal = false;
                let t = crate::js::syntax::text(*e, m.src());
                parts.push(t[1..t.len() - 1].to_string());
            }
            _ => {
                literal = false;
                parts.push(format!("${{{}}}", crate::js::syntax::text(*e, m.src())));
            }
        }
    }
    let mut command = format!("node {path}");
    for p in &parts {
        command.push(' ');
        command.push_str(p);
    }
    if literal && !command.contains('\'') {
        format!("`kind: 'shell'` with `shell: {{ command: '{command}' }}`")
    } else if literal {
        format!("`kind: 'shell'` with `shell: {{ command: \"{command}\" }}`")
    } else {
        format!(
            "`kind: 'shell'` with ``shell: {{ command: `{command}` }}`` (quote values that may hold spaces or shell characters)"
        )
    }
}

/// `s` as one shell word: bare when it holds only safe characters, else
/// single-quoted.
fn shell_word(s: &str) -> String {
    if !s.is_empty()
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_./:=@%+,".contains(c))
    {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_scripts_a_command_runs() {
        let scripts = |c: &str| command_scripts(c);
        assert_eq!(scripts("node scripts/a.js --x 1"), ["scripts/a.js"]);
        assert_eq!(
            scripts("CI=1 bash ./run.sh && ./tools/b.sh | tee out.log"),
            ["./run.sh", "./tools/b.sh"]
        );
        assert_eq!(scripts("node --inspect 'scripts/c.mjs'"), ["scripts/c.mjs"]);
        // Code on the command line, another directory, a package binary,
        // a path from the environment or built at run time, an absolute one.
        for none in [
            "node -e \"require('x.js')\"",
            "bash -c 'scripts/a.sh'",
            "cd web && node build.js",
            "npx eslint src/a.js",
            "node $SCRIPTS/a.js",
            "node \u{1}/a.js",
            "/opt/ci/run.sh",
            "npm test",
        ] {
            assert!(scripts(none).is_empty(), "{none}");
        }
    }

    #[test]
    fn shell_words_are_quoted_only_when_needed() {
        assert_eq!(shell_word("--out=dist/a.json"), "--out=dist/a.json");
        assert_eq!(shell_word("two words"), "'two words'");
        assert_eq!(shell_word("it's"), r"'it'\''s'");
        assert_eq!(shell_word(""), "''");
    }
}
