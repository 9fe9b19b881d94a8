//! `missing-output-schema`: an agent task without a usable output schema
//! whose result is read by field.

use super::{Area, Category, ProjectSink, ReportMeta, Rule, RuleMeta, Sites};
use crate::diagnostic::Severity;
use crate::project::config::Config;
use crate::project::{Project, SchemaState};
use crate::rules::undeclared_output_field::WRAPPER_FIELDS;

pub struct MissingOutputSchema;

static META: RuleMeta = RuleMeta {
    id: "missing-output-schema",
    summary: "An agent task has no output schema, yet code reads fields of its result.",
    severity: Severity::Warning,
    area: Area::EffectGranularity,
    category: Category::Suspicious,
    doc: include_str!("../../rules/missing-output-schema.md"),
    builtin: false,
    options: &[],
};

/// Members of a promise, a list or a string that an output without a
/// schema is read through when the code takes it for one of those. Names
/// an answer could plausibly hold as data (`keys`, `values`, `entries`,
/// `find`, `sort`) are left out: the summary does not say whether a read
/// is called.
const NOT_FIELDS: &[&str] = &[
    "then",
    "catch",
    "finally",
    "length",
    "concat",
    "every",
    "filter",
    "findIndex",
    "flatMap",
    "forEach",
    "includes",
    "indexOf",
    "join",
    "map",
    "reduce",
    "slice",
    "some",
    "split",
    "startsWith",
    "endsWith",
    "toLowerCase",
    "toUpperCase",
    "trim",
];

impl Rule for MissingOutputSchema {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn report(&self) -> ReportMeta {
        ReportMeta {
            sites: Sites::AgentTasks,
            praise: "Every agent task whose result is read by field declares an output schema",
            sdk_hint: "",
        }
    }

    fn check_project(&self, p: &Project, _config: &Config, sink: &mut ProjectSink) {
        for (&(mi, ti), uses) in p.result_uses() {
            let module = &p.modules[mi];
            let task = &module.tasks[ti];
            if !module.report || task.kind.as_deref() != Some("agent") {
                continue;
            }
            // A schema imported from a shared module that declares fields.
            if p.schema_fields(mi, ti).is_some_and(|f| !f.is_empty()) {
                continue;
            }
            let what = match task.schema {
                SchemaState::Missing => "has no `outputSchema`",
                SchemaState::NoProperties => "has an `outputSchema` that declares no properties",
                SchemaState::Declared | SchemaState::Unknown => continue,
            };
            // Promise chaining is not a field read, nor is a list's or a
            // string's member: an output read as `items.filter(…).length`
            // is used as a list, not as an object with fields.
            let fields: Vec<(&String, _)> = uses
                .fields
                .iter()
                .filter(|(f, _)| !NOT_FIELDS.contains(&f.as_str()))
                .collect();
            if fields.is_empty() {
                continue;
            }
            let id = task.id.as_deref().unwrap_or("task");
            let names: Vec<String> = fields.iter().map(|(f, _)| format!("`{f}`")).collect();
            // `out.value` / `out.result` as if `ctx.task` wrapped the output:
            // it resolves to the output itself, so those are `undefined`
            // unless the output happens to have such a field.
            let wrapper_only = fields
                .iter()
                .all(|(f, _)| WRAPPER_FIELDS.contains(&f.as_str()));
            let mut d = if wrapper_only {
                sink.diag(
                    task.id_location.clone(),
                    format!(
                        "agent task `{id}` {what}, and its result is read as {}: `ctx.task` resolves to the task's output object itself, not to a wrapper around it, so the read gets `undefined` unless the output has such a field",
                        names.join(", ")
                    ),
                )
                .with_help(
                    "read the output's fields directly (`const out = await ctx.task(…)`, then `out.x`), and declare them in `outputSchema.properties`",
                )
            } else {
                let props: Vec<String> = fields
                    .iter()
                    .map(|(f, _)| format!("{f}: {{ type: … }}"))
                    .collect();
                let quoted: Vec<String> = fields.iter().map(|(f, _)| format!("'{f}'")).collect();
                sink.diag(
                    task.id_location.clone(),
                    format!(
                        "agent task `{id}` {what}, but its result is read by field ({}): no schema asks the agent for those fields, so a read gets `undefined` when the answer lacks one",
                        names.join(", ")
                    ),
                )
                .with_help(format!(
                    "declare what the code reads: `agent: {{ …, outputSchema: {{ type: 'object', required: [{}], properties: {{ {} }} }} }}`",
                    quoted.join(", "),
                    props.join(", ")
                ))
            };
            for (f, loc) in fields.iter().take(3) {
                d = d.with_related((*loc).clone(), format!("`{f}` is read here"));
            }
            sink.push(d);
        }
    }
}
