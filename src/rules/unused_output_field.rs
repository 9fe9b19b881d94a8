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
    options: &["ignore-fields"],
    fix: crate::rules::FixAvailability::Never,
};

/// The `ignore-fields` option: output fields the project asks every agent
/// for by design (an `evidence` field that keeps agents from inventing
/// results), which no code needs to read.
fn ignore_fields(table: Option<&toml::Table>) -> Result<Vec<String>, String> {
    let Some(v) = table.and_then(|t| t.get("ignore-fields")) else {
        return Ok(Vec::new());
    };
    let bad = || {
        format!("`ignore-fields` must be a list of field names, such as [\"evidence\"], not {v}")
    };
    let items = v.as_array().ok_or_else(bad)?;
    items
        .iter()
        .map(|item| match item.as_str() {
            Some(k) if !k.trim().is_empty() => Ok(k.to_string()),
            _ => Err(bad()),
        })
        .collect()
}

fn describe(kind: &ForwardKind) -> String {
    match kind {
        ForwardKind::Task(t) => format!("passed in the args of `{t}`"),
        ForwardKind::ProcessOutput => "returned as the process output".into(),
        ForwardKind::Breakpoint => "shown in a breakpoint".into(),
        ForwardKind::Unknown(u) => format!("handed to `{u}`"),
    }
}

/// Tasks a module needs before a field all of them require reads as its
/// convention rather than as two tasks forgetting the same field.
const CONVENTION_TASKS: usize = 3;

/// Fields that report whether the task's work succeeded: never a convention.
const STATUS_FIELDS: &[&str] = &[
    "success",
    "succeeded",
    "passed",
    "pass",
    "ok",
    "approved",
    "status",
    "verdict",
    "complete",
    "completed",
    "done",
    "failed",
    "errors",
];

/// The module's output-field conventions: fields that every task of the
/// module with an output schema (at least [`CONVENTION_TASKS`] of them)
/// lists in its schema's `required`, and that no code reads on any of
/// their results — asked of every agent by design (an `evidence` or
/// `artifacts` field), kept in the run's results, not a field one task
/// forgot to use. A field some task's result is read for is no
/// convention: the tasks whose result it is not read on are reported. Nor
/// is a status field (`success`, `passed`…): every agent reporting whether
/// it succeeded, and no code reading it, is a gate that never gates.
fn module_conventions(p: &Project, mi: usize) -> Vec<&str> {
    let module = &p.modules[mi];
    let with_schema: Vec<usize> = (0..module.tasks.len())
        .filter(|&ti| p.schema_fields(mi, ti).is_some_and(|f| !f.is_empty()))
        .collect();
    let Some(&first) = with_schema.first() else {
        return Vec::new();
    };
    if with_schema.len() < CONVENTION_TASKS {
        return Vec::new();
    }
    let uses = p.result_uses();
    module.tasks[first]
        .schema_required
        .iter()
        .filter(|field| !STATUS_FIELDS.contains(&field.as_str()))
        .filter(|field| {
            with_schema.iter().all(|&ti| {
                module.tasks[ti].schema_required.contains(field)
                    && uses
                        .get(&(mi, ti))
                        .is_none_or(|u| !u.fields.contains_key(*field))
            })
        })
        .map(String::as_str)
        .collect()
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

    fn validate_options(&self, options: &toml::Table) -> Result<(), String> {
        ignore_fields(Some(options)).map(|_| ())
    }

    fn check_project(&self, p: &Project, config: &Config, sink: &mut ProjectSink) {
        let ignored = ignore_fields(config.rule_options.get(META.id)).unwrap_or_default();
        for (mi, module) in p.modules.iter().enumerate() {
            if !module.report {
                continue;
            }
            let conventions = module_conventions(p, mi);
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
                    .filter(|(name, _)| {
                        !uses.fields.contains_key(name)
                            && !ignored.contains(name)
                            && !conventions.contains(&name.as_str())
                    })
                    .collect();
                let Some(first) = unused.first() else {
                    continue;
                };
                let names: Vec<String> = unused.iter().map(|(n, _)| format!("`{n}`")).collect();
                let id = task.id.as_deref().unwrap_or("task");
                let plural = if unused.len() == 1 { "field" } else { "fields" };
                let them = if unused.len() == 1 { "it" } else { "them" };
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
                // Nothing reads any field of the result and it goes nowhere:
                // the task is run for its work, and its output is a report
                // for the people reading the run. Its status fields are the
                // finding (a failure the agent reports is never seen); the
                // rest is a note.
                let never_read = uses.fields.is_empty() && forwards.is_empty();
                let status: Vec<&&(String, Location)> = unused
                    .iter()
                    .filter(|(n, _)| STATUS_FIELDS.contains(&n.as_str()))
                    .collect();
                if never_read && !status.is_empty() {
                    let names: Vec<String> = status.iter().map(|(n, _)| format!("`{n}`")).collect();
                    let mut d = sink
                        .diag(
                            status[0].1.clone(),
                            format!(
                                "task `{id}` reports {} but no code reads its result: a failure the agent reports is never seen, and the process goes on as if the task succeeded",
                                names.join(", ")
                            ),
                        )
                        .with_help(format!(
                            "bind the result and stop (or route to a fix) when {} says the work failed; or drop the field if nothing should depend on it",
                            names[0]
                        ));
                    for (name, loc) in status.iter().skip(1) {
                        d = d.with_related(loc.clone(), format!("`{name}` is not read either"));
                    }
                    sink.push(d);
                    continue;
                }
                let mut d = if never_read {
                    sink.diag_at(
                        Severity::Info,
                        first.1.clone(),
                        format!(
                            "task `{id}` declares output {plural} {} and no code reads its result: the agent \
                             produces {them} and the run stores {them} as a report of the work",
                            names.join(", "),
                        ),
                    )
                    .with_help(format!(
                        "remove the {plural} from `outputSchema` if nobody reads the run's results for {them}; otherwise nothing to do"
                    ))
                } else if forwards.is_empty() {
                    sink.diag(
                        first.1.clone(),
                        format!(
                            "task `{id}` declares output {plural} {} that nothing reads: the agent \
                             produces {them}, the run stores {them} with the task's result, and no \
                             code uses {them}",
                            names.join(", "),
                        ),
                    )
                    .with_help(format!(
                        "remove the {plural} from `outputSchema` (the agent spends tokens producing {them}), \
                         or use {them}; if your tasks ask for {them} by design (an audit field the agent must \
                         fill in), list {them} in proclint.toml's `[rules.unused-output-field]`: `ignore-fields = [{}]`",
                        unused
                            .iter()
                            .map(|(n, _)| format!("\"{n}\""))
                            .collect::<Vec<_>>()
                            .join(", "),
                    ))
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

#[cfg(test)]
mod tests {
    use std::path::Path;

    use crate::engine::discover::FileKind;
    use crate::engine::lint_text;
    use crate::project::config::Config;

    const SRC: &str = "import { defineTask } from '@a5c-ai/babysitter-sdk';\n\
        const review = defineTask('review', () => ({ kind: 'agent', agent: { prompt: 'Review',\n\
        \x20 outputSchema: { type: 'object', required: ['passed', 'evidence', 'notes'],\n\
        \x20   properties: { passed: { type: 'boolean' }, evidence: { type: 'string' }, notes: { type: 'string' } } } } }));\n\
        export async function process(inputs, ctx) {\n\
        \x20 const r = await ctx.task(review, {});\n\
        \x20 return r.passed;\n}\n";

    fn messages(config: &Config) -> Vec<String> {
        lint_text("p.js", FileKind::Process, SRC.into(), config)
            .into_iter()
            .filter(|d| d.rule == "unused-output-field")
            .map(|d| d.message)
            .collect()
    }

    fn config(text: &str) -> Result<Config, String> {
        Config::parse(
            text,
            Path::new("proclint.toml"),
            ".".into(),
            &crate::rules::Registry,
        )
        .map_err(|e| e.to_string())
    }

    #[test]
    fn ignored_fields_are_not_reported() {
        let all = messages(&Config::default());
        assert_eq!(all.len(), 1, "{all:?}");
        assert!(all[0].contains("`evidence`, `notes`"), "{}", all[0]);
        assert!(
            all[0].contains("the run stores them with the task's result, and no code uses them"),
            "{}",
            all[0]
        );
        let cfg = config("[rules.unused-output-field]\nignore-fields = [\"evidence\"]\n")
            .unwrap_or_default();
        let left = messages(&cfg);
        assert_eq!(left.len(), 1, "{left:?}");
        assert!(
            left[0].starts_with("task `review` declares output field `notes` that nothing reads"),
            "{}",
            left[0]
        );
        for bad in [
            "ignore-fields = \"evidence\"",
            "ignore-fields = [1]",
            "ignore-fields = [\"\"]",
        ] {
            assert!(
                config(&format!("[rules.unused-output-field]\n{bad}\n")).is_err(),
                "{bad}"
            );
        }
    }
}
