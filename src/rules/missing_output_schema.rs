//! `missing-output-schema`: an agent task without a usable output schema
//! whose result is read by field.

use super::{Area, Category, ProjectSink, ReportMeta, Rule, RuleMeta, Sites};
use crate::diagnostic::{Edit, Fix, Severity};
use crate::js::analysis::results::ForwardKind;
use crate::js::summary::SlotKind;
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
    fix: crate::rules::FixAvailability::Sometimes,
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
            // An agent told nothing (`prompt: { /* … */ }`, an abbreviated
            // stub): a schema would not make it produce the fields read.
            if task.prompt_empty {
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
                // Read for a log line only: a missing field prints
                // `undefined` (or the default beside it) and changes nothing
                // the process does.
                .filter(|(f, _)| !uses.logged.contains(*f))
                .collect();
            // A later link of a fallback chain (`v.remainingGaps || v.gaps
            // || known`) is read only when the earlier fields are missing:
            // where one of them is asked for, a missing later one falls
            // through as the code expects.
            let reported: Vec<&str> = fields.iter().map(|(f, _)| f.as_str()).collect();
            let fields: Vec<(&String, _)> = fields
                .iter()
                .filter(|(f, _)| {
                    uses.fallbacks.get(*f).is_none_or(|earlier| {
                        earlier.iter().all(|e| reported.contains(&e.as_str()))
                    })
                })
                .cloned()
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
            if let Some(fix) = schema_fix(task, uses) {
                d = d.with_fix(fix);
            }
            sink.push(d);
        }
    }
}

/// An `outputSchema` declaring the fields the code reads, written where the
/// definition has room for it, when those are all the reads: each a plain
/// name, none a wrapper, a list's or a promise's member, or what code put
/// there, and the result goes nowhere else that could read more (another
/// task's args, the process's output, code not followed) — a breakpoint
/// shows it to a human. No `type` per field: the reads do not say one.
fn schema_fix(
    task: &crate::js::summary::TaskSummary,
    uses: &crate::project::result_uses::ResultUse,
) -> Option<Fix> {
    let slot = task.schema_slot.as_deref()?;
    if uses.fields.is_empty()
        || uses
            .forwards
            .iter()
            .any(|f| !matches!(f, ForwardKind::Breakpoint))
    {
        return None;
    }
    let plain = |f: &str| {
        let mut cs = f.chars();
        cs.next()
            .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '$')
            && cs.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
    };
    let mut fields: Vec<(&String, &crate::diagnostic::Location)> = uses.fields.iter().collect();
    for (f, loc) in &fields {
        if !plain(f)
            || WRAPPER_FIELDS.contains(&f.as_str())
            || PROMISE_MEMBERS.contains(&f.as_str())
            || LIST_MEMBERS.contains(&f.as_str())
            || uses.provided.contains(*loc)
        {
            return None;
        }
    }
    // In the order the code first reads them, those of the task's own
    // module first.
    fields.sort_by_key(|(f, l)| (l.path != task.definition.path, l.span.start, (*f).clone()));
    let props: Vec<String> = fields.iter().map(|(f, _)| format!("{f}: {{}}")).collect();
    let props = format!("{{ {} }}", props.join(", "));
    let q = slot.quote;
    let text = match slot.what {
        SlotKind::OutputSchema => {
            format!("outputSchema: {{ type: {q}object{q}, properties: {props} }}")
        }
        SlotKind::Properties => format!("properties: {props}"),
        SlotKind::PropertiesValue => props,
    };
    Some(Fix {
        description: "declare the fields the code reads in `outputSchema`".into(),
        edits: vec![Edit {
            span: slot.span,
            replacement: format!("{}{text}{}", slot.before, slot.after),
        }],
        safe: false,
    })
}

#[cfg(test)]
mod tests {
    use crate::diagnostic::Diagnostic;

    fn lint(src: &str) -> Vec<crate::diagnostic::Diagnostic> {
        crate::rules::testing::lint_source("missing-output-schema", src)
    }

    const TASK: &str = "import { defineTask } from \"@a5c-ai/babysitter-sdk\";\nexport const planTask = defineTask(\"plan\", () => ({\n  kind: \"agent\",\n  title: \"Plan\",\n  agent: {\n    prompt: { task: \"Plan it\" }\n  }\n}));\n";

    fn replacement(ds: &[Diagnostic]) -> Option<String> {
        let fix = ds.first()?.fix.as_ref()?;
        assert!(!fix.safe);
        Some(fix.edits.iter().map(|e| e.replacement.clone()).collect())
    }

    #[test]
    fn the_fix_declares_the_fields_read_in_order() {
        let src = format!("{TASK}export async function process(inputs, ctx) {{\n  const plan = await ctx.task(planTask, {{}});\n  if (plan.steps.length === 0) return {{ empty: true }};\n  return {{ risks: plan.risks }};\n}}\n");
        let ds = lint(&src);
        assert_eq!(ds.len(), 1, "{ds:#?}");
        // On a line of its own after `prompt`, in the module's quotes.
        assert_eq!(
            replacement(&ds).as_deref(),
            Some(",\n    outputSchema: { type: \"object\", properties: { steps: {}, risks: {} } }")
        );
    }

    #[test]
    fn no_fix_when_the_reads_are_not_all_known() {
        // Returned whole from the process: its caller may read anything.
        let src = format!("{TASK}export async function process(inputs, ctx) {{\n  const plan = await ctx.task(planTask, {{}});\n  const steps = plan.steps;\n  return plan;\n}}\n");
        let ds = lint(&src);
        assert_eq!(ds.len(), 1, "{ds:#?}");
        assert_eq!(replacement(&ds), None);
        // A field read by a computed name.
        let src = format!("{TASK}export async function process(inputs, ctx) {{\n  const plan = await ctx.task(planTask, {{}});\n  return [plan.steps, plan['risk-level']];\n}}\n");
        let ds = lint(&src);
        assert_eq!(ds.len(), 1, "{ds:#?}");
        assert_eq!(replacement(&ds), None);
    }

    #[test]
    fn a_field_read_for_a_log_line_only() {
        let body = |reads: &str| {
            format!("{TASK}export async function process(inputs, ctx) {{\n  const plan = await ctx.task(planTask, {{}});\n{reads}\n}}\n")
        };
        assert!(lint(&body("  ctx.log('info', `${plan.steps || 0} steps`);")).is_empty());
        assert!(lint(&body("  console.warn(plan.steps);")).is_empty());
        // Logged here, decided on there: reported.
        let ds = lint(&body(
            "  ctx.log('info', `${plan.steps} steps`);\n  if (plan.steps) return 1;",
        ));
        assert_eq!(ds.len(), 1, "{ds:#?}");
        // Not a log of the run, or passed on through another call first.
        assert_eq!(
            lint(&body("  if (Math.log(plan.steps) > 2) return 1;")).len(),
            1
        );
        assert_eq!(
            lint(&body(
                "  await inputs.auditTrail.log({ steps: plan.steps });"
            ))
            .len(),
            1
        );
        assert_eq!(
            lint(&body(
                "  ctx.log('info', `${(await ctx.task(planTask, { s: plan.steps })).ok}`);"
            ))
            .len(),
            1
        );
        // Built into a message that a log prints later: a read like any other.
        assert_eq!(
            lint(&body(
                "  const m = `${plan.steps} steps`;\n  ctx.log('info', m);"
            ))
            .len(),
            1
        );
    }
}
