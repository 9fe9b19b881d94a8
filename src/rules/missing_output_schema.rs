//! `missing-output-schema`: an agent task without a usable output schema
//! whose result is read by field.

use super::{Area, Category, ProjectSink, ReportMeta, Rule, RuleMeta, Sites};
use crate::diagnostic::Severity;
use crate::project::config::Config;
use crate::project::{Project, SchemaState};
use crate::rules::undeclared_output_field::{asks_for, LIST_MEMBERS, WRAPPER_FIELDS};

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
    fix: crate::rules::FixAvailability::Never,
};

/// Promise chaining: not a field read.
const PROMISE_MEMBERS: &[&str] = &["then", "catch", "finally"];

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
            let prompt_schema = task.prompt_schema_fields.as_deref();
            let what = match (task.schema, prompt_schema) {
                (SchemaState::Missing, Some(_)) => {
                    "has its `outputSchema` inside `agent.prompt` (prompt text for the agent, not the task's schema)"
                }
                (SchemaState::Missing, None) => "has no `outputSchema`",
                (SchemaState::NoProperties, _) => {
                    "has an `outputSchema` that declares no properties"
                }
                (SchemaState::Declared | SchemaState::Unknown, _) => continue,
            };
            // Promise chaining is not a field read, nor is a list's or a
            // string's member: an output read as `items.filter(…).length`
            // is used as a list, not as an object with fields. A field the
            // prompt asks for (its `outputFormat`, an instruction, a schema
            // written inside it) is asked for as much as by
            // `agent.outputSchema`: the SDK checks an agent's answer against
            // neither, and both reach the agent with the task.
            let fields: Vec<(&String, _)> = uses
                .fields
                .iter()
                .filter(|(f, _)| {
                    !PROMISE_MEMBERS.contains(&f.as_str()) && !LIST_MEMBERS.contains(&f.as_str())
                })
                .filter(|(f, _)| {
                    !prompt_schema.is_some_and(|s| s.iter().any(|(n, _)| n == *f))
                        && !asks_for(task, f)
                })
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
            let props: Vec<String> = fields
                .iter()
                .map(|(f, _)| format!("{f}: {{ type: … }}"))
                .collect();
            let quoted: Vec<String> = fields.iter().map(|(f, _)| format!("'{f}'")).collect();
            let declare = format!(
                "`agent: {{ …, outputSchema: {{ type: 'object', required: [{}], properties: {{ {} }} }} }}`",
                quoted.join(", "),
                props.join(", ")
            );
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
                let help = if prompt_schema.is_some() {
                    format!("move the schema out of `prompt` to `agent.outputSchema` and declare what the code reads: {declare}")
                } else {
                    format!("declare what the code reads: {declare}")
                };
                sink.diag(
                    task.id_location.clone(),
                    format!(
                        "agent task `{id}` {what}, and no schema, `outputFormat` or output instruction of it names {}, which the code reads: the SDK keeps whatever answer the agent posts (it checks no agent answer against a schema), so a read gets `undefined` when the answer lacks one",
                        names.join(", ")
                    ),
                )
                .with_help(help)
            };
            for (f, loc) in fields.iter().take(3) {
                d = d.with_related((*loc).clone(), format!("`{f}` is read here"));
            }
            sink.push(d);
        }
    }
}
