//! `node-task-kind`: `kind: 'node'` task definitions.

use super::{Area, Category, JsContext, ReportMeta, Rule, RuleMeta, Sink, Sites};
use crate::diagnostic::Severity;
use crate::js::model::objects;
use crate::js::syntax::{is_function, span, string_value};

pub struct NodeTaskKind;

static META: RuleMeta = RuleMeta {
    id: "node-task-kind",
    summary: "A task uses `kind: 'node'`, which the SDK records but does not run, and its own process rules forbid.",
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
        for t in &m.task_defs {
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
            // `node: { entry: 'scripts/bump.js' }` → `node scripts/bump.js`.
            let command = entry
                .or_else(|| node_field("script"))
                .and_then(|v| string_value(v, m.src()))
                .filter(|s| !s.contains('\'') && !s.contains('\n'))
                .map(|s| format!("node {s}"))
                .unwrap_or_else(|| "node scripts/<step>.js".into());
            let shell = format!("`kind: 'shell'` with `shell: {{ command: '{command}' }}`");
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
                            "task `{id}` has `kind: 'node'` but nothing to run: no `node.entry`{functions}; the effect is recorded with no script for anything to execute"
                        ),
                    )
                    .with_help(help),
                );
                continue;
            }
            sink.push(
                sink.diag(
                    span(kind),
                    format!(
                        "task `{id}` has `kind: 'node'`: the SDK records the effect but has no executor for node tasks (something outside it must run `node.entry` and post the result), \
                         and its process-authoring prompts forbid node tasks"
                    ),
                )
                .with_help(format!(
                    "use {shell} for scripts, or an `agent`/`skill` task for judgement"
                )),
            );
        }
    }
}
