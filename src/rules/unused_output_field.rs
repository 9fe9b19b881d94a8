//! `unused-output-field`: output schema properties nothing reads.

use super::{Area, Category, ProjectSink, ReportMeta, Rule, RuleMeta, Sites};
use crate::diagnostic::{Location, Severity};
use crate::project::config::Config;
use crate::project::result_uses::forward_key;
use crate::project::{ForwardKind, Project};

pub struct UnusedOutputField;

static META: RuleMeta = RuleMeta {
    id: "unused-output-field",
    summary: "An agent task's output schema declares fields that nothing reads.",
    severity: Severity::Warning,
    area: Area::EffectGranularity,
    category: Category::Suspicious,
    doc: include_str!("../../rules/unused-output-field.md"),
    builtin: false,
    options: &[],
};

fn describe(kind: &ForwardKind) -> String {
    match kind {
        ForwardKind::Task(t) => format!("passed in the args of `{t}`"),
        ForwardKind::ProcessOutput => "returned as the process output".into(),
        ForwardKind::Breakpoint => "shown in a breakpoint".into(),
        ForwardKind::Unknown(u) => format!("handed to `{u}`"),
    }
}

impl Rule for UnusedOutputField {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn report(&self) -> ReportMeta {
        ReportMeta {
            sites: Sites::SchemaTasks,
            praise: "Every declared output field is read",
            sdk_hint: "",
        }
    }

    fn check_project(&self, p: &Project, _config: &Config, sink: &mut ProjectSink) {
        for (mi, module) in p.modules.iter().enumerate() {
            if !module.report {
                continue;
            }
            for (ti, task) in module.tasks.iter().enumerate() {
                let Some(fields) = p.schema_fields(mi, ti).filter(|f| !f.is_empty()) else {
                    continue;
                };
                let invocations = p.invocations_of(mi, ti);
                // A task nobody in the linted set dispatches may be used by
                // code proclint did not see.
                if invocations.is_empty() {
                    continue;
                }
                let Some(uses) = p.result_uses().get(&(mi, ti)) else {
                    continue;
                };
                let bound: Vec<_> = invocations
                    .iter()
                    .filter_map(|(mj, ii)| p.modules[*mj].invocations[*ii].bound.clone())
                    .collect();
                let unused: Vec<&(String, Location)> = fields
                    .iter()
                    .filter(|(name, _)| !uses.fields.contains_key(name))
                    .collect();
                let Some(first) = unused.first() else {
                    continue;
                };
                let names: Vec<String> = unused.iter().map(|(n, _)| format!("`{n}`")).collect();
                let id = task.id.as_deref().unwrap_or("task");
                let plural = if unused.len() == 1 { "field" } else { "fields" };
                // Describe each distinct destination once: a task used all
                // over a monorepo collects thousands of identical forwards.
                let mut distinct = std::collections::HashSet::new();
                let mut forwards: Vec<String> = uses
                    .forwards
                    .iter()
                    .filter(|k| distinct.insert(forward_key(k)))
                    .map(describe)
                    .collect();
                forwards.sort();
                forwards.dedup();
                let mut d = if forwards.is_empty() {
                    sink.diag(
                        first.1.clone(),
                        format!(
                            "task `{id}` declares output {plural} {} that nothing reads",
                            names.join(", ")
                        ),
                    )
                    .with_help(
                        "remove the field from `outputSchema` (the agent spends tokens producing it), or use it",
                    )
                } else {
                    sink.diag_at(
                        Severity::Info,
                        first.1.clone(),
                        format!(
                            "task `{id}` declares output {plural} {} that no code reads; the result is only forwarded wholesale ({})",
                            names.join(", "),
                            forwards.join("; ")
                        ),
                    )
                    .with_help(
                        "if the receiver does not need the field, remove it from `outputSchema`; otherwise read it where it matters",
                    )
                };
                for (name, loc) in unused.iter().skip(1) {
                    d = d.with_related(loc.clone(), format!("`{name}` is not read either"));
                }
                for b in bound.into_iter().take(3) {
                    d = d.with_related(b, "the result is bound here");
                }
                sink.push(d);
            }
        }
    }
}
