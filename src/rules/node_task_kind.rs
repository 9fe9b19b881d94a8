//! `node-task-kind`: `kind: 'node'` task definitions.

use super::{Area, Category, JsContext, ReportMeta, Rule, RuleMeta, Sink, Sites};
use crate::diagnostic::Severity;
use crate::js::objects;
use crate::js::syntax::{span, string_value};

pub struct NodeTaskKind;

static META: RuleMeta = RuleMeta {
    id: "node-task-kind",
    summary: "A task uses `kind: 'node'`, which runs an inline script outside the agent orchestration model.",
    severity: Severity::Warning,
    area: Area::Idempotency,
    category: Category::Correctness,
    doc: include_str!("../../rules/node-task-kind.md"),
    builtin: false,
    options: &[],
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
            let kind = t.objects.iter().find_map(|o| {
                let v = objects::property(m, *o, "kind")?;
                (string_value(v, m.src()).as_deref() == Some("node")).then_some(v)
            });
            let Some(kind) = kind else { continue };
            let id = t.id.as_deref().unwrap_or("task");
            // `node: { script: 'scripts/bump.js' }` → `node scripts/bump.js`.
            let command = t
                .objects
                .iter()
                .find_map(|o| objects::path(m, *o, &["node", "script"]))
                .and_then(|v| string_value(v, m.src()))
                .filter(|s| !s.contains('\'') && !s.contains('\n'))
                .map(|s| format!("node {s}"))
                .unwrap_or_else(|| "node scripts/<step>.js".into());
            sink.push(
                sink.diag(
                    span(kind),
                    format!(
                        "task `{id}` has `kind: 'node'`: it runs an inline script outside the agent orchestration model, \
                         with no command or prompt in the journal to replay or review"
                    ),
                )
                .with_help(format!(
                    "use `kind: 'shell'` with `shell: {{ command: '{command}', expectedExitCode: 0 }}` for scripts, or an `agent`/`skill` task for judgement"
                )),
            );
        }
    }
}
