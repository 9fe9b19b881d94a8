//! `unused-output-field`: output schema properties nothing reads.

use std::collections::HashMap;

use super::{Area, Category, ProjectSink, ReportMeta, Rule, RuleMeta, RuleSwitches, Sites};
use crate::diagnostic::{Fix, Location, Severity};
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
    fix: crate::rules::FixAvailability::Sometimes,
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

/// The module's output-field conventions: fields that most tasks of the
/// module with an output schema list in their schema's `required` (at
/// least [`CONVENTION_TASKS`] of them, and two in three), and that no code
/// reads on any task's result — asked of every agent by design (an
/// `evidence`, `artifacts` or `summary` field), kept in the run's results,
/// not a field one task forgot to use. A task or two without it (a commit
/// task at the end) do not undo the design. A field some task's result is
/// read for is no convention: the tasks whose result it is not read on are
/// reported. Nor is a status field (`success`, `passed`…): every agent
/// reporting whether it succeeded, and no code reading it, is a gate that
/// never gates.
fn module_conventions(p: &Project, mi: usize) -> Vec<&str> {
    let module = &p.modules[mi];
    let with_schema: Vec<usize> = (0..module.tasks.len())
        .filter(|&ti| p.schema_fields(mi, ti).is_some_and(|f| !f.is_empty()))
        .collect();
    if with_schema.len() < CONVENTION_TASKS {
        return Vec::new();
    }
    let uses = p.result_uses();
    let candidates: std::collections::BTreeSet<&str> = with_schema
        .iter()
        .flat_map(|&ti| module.tasks[ti].schema_required.iter().map(String::as_str))
        .collect();
    candidates
        .into_iter()
        .filter(|field| !STATUS_FIELDS.contains(field))
        .filter(|field| {
            let requiring = with_schema
                .iter()
                .filter(|&&ti| module.tasks[ti].schema_required.iter().any(|r| r == field))
                .count();
            requiring >= CONVENTION_TASKS && requiring * 3 >= with_schema.len() * 2
        })
        .filter(|field| {
            (0..module.tasks.len()).all(|ti| {
                uses.get(&(mi, ti))
                    .is_none_or(|u| !u.fields.contains_key(*field))
            })
        })
        .collect()
}

/// Removes the unread fields from the task's own schema literal: each
/// one's entry in `properties` and its name in `required`. Unsafe: the
/// agent's task (`task.json`) carries the schema, so the agent is no
/// longer asked for the fields and the run no longer stores them, and the
/// SDK validates a shell task's result against `outputSchema` — a field no
/// longer required is no longer checked. Offered only where every unread
/// field is a plain name written in that literal, and none is a status
/// field: the rule's own reasoning is that a status nobody reads is a gate
/// that never gates, to be read rather than removed.
///
/// Nor is it offered when the task's prompt names a field (`outputFormat:
/// 'JSON with reportPath, summary'`): the agent would still be asked for
/// it, and the prompt is the user's prose, which no fix rewrites; nor when
/// the prompt of a task that may run after it talks about it (`asked`: that
/// step wants the field).
fn removal_fix(
    task: &crate::project::TaskSummary,
    unused: &[&(String, Location)],
    asked: &[(&str, usize)],
) -> Option<Fix> {
    let slots = task.schema_slots.as_deref()?;
    if unused
        .iter()
        .any(|(n, _)| STATUS_FIELDS.contains(&n.as_str()) && !is_data(task, n))
    {
        return None;
    }
    if unused
        .iter()
        .any(|(n, _)| task.prompt_names.iter().any(|p| **p == **n))
    {
        return None;
    }
    // Another task's prompt talks about it: that step wants the field.
    if unused
        .iter()
        .any(|(n, _)| asked.iter().any(|(f, _)| f == n))
    {
        return None;
    }
    let names: Vec<&str> = unused.iter().map(|(n, _)| n.as_str()).collect();
    let lists = [slots.properties.as_ref(), slots.required.as_ref()];
    let written = |name: &str| {
        lists
            .iter()
            .flatten()
            .any(|l| l.items.iter().any(|i| i.name.as_deref() == Some(name)))
    };
    if !names.iter().all(|n| written(n)) {
        return None;
    }
    let edits: Vec<_> = lists
        .iter()
        .flatten()
        .flat_map(|l| l.removal(&names))
        .collect();
    let quoted: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
    Some(Fix {
        description: format!(
            "remove {} from `outputSchema`",
            super::prose_list(&quoted, quoted.len())
        ),
        edits,
        safe: false,
    })
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
        let wrapper_reads = std::cell::OnceCell::new();
        let wrapper_readers = std::cell::OnceCell::new();
        // (calling module, undefined name) → the name weighed as a lost
        // read, or `None` when it cannot be one (see `lost_read`).
        let mut lost_names = HashMap::new();
        for (mi, module) in p.modules.iter().enumerate() {
            if !module.report {
                continue;
            }
            let conventions = module_conventions(p, mi);
            let shares = FieldShares::new(p, mi);
            // (the unread statuses, task, where, finding): reported per
            // module at its end.
            let mut unread_statuses = Vec::new();
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
                let asked = asked_after(p, mi, ti);
                // A read of a name the schema lacks (a wrapper's `value`, a
                // misspelling) says the code expects output it does not
                // declare: which fields it means is the user's call, not a
                // removal's.
                let misread = uses
                    .fields
                    .keys()
                    .any(|k| !fields.iter().any(|(n, _)| n == k));
                // The undeclared read is a wrapper's name (`value`,
                // `result`): the code expects the output one level down.
                // The code reads what this task made (not only its status,
                // a grade or its files).
                let product_read = uses
                    .fields
                    .keys()
                    .any(|k| is_product(k) && !task.schema_flags.contains(k));
                let wrapper_read = uses.fields.iter().find(|(k, _)| {
                    super::undeclared_output_field::WRAPPER_FIELDS.contains(&k.as_str())
                        && !fields.iter().any(|(n, _)| n == *k)
                });
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
                // A task defined with a built id (`` `score-${i}` ``) is
                // named by the variable that holds it.
                let id = display_name(task);
                // Read for its main fields: what only records the work is a
                // note of its own, the rest stays the finding.
                let unused = if !never_read && forwards.is_empty() {
                    let (noted, kept) =
                        split_stored_detail(p, &shares, (mi, ti), uses, &asked, unused);
                    if !noted.is_empty() {
                        let mut note = stored_detail_note(sink, id, &noted, &uses.fields);
                        if let Some(fix) = removal_fix(task, &noted, &asked).filter(|_| !misread) {
                            note = note.with_fix(fix);
                        }
                        sink.push(note);
                    }
                    kept
                } else {
                    unused
                };
                let Some(first) = unused.first() else {
                    continue;
                };
                let names: Vec<String> = unused.iter().map(|(n, _)| format!("`{n}`")).collect();
                let plural = if unused.len() == 1 { "field" } else { "fields" };
                let them = if unused.len() == 1 { "it" } else { "them" };
                let status: Vec<&&(String, Location)> = unused
                    .iter()
                    .filter(|(n, _)| STATUS_FIELDS.contains(&n.as_str()) && !is_data(task, n))
                    .collect();
                // Every call of the task is followed by a task whose verdict
                // the process reads (a test suite after the implementers):
                // the failure is caught there, not carried on.
                let checked_by: Option<Vec<&(String, Location)>> = invocations
                    .iter()
                    .map(|(mj, ii)| p.modules[*mj].invocations[*ii].checked_by.as_deref())
                    .collect();
                // Only yes/no answers and grades are left unread.
                let status_only = !never_read
                    && forwards.is_empty()
                    && unused
                        .iter()
                        .all(|(n, _)| (is_status(n) || is_go_no_go(n)) && !is_data(task, n));
                // The statuses a check later in the loop covers: those of a
                // result nothing reads, or a result's only unread fields.
                let covered: Vec<&&(String, Location)> = if never_read {
                    status.clone()
                } else if status_only {
                    unused.iter().collect()
                } else {
                    Vec::new()
                };
                if let (false, Some(check)) = (covered.is_empty(), checked_by) {
                    let status = covered;
                    let names: Vec<String> = status.iter().map(|(n, _)| format!("`{n}`")).collect();
                    let Some((text, at)) = check.first() else {
                        continue;
                    };
                    let unread = if never_read {
                        "its result"
                    } else if status.len() == 1 {
                        "it"
                    } else {
                        "them"
                    };
                    let mut d = sink
                        .diag_at(
                            Severity::Info,
                            status[0].1.clone(),
                            format!(
                                "task `{id}` reports {} but no code reads {unread}; the process checks the work with `{text}` after it, in the same loop",
                                names.join(", ")
                            ),
                        )
                        .with_help(format!(
                            "nothing to do if that check catches what {} would report; otherwise read it and stop (or route to a fix) when it says the work failed",
                            names[0]
                        ))
                        .with_related(at.clone(), "the work is checked here");
                    for (name, loc) in status.iter().skip(1) {
                        d = d.with_related(loc.clone(), format!("`{name}` is not read either"));
                    }
                    sink.push(d);
                    continue;
                }
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
                            "{} and stop (or route to a fix) when {} says the work failed; or drop the field if nothing should depend on it",
                            if bound_somewhere(p, mi, ti) {
                                "read the result"
                            } else {
                                "bind the result"
                            },
                            names[0]
                        ));
                    for (name, loc) in status.iter().skip(1) {
                        d = d.with_related(loc.clone(), format!("`{name}` is not read either"));
                    }
                    let names = status.iter().map(|(n, _)| n.clone()).collect();
                    unread_statuses.push((names, id, status[0].1.clone(), d));
                    continue;
                }
                // A result handed on whole reaches its readers that way: a
                // name that fits one of its fields is no lost read of it.
                let lost = if forwards.is_empty() {
                    lost_read(p, config, (mi, ti), &unused, &mut lost_names)
                } else {
                    None
                };
                let mut d = if let Some((field, name, at, declared)) = lost {
                    // `campaignScore` is used and never defined, and
                    // `overallScore` is read nowhere: the line that read one
                    // into the other is gone. `undefined-reference` reports
                    // the name, with no way to know the read; this finding
                    // carries it (and offers no removal).
                    let undefined = if declared {
                        "which is not defined where it is used"
                    } else {
                        "which nothing defines"
                    };
                    sink.diag(
                        first.1.clone(),
                        format!(
                            "task `{id}` declares output {plural} {} that nothing reads, and the code uses \
                             `{name}`, {undefined}: the read of `{field}` looks lost, and using `{name}` \
                             throws a ReferenceError",
                            names.join(", "),
                        ),
                    )
                    .with_help(format!(
                        "restore the read where the result is in scope (`const {name} = <result>.{field};`); \
                         removing `{field}` would not define `{name}`"
                    ))
                    .with_related(at.clone(), format!("`{name}` is used here, {undefined}"))
                } else if never_read {
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
                } else if status_only {
                    // The gate that never gates.
                    sink.diag(
                        first.1.clone(),
                        format!(
                            "task `{id}` reports {} but no code reads {them}: a failure the agent reports is never seen, \
                             and the process goes on as if the task succeeded",
                            names.join(", ")
                        ),
                    )
                    .with_help(format!(
                        "stop (or route to a fix) when `{}` says the work failed; or drop the {plural} if nothing should depend on {them}",
                        first.0
                    ))
                } else if let (true, Some(gate)) = (
                    forwards.is_empty() && unused.iter().all(|(n, _)| is_actionable(n)),
                    uses.fields.keys().find(|k| {
                        k.to_ascii_lowercase().contains("score")
                            || STATUS_FIELDS.contains(&k.as_str())
                    }),
                ) {
                    // Advice beside a verdict the code acts on.
                    sink.diag(
                        first.1.clone(),
                        format!(
                            "task `{id}` declares output {plural} {} that nothing reads, beside `{gate}`, which the \
                             process reads: the advice behind that verdict reaches no reviewer and no retry",
                            names.join(", ")
                        ),
                    )
                    .with_help(format!(
                        "hand {them} to what acts on `{gate}` (the breakpoint's context, the retry's args); or remove \
                         {them} from `outputSchema` if nobody needs {them}"
                    ))
                } else if let (true, Some((wrapper, at))) = (forwards.is_empty(), wrapper_read) {
                    // `auth.value.loggedIn`: the fields are read through a
                    // wrapper the result does not have. Where
                    // `undeclared-output-field` reports that read (with the
                    // fix that drops the wrapper), this is the same defect
                    // seen from the schema: a note.
                    // (That rule is silent where another task whose result
                    // the same read may see declares the name or has no
                    // schema it can read.)
                    let shared_read_declared = wrapper_readers
                        .get_or_init(|| wrapper_readers_of(p))
                        .get(&(wrapper.as_str(), at))
                        .into_iter()
                        .flatten()
                        .any(|&(mj, tj)| {
                            (mj, tj) != (mi, ti)
                                && p.schema_fields(mj, tj)
                                    .filter(|f| !f.is_empty())
                                    .is_none_or(|f| f.iter().any(|(n, _)| n == wrapper))
                        });
                    let reported_at_read = config
                        .is_enabled_for(std::path::Path::new(&*at.path), "undeclared-output-field")
                        && !shared_read_declared
                        && !uses.provided.contains(at)
                        && !uses.fallbacks.contains_key(wrapper.as_str())
                        && p.modules.iter().any(|m| m.path == at.path && m.report);
                    let severity = if reported_at_read {
                        Severity::Info
                    } else {
                        Severity::Warning
                    };
                    sink.diag_at(
                        severity,
                        first.1.clone(),
                        format!(
                            "task `{id}` declares output {plural} {} that nothing reads: the code reads `{wrapper}` \
                             on its result instead, which the schema does not declare; `ctx.task` resolves to the \
                             task's output itself, not to a wrapper around it{}",
                            names.join(", "),
                            if reported_at_read {
                                " (`undeclared-output-field` reports the read)"
                            } else {
                                ""
                            },
                        ),
                    )
                    .with_help({
                        // Name the field the code read through the wrapper
                        // when it is one of these.
                        let field = wrapper_reads
                            .get_or_init(|| reads_through(p))
                            .get(at)
                            .copied()
                            .flatten()
                            .filter(|f| unused.iter().any(|(n, _)| n == *f))
                            .unwrap_or(&first.0);
                        format!(
                            "read the declared {plural} on the result itself: `.{field}`, not `.{wrapper}.{field}`"
                        )
                    })
                    .with_related(at.clone(), format!("`{wrapper}` is read here"))
                } else if let (true, Some((name, others))) = (
                    forwards.is_empty(),
                    read_on_others(&shares, ti, &unused, product_read),
                ) {
                    // The code does something with the same field of other
                    // tasks (collects their `artifacts`, returns their
                    // `config`): this one is left out of it.
                    let (other, at) = others[0];
                    let (more, theirs) = match others.len() - 1 {
                        0 => (String::new(), "that one's is"),
                        1 => (" and 1 other task".to_string(), "theirs are"),
                        n => (format!(" and {n} other tasks"), "theirs are"),
                    };
                    sink.diag(
                        first.1.clone(),
                        format!(
                            "task `{id}` declares output {plural} {} that nothing reads, though the code reads \
                             `{name}` on the result of `{}`{more}: this task's `{name}` is left out where {theirs} used",
                            names.join(", "),
                            display_name(&module.tasks[other]),
                        ),
                    )
                    .with_help(format!(
                        "use this task's `{name}` as the code uses the others' (collect, pass on or return it); \
                         or remove it from `outputSchema` if this one is not needed"
                    ))
                    .with_related(
                        at.clone(),
                        format!("`{name}` of `{}` is read here", display_name(&module.tasks[other])),
                    )
                } else if forwards.is_empty() {
                    let fix = removal_fix(task, &unused, &asked).filter(|_| !misread);
                    let d = sink.diag(
                        first.1.clone(),
                        format!(
                            "task `{id}` declares output {plural} {} that nothing reads: the agent \
                             produces {them}, the run stores {them} with the task's result, and no \
                             code uses {them}",
                            names.join(", "),
                        ),
                    );
                    // A field another task's prompt talks about: hand it
                    // over rather than drop it.
                    let asked = asked.iter().find_map(|(name, tj)| {
                        let other = module.tasks.get(*tj)?;
                        unused
                            .iter()
                            .any(|(n, _)| n == name)
                            .then(|| (name, display_name(other)))
                    });
                    let d = if let Some((name, other)) = asked {
                        d.with_help(format!(
                            "pass `{name}` in the args of `{other}`, whose prompt talks about it; or remove it from `outputSchema` if that step does not need it"
                        ))
                    } else {
                        d.with_help(format!(
                        "remove the {plural} from `outputSchema` (the agent spends tokens producing {them}), \
                         or use {them}; if your tasks ask for {them} by design (an audit field the agent must \
                         fill in), list {them} in proclint.toml's `[rules.unused-output-field]`: `ignore-fields = [{}]`",
                        unused
                            .iter()
                            .map(|(n, _)| format!("\"{n}\""))
                            .collect::<Vec<_>>()
                            .join(", "),
                    ))
                    };
                    match fix {
                        Some(fix) => d.with_fix(fix),
                        None => d,
                    }
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
                // A field another task's prompt talks about: show where.
                for (name, tj) in asked.iter() {
                    let Some(other) = module.tasks.get(*tj) else {
                        continue;
                    };
                    if forwards.is_empty() && unused.iter().any(|(n, _)| n == name) {
                        let other_id = display_name(other);
                        d = d.with_related(
                            other.id_location.clone(),
                            format!("the prompt of `{other_id}` talks about `{name}`, and nothing hands it the field"),
                        );
                    }
                }
                for b in bound.into_iter().take(3) {
                    d = d.with_related(b, "the result is bound here");
                }
                if status_only {
                    let names = unused.iter().map(|(n, _)| n.clone()).collect();
                    unread_statuses.push((names, id, first.1.clone(), d));
                } else {
                    sink.push(d);
                }
            }
            push_unread_statuses(sink, &shares, unread_statuses);
        }
    }
}

/// The fields of task `ti` of module `mi` that another task's prompt talks
/// about, each with the first such task that may run after it: only that
/// task could be handed the field.
fn asked_after(p: &Project, mi: usize, ti: usize) -> Vec<(&str, usize)> {
    let invocations = p.invocations_of(mi, ti);
    // Every call passes an arg of that name: the field hands back what the
    // code already holds (`mcpServers` of a task called with
    // `{ mcpServers }`), so no later step lacks it.
    let echoed = |name: &str| {
        !invocations.is_empty()
            && invocations.iter().all(|&(mj, ii)| {
                p.modules[mj].invocations[ii]
                    .arg_names
                    .iter()
                    .any(|k| k == name)
            })
    };
    let mut out: Vec<(&str, usize)> = Vec::new();
    for (field, tj) in p.modules[mi].tasks[ti].fields_asked_elsewhere.iter() {
        // A number (`businessLogicFlaws`) is a count of what the agent
        // found: a prompt telling another agent to "test business logic
        // flaws" asks for the testing, not for this count.
        let count = p.modules[mi].tasks[ti]
            .schema_numbers
            .iter()
            .any(|f| f == field);
        if !out.iter().any(|(f, _)| f == field)
            && !count
            && !echoed(field)
            && may_run_after(p, mi, *tj, ti)
        {
            out.push((field, *tj));
        }
    }
    out
}

/// Undefined names in one module past which no lost read is looked for.
const MAX_LOST_NAMES: usize = 32;

/// An undefined name of a module weighed as a lost read, once per run (see
/// [`lost_read`]).
struct LostName {
    /// Declared elsewhere in the module: it fits only a field of its own
    /// name.
    declared: bool,
    /// The name's words (`campaign`, `score`).
    words: Vec<String>,
    /// How many unread, and read, fields of the tasks the module calls fit
    /// the name.
    unread: usize,
    read: usize,
}

impl LostName {
    /// Whether `field` (last word `last`) fits the name: it is the name,
    /// or, for a name of two words or more that is no aggregate
    /// (`isConvex`, `totalAssertions`, `minFOS`: worked out from several),
    /// ends with the same word (`campaignScore` for `overallScore`).
    fn fits(&self, name: &str, field: &str, last: Option<&String>) -> bool {
        const DERIVED: &[&str] = &[
            "is",
            "has",
            "all",
            "any",
            "total",
            "min",
            "max",
            "avg",
            "sum",
            "num",
            "count",
            "average",
            "mean",
            "minimum",
            "maximum",
            "overall",
            "combined",
            "aggregate",
        ];
        if self.declared || field == name {
            return field == name;
        }
        let derived = self
            .words
            .first()
            .is_some_and(|w| DERIVED.contains(&w.as_str()));
        self.words.len() >= 2 && !derived && last == self.words.last()
    }
}

/// An unread field whose read the code lost: a name a module calling the
/// task uses and never defines fits it (see [`LostName::fits`]), and no
/// other field of the tasks that module calls — with the field, the name,
/// where it is used and whether the module declares it elsewhere. Not a
/// name that is called (a missing function), written like a shell
/// variable (`KNOWN_ISSUES`), or declared a global by the configuration
/// that applies to it (the harness defines it); nor any name of a module
/// missing more than [`MAX_LOST_NAMES`].
fn lost_read<'p>(
    p: &'p Project,
    config: &Config,
    (mi, ti): (usize, usize),
    unused: &[&'p (String, Location)],
    names: &mut HashMap<(usize, usize), Option<LostName>>,
) -> Option<(&'p str, &'p str, &'p Location, bool)> {
    let mut callers: Vec<usize> = p.invocations_of(mi, ti).iter().map(|(m, _)| *m).collect();
    callers.sort_unstable();
    callers.dedup();
    let last_word = |n: &str| super::name_words(n).pop();
    let unused_last: Vec<Option<String>> = unused.iter().map(|(f, _)| last_word(f)).collect();
    for mc in callers {
        let undefined = &p.modules[mc].undefined;
        // A module missing this many names is broken another way than by
        // one deleted line (and each name is weighed against every field).
        if undefined.len() > MAX_LOST_NAMES {
            continue;
        }
        for (ui, u) in undefined.iter().enumerate() {
            let name = &*u.name;
            let weighed = names.entry((mc, ui)).or_insert_with(|| {
                let global = crate::rules::string_list(
                    config.for_path(std::path::Path::new(&*u.location.path)),
                    "undefined-reference",
                    "globals",
                )
                .iter()
                .any(|g| g == name);
                if u.called || global || !name.starts_with(|c: char| c.is_ascii_lowercase()) {
                    return None;
                }
                let mut lost = LostName {
                    declared: u.declared,
                    words: super::name_words(name),
                    unread: 0,
                    read: 0,
                };
                let mut tasks: Vec<(usize, usize)> = p.modules[mc]
                    .invocations
                    .iter()
                    .filter_map(|inv| p.task_of(mc, &inv.target))
                    .collect();
                tasks.sort_unstable();
                tasks.dedup();
                for (mj, tj) in tasks {
                    let reads = p.result_uses().get(&(mj, tj)).map(|u| &u.fields);
                    for (f, _) in p.schema_fields(mj, tj).unwrap_or(&[]) {
                        if lost.fits(name, f, last_word(f).as_ref()) {
                            if reads.is_some_and(|r| r.contains_key(f)) {
                                lost.read += 1;
                            } else {
                                lost.unread += 1;
                            }
                        }
                    }
                }
                Some(lost)
            });
            // One unread field fits (`securityScore` fits the `score` of
            // five tasks: it was worked out from them, not read from one),
            // and no read one (`allConvex` may be what it was worked out
            // from).
            let Some(lost) = weighed.as_ref().filter(|l| l.unread == 1 && l.read == 0) else {
                continue;
            };
            let fitting =
                (0..unused.len()).find(|&i| lost.fits(name, &unused[i].0, unused_last[i].as_ref()));
            if let Some(i) = fitting {
                return Some((&unused[i].0, name, &u.location, u.declared));
            }
        }
    }
    None
}

/// Whether a call of task `asker` may run after a call of task
/// `producer` (both of module `mi`). Only where every module that calls the
/// asker also calls the producer, each pair in one function that runs once
/// and in no loop, with the asker's call written first, is the answer no:
/// a loop goes round, a helper called twice runs its calls twice, and
/// helpers run in the order they are called, not written.
fn may_run_after(p: &Project, mi: usize, asker: usize, producer: usize) -> bool {
    let askers = p.invocations_of(mi, asker);
    let producers = p.invocations_of(mi, producer);
    if askers.is_empty() || producers.is_empty() {
        return true;
    }
    askers.iter().any(|&(ma, ia)| {
        let a = &p.modules[ma].invocations[ia];
        let mut same_module = producers.iter().filter(|(mp, _)| *mp == ma).peekable();
        if same_module.peek().is_none() {
            return true;
        }
        same_module.any(|&(_, ib)| {
            let b = &p.modules[ma].invocations[ib];
            a.function.is_none()
                || a.function != b.function
                || a.repeat.is_some()
                || b.repeat.is_some()
                || a.location.span.start > b.location.span.start
        })
    })
}

/// The tasks whose result each wrapper field (`value`, `result`) is read
/// on, by the field and where: built once, so deciding whether
/// `undeclared-output-field` reports a read costs a lookup per finding.
fn wrapper_readers_of(p: &Project) -> HashMap<(&str, &Location), Vec<(usize, usize)>> {
    let mut out: HashMap<(&str, &Location), Vec<(usize, usize)>> = HashMap::new();
    for (&task, u) in p.result_uses() {
        for w in super::undeclared_output_field::WRAPPER_FIELDS {
            if let Some((name, at)) = u.fields.get_key_value(*w) {
                out.entry((name.as_str(), at)).or_default().push(task);
            }
        }
    }
    out
}

/// Every wrapper read of the project (`auth.value`), by where it is, with
/// the field read next through it (`loggedIn` of `auth.value.loggedIn`):
/// built once, so naming the field costs a lookup per finding.
fn reads_through(p: &Project) -> HashMap<&Location, Option<&String>> {
    let mut out = HashMap::new();
    let unwraps = p
        .modules
        .iter()
        .flat_map(|m| m.invocations.iter())
        .filter_map(|i| i.result_reads.as_deref())
        .flat_map(|r| r.unwraps.iter());
    for u in unwraps {
        // The first read at a place, as the module lists them.
        out.entry(&u.location).or_insert(u.next.as_ref());
    }
    out
}

/// The first unread field the code reads on other tasks' results of the
/// module, with those tasks and where each is read, in task order.
fn read_on_others<'a>(
    shares: &FieldShares<'a>,
    ti: usize,
    unused: &[&(String, Location)],
    product_read: bool,
) -> Option<(&'a str, Vec<(usize, &'a Location)>)> {
    unused.iter().find_map(|(n, _)| {
        // Beside a product of this task the code reads, the same name on
        // another task is another thing (see `split_stored_detail`).
        if product_read && n != "artifacts" {
            return None;
        }
        let (name, readers) = shares.readers.get_key_value(n.as_str())?;
        let others: Vec<(usize, &Location)> = readers
            .iter()
            .filter(|(tj, _)| *tj != ti)
            .map(|(tj, at)| (*tj, *at))
            .collect();
        (!others.is_empty()).then_some((*name, others))
    })
}

/// Reports the module's unread statuses: one finding per task, or one for
/// the module where several tasks report the same status and the module
/// reads it on none — a design that never checks its agents, not one task
/// forgotten, and one finding says so without burying the rest.
fn push_unread_statuses(
    sink: &mut ProjectSink,
    shares: &FieldShares,
    found: Vec<(Vec<String>, &str, Location, crate::diagnostic::Diagnostic)>,
) {
    // Tasks that leave the very same statuses unread: one task with a
    // second status unread keeps its own finding, which names both.
    let mut by_fields: std::collections::BTreeMap<&[String], Vec<usize>> = Default::default();
    for (i, (fields, ..)) in found.iter().enumerate() {
        by_fields.entry(fields.as_slice()).or_default().push(i);
    }
    let mut merged = vec![false; found.len()];
    for (fields, items) in &by_fields {
        if items.len() < CONVENTION_TASKS || fields.iter().any(|f| shares.read_anywhere(f)) {
            continue;
        }
        let Some((_, _, first_at, _)) = items.first().map(|&i| &found[i]) else {
            continue;
        };
        let ids: Vec<String> = items.iter().map(|&i| format!("`{}`", found[i].1)).collect();
        let names: Vec<String> = fields.iter().map(|f| format!("`{f}`")).collect();
        let (it, first) = (if fields.len() == 1 { "it" } else { "them" }, &names[0]);
        let mut d = sink
            .diag(
                first_at.clone(),
                format!(
                    "{} tasks of this module report {} and no code reads {it} on any of them \
                     ({}): a failure an agent reports is never seen, and the process goes on as if \
                     the task succeeded",
                    items.len(),
                    super::prose_list(&names, names.len()),
                    super::prose_list(&ids, 4)
                ),
            )
            .with_help(format!(
                "read {first} after each task and stop (or route to a fix) when it says the work \
                 failed; or drop {it} from the schemas if nothing should depend on {it}"
            ));
        for &i in &items[1..] {
            let (_, id, at, _) = &found[i];
            d = d.with_related(at.clone(), format!("`{id}` reports {first} too"));
        }
        sink.push(d);
        for &i in items {
            merged[i] = true;
        }
    }
    for ((.., d), merged) in found.into_iter().zip(merged) {
        if !merged {
            sink.push(d);
        }
    }
}

/// How a message names a task: its id, or for an id built at run time
/// (`` `score-${i}` ``) the variable that holds it.
fn display_name(task: &crate::project::TaskSummary) -> &str {
    task.id
        .as_deref()
        .or(task.local_name.as_deref())
        .unwrap_or("task")
}

/// Fields a gate's reader acts on: dropped, the gate's advice is lost.
const ACTIONABLE_FIELDS: &[&str] = &[
    "issues",
    "recommendations",
    "findings",
    "failures",
    "violations",
    "blockers",
    "gaps",
    "problems",
    "warnings",
    "suggestions",
    "feedback",
    "concerns",
    "fixes",
];

/// What a reader acts on: `issues`, `recommendations`, `cryptoIssues`.
fn is_actionable(n: &str) -> bool {
    // What the agent already dealt with (`fixedIssues`, `resolvedGaps`) is
    // a log of its work, not something left for a reader.
    let done = ["fixed", "resolved", "addressed", "closed"]
        .iter()
        .any(|p| {
            n.strip_prefix(p)
                .is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_uppercase()))
        });
    !done
        && (ACTIONABLE_FIELDS
            .iter()
            .any(|a| n == *a || n.ends_with(&capitalized(a)))
            || is_failure_report(n))
}

/// Name endings of fields that record what the agent made or used.
const RECORD_SUFFIXES: &[&str] = &[
    "Path",
    "Id",
    "Url",
    "Uri",
    "Version",
    "Sha",
    "Hash",
    "_path",
    "_id",
    "_url",
    "_version",
    // When the work happened (`completionDate`, `reviewedAt`).
    "Date",
    "At",
    "Timestamp",
    "_date",
    "_at",
];

/// Name endings of fields that say which files the agent wrote. Not
/// `*Paths`: `uncoveredPaths`, `criticalPaths` are findings.
const FILE_SUFFIXES: &[&str] = &[
    "Path",
    "File",
    "Files",
    "Dir",
    "Directory",
    "_path",
    "_file",
    "_files",
    "_dir",
];

/// Past participles of making and changing things: `bannersCreated`,
/// `filesModified` count or list what the agent made.
const WORK_DONE: &[&str] = &[
    "Created",
    "Updated",
    "Modified",
    "Generated",
    "Written",
    "Added",
    "Removed",
    "Deleted",
    "Fixed",
    "Processed",
    "Changed",
    "Migrated",
    "Converted",
    "Touched",
    "Resolved",
    "Implemented",
    "Applied",
    "Documented",
    "Configured",
    "Fulfilled",
    "Installed",
    "Published",
    "Deployed",
    "Optimized",
    "Refactored",
];

/// Report prose for the people reading the run: what a report or
/// synthesis task says beside the files it wrote or the verdict it gives.
const PROSE_FIELDS: &[&str] = &[
    "summary",
    "overview",
    "implications",
    "conclusions",
    "conclusion",
    "narrative",
    "highlights",
    "takeaways",
    "keyTakeaways",
    "keyFindings",
    "keyInsights",
    "nextSteps",
];

/// Breakdowns of a score: per-dimension detail beside the score read.
const BREAKDOWN_FIELDS: &[&str] = &[
    "dimensions",
    "breakdown",
    "scores",
    "subscores",
    "criteria",
    "scoreBreakdown",
    "dimensionScores",
    "categoryScores",
];

/// A field naming the files the agent wrote: `files`, `outputDir`,
/// `reportPath`.
fn is_file_record(n: &str) -> bool {
    matches!(n, "files" | "path" | "file" | "dir" | "directory")
        || FILE_SUFFIXES.iter().any(|s| n.ends_with(s))
}

/// A count by name: `termCount`, `issue_count`.
fn is_count(n: &str) -> bool {
    n.ends_with("Count") || n.ends_with("_count")
}

/// A count or list of what the agent made: `bannersCreated`,
/// `filesModified`, `totalVersions`. The noun before the participle is a
/// plural (`indexCreated` is the agent's claim it did the work: a status).
fn is_work_tally(n: &str) -> bool {
    let tally = WORK_DONE.iter().any(|w| {
        n.strip_suffix(w).is_some_and(|stem| {
            stem.ends_with('s') && !stem.ends_with("ss") && !stem.ends_with("us")
        })
    });
    let total = ["total", "num"].iter().any(|p| {
        n.strip_prefix(p)
            .is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_uppercase()))
    });
    tally || total
}

/// The singular noun a work tally counts: `banner` of `bannersCreated`.
fn tally_noun(n: &str) -> Option<&str> {
    WORK_DONE
        .iter()
        .find_map(|w| n.strip_suffix(w))
        .filter(|_| is_work_tally(n))
        .and_then(|stem| stem.strip_suffix('s'))
        .filter(|noun| noun.len() > 2)
}

fn is_prose(n: &str) -> bool {
    PROSE_FIELDS.contains(&n)
        || ["Summary", "Rationale", "Reasoning", "Explanation"]
            .iter()
            .any(|s| n.ends_with(s))
        || matches!(n, "rationale" | "reasoning" | "explanation")
}

/// Declared fields, by name and place.
type Fields<'a> = Vec<&'a (String, Location)>;

/// Splits a read result's unread fields into (noted, kept): noted are those
/// that record the work for the people reading the run — an optional field
/// (not in `required`) beside a required field that is read, a `*Count`
/// beside a field that is read, a path, id, url or version of what the agent
/// made, the files it wrote (`files`, `outputDir`), a tally of what it made
/// (`bannersCreated`), the text it wrote echoed back (`requirementText`),
/// the breakdown of a score that is read (`dimensions`), and report prose
/// (`summary`, `implications`) beside another field that is read or the
/// file a report task wrote — unless it is a status field, a field the
/// module reads on another task's result (one of them forgot to use it),
/// or what a gate's reader acts on (`issues`, `recommendations`… of a task
/// whose score or status is read), and any field but those of a task read
/// only for the files it wrote (`artifacts`). When the code reads a name the schema
/// lacks (`result.effectId`), a declared file field is kept: it may be what
/// the code meant to read.
fn split_stored_detail<'a>(
    p: &Project,
    shares: &FieldShares,
    (mi, ti): (usize, usize),
    uses: &crate::project::result_uses::ResultUse,
    asked_after: &[(&str, usize)],
    unused: Fields<'a>,
) -> (Fields<'a>, Fields<'a>) {
    let task = &p.modules[mi].tasks[ti];
    let read = &uses.fields;
    let templated = |name: &str| shares.templated(name);
    let odd_one_out = |name: &str| shares.odd_one_out(name);
    let read_elsewhere = |name: &str| shares.read_elsewhere(name, ti);
    // Another task's prompt talks about the field ("the triggering event"
    // for `triggeringEvent`): a step wants what no code hands it.
    // The prompt asks for it in words: the agent returns it.
    let asked = |name: &str| task.prompt_names.iter().any(|p| &**p == name);
    let asked_elsewhere = |name: &str| asked_after.iter().any(|(f, _)| *f == name);
    let declared = p.schema_fields(mi, ti).unwrap_or(&[]);
    let misread = read.keys().any(|k| !declared.iter().any(|(n, _)| n == k));
    let score_read = read
        .keys()
        .any(|k| k.to_ascii_lowercase().contains("score"));
    let status_read = read.keys().any(|k| STATUS_FIELDS.contains(&k.as_str()));
    let gate = score_read || status_read;
    let required_read = task.schema_required.iter().any(|r| read.contains_key(r));
    // A report task: it writes its report to a file and says which, or is
    // named for its report (or documentation). Its prose repeats what the
    // file holds.
    let named_report = [task.id.as_deref(), task.static_id.as_deref()]
        .into_iter()
        .flatten()
        .any(|id| {
            let id = id.to_ascii_lowercase();
            id.contains("report") || id.contains("synthes") || id.contains("document")
        });
    let writes_file = declared.iter().any(|(n, _)| is_file_record(n));
    let report_task = named_report || writes_file;
    // A report task that says which files it wrote (a path, or the
    // `artifacts` list): what else it returns (its findings,
    // recommendations, sections) is what the files hold.
    // So is one whose report the code reads (`report`, `documentation`):
    // its advice is what that report says.
    let report_read = read
        .keys()
        .any(|k| matches!(k.as_str(), "report" | "documentation"));
    let written_report = named_report
        && (writes_file || report_read || declared.iter().any(|(n, _)| n == "artifacts"));
    // Some of the task's advice is read (`feedback` handed to the reviser):
    // its other lists (`majorIssues`) reach the reader through it.
    let advice_read = read.keys().any(|k| {
        let words = super::name_words(k);
        // A count or a yes/no of it (`totalIssues`, `hasIssues`) is not
        // the advice.
        let tally = is_count(k)
            || task.schema_flags.contains(k)
            || matches!(
                words.first().map(String::as_str),
                Some("total" | "num" | "has" | "is" | "count")
            );
        // `errors` is a status (any at all fails the work) and the advice
        // behind it: read, it carries what went wrong.
        !tally
            && (is_actionable(k)
                || k == "errors"
                || words
                    .first()
                    .is_some_and(|w| ACTIONABLE_FIELDS.contains(&w.as_str())))
    });
    // Prose beside a field the process acts on (not only the file list
    // every task returns): the agent's account of work whose product is
    // read.
    let product_read = read.keys().any(|k| k != "artifacts" && !is_prose(k));
    // The process reads what the task made (`shortlist`, `ddCircuit`), not
    // only whether it succeeded (a status, or any field the schema types
    // `boolean`), a grade, or where its files are: what else the task
    // returns is another account of the same work (`longList` beside
    // `shortlist`), kept with the run.
    let made_read = read
        .keys()
        .any(|k| is_product(k) && !task.schema_flags.contains(k));
    // Read only for the files it wrote (`artifacts`, pushed into the run's
    // file list): the task's product is those files, and its other fields
    // describe them for the people reading the run — even a field named
    // for the task (`strategy` of `responsive-strategy`), which sums up
    // what the files hold: the process moved on with the files alone.
    // The process returns a file the task names (`docPath`): the files
    // reach its output that way, whatever its `artifacts` list says.
    let file_returned = uses.returned.iter().any(|k| is_file_record(k));
    // Read only for the files it wrote, and maybe whether it succeeded:
    // the other fields describe those files.
    let files_read = read.keys().any(|k| k == "artifacts" || is_file_record(k));
    let files_only = files_read
        && read.keys().all(|k| {
            k == "artifacts"
                || is_file_record(k)
                || STATUS_FIELDS.contains(&k.as_str())
                || task.schema_flags.contains(k)
                || is_verdict(k)
                // How many of something the files hold (`termCount`):
                // logged about them, not a product of its own.
                || is_count(k)
                || is_work_tally(k)
        });
    // A breakpoint shows a person the task's own files, advice or prose:
    // what it advises reaches a reviewer.
    let files_shown = uses
        .shown
        .iter()
        .any(|k| k == "artifacts" || is_file_record(k) || is_actionable(k) || is_prose(k));
    // What a tally counts, described beside it (`bannerTypes` beside
    // `bannersCreated`), records the same work.
    let nouns: Vec<&str> = unused.iter().filter_map(|(n, _)| tally_noun(n)).collect();
    let describes_tally = |n: &str| {
        nouns.iter().any(|noun| {
            n.strip_prefix(noun)
                .is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_uppercase()))
        })
    };
    // A report whose file a breakpoint shows a person: they see the work,
    // and a failed report or one not ready with it.
    let report_shown = uses.shown.iter().any(|k| {
        let k_lower = k.to_ascii_lowercase();
        (named_report && (k == "artifacts" || is_file_record(k)))
            || (is_file_record(k) && (k_lower.contains("report") || k_lower.contains("doc")))
    });
    unused.into_iter().partition(|(name, _)| {
        let n = name.as_str();
        // The agent's pass/fail beside a score the code reads: the code
        // gates on the score with a threshold of its own.
        if score_read && matches!(n, "passed" | "pass") {
            return true;
        }
        // The agent must return it (required, or asked for in the prompt):
        // an optional extra is the agent's to leave out.
        let owed = task.schema_required.iter().any(|r| r == n) || asked(n);
        if is_status(n) && !is_data(task, n) {
            // Another yes/no of the same result the code reads
            // (`syntaxValid`): the code gates on that one.
            // A verdict under a `*Status` name (`overallStatus`) beside a
            // read grade (`readinessScore`) is that grade's reading, like
            // `productionReady`; `success` is whether the work itself
            // succeeded, which a score does not say.
            let named_state = !STATUS_FIELDS.contains(&n);
            // So is a yes/no the schema types `boolean` that says how a
            // check came out (`violationsDetected`, `converged`), not one
            // that describes the work (`hasWarnings`, `dryRun`).
            let other_verdict = read.keys().any(|k| {
                k != n
                    && (is_status(k)
                        || is_failure_report(k)
                        || (task.schema_flags.contains(k) && is_check_flag(k))
                        || (is_verdict(k) && (named_state || !is_score(k))))
            });
            return other_verdict || report_shown;
        }
        // The parts of a score the code reads (`strategyScore` beside a
        // read `overallScore`).
        let breakdown = score_read
            && (BREAKDOWN_FIELDS.contains(&n)
                || n.ends_with("Scores")
                || n.ends_with("Score")
                || n.ends_with("Breakdown"));
        // A sub-check behind a status the code reads (`lintClean` beside a
        // read `passed`): the code gates on the verdict that sums it up.
        let sub_check = status_read && SUB_CHECKS.iter().any(|s| n.ends_with(s));
        // A go/no-go under another name (`readyForPrototype`, `teamReady`,
        // `overallScore`) that no code reads is a gate that never gates,
        // like a status field.
        if is_go_no_go(n) && !breakdown && !sub_check {
            // Beside another verdict or grade of the result the code reads
            // (`productionReady` beside `readinessScore`): it gates on that.
            // A grade the agent does not owe (`diversityScore`, optional
            // and unasked) is a measure it may add, not a gate.
            return report_shown
                || (is_score(n) && !owed && made_read)
                || read
                    .keys()
                    .any(|k| k != n && (is_status(k) || is_failure_report(k) || is_verdict(k)));
        }
        let actionable = is_actionable(n);
        // What a gate's reader acts on — but a report's recommendations
        // are what the report it wrote says, and a person shown the task's
        // own files at a breakpoint reads the advice in them.
        if gate && actionable && !written_report && !advice_read && !files_shown {
            return false;
        }
        // Prose is read on one task and not another without either having
        // forgotten it: a summary logged here, stored there.
        if is_prose(n) && (product_read || report_task) {
            return true;
        }
        // Read on another task's result: one of the two forgot to use it —
        // unless the agent may leave it out here (optional), or most of the
        // module's schemas declare it (templated tasks: reading one task's
        // says nothing about another's), or the code reads this task's own
        // product (the dashboard's `kpis` describe the dashboard it uses,
        // not the definitions another task's `kpis` hold). What a reader
        // acts on, and a copy left unread where most are read, are
        // oversights either way.
        let required = task.schema_required.iter().any(|r| r == n);
        // Not a report's advice, which its file holds, nor a total: the
        // same name on two tasks totals different things.
        let total = is_work_tally(n) || is_count(n);
        // More lists of advice beside the advice the reader gets.
        if actionable && advice_read {
            return true;
        }
        // What a reader acts on, from a task whose own files a breakpoint
        // shows a person: they read it there, whatever another task's
        // same-named advice is used for.
        if actionable && files_shown && !asked_elsewhere(n) {
            return true;
        }
        if read_elsewhere(n)
            && !(actionable && written_report)
            && !(made_read && n != "artifacts")
            && !(n == "artifacts" && file_returned)
            && ((owed && (actionable || odd_one_out(n))) || (required && !templated(n) && !total))
        {
            return false;
        }
        // What a reader acts on, from a task read only for its files:
        // nothing carries it on to a reader or a retry — unless the task
        // wrote it into the report it names.
        if files_only && actionable && !written_report && !files_shown {
            return false;
        }
        if written_report || (files_only && !is_verdict(n)) {
            return true;
        }
        let optional =
            required_read && !task.schema_required.iter().any(|r| r == n) && !asked_elsewhere(n);
        let count = is_count(n);
        let record = RECORD_SUFFIXES.iter().any(|s| n.ends_with(s))
            || matches!(n, "path" | "id" | "url" | "version")
            // What the agent pasted to show it ran something
            // (`executedOutputExcerpt`, `commandEvidence`).
            || n.ends_with("Excerpt")
            || n.ends_with("Evidence")
            // The agent's own forecast beside what it made
            // (`predictedThickness`).
            || n.strip_prefix("predicted")
                .is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_uppercase()));
        let files = is_file_record(n) && !misread;
        // Text the agent wrote into a file it names, echoed back
        // (`testCode` beside a read `testFilePath`).
        let echo = n.ends_with("Text") || echoes_written_file(n, |k| read.contains_key(k));
        let tally = is_work_tally(n) || describes_tally(n);
        // A log of what the agent did (`improvements`, `commandsRun`).
        let work_log = WORK_LOGS.contains(&n);
        // Another account of a product the code reads (`interactionNetwork`
        // beside a read `interactions`, `publicationFormats` beside
        // `publishedPath`).
        let redescribes = !actionable
            && !is_verdict(n)
            && read.keys().any(|k| {
                k != "artifacts" && !STATUS_FIELDS.contains(&k.as_str()) && shares_stem(k, n)
            });
        // Beside a product the code reads, a field that is neither a
        // status nor advice the agent owes is a second account of the work
        // — unless the code reads a name the schema lacks, which may mean
        // this one.
        let beside_product = made_read && (!actionable || !owed) && !misread && !asked_elsewhere(n);
        optional
            || beside_product
            || count
            || record
            || files
            || tally
            || echo
            || breakdown
            || sub_check
            || redescribes
            || work_log
    })
}

/// Logs of what the agent did: records of the work, not products.
const WORK_LOGS: &[&str] = &[
    "improvements",
    "changes",
    "changesMade",
    "commands",
    "commandsRun",
    "commandsExecuted",
    "actionsTaken",
    "stepsTaken",
];

/// Name endings of a check that a status sums up: `lintClean`,
/// `testsPassed`, `schemaValid`.
const SUB_CHECKS: &[&str] = &["Clean", "Passed", "Valid", "Complete", "Succeeded", "Ok"];

/// Whether two names share a word of five letters or more by its first
/// five (`interactions` and `interactionNetwork`, `publishedPath` and
/// `publicationFormats`).
fn shares_stem(a: &str, b: &str) -> bool {
    let stems = |n: &str| -> Vec<String> {
        super::name_words(n)
            .into_iter()
            .filter(|w| w.len() >= 5)
            .map(|w| w.chars().take(5).collect())
            .collect()
    };
    let a = stems(a);
    stems(b).iter().any(|w| a.contains(w))
}

/// `<x>Code` or `<x>Content` when the code reads `<x>Path`, `<x>File` or
/// `<x>FilePath`: the file is the product, and the field repeats what the
/// agent wrote into it.
fn echoes_written_file(n: &str, is_read: impl Fn(&str) -> bool) -> bool {
    let Some(prefix) = n
        .strip_suffix("Code")
        .or_else(|| n.strip_suffix("Content"))
        .filter(|p| !p.is_empty())
    else {
        return false;
    };
    ["Path", "File", "FilePath"]
        .iter()
        .any(|suffix| is_read(&format!("{prefix}{suffix}")))
}

/// A field that holds what the task made rather than how it went or where
/// its files are: not `artifacts`, prose, a status, a verdict or grade, a
/// file, a record (`reportId`, `*Url`) or a count.
fn is_product(n: &str) -> bool {
    n != "artifacts"
        && !is_prose(n)
        && !is_status(n)
        && !is_go_no_go(n)
        && !is_file_record(n)
        && !RECORD_SUFFIXES.iter().any(|s| n.ends_with(s))
        && !matches!(n, "path" | "id" | "url" | "version")
        && !is_count(n)
}

/// A go/no-go or a grade under another name than the status fields:
/// `teamReady`, `logisticsConfirmed`, `overallScore`. Beside a file list
/// they are what the process should check, not a description of the files.
fn is_verdict(n: &str) -> bool {
    [
        "Ready",
        "Confirmed",
        "Approved",
        "Passed",
        "Valid",
        "Complete",
        "Succeeded",
    ]
    .iter()
    .any(|s| n.ends_with(s))
        || is_score(n)
}

/// A go/no-go under a name other than a status's: a verdict or grade
/// (`teamReady`, `overallScore`) or `readyFor*`.
fn is_go_no_go(n: &str) -> bool {
    is_verdict(n) || n.starts_with("readyFor")
}

/// A field the task's schema types as a number: an amount
/// (`completed: { type: 'number' }` is a count), not a yes/no or a state,
/// whatever its name. (An object `*Status` is still taken for one: it is
/// the assessment the task made, which the process should read either way.)
fn is_data(task: &crate::project::TaskSummary, n: &str) -> bool {
    // How many failed (`failed`, `errors`) says the work failed, in any type.
    !matches!(n, "failed" | "errors" | "status") && task.schema_numbers.iter().any(|f| f == n)
}

/// A yes/no whose words say how a check came out: `violationsDetected`,
/// `converged`, `stopRecommended`, `meetsTarget`.
fn is_check_flag(n: &str) -> bool {
    super::name_words(n).iter().any(|w| {
        [
            "detected",
            "violat",
            "converged",
            "pass",
            "valid",
            "verified",
            "approved",
            "complete",
            "ready",
            "ok",
            "safe",
            "compliant",
            "met",
            "meets",
            "stop",
            "blocked",
            "fail",
            "error",
            "success",
            "succeeded",
            "healthy",
            "acceptable",
        ]
        .iter()
        .any(|s| w.starts_with(s))
    })
}

/// A status field, or one that says how the work went under another name:
/// `deliveryStatus`.
fn is_status(n: &str) -> bool {
    STATUS_FIELDS.contains(&n) || n.ends_with("Status")
}

/// Whether some call of the task binds its result (`let r = await
/// ctx.task(…)`): the help then asks to read it, not to bind it.
fn bound_somewhere(p: &Project, mi: usize, ti: usize) -> bool {
    p.invocations_of(mi, ti)
        .iter()
        .any(|&(mj, ii)| p.modules[mj].invocations[ii].bound.is_some())
}

/// What failed, listed or counted: `failedTests`, `failedCount`.
fn is_failure_report(n: &str) -> bool {
    n.strip_prefix("failed")
        .is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_uppercase()))
        || n.ends_with("Failed")
}

fn is_score(n: &str) -> bool {
    n.ends_with("Score") || n == "score"
}

fn capitalized(word: &str) -> String {
    let mut c = word.chars();
    c.next()
        .map(|f| f.to_ascii_uppercase().to_string() + c.as_str())
        .unwrap_or_default()
}

/// What a module's tasks declare and are read for, field by field: the
/// same for every task of the module, so computed once per module.
struct FieldShares<'p> {
    /// Tasks of the module with a non-empty output schema.
    schema_tasks: usize,
    /// Field → (tasks whose schema declares it, of those the tasks read
    /// for it).
    shares: HashMap<&'p str, (usize, usize)>,
    /// Field → the tasks of the module whose results are read for it, in
    /// task order, with the first place each is read.
    readers: HashMap<&'p str, Vec<(usize, &'p Location)>>,
}

impl<'p> FieldShares<'p> {
    fn new(p: &'p Project, mi: usize) -> FieldShares<'p> {
        let uses = p.result_uses();
        let mut shares: HashMap<&str, (usize, usize)> = HashMap::new();
        let mut readers: HashMap<&str, Vec<(usize, &Location)>> = HashMap::new();
        let mut schema_tasks = 0;
        for ti in 0..p.modules[mi].tasks.len() {
            let read = uses.get(&(mi, ti));
            for (field, at) in read.iter().flat_map(|u| &u.fields) {
                readers.entry(field.as_str()).or_default().push((ti, at));
            }
            let Some(fields) = p.schema_fields(mi, ti).filter(|f| !f.is_empty()) else {
                continue;
            };
            schema_tasks += 1;
            let mut names: Vec<&str> = fields.iter().map(|(n, _)| n.as_str()).collect();
            names.sort_unstable();
            names.dedup();
            for name in names {
                let share = shares.entry(name).or_default();
                share.0 += 1;
                if read.is_some_and(|u| u.fields.contains_key(name)) {
                    share.1 += 1;
                }
            }
        }
        FieldShares {
            schema_tasks,
            shares,
            readers,
        }
    }

    /// A field most of the module's schemas declare (more than half:
    /// `config` in a module of templated tasks), read on few of them:
    /// reading one task's says nothing about another's.
    fn templated(&self, name: &str) -> bool {
        let (declaring, reading) = self.shares.get(name).copied().unwrap_or_default();
        declaring >= CONVENTION_TASKS
            && declaring * 2 > self.schema_tasks
            && reading * 2 < declaring
    }

    /// Read on most of the (several) tasks that declare it: an unread one
    /// is the copy left unread.
    fn odd_one_out(&self, name: &str) -> bool {
        let (declaring, reading) = self.shares.get(name).copied().unwrap_or_default();
        declaring >= CONVENTION_TASKS && reading * 2 > declaring
    }

    /// Read on the result of some task of the module.
    fn read_anywhere(&self, name: &str) -> bool {
        self.readers.contains_key(name)
    }

    /// Read on the result of a task of the module other than `ti`.
    fn read_elsewhere(&self, name: &str, ti: usize) -> bool {
        self.readers
            .get(name)
            .is_some_and(|r| r.iter().any(|&(tj, _)| tj != ti))
    }
}

/// The note for the fields [`split_stored_detail`] sets apart.
fn stored_detail_note(
    sink: &ProjectSink,
    id: &str,
    noted: &[&(String, Location)],
    read: &std::collections::BTreeMap<String, Location>,
) -> crate::diagnostic::Diagnostic {
    let names: Vec<String> = noted.iter().map(|(n, _)| format!("`{n}`")).collect();
    let read_names: Vec<String> = read.keys().take(3).map(|n| format!("`{n}`")).collect();
    let (plural, them, they) = if noted.len() == 1 {
        ("field", "it", "it is")
    } else {
        ("fields", "them", "they are")
    };
    let mut d = sink
        .diag_at(
            Severity::Info,
            noted[0].1.clone(),
            format!(
                "task `{id}` declares output {plural} {} that no code reads, beside {}, which the process reads: \
                 the run stores {them} with the task's result as a record of the work",
                names.join(", "),
                read_names.join(", "),
            ),
        )
        .with_help(format!(
            "nothing to do if {they} for the people reading the run; otherwise remove the {plural} from `outputSchema`"
        ));
    for (name, loc) in noted.iter().skip(1) {
        d = d.with_related(loc.clone(), format!("`{name}` is not read either"));
    }
    d
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

    /// A module whose task `t` declares `schema` (the text after
    /// `outputSchema: `) and whose process reads `reads` on its result.
    fn module(schema: &str, reads: &str) -> String {
        format!(
            "import {{ defineTask }} from '@a5c-ai/babysitter-sdk';\n\
             const t = defineTask('t', () => ({{\n  kind: 'agent',\n  agent: {{\n    prompt: {{ task: 'Do' }},\n    outputSchema: {schema},\n  }},\n}}));\n\
             export async function process(inputs, ctx) {{\n  const r = await ctx.task(t, {{}});\n  return [{reads}];\n}}\n"
        )
    }

    /// The default set with this rule's notes.
    fn with_notes() -> Config {
        let mut config = Config::default();
        config.extend_select = vec!["unused-output-field".into()];
        config
    }

    /// The rule's findings on `module(schema, reads)`, notes included:
    /// (severity, message).
    fn found(schema: &str, reads: &str) -> Vec<(crate::diagnostic::Severity, String)> {
        lint_text(
            "p.js",
            FileKind::Process,
            module(schema, reads),
            &with_notes(),
        )
        .into_iter()
        .filter(|d| d.rule == "unused-output-field")
        .map(|d| (d.severity, d.message))
        .collect()
    }

    #[test]
    fn an_unread_status_asks_to_bind_the_result_only_where_none_is_bound() {
        let schema =
            "{ type: 'object', required: ['passed'], properties: { passed: { type: 'boolean' } } }";
        let help = |call: &str| {
            let src = module(schema, "").replace("  const r = await ctx.task(t, {});\n", call);
            let ds: Vec<_> = lint_text("p.js", FileKind::Process, src, &Config::default())
                .into_iter()
                .filter(|d| d.rule == "unused-output-field")
                .collect();
            assert_eq!(ds.len(), 1, "{ds:#?}");
            ds[0].help.clone().unwrap_or_default()
        };
        assert!(help("  const r = await ctx.task(t, {});\n").starts_with("read the result"));
        assert!(help("  await ctx.task(t, {});\n").starts_with("bind the result"));
    }

    #[test]
    fn fields_read_through_a_wrapper_say_so() {
        let src = module(
            "{ type: 'object', required: ['loggedIn', 'identity'], properties: { loggedIn: {}, identity: {} } }",
            "r.value.identity",
        );
        let found: Vec<_> = lint_text("p.js", FileKind::Process, src, &with_notes())
            .into_iter()
            .filter(|d| d.rule == "unused-output-field")
            .collect();
        assert_eq!(found.len(), 1, "{found:?}");
        let d = &found[0];
        assert!(
            d.message
                .contains("the code reads `value` on its result instead"),
            "{}",
            d.message
        );
        assert_eq!(
            d.help.as_deref(),
            Some(
                "read the declared fields on the result itself: `.identity`, not `.value.identity`"
            )
        );
        assert!(d.fix.is_none());
        assert!(
            d.related
                .iter()
                .any(|r| r.message == "`value` is read here"),
            "{:?}",
            d.related
        );
        // `undeclared-output-field` reports the read, with the fix: from the
        // schema's side it is a note. With that rule off, the warning.
        assert_eq!(d.severity, crate::diagnostic::Severity::Info);
        assert!(d
            .message
            .contains("`undeclared-output-field` reports the read"));
        let without = config(
            "extend-select = [\"unused-output-field\"]\n[rules]\nundeclared-output-field = \"off\"\n",
        )
        .unwrap_or_default();
        assert!(!crate::rules::RuleSwitches::is_enabled(
            &without,
            "undeclared-output-field"
        ));
        let src = module(
            "{ type: 'object', required: ['loggedIn', 'identity'], properties: { loggedIn: {}, identity: {} } }",
            "r.value.identity",
        );
        let found: Vec<_> = lint_text("p.js", FileKind::Process, src, &without)
            .into_iter()
            .filter(|d| d.rule == "unused-output-field")
            .map(|d| d.severity)
            .collect();
        assert_eq!(found, [crate::diagnostic::Severity::Warning]);
    }

    #[test]
    fn a_lost_read_is_named() {
        use crate::diagnostic::Severity::Warning;
        let schema = "{ type: 'object', required: ['overallScore', 'artifacts'], properties: { overallScore: {}, artifacts: {} } }";
        let lint = |reads: &str, config: &Config| -> Vec<crate::diagnostic::Diagnostic> {
            lint_text("p.js", FileKind::Process, module(schema, reads), config)
                .into_iter()
                .filter(|d| d.rule == "unused-output-field")
                .collect()
        };
        // `campaignScore` is used and never defined: the read of
        // `overallScore` into it went. The finding says so, points at the
        // name, and offers no removal (`undefined-reference` reports the
        // name, and cannot know which read it lost).
        let found = lint("r.artifacts, campaignScore", &with_notes());
        assert_eq!(found.len(), 1, "{found:?}");
        let d = &found[0];
        assert_eq!(d.severity, Warning);
        assert!(
            d.message.contains(
                "the code uses `campaignScore`, which nothing defines: the read of `overallScore` looks lost, and using `campaignScore` throws a ReferenceError"
            ),
            "{}",
            d.message
        );
        assert_eq!(
            d.help.as_deref(),
            Some("restore the read where the result is in scope (`const campaignScore = <result>.overallScore;`); removing `overallScore` would not define `campaignScore`")
        );
        assert!(d.fix.is_none());
        assert!(d
            .related
            .iter()
            .any(|r| r.message == "`campaignScore` is used here, which nothing defines"));
        // A name the configuration declares a global is the harness's.
        let global = config(
            "extend-select = [\"unused-output-field\"]\n[rules.undefined-reference]\nglobals = [\"campaignScore\"]\n",
        )
        .unwrap_or_default();
        let found = lint("r.artifacts, campaignScore", &global);
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(
            !found[0].message.contains("looks lost"),
            "{}",
            found[0].message
        );
        // An undefined name of another word is no read of this field.
        let found = lint("r.artifacts, campaignBudget", &with_notes());
        assert!(
            found.iter().all(|d| !d.message.contains("looks lost")),
            "{found:?}"
        );
        // A name another function declares is that variable, not this
        // field's read, unless it is the field's own name.
        let declared = |name: &str| {
            module(schema, &format!("r.artifacts, {name}"))
                .replace("export async function", &format!("function other() {{ const {name} = 1; return {name}; }}\nexport async function"))
        };
        let lint_src = |src: String| -> Vec<String> {
            lint_text("p.js", FileKind::Process, src, &with_notes())
                .into_iter()
                .filter(|d| d.rule == "unused-output-field")
                .map(|d| d.message)
                .collect()
        };
        assert!(lint_src(declared("campaignScore"))
            .iter()
            .all(|m| !m.contains("looks lost")));
        assert!(lint_src(declared("overallScore"))
            .iter()
            .any(|m| m.contains("`overallScore`, which is not defined where it is used: the read of `overallScore` looks lost")));
        // Two unread fields the name fits: it was derived from them, not
        // read from one.
        let two = "{ type: 'object', required: ['overallScore', 'qualityScore', 'artifacts'], properties: { overallScore: {}, qualityScore: {}, artifacts: {} } }";
        let found = lint_src(module(two, "r.artifacts, campaignScore"));
        assert!(found.iter().all(|m| !m.contains("looks lost")), "{found:?}");
        // Another task's read field fits the name too: it may be what the
        // value was worked out from.
        let read_too = module(schema, "r.artifacts, campaignScore").replace(
            "return [r.artifacts, campaignScore];",
            "const q = await ctx.task(u, {});\n  return [r.artifacts, campaignScore, q.qualityScore];",
        ).replace(
            "export async function",
            "const u = defineTask('u', () => ({ kind: 'agent', agent: { prompt: { task: 'Rate' }, outputSchema: { type: 'object', required: ['qualityScore'], properties: { qualityScore: {} } } } }));\nexport async function",
        );
        assert!(read_too.contains("q.qualityScore"));
        let found = lint_src(read_too);
        assert!(found.iter().all(|m| !m.contains("looks lost")), "{found:?}");
        // A function called, or a shell-style name, is no value read from
        // a result.
        for reads in [
            "r.artifacts, campaignScore(1)",
            "r.artifacts, new campaignScore()",
            "r.artifacts, CAMPAIGN_SCORE",
        ] {
            let found = lint_src(module(schema, reads));
            assert!(
                found.iter().all(|m| !m.contains("looks lost")),
                "{reads}: {found:?}"
            );
        }
        // A value worked out from several (`isConvex`, `totalScore`) is no
        // read of one field.
        let found = lint_src(module(schema, "r.artifacts, totalScore"));
        assert!(found.iter().all(|m| !m.contains("looks lost")), "{found:?}");
        // A result handed on whole reaches its readers that way.
        let forwarded = module(schema, "campaignScore").replace(
            "return [campaignScore];",
            "await ctx.task(t, { previous: r });\n  return [campaignScore];",
        );
        assert!(forwarded.contains("previous: r"));
        let found = lint_src(forwarded);
        assert!(found.iter().all(|m| !m.contains("looks lost")), "{found:?}");
        // The same name as the field (`const obligations = r.obligations`
        // lost) is.
        let found = lint("r.artifacts, overallScore", &with_notes());
        assert!(
            found
                .iter()
                .any(|d| d.message.contains("the read of `overallScore` looks lost")),
            "{found:?}"
        );
    }

    #[test]
    fn a_second_account_beside_a_read_product_is_a_note() {
        use crate::diagnostic::Severity::{Info, Warning};
        let schema = "{ type: 'object', required: ['shortlist', 'longList', 'passed', 'issues'], properties: { shortlist: {}, longList: {}, passed: {}, issues: {} } }";
        // Read for its product: the long list is another account of the
        // same work; a status and advice still matter.
        let got = found(schema, "r.shortlist");
        assert_eq!(got.len(), 2, "{got:?}");
        assert!(
            got.iter()
                .any(|(s, m)| *s == Info && m.contains("`longList`") && !m.contains("`passed`")),
            "{got:?}"
        );
        assert!(
            got.iter().any(|(s, m)| *s == Warning
                && m.contains("`passed`, `issues`")
                && !m.contains("`longList`")),
            "{got:?}"
        );
        // Read only for its status: what it made goes nowhere.
        let got = found(schema, "r.passed");
        assert!(
            got.iter()
                .any(|(s, m)| *s == Warning && m.contains("`shortlist`, `longList`")),
            "{got:?}"
        );
        // A read of a name the schema lacks may mean the unread field.
        let got = found(schema, "r.shortlist, r.longlist");
        assert!(
            got.iter()
                .any(|(s, m)| *s == Warning && m.contains("`longList`")),
            "{got:?}"
        );
    }

    #[test]
    fn a_name_read_on_another_task_matters_only_beside_no_read_product() {
        use crate::diagnostic::Severity::{Info, Warning};
        let src = |reads: &str| {
            format!(
                "import {{ defineTask }} from '@a5c-ai/babysitter-sdk';\n\
                 const dash = defineTask('dash', () => ({{ kind: 'agent', agent: {{ prompt: {{ task: 'Build the dashboard' }},\n\
                 \x20 outputSchema: {{ type: 'object', required: ['dashboard', 'kpis', 'artifacts'], properties: {{ dashboard: {{}}, kpis: {{}}, artifacts: {{}} }} }} }} }}));\n\
                 const define = defineTask('define', () => ({{ kind: 'agent', agent: {{ prompt: {{ task: 'Define the KPIs' }},\n\
                 \x20 outputSchema: {{ type: 'object', required: ['kpis'], properties: {{ kpis: {{}} }} }} }} }}));\n\
                 export async function process(inputs, ctx) {{\n\
                 \x20 const d = await ctx.task(define, {{}});\n\
                 \x20 const r = await ctx.task(dash, {{}});\n\
                 \x20 return [d.kpis, {reads}];\n}}\n"
            )
        };
        let kpis = |reads: &str| {
            lint_text("p.js", FileKind::Process, src(reads), &with_notes())
                .into_iter()
                .filter(|d| d.rule == "unused-output-field" && d.message.contains("`kpis`"))
                .map(|d| d.severity)
                .collect::<Vec<_>>()
        };
        // Read for its own product: its `kpis` describe that dashboard, not
        // the definitions another task's `kpis` hold.
        assert_eq!(kpis("r.dashboard"), [Info]);
        // Read only for its files: the same name read on another task
        // says one of the two forgot to use it.
        assert_eq!(kpis("r.artifacts"), [Warning]);
    }

    /// The schema text after the rule's fix, or `None` when it offers none.
    fn fixed(schema: &str, reads: &str) -> Option<String> {
        let src = module(schema, reads);
        let found: Vec<_> = lint_text("p.js", FileKind::Process, src.clone(), &with_notes())
            .into_iter()
            .filter(|d| d.rule == "unused-output-field")
            .collect();
        assert_eq!(found.len(), 1, "{found:?}");
        let fix = found[0].fix.clone()?;
        assert!(!fix.safe);
        let (out, applied) = crate::engine::fix::apply(&src, &[&fix.edits]);
        assert_eq!(applied, 1);
        let start = out.find("outputSchema: ")? + "outputSchema: ".len();
        let end = out.find(",\n  },\n}));")?;
        Some(out[start..end].to_string())
    }

    #[test]
    fn fix_removes_a_field_from_properties_and_required_on_one_line() {
        assert_eq!(
            fixed(
                "{ type: 'object', required: ['a', 'b', 'c'], properties: { a: { type: 'string' }, b: { type: 'string' }, c: { type: 'string' } } }",
                "r.a, r.c"
            )
            .as_deref(),
            Some("{ type: 'object', required: ['a', 'c'], properties: { a: { type: 'string' }, c: { type: 'string' } } }")
        );
        // The last entries, with a trailing comma kept where it was.
        assert_eq!(
            fixed(
                "{ type: 'object', required: [\"a\", \"b\", \"c\",], properties: { a: {}, 'b': {}, c: {}, } }",
                "r.a"
            )
            .as_deref(),
            Some("{ type: 'object', required: [\"a\",], properties: { a: {}, } }")
        );
        // The first entries: the next one takes their place.
        assert_eq!(
            fixed(
                "{ type: 'object', properties: { a: {}, /* b */ b: {}, c: {} } }",
                "r.c"
            )
            .as_deref(),
            Some("{ type: 'object', properties: { c: {} } }")
        );
    }

    #[test]
    fn fix_removes_whole_lines_and_keeps_the_others() {
        let schema = "{\n      type: 'object',\n      required: [\n        'a',\n        'b',\n      ],\n      properties: {\n        a: { type: 'string' },\n        // what b is\n        b: {\n          type: 'string',\n        }, // b's note\n        c: { type: 'string' },\n      },\n    }";
        assert_eq!(
            fixed(schema, "r.c").as_deref(),
            Some("{\n      type: 'object',\n      required: [\n      ],\n      properties: {\n        // what b is\n        c: { type: 'string' },\n      },\n    }")
                .map(|s| s.replace("required: [\n      ]", "required: []"))
                .as_deref()
        );
        // Without trailing commas, the entry that becomes last loses its
        // comma.
        let schema = "{\n      type: 'object',\n      properties: {\n        a: { type: 'string' },\n        b: { type: 'string' },\n        c: { type: 'string' }\n      }\n    }";
        assert_eq!(
            fixed(schema, "r.a").as_deref(),
            Some("{\n      type: 'object',\n      properties: {\n        a: { type: 'string' }\n      }\n    }")
        );
    }

    /// The fix offered for a task whose prompt is `prompt` (the text after
    /// `prompt: `), declaring `a` and `b` and read for `a`.
    fn fix_with_prompt(prompt: &str) -> Option<crate::diagnostic::Fix> {
        let src = module(
            "{ type: 'object', required: ['a', 'b'], properties: { a: {}, b: {} } }",
            "r.a",
        )
        .replace("prompt: { task: 'Do' }", &format!("prompt: {prompt}"));
        let found: Vec<_> = lint_text("p.js", FileKind::Process, src, &with_notes())
            .into_iter()
            .filter(|d| d.rule == "unused-output-field")
            .collect();
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].message.contains("`b`"), "{}", found[0].message);
        found[0].fix.clone()
    }

    #[test]
    fn no_fix_when_the_prompt_asks_for_the_field() {
        // Removed from the schema, `b` would still be asked for in words.
        for prompt in [
            "{ task: 'Do', outputFormat: 'JSON with a, b' }",
            "{ task: 'Do', instructions: ['Return b (string)'] }",
            "'Do it and return JSON with a and b.'",
        ] {
            assert!(fix_with_prompt(prompt).is_none(), "{prompt}");
        }
        // Only as part of other words: not asked for.
        for prompt in [
            "{ task: 'Do', outputFormat: 'JSON with a, bb, b_c, $b' }",
            "{ task: 'Do' }",
        ] {
            assert!(fix_with_prompt(prompt).is_some(), "{prompt}");
        }
    }

    #[test]
    fn a_task_with_a_built_id_is_named_by_its_variable() {
        let src = "import { defineTask } from '@a5c-ai/babysitter-sdk';\n\
            export async function process(inputs, ctx) {\n\
            \x20 for (let i = 0; i < 2; i++) {\n\
            \x20   const scoreTask = defineTask(`score-${i}`, () => ({ kind: 'agent', agent: { prompt: 'Score',\n\
            \x20     outputSchema: { type: 'object', required: ['a', 'b'], properties: { a: {}, b: {} } } } }));\n\
            \x20   const r = await ctx.task(scoreTask, {});\n\
            \x20   ctx.log(r.a);\n\
            \x20 }\n}\n";
        let found: Vec<String> = lint_text("p.js", FileKind::Process, src.into(), &with_notes())
            .into_iter()
            .filter(|d| d.rule == "unused-output-field")
            .map(|d| d.message)
            .collect();
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(
            found[0].starts_with("task `scoreTask` declares"),
            "{}",
            found[0]
        );
    }

    #[test]
    fn verdicts_and_name_words() {
        assert_eq!(
            super::super::name_words("scoreBreakdown_v2"),
            ["score", "breakdown", "v2"]
        );
        assert!(super::is_verdict("teamReady") && super::is_verdict("overallScore"));
        assert!(!super::is_verdict("agenda"));
    }

    /// The code of a file the agent wrote, beside the file's path the
    /// process reads, repeats the file: a record, not a product.
    #[test]
    fn code_echoed_beside_its_files_path_is_a_record() {
        let read = |k: &str| k == "testFilePath";
        assert!(super::echoes_written_file("testCode", read));
        assert!(super::echoes_written_file("testContent", read));
        assert!(!super::echoes_written_file("fixCode", read));
        assert!(!super::echoes_written_file("Code", read));
    }

    #[test]
    fn a_read_yes_no_of_the_result_covers_its_status() {
        // The code reads the check's `violationsDetected` (typed `boolean`):
        // it gates on that yes/no, and the unread `status` is a note.
        let schema = |flag: &str| {
            format!("{{ type: 'object', required: ['status', 'violationsDetected'], properties: {{ status: {{ type: 'string' }}, violationsDetected: {{ type: '{flag}' }} }} }}")
        };
        let found = found(&schema("boolean"), "r.violationsDetected");
        assert!(!found.is_empty());
        assert!(
            found
                .iter()
                .all(|(sev, _)| *sev == crate::diagnostic::Severity::Info),
            "{found:?}"
        );
        // A yes/no that describes the work (`hasWarnings`) is no check.
        let described = schema("boolean").replace("violationsDetected", "hasWarnings");
        assert_eq!(
            warnings_naming(module(&described, "r.hasWarnings"), "status"),
            1
        );
        // Typed as a list, it is no yes/no: the status is still unread.
        assert_eq!(
            warnings_naming(module(&schema("array"), "r.violationsDetected"), "status"),
            1
        );
    }

    #[test]
    fn what_the_agent_already_fixed_is_its_log() {
        use super::is_actionable;
        assert!(is_actionable("remainingIssues"));
        assert!(is_actionable("issues"));
        assert!(!is_actionable("fixedIssues"));
        assert!(!is_actionable("resolvedGaps"));
        // Only as a word of its own: `closedown` is no `closed`.
        assert!(is_actionable("closedownIssues"));
    }

    #[test]
    fn metrics_that_decide_through_a_const_check_the_training() {
        // The trainer's `success` is unread, but the evaluation after it in
        // the same loop decides on its metrics, through a `const`: a failed
        // run shows there as no improvement, and the loop goes round.
        let src = |read: &str| {
            format!(
                "import {{ defineTask }} from '@a5c-ai/babysitter-sdk';\n\
                 const train = defineTask('train', () => ({{ kind: 'agent', agent: {{ prompt: {{ task: 'Train' }}, outputSchema: {{ type: 'object', required: ['success', 'model'], properties: {{ success: {{ type: 'boolean' }}, model: {{}} }} }} }} }}));\n\
                 const evaluate = defineTask('evaluate', () => ({{ kind: 'agent', agent: {{ prompt: {{ task: 'Evaluate' }}, outputSchema: {{ type: 'object', required: ['metrics'], properties: {{ metrics: {{ type: 'object' }} }} }} }} }}));\n\
                 export async function process(inputs, ctx) {{\n\
                 \x20 let best = 0;\n\
                 \x20 for (let i = 0; i < 5; i++) {{\n\
                 \x20   const trained = await ctx.task(train, {{ i }});\n\
                 \x20   const evaluation = await ctx.task(evaluate, {{ model: trained.model }});\n\
                 {read}\n\
                 \x20 }}\n\
                 \x20 return best;\n}}\n"
            )
        };
        let decided = "    const performance = evaluation.metrics[inputs.target];\n    if (performance > best) best = performance;";
        assert_eq!(warnings_naming(src(decided), "success"), 0);
        // Held in a const that nothing decides on: no check.
        let logged = "    const performance = evaluation.metrics[inputs.target];\n    ctx.log('info', `${performance}`);";
        assert_eq!(warnings_naming(src(logged), "success"), 1);
    }

    /// The rule's warnings on module `src` (default set) that name `field`.
    fn warnings_naming(src: String, field: &str) -> usize {
        let field = format!("`{field}`");
        lint_text("p.js", FileKind::Process, src, &Config::default())
            .into_iter()
            .filter(|d| d.rule == "unused-output-field" && d.message.contains(&field))
            .filter(|d| d.severity == crate::diagnostic::Severity::Warning)
            .count()
    }

    #[test]
    fn a_convention_needs_a_clear_majority() {
        // `note` is required by `n` of five tasks, each read for its status
        // only.
        let src = |n: usize| {
            let mut s = String::from("import { defineTask } from '@a5c-ai/babysitter-sdk';\n");
            for i in 0..5 {
                let req = if i < n {
                    "['passed', 'note']"
                } else {
                    "['passed']"
                };
                s.push_str(&format!(
                    "const t{i} = defineTask('t{i}', () => ({{ kind: 'agent', agent: {{ prompt: 'Do', outputSchema: {{ type: 'object', required: {req}, properties: {{ passed: {{}}, note: {{}} }} }} }} }}));\n"
                ));
            }
            s.push_str("export async function process(inputs, ctx) {\n  const out = [];\n");
            for i in 0..5 {
                s.push_str(&format!(
                    "  out.push((await ctx.task(t{i}, {{}})).passed);\n"
                ));
            }
            s.push_str("  return out;\n}\n");
            s
        };
        let warned = |n: usize| warnings_naming(src(n), "note");
        // Four or five of five: the module's design.
        assert_eq!(warned(5), 0);
        assert_eq!(warned(4), 0);
        // Three of five is no clear majority: each is reported.
        assert_eq!(warned(3), 3);
    }

    #[test]
    fn a_prompt_that_runs_before_the_producer_asks_for_nothing() {
        let tasks = "import { defineTask } from '@a5c-ai/babysitter-sdk';\n\
            const gather = defineTask('gather', () => ({ kind: 'agent', agent: { prompt: { task: 'Gather' },\n\
            \x20 outputSchema: { type: 'object', required: ['context', 'triggeringEvent'], properties: { context: {}, triggeringEvent: {} } } } }));\n\
            const draft = defineTask('draft', () => ({ kind: 'agent', agent: { prompt: { task: 'State the triggering event' } } }));\n";
        let asked = |process: &str| {
            lint_text(
                "p.js",
                FileKind::Process,
                format!("{tasks}{process}"),
                &with_notes(),
            )
            .into_iter()
            .any(|d| {
                d.rule == "unused-output-field"
                    && d.help
                        .as_deref()
                        .is_some_and(|h| h.contains("pass `triggeringEvent`"))
            })
        };
        // The drafter runs first, in the same function.
        assert!(!asked("export async function process(i, ctx) { await ctx.task(draft, {}); const g = await ctx.task(gather, {}); return g.context; }\n"));
        // A count is no request: "state the triggering event" asks for the
        // event, not for how many there were.
        let counted = tasks.replace("triggeringEvent: {}", "triggeringEvent: { type: 'number' }");
        assert!(!lint_text(
            "p.js",
            FileKind::Process,
            format!("{counted}export async function process(i, ctx) {{ const g = await ctx.task(gather, {{}}); await ctx.task(draft, {{}}); return g.context; }}\n"),
            &with_notes(),
        )
        .into_iter()
        .any(|d| d.help.as_deref().is_some_and(|h| h.contains("pass `triggeringEvent`"))));
        // The gatherer only hands back the event it was given.
        assert!(!asked("export async function process(i, ctx) { const g = await ctx.task(gather, { triggeringEvent: i.event }); await ctx.task(draft, {}); return g.context; }\n"));
        // It runs after the gatherer, or round a loop, or the gatherer runs
        // in a helper called before it: it may want the field.
        let after = "export async function process(i, ctx) { const g = await ctx.task(gather, {}); await ctx.task(draft, {}); return g.context; }\n";
        let looped = "export async function process(i, ctx) { const out = []; for (const x of i.xs) { await ctx.task(draft, {}); out.push((await ctx.task(gather, {})).context); } return out; }\n";
        let helper = "export async function process(i, ctx) { const c = await phase(ctx); await ctx.task(draft, {}); return c; }\n\
            async function phase(ctx) { return (await ctx.task(gather, {})).context; }\n";
        // A helper called twice drafts after the first gathering.
        let twice = "async function round(ctx) { await ctx.task(draft, {}); return (await ctx.task(gather, {})).context; }\n\
            export async function process(i, ctx) { await round(ctx); return round(ctx); }\n";
        for process in [after, looped, helper, twice] {
            assert!(asked(process), "{process}");
        }
    }

    #[test]
    fn numbers_are_no_statuses() {
        use crate::diagnostic::Severity::Warning;
        // A status by name, a count by type.
        let schema = "{ type: 'object', required: ['plan', 'completed'], properties: { plan: {}, completed: { type: 'number' } } }";
        let got = found(schema, "r.plan");
        assert!(
            !got.iter()
                .any(|(_, m)| m.contains("a failure the agent reports")),
            "{got:?}"
        );
        // How many failed says the work failed, in any type.
        let schema = "{ type: 'object', required: ['plan', 'failed'], properties: { plan: {}, failed: { type: 'integer' } } }";
        assert!(found(schema, "r.plan")
            .iter()
            .any(|(s, m)| *s == Warning && m.contains("reports `failed`")));
        // Typed boolean, or not typed, `completed` is one.
        let schema = "{ type: 'object', required: ['plan', 'completed'], properties: { plan: {}, completed: { type: 'boolean' } } }";
        assert!(found(schema, "r.plan")
            .iter()
            .any(|(s, m)| *s == Warning && m.contains("reports `completed`")));
    }

    #[test]
    fn a_grade_the_agent_does_not_owe_is_a_note() {
        use crate::diagnostic::Severity::{Info, Warning};
        let optional = "{ type: 'object', required: ['analysis'], properties: { analysis: {}, diversityScore: { type: 'number' } } }";
        assert_eq!(
            found(optional, "r.analysis")
                .iter()
                .map(|(s, _)| *s)
                .collect::<Vec<_>>(),
            [Info]
        );
        // A grade that is all the code could read of the task is its point.
        assert!(found(optional, "r.artifacts")
            .iter()
            .any(|(s, m)| *s == Warning && m.contains("`diversityScore`")));
        let required = "{ type: 'object', required: ['analysis', 'diversityScore'], properties: { analysis: {}, diversityScore: { type: 'number' } } }";
        assert!(found(required, "r.analysis")
            .iter()
            .any(|(s, m)| *s == Warning && m.contains("`diversityScore`")));
    }

    #[test]
    fn a_named_state_beside_a_read_grade_is_a_note() {
        use crate::diagnostic::Severity::{Info, Warning};
        let schema = "{ type: 'object', required: ['readinessScore', 'overallStatus', 'success'], properties: { readinessScore: {}, overallStatus: {}, success: {} } }";
        let got = found(schema, "r.readinessScore");
        assert!(
            got.iter()
                .any(|(s, m)| *s == Info && m.contains("`overallStatus`")),
            "{got:?}"
        );
        // Whether the work succeeded is no grade's reading.
        assert!(
            got.iter()
                .any(|(s, m)| *s == Warning && m.contains("`success`")),
            "{got:?}"
        );
    }

    #[test]
    fn a_count_of_the_files_shown_shows_none() {
        use crate::diagnostic::Severity::{Info, Warning};
        let src = |files: &str| {
            format!(
                "import {{ defineTask }} from '@a5c-ai/babysitter-sdk';\n\
                 const audit = defineTask('audit', () => ({{ kind: 'agent', agent: {{ prompt: {{ task: 'Audit' }}, outputSchema: {{ type: 'object', required: ['passed', 'artifacts'], properties: {{ passed: {{}}, issues: {{}}, artifacts: {{}} }} }} }} }}));\n\
                 export async function process(inputs, ctx) {{\n\
                 \x20 const a = await ctx.task(audit, {{}});\n\
                 \x20 const ok = await ctx.breakpoint({{ question: a.passed ? 'Ship?' : 'Failed. Ship anyway?', context: {{ files: {files} }} }});\n\
                 \x20 if (!ok.approved) throw new Error('stopped');\n}}\n"
            )
        };
        let issues = |files: &str| {
            lint_text("p.js", FileKind::Process, src(files), &with_notes())
                .into_iter()
                .filter(|d| d.rule == "unused-output-field" && d.message.contains("`issues`"))
                .map(|d| d.severity)
                .collect::<Vec<_>>()
        };
        assert_eq!(issues("a.artifacts.map((f) => f.path)"), [Info]);
        assert_eq!(
            issues("a.artifacts.filter((f) => f.path).length"),
            [Warning]
        );
        assert_eq!(issues("a.artifacts.some((f) => f.path)"), [Warning]);
    }

    #[test]
    fn a_result_taken_through_then_is_read_in_its_callback() {
        let src = "import { defineTask } from '@a5c-ai/babysitter-sdk';\n\
            const t = defineTask('review-file', () => ({ kind: 'agent', agent: { prompt: { task: 'Review' }, outputSchema: { type: 'object', required: ['verdict', 'findings'], properties: { verdict: {}, findings: {} } } } }));\n\
            export async function process(inputs, ctx) {\n\
            \x20 const results = [];\n\
            \x20 await ctx.parallel.all(inputs.files.map((f) => () => ctx.task(t, { f }).then((r) => results.push(r))));\n\
            \x20 return results.map((r) => ({ verdict: r.verdict, findings: r.findings }));\n}\n";
        let found: Vec<_> = lint_text("p.js", FileKind::Process, src.to_string(), &with_notes())
            .into_iter()
            .filter(|d| d.rule == "unused-output-field")
            .map(|d| d.message)
            .collect();
        assert!(found.is_empty(), "{found:?}");
    }

    #[test]
    fn warnings_beside_read_errors_are_a_note() {
        use crate::diagnostic::Severity::{Info, Warning};
        let schema = "{ type: 'object', required: ['passed', 'errors'], properties: { passed: {}, errors: {}, warnings: {} } }";
        // The errors are read: the warnings are more of the same advice.
        assert_eq!(
            found(schema, "r.passed, r.errors")
                .iter()
                .map(|(s, _)| *s)
                .collect::<Vec<_>>(),
            [Info]
        );
        // Only the verdict is read: the advice behind it goes nowhere.
        assert!(found(schema, "r.passed")
            .iter()
            .any(|(s, m)| *s == Warning && m.contains("`warnings`")));
    }

    #[test]
    fn a_templated_field_is_one_most_schemas_declare() {
        // `n` of nine tasks return `config` beside `artifacts`; the others
        // return `spec`. Every task's files are collected, and one
        // `config` is returned.
        let src = |n: usize| {
            let mut s = String::from("import { defineTask } from '@a5c-ai/babysitter-sdk';\n");
            for i in 0..9 {
                let field = if i < n { "config" } else { "spec" };
                s.push_str(&format!(
                    "const t{i} = defineTask('t{i}', () => ({{ kind: 'agent', agent: {{ prompt: 'Do', outputSchema: {{ type: 'object', required: ['{field}', 'artifacts'], properties: {{ {field}: {{}}, artifacts: {{}} }} }} }} }}));\n"
                ));
            }
            s.push_str("export async function process(inputs, ctx) {\n  const files = [];\n");
            for i in 0..9 {
                s.push_str(&format!(
                    "  const r{i} = await ctx.task(t{i}, {{}});\n  files.push(...r{i}.artifacts);\n"
                ));
            }
            s.push_str("  return { files, gateway: r0.config };\n}\n");
            s
        };
        let warned = |n: usize| warnings_naming(src(n), "config");
        // Five of nine: templated tasks, whose one returned `config` says
        // nothing about the others'.
        assert_eq!(warned(5), 0);
        // Four of nine: each unread copy is the one left out.
        assert_eq!(warned(4), 3);
    }

    #[test]
    fn no_fix_where_removing_is_not_the_answer() {
        // A status field nobody reads should be read.
        assert_eq!(
            fixed(
                "{ type: 'object', properties: { passed: {}, notes: {} } }",
                "r.notes"
            ),
            None
        );
        // A name the schema lacks is read: which field is meant is unclear.
        assert_eq!(
            fixed(
                "{ type: 'object', properties: { a: {}, b: {} } }",
                "r.a, r.value"
            ),
            None
        );
        // A computed key is not removed.
        assert_eq!(
            fixed(
                "{ type: 'object', properties: { a: {}, ['b']: {} } }",
                "r.a"
            ),
            None
        );
        // `properties` spread in from elsewhere.
        assert_eq!(
            fixed(
                "{ type: 'object', ...{ properties: { a: {}, b: {} } } }",
                "r.a"
            ),
            None
        );
    }
}
