//! `invalid-task-invocation`: `ctx.task(X, …)` where `X` is provably not a
//! task definition.

use super::{Area, Category, JsContext, ProjectSink, ReportMeta, Rule, RuleMeta, Sink, Sites};
use crate::diagnostic::Severity;
use crate::js::analysis::tasks::{value_of, Value};
use crate::js::model::context_api::edit_distance;
use crate::js::model::globals::is_known_global;
use crate::js::syntax::{span, string_value, unparen};
use crate::js::{EffectKind, JsModel};
use crate::project::config::Config;
use crate::project::{ExportKind, Project, TaskRef};

pub struct InvalidTaskInvocation;

static META: RuleMeta = RuleMeta {
    id: "invalid-task-invocation",
    summary: "ctx.task is called with something that is not a task definition.",
    severity: Severity::Error,
    area: Area::RuntimeCorrectness,
    category: Category::Correctness,
    doc: include_str!("../../rules/invalid-task-invocation.md"),
    builtin: false,
    options: &[],
    fix: crate::rules::FixAvailability::Never,
};

const HELP: &str = "pass the value `defineTask` returned: `const reviewTask = defineTask('review', (args, taskCtx) => ({ kind: 'agent', … }));` then `await ctx.task(reviewTask, args)`";

impl Rule for InvalidTaskInvocation {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn report(&self) -> ReportMeta {
        ReportMeta {
            sites: Sites::Invocations,
            praise: "Every `ctx.task` call receives a task definition",
            sdk_hint: "",
        }
    }

    fn praise_shared_with(&self) -> &'static [&'static str] {
        &["undefined-reference"]
    }

    fn check_js(&self, cx: &JsContext, sink: &mut Sink) {
        let m = cx.model;
        for e in m.effects_of(EffectKind::Task) {
            let call = &m.calls[e.call];
            let callee = m.text(call.callee);
            let Some(&first) = call.args.first() else {
                sink.push(
                    sink.diag(
                        span(call.node),
                        format!("`{callee}()` is called without a task: the SDK rejects it"),
                    )
                    .with_help(HELP),
                );
                continue;
            };
            let shown = m.text(unparen(first));
            let (message, help) = match value_of(m, first) {
                Value::TaskDef(_) | Value::Unknown => continue,
                Value::Literal(what) => {
                    let mut help = HELP.to_string();
                    // `ctx.task('review', …)` naming a task defined here.
                    if let Some(id) = string_of(m, first) {
                        if let Some(name) = m
                            .task_defs
                            .iter()
                            .find(|t| t.id.as_deref() == Some(id.as_str()))
                            .and_then(|t| t.binding)
                            .map(|b| m.scopes.get(b).name.as_str())
                        {
                            help = format!(
                                "pass the definition, not its id: `{callee}({name}, …)`"
                            );
                        }
                    }
                    let what = if unparen(first).kind_str() == "identifier" {
                        format!("`{shown}`, {what}")
                    } else {
                        format!("{what} ({})", code(&short(shown)))
                    };
                    (
                        format!(
                            "the first argument of `{callee}` is {what}, not a task \
                             definition: the SDK rejects it when the process runs"
                        ),
                        help,
                    )
                }
                Value::Function(_) if unparen(first).kind_str() == "call_expression" => {
                    let maker = unparen(first)
                        .field("function")
                        .map_or("the helper", |f| m.text(f));
                    (
                        format!(
                            "`{}` passed to `{callee}` returns a function, not a task definition \
                             (the factory goes inside `defineTask`): the SDK rejects it when the \
                             process runs",
                            short(shown)
                        ),
                        format!(
                            "have `{maker}` return `defineTask('…', (args, taskCtx) => …)` instead \
                             of the bare factory"
                        ),
                    )
                }
                Value::Function(_) => (
                    format!(
                        "`{shown}` passed to `{callee}` is a function, not a task definition \
                         (the factory goes inside `defineTask`): the SDK rejects it when the process runs"
                    ),
                    format!("wrap it: `const {shown}Task = defineTask('…', {shown});` and pass that"),
                ),
                Value::Class => (
                    format!(
                        "`{shown}` passed to `{callee}` is a class, not a task definition: \
                         the SDK rejects it when the process runs"
                    ),
                    HELP.to_string(),
                ),
                // A name declared nowhere throws a ReferenceError before
                // `ctx.task` is called: `undefined-reference` reports it
                // (with the same "did you mean"), and only where it really
                // throws (not a configured or `typeof`-guarded global).
                Value::Unbound if is_known_global(shown) => (
                    format!(
                        "`{shown}` passed to `{callee}` is the JavaScript or Node.js global of \
                         that name, not a task definition: the SDK rejects it when the process runs"
                    ),
                    format!(
                        "import or define the task (`const {shown}Task = defineTask('…', …)`) and \
                         pass that"
                    ),
                ),
                Value::Unbound => continue,
            };
            sink.push(sink.diag(span(first), message).with_help(help));
        }
    }

    /// A task imported from a linted module that does not export that name.
    fn check_project(&self, project: &Project, _config: &Config, sink: &mut ProjectSink) {
        for (mi, module) in project.modules.iter().enumerate() {
            for inv in &module.invocations {
                let TaskRef::Imported(t) = &inv.target else {
                    continue;
                };
                let (source, name) = (&t.source, &t.name);
                let Some(target) = project.resolve(mi, source) else {
                    continue;
                };
                let exporter = &project.modules[target];
                if exporter.opaque_exports || exporter.exports.iter().any(|e| &e.name == name) {
                    continue;
                }
                // `import tasks from './tasks.js'; ctx.task(tasks.review)`: a
                // property of a default-exported object this index does not list.
                let via_default = module
                    .imports
                    .iter()
                    .any(|i| &i.source == source && i.name == "default");
                if via_default && exporter.exports.iter().any(|e| e.name == "default") {
                    continue;
                }
                let mut d = sink.diag(
                    inv.location.clone(),
                    format!(
                        "`{}` dispatches `{name}`, but `{source}` ({}) does not export `{name}`, \
                         so the task is `undefined` and the SDK rejects the call",
                        inv.call_text, exporter.path
                    ),
                );
                if let Some(imp) = module
                    .imports
                    .iter()
                    .find(|i| &i.source == source && (&i.name == name || i.name == "*"))
                {
                    d = d.with_related(imp.location.clone(), "imported here");
                }
                let tasks: Vec<&str> = exporter
                    .exports
                    .iter()
                    .filter(|e| matches!(e.kind, ExportKind::Task(_)))
                    .map(|e| e.name.as_str())
                    .collect();
                let help = match closest(name, &tasks) {
                    Some(c) => format!("did you mean `{c}`? `{source}` exports the tasks {}", list(&tasks)),
                    None if tasks.is_empty() => {
                        format!("`{source}` exports no task definitions; export `{name}` there (`export const {name} = defineTask(…)`)")
                    }
                    None => format!("`{source}` exports the tasks {}; export `{name}` there or import one of those", list(&tasks)),
                };
                sink.push(d.with_help(help));
            }
        }
    }
}

fn list(names: &[&str]) -> String {
    let shown: Vec<String> = names.iter().take(8).map(|n| format!("`{n}`")).collect();
    let more = if names.len() > 8 { ", …" } else { "" };
    format!("{}{more}", shown.join(", "))
}

/// The closest of `names` to `name`, if it is a plausible typo.
fn closest<'a>(name: &str, names: &[&'a str]) -> Option<&'a str> {
    let limit = (name.chars().count() / 3).clamp(1, 3);
    names
        .iter()
        .map(|n| (edit_distance(name, n), *n))
        .filter(|(d, _)| *d <= limit)
        .min()
        .map(|(_, n)| n)
}

/// A string literal, directly or through a `const`.
fn string_of(m: &JsModel, node: crate::js::syntax::tree::Node) -> Option<String> {
    let node = unparen(node);
    if let Some(s) = string_value(node, m.src()) {
        return Some(s);
    }
    let b = m.scopes.get(m.binding_of_expr(node)?);
    string_value(b.init?, m.src())
}

/// Inline code, unless the snippet brings its own backticks (a template).
fn code(s: &str) -> String {
    if s.contains('`') {
        s.to_string()
    } else {
        format!("`{s}`")
    }
}

fn short(s: &str) -> String {
    let line = s.lines().next().unwrap_or("");
    let cut: String = line.chars().take(40).collect();
    if cut.len() < s.len() {
        format!("{cut}…")
    } else {
        cut
    }
}
