//! `undeclared-output-field`: code reads a field of a task result that the
//! task's output schema does not declare.

use std::collections::HashMap;
use std::sync::Arc;

use super::{Area, Category, ProjectSink, ReportMeta, Rule, RuleMeta, Sites};
use crate::diagnostic::{Edit, Fix, Location, Severity};
use crate::project::config::Config;
use crate::project::Project;
use crate::source::names::edit_distance;

pub struct UndeclaredOutputField;

static META: RuleMeta = RuleMeta {
    id: "undeclared-output-field",
    summary: "Code reads a field of a task result that the task's output schema does not declare.",
    severity: Severity::Warning,
    area: Area::EffectGranularity,
    category: Category::Suspicious,
    doc: include_str!("../../rules/undeclared-output-field.md"),
    builtin: false,
    options: &[],
    fix: crate::rules::FixAvailability::Sometimes,
};

/// Names read on any value that are not data fields: promise chaining and
/// `Object.prototype`.
const NOT_FIELDS: &[&str] = &[
    "then",
    "catch",
    "finally",
    "hasOwnProperty",
    "toString",
    "valueOf",
    "toJSON",
    "constructor",
    "propertyIsEnumerable",
];

impl Rule for UndeclaredOutputField {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn report(&self) -> ReportMeta {
        ReportMeta {
            sites: Sites::SchemaTasks,
            praise: "Every field read on a task result is declared in its output schema",
            sdk_hint: "",
        }
    }

    fn check_project(&self, p: &Project, _config: &Config, sink: &mut ProjectSink) {
        let uses = p.result_uses();
        // One finding per read: a read of one variable that carries several
        // tasks' results (`r = await ctx.task(a); … r = await ctx.task(b)`)
        // names them all, and is fine when any of them declares the field
        // (or has a schema proclint cannot read).
        let mut readers: HashMap<(Location, &str), Vec<(usize, usize)>> = HashMap::new();
        for (task, u) in uses {
            for (field, loc) in &u.fields {
                readers
                    .entry((loc.clone(), field.as_str()))
                    .or_default()
                    .push(*task);
            }
        }
        // Tasks whose schema is unknown (or absent) may produce anything.
        let declares = |(mi, ti): (usize, usize), field: &str| {
            p.schema_fields(mi, ti)
                .filter(|f| !f.is_empty())
                .is_none_or(|f| f.iter().any(|(n, _)| n == field))
        };
        let reported: HashMap<Arc<str>, bool> = p
            .modules
            .iter()
            .map(|m| (m.path.clone(), m.report))
            .collect();
        let mut found: Vec<crate::diagnostic::Diagnostic> = Vec::new();
        let mut keys: Vec<FoundRead> = Vec::new();
        // Fields the prompt asks for and the schema leaves out, by file and
        // tasks: one partial schema is one finding, whatever it misses
        // (the head's index in `found`, the fields it names, who).
        let mut asked_heads: HashMap<(Arc<str>, Vec<Site>), usize> = HashMap::new();
        let mut asked_fields: HashMap<usize, (Vec<String>, String, String)> = HashMap::new();
        // In source order: the first read of a partial schema is the one
        // its finding sits at, on any thread count.
        let mut reads: Vec<_> = readers.iter().collect();
        reads.sort_by(|((a, fa), _), ((b, fb), _)| {
            (&a.path, a.span.start, fa).cmp(&(&b.path, b.span.start, fb))
        });
        for ((loc, field), tasks) in reads {
            let field = *field;
            if NOT_FIELDS.contains(&field) || !reported.get(&loc.path).copied().unwrap_or(false) {
                continue;
            }
            if tasks.iter().any(|t| declares(*t, field)) {
                continue;
            }
            // A schema of `required` names alone, with no `properties`,
            // limits nothing else: a field the prompt asks for in words is
            // then as much a part of the output as the required ones.
            let data_field = !WRAPPER_FIELDS.contains(&field)
                && !LIST_MEMBERS.contains(&field)
                && !EFFECT_RECORD_FIELDS.contains(&field);
            if data_field
                && tasks.iter().any(|&(m, t)| {
                    let task = &p.modules[m].tasks[t];
                    task.schema_slots
                        .as_ref()
                        .is_some_and(|s| s.properties.is_none() && s.required.is_some())
                        && asks_for(task, field)
                })
            {
                continue;
            }
            // Code may have put the field there (a literal the result
            // alternates with, an own property next to a spread, an
            // assignment).
            if tasks
                .iter()
                .any(|t| uses.get(t).is_some_and(|u| u.provided.contains(loc)))
            {
                continue;
            }
            let mut tasks = tasks.clone();
            tasks.sort_unstable();
            tasks.dedup();
            // A later link of a fallback chain (`b.reportPath ?? b.path`) is
            // read only when the earlier field is missing: nothing to say
            // where that one is declared.
            let earlier: Vec<String> = tasks
                .iter()
                .find_map(|t| uses.get(t)?.fallbacks.get(field))
                .cloned()
                .unwrap_or_default();
            if earlier
                .iter()
                .any(|e| tasks.iter().any(|t| declares(*t, e)))
            {
                continue;
            }
            let Some(&(mi, ti)) = tasks.first() else {
                continue;
            };
            let Some(fields) = p.schema_fields(mi, ti).filter(|f| !f.is_empty()) else {
                continue;
            };
            let ids: Vec<String> = tasks
                .iter()
                .map(|&(m, t)| {
                    format!(
                        "`{}`",
                        p.modules[m].tasks[t].id.as_deref().unwrap_or("task")
                    )
                })
                .collect();
            let (named, whose) = if ids.len() == 1 {
                (
                    format!("task {}", ids[0]),
                    "whose `outputSchema` does not declare it",
                )
            } else {
                (
                    format!("tasks {}", ids.join(", ")),
                    "whose `outputSchema`s do not declare it",
                )
            };
            let whose = format!("{named}, {whose}");
            // A read of several tasks' results can rely only on what every
            // one of them declares.
            let mut declared: Vec<&str> = fields
                .iter()
                .map(|(n, _)| n.as_str())
                .filter(|n| tasks.iter().all(|t| declares(*t, n)))
                .collect();
            let (fields_label, declared_label) = match tasks.len() {
                1 => ("the declared fields".to_string(), "declared".to_string()),
                n if !declared.is_empty() => (
                    format!("the fields all {n} declare"),
                    format!("declared by all {n}"),
                ),
                // No field they all declare: what any of them declares,
                // said so.
                n => {
                    for &(mj, tj) in &tasks {
                        for (f, _) in p.schema_fields(mj, tj).into_iter().flatten() {
                            if !declared.contains(&f.as_str()) {
                                declared.push(f.as_str());
                            }
                        }
                    }
                    (
                        format!("the fields some of the {n} declare, none by all"),
                        format!("declared by some of the {n}, none by all"),
                    )
                }
            };
            let list: Vec<String> = declared.iter().map(|n| format!("`{n}`")).collect();
            let asked = !LIST_MEMBERS.contains(&field)
                && !WRAPPER_FIELDS.contains(&field)
                && !EFFECT_RECORD_FIELDS.contains(&field)
                && tasks
                    .iter()
                    .any(|&(m, t)| asks_for(&p.modules[m].tasks[t], field));
            if asked {
                let key = (loc.path.clone(), tasks.clone());
                if let Some(&head) = asked_heads.get(&key) {
                    found[head].related.push(crate::diagnostic::Related {
                        location: loc.clone(),
                        message: format!(
                            "`{field}` is read here, and the prompt asks for it as well"
                        ),
                    });
                    if let Some((fields, _, _)) = asked_fields.get_mut(&head) {
                        if !fields.iter().any(|f| f == field) {
                            fields.push(field.to_string());
                        }
                    }
                    continue;
                }
                asked_heads.insert(key, found.len());
                asked_fields.insert(
                    found.len(),
                    (
                        vec![field.to_string()],
                        named.clone(),
                        format!("{declared_label}: {}", list.join(", ")),
                    ),
                );
            }
            let (message, help) = if LIST_MEMBERS.contains(&field) {
                // A schema with fields describes an object; the read treats
                // the output as a list or a string, so declaring the name is
                // no fix (and JSON cannot hold a method).
                let consequence = if field == "length" {
                    "an object has no `length`, so the read gets `undefined`"
                } else {
                    "an object has no such method, so calling it throws a `TypeError`"
                };
                (
                    format!(
                        "`{field}` is used on the result of {named} as if it were a list or a string, but the `outputSchema` describes an object (fields {}): {consequence}",
                        list.join(", ")
                    ),
                    format!(
                        "use `{field}` on one of {fields_label} ({}), or, if the task's output is itself a list, make its `outputSchema` describe one (`type: 'array', items: …`)",
                        list.join(", ")
                    ),
                )
            } else if WRAPPER_FIELDS.contains(&field) {
                // `ctx.task` resolves to the output itself (taskHelpers.ts:54
                // returns the stored result), not to `{ value }`/`{ result }`.
                (
                    format!(
                        "`{field}` is read on the result of {whose}: `ctx.task` resolves to the task's output object itself, not to a wrapper around it, so the read gets `undefined`"
                    ),
                    format!(
                        "read the output's fields directly (`out.x`, not `out.{field}.x`); {declared_label}: {}",
                        list.join(", ")
                    ),
                )
            } else if EFFECT_RECORD_FIELDS.contains(&field) {
                // The effect's own identifiers live in the journal and the
                // task's files, never on the value `ctx.task` resolves to
                // (taskHelpers.ts returns the stored result alone).
                (
                    format!(
                        "`{field}` is read on the result of {named}: `ctx.task` resolves to the task's output alone, and the SDK never puts the effect's `{field}` on it, so the read gets `undefined` (unless the agent writes one in)"
                    ),
                    "drop the read: the effect's identifiers are in the run's journal (`EFFECT_REQUESTED`), not in the task's result; for a breakpoint to name the task, use its title or an id of your own"
                        .to_string(),
                )
            } else if asked {
                // The agent is asked for it in words; only the schema
                // leaves it out.
                (
                    format!(
                        "`{field}` is read on the result of {whose}, though the prompt asks for it: the schema and the prompt disagree about the output"
                    ),
                    format!(
                        "declare `{field}` in the schema's `properties` so the schema describes what the prompt asks for ({declared_label}: {})",
                        list.join(", ")
                    ),
                )
            } else {
                let help = match closest(field, &declared) {
                    Some(near) => format!(
                        "did you mean `{near}`? Otherwise declare `{field}` in the schema's `properties` ({declared_label}: {})",
                        list.join(", ")
                    ),
                    None => format!(
                        "read one of {fields_label} ({}), or declare `{field}` in the schema's `properties` so the agent produces it",
                        list.join(", ")
                    ),
                };
                (
                    format!(
                        "`{field}` is read on the result of {whose}: the agent is not asked for it, so the read gets `undefined` unless the agent adds it unasked"
                    ),
                    help,
                )
            };
            let mut d = sink.diag(loc.clone(), message).with_help(help);
            if WRAPPER_FIELDS.contains(&field) {
                let declared_by_all = |next: &str| {
                    tasks.iter().all(|&(m, t)| {
                        p.schema_fields(m, t)
                            .is_some_and(|f| f.iter().any(|(n, _)| n == next))
                    })
                };
                if let Some(fix) = unwrap_fix(p, loc, field, declared_by_all) {
                    d = d.with_fix(fix);
                }
            }
            if let Some((_, first)) = fields.first() {
                let id = p.modules[mi].tasks[ti].id.as_deref().unwrap_or("task");
                d = d.with_related(
                    first.clone(),
                    format!("task `{id}` declares its output fields here"),
                );
            }
            found.push(d);
            keys.push(FoundRead {
                field: field.to_string(),
                tasks,
                earlier,
            });
        }
        for (&head, (fields, named, declared)) in &asked_fields {
            if fields.len() < 2 {
                continue;
            }
            let names: Vec<String> = fields.iter().map(|f| format!("`{f}`")).collect();
            let whose = if named.starts_with("tasks ") {
                "whose `outputSchema`s do not declare them"
            } else {
                "whose `outputSchema` does not declare them"
            };
            let d = &mut found[head];
            d.message = format!(
                "{} are read on the result of {named}, {whose}, though the prompt asks for them: the schema and the prompt disagree about the output",
                and_list(&names)
            );
            d.help = Some(format!(
                "declare {} in the schema's `properties` so the schema describes what the prompt asks for ({declared})",
                and_list(&names)
            ));
        }
        // A finding that names several fields is no later link of one
        // fallback chain: folding it would drop the others' reads.
        let grouped: Vec<bool> = (0..found.len())
            .map(|i| asked_fields.get(&i).is_some_and(|(f, _, _)| f.len() > 1))
            .collect();
        let found = fold_fallback_links(found, keys, &grouped);
        for d in merge_repeated_reads(found) {
            sink.push(d);
        }
    }
}

/// A task: (module, index into its tasks).
type Site = (usize, usize);

/// `a`, `a and b`, `a, b and c`.
fn and_list(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}

/// What a finding of [`UndeclaredOutputField`] is about.
struct FoundRead {
    field: String,
    tasks: Vec<(usize, usize)>,
    /// The fields the earlier links of its fallback chain read, nearest
    /// first, if every read is a later link.
    earlier: Vec<String>,
}

/// A later link of a fallback chain whose earlier link is reported too
/// (`b.boardPath ?? b.artifactPath ?? null`, neither declared) is one
/// mistake with it: the later read becomes a related place of the earlier
/// one's finding. Only a finding without a fix is folded, so no edit is
/// lost.
fn fold_fallback_links(
    found: Vec<crate::diagnostic::Diagnostic>,
    keys: Vec<FoundRead>,
    grouped: &[bool],
) -> Vec<crate::diagnostic::Diagnostic> {
    let head_of = |later: usize| {
        let key = &keys[later];
        if found[later].fix.is_some() || grouped.get(later).copied().unwrap_or(false) {
            return None;
        }
        key.earlier.iter().find_map(|earlier| {
            (0..found.len()).find(|&i| {
                i != later
                    && keys[i].field == *earlier
                    && keys[i].tasks == key.tasks
                    && found[i].location.path == found[later].location.path
            })
        })
    };
    let heads: Vec<Option<usize>> = (0..found.len()).map(head_of).collect();
    let mut out: Vec<Option<crate::diagnostic::Diagnostic>> = found.into_iter().map(Some).collect();
    for (later, head) in heads.iter().enumerate() {
        let Some(head) = *head else { continue };
        // A chain of three: fold into the link that stays.
        let mut at = head;
        for _ in 0..heads.len() {
            match heads[at] {
                Some(next) if next != later => at = next,
                _ => break,
            }
        }
        let Some(d) = out[later].take() else { continue };
        if let Some(h) = out[at].as_mut() {
            h.related.push(crate::diagnostic::Related {
                location: d.location,
                message: format!(
                    "`{}` is read here as its fallback, and is not declared either",
                    keys[later].field
                ),
            });
        } else {
            out[later] = Some(d);
        }
    }
    out.into_iter().flatten().collect()
}

/// The same field read on the same tasks' results more than once in one
/// module (two links to `tasks/${r.effectId}/…` in one breakpoint) is one
/// mistake: one finding at the first read, the others related, with every
/// read's fix edit.
fn merge_repeated_reads(
    mut found: Vec<crate::diagnostic::Diagnostic>,
) -> Vec<crate::diagnostic::Diagnostic> {
    found.sort_by(|a, b| {
        (&a.location.path, a.location.span.start).cmp(&(&b.location.path, b.location.span.start))
    });
    let mut out: Vec<crate::diagnostic::Diagnostic> = Vec::with_capacity(found.len());
    let mut first_of: HashMap<(Arc<str>, String), usize> = HashMap::new();
    for d in found {
        let key = (d.location.path.clone(), d.message.clone());
        let Some(&at) = first_of.get(&key) else {
            first_of.insert(key, out.len());
            out.push(d);
            continue;
        };
        let head = &mut out[at];
        // The other reads first: the retrospective counts them as sites.
        let sites = head.occurrences - 1;
        head.related.insert(
            sites,
            crate::diagnostic::Related {
                location: d.location.clone(),
                message: "read here too".into(),
            },
        );
        head.occurrences += 1;
        match (head.fix.as_mut(), d.fix) {
            (Some(fix), Some(more)) => {
                for e in more.edits {
                    if !fix.edits.contains(&e) {
                        fix.edits.push(e);
                    }
                }
            }
            (None, Some(more)) => head.fix = Some(more),
            _ => {}
        }
    }
    out
}

/// The fix for the wrapper read at `loc` (`r.value.x` → `r.x`): it drops
/// the wrapper from every read of it on the same result, offered only when
/// each of them goes on to a field every task behind it declares at the
/// top level. A read left behind would change what a partial fix does: a
/// guard that always failed (`!r.value?.ok`) starts passing, and the
/// `r.value.other` it guarded, never reached before, throws a `TypeError`.
/// Unsafe: the reads got `undefined` (or threw) and now get the fields,
/// which changes what the process does next.
fn unwrap_fix(
    p: &Project,
    loc: &Location,
    field: &str,
    declared_by_all: impl Fn(&str) -> bool,
) -> Option<Fix> {
    let set = p
        .modules
        .iter()
        .filter(|m| m.path == loc.path)
        .flat_map(|m| m.invocations.iter())
        .filter_map(|i| i.result_reads.as_deref())
        .find(|r| r.unwraps.iter().any(|u| u.location == *loc))?;
    let edits = set
        .unwraps
        .iter()
        .filter(|u| u.wrapper == field)
        .map(|u| match (&u.edit, &u.next) {
            (Some(edit), Some(next)) if declared_by_all(next) => Some(edit.clone()),
            _ => None,
        })
        .collect::<Option<Vec<Edit>>>()?;
    Some(Fix {
        description: format!("read the output's fields directly, without `.{field}`"),
        edits,
        safe: false,
    })
}

/// Whether the task's `outputFormat` or `instructions` text names `field`
/// as a word.
pub fn asks_for(task: &crate::js::summary::TaskSummary, field: &str) -> bool {
    let is_word = |c: char| c.is_alphanumeric() || c == '_' || c == '$';
    task.output_request.as_ref().is_some_and(|f| {
        f.literals.iter().any(|l| {
            l.text.match_indices(field).any(|(at, _)| {
                let before = l.text[..at].chars().next_back();
                let after = l.text[at + field.len()..].chars().next();
                !before.is_some_and(is_word) && !after.is_some_and(is_word)
            })
        })
    })
}

/// Members of lists and strings, read on a result as if it were one
/// (`out.length`, `out.map(…)`): not data fields. Names an answer could
/// plausibly hold as data (`keys`, `values`, `entries`, `find`, `sort`) are
/// left out: the summary does not say whether a read is called.
pub const LIST_MEMBERS: &[&str] = &[
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

/// The effect record's identifiers (`runtime/intrinsics/task.ts`): in the
/// journal, not on the result.
const EFFECT_RECORD_FIELDS: &[&str] = &["effectId", "invocationKey", "invocationHash", "stepId"];

/// Fields read as if `ctx.task` wrapped the output (`{ value }`,
/// `{ result }`): it does not.
pub const WRAPPER_FIELDS: &[&str] = &["value", "result"];

/// The declared name closest to `name`, when it is close enough to be a
/// typo or a rename (case-insensitive, edit distance at most a third of
/// the length, and at least 1).
pub fn closest<'a>(name: &str, candidates: &[&'a str]) -> Option<&'a str> {
    let lower = name.to_lowercase();
    candidates
        .iter()
        .map(|c| (edit_distance(&lower, &c.to_lowercase()), *c))
        .filter(|(d, _)| *d <= (name.chars().count() / 3).max(1))
        .min_by_key(|(d, c)| (*d, *c))
        .map(|(_, c)| c)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lint(src: &str) -> Vec<crate::diagnostic::Diagnostic> {
        crate::rules::testing::lint_source("undeclared-output-field", src)
    }

    const SPECS: &str = "import { defineTask } from '@a5c-ai/babysitter-sdk';\nexport const specsTask = defineTask('specs', () => ({\n  kind: 'agent',\n  title: 'Specs',\n  labels: ['specs'],\n  agent: { prompt: { task: 'List the specs' }, outputSchema: { type: 'object', properties: { specifications: { type: 'array' } } } },\n}));\n";

    /// A read of several tasks' results is offered only what all of them
    /// declare.
    #[test]
    fn a_read_of_several_results_is_offered_their_common_fields() {
        let task = |id: &str, own: &str| {
            format!("export const {id}Task = defineTask('{id}', () => ({{\n  kind: 'agent',\n  labels: ['{id}'],\n  agent: {{ prompt: {{ task: 'Do {id}' }}, outputSchema: {{ type: 'object', properties: {{ {own}: {{ type: 'string' }}, success: {{ type: 'boolean' }} }} }} }},\n}}));\n")
        };
        let src = format!(
            "import {{ defineTask }} from '@a5c-ai/babysitter-sdk';\n{}{}export async function process(inputs, ctx) {{\n  let r = await ctx.task(deployTask, {{}});\n  if (inputs.migrate) r = await ctx.task(migrateTask, {{}});\n  return r.configured;\n}}\n",
            task("deploy", "endpoint"),
            task("migrate", "migrated")
        );
        let ds = lint(&src);
        assert_eq!(ds.len(), 1, "{ds:#?}");
        let help = ds[0].help.as_deref().unwrap_or("");
        assert!(
            help.contains("the fields all 2 declare (`success`)"),
            "{help}"
        );
        assert!(!help.contains("endpoint"), "{help}");
        // None shared: each task's fields, said so, and a typo still guessed.
        let src = src
            .replace(", success: { type: 'boolean' }", "")
            .replace("r.configured", "r.endpont");
        let ds = lint(&src);
        assert_eq!(ds.len(), 1, "{ds:#?}");
        let help = ds[0].help.as_deref().unwrap_or("");
        assert!(help.starts_with("did you mean `endpoint`?"), "{help}");
        assert!(
            help.contains("declared by some of the 2, none by all: `endpoint`, `migrated`"),
            "{help}"
        );
    }

    /// A fallback chain whose links are all undeclared is one finding, at
    /// the first link, each later link a related place; a later link after
    /// a declared field is not reported.
    #[test]
    fn a_fallback_chain_is_one_finding() {
        let src = format!("{SPECS}export async function process(inputs, ctx) {{\n  const r = await ctx.task(specsTask, {{}});\n  return [r.boardPath ?? r.artifactPath ?? r.path ?? null, r.specifications || r.specs];\n}}\n");
        let ds = lint(&src);
        assert_eq!(ds.len(), 1, "{ds:#?}");
        assert!(
            ds[0].message.starts_with("`boardPath`"),
            "{}",
            ds[0].message
        );
        let later: Vec<&str> = ds[0]
            .related
            .iter()
            .filter(|r| r.message.contains("as its fallback"))
            .map(|r| r.message.as_str())
            .collect();
        assert_eq!(later.len(), 2, "{:#?}", ds[0].related);
        assert!(later[0].starts_with("`artifactPath`") || later[1].starts_with("`artifactPath`"));
        // Any declared earlier link makes every later one a fallback.
        let src = format!("{SPECS}export async function process(inputs, ctx) {{\n  const r = await ctx.task(specsTask, {{}});\n  return r.specifications || r.specs || r.items || [];\n}}\n");
        let ds = lint(&src);
        assert!(ds.is_empty(), "{ds:#?}");
    }

    /// `r.result.specifications` → `r.specifications`, every such read of
    /// the result at once; not `r.result` alone, nor `r.result.x` for an
    /// undeclared `x`.
    #[test]
    fn a_wrapper_read_before_a_declared_field_is_dropped() {
        let src = format!("{SPECS}export async function process(inputs, ctx) {{\n  const r = await ctx.task(specsTask, {{}});\n  ctx.log(r?.result?.specifications);\n  return [r.result.specifications, r.result.specifications.length];\n}}\n");
        let ds = lint(&src);
        assert_eq!(ds.len(), 1, "{ds:#?}");
        let fix = ds[0]
            .fix
            .as_ref()
            .unwrap_or_else(|| panic!("no fix: {ds:#?}"));
        assert!(!fix.safe);
        let mut fixed = src.clone();
        let mut edits = fix.edits.clone();
        edits.sort_by_key(|e| std::cmp::Reverse(e.span.start));
        for e in edits {
            fixed.replace_range(e.span.start..e.span.end, &e.replacement);
        }
        assert!(
            fixed.contains("ctx.log(r?.specifications);\n  return [r.specifications, r.specifications.length];"),
            "{fixed}"
        );
        // With nothing declared read after it, no fix.
        let src = format!("{SPECS}export async function process(inputs, ctx) {{\n  const r = await ctx.task(specsTask, {{}});\n  return r.result.other;\n}}\n");
        let ds = lint(&src);
        assert_eq!(ds.len(), 1, "{ds:#?}");
        assert!(ds[0].fix.is_none(), "{ds:#?}");
    }

    /// A wrapper read the fix cannot drop — to a field nothing declares, or
    /// the wrapper itself — leaves every read as it is: fixing only the guard
    /// would make the read it guarded, never reached before, throw.
    #[test]
    fn a_wrapper_read_left_behind_blocks_the_fix() {
        for rest in [
            "r.result.other",
            "r.result",
            "r['result'].specifications",
            "(() => { const { result } = r; return result; })()",
            "r.result?.specifications.length",
        ] {
            let src = format!("{SPECS}export async function process(inputs, ctx) {{\n  const r = await ctx.task(specsTask, {{}});\n  if (!r?.result?.specifications) return null;\n  return {rest};\n}}\n");
            let ds = lint(&src);
            let fixable: Vec<_> = ds.iter().filter(|d| d.fix.is_some()).collect();
            assert!(fixable.is_empty(), "{rest}: {ds:#?}");
        }
    }

    /// `specs.length` reads a list's or a string's member on an output the
    /// schema makes an object: declaring `length` is no fix.
    #[test]
    fn list_members_on_an_object_output() {
        let src = format!("{SPECS}export async function process(inputs, ctx) {{\n  const specs = await ctx.task(specsTask, {{}});\n  ctx.log(`${{specs.length}} specs`);\n  return specs.map((s) => s.id);\n}}\n");
        let ds = lint(&src);
        assert_eq!(ds.len(), 2, "{ds:#?}");
        for d in &ds {
            let help = d.help.as_deref().unwrap_or("");
            assert!(!help.contains("declare `"), "{help}");
            assert!(help.contains("`specifications`"), "{help}");
            assert!(d.message.contains("an object"), "{}", d.message);
        }
        let length = ds.iter().find(|d| d.message.starts_with("`length`"));
        assert!(
            length.is_some_and(|d| d.message.contains("the read gets `undefined`")),
            "{ds:#?}"
        );
        let map = ds.iter().find(|d| d.message.starts_with("`map`"));
        assert!(
            map.is_some_and(|d| d.message.contains("throws a `TypeError`")),
            "{ds:#?}"
        );
    }

    #[test]
    fn near_misses() {
        let declared = ["passed", "issues", "filesChanged"];
        assert_eq!(closest("pased", &declared), Some("passed"));
        assert_eq!(closest("issue", &declared), Some("issues"));
        assert_eq!(closest("fileschanged", &declared), Some("filesChanged"));
        assert_eq!(closest("approved", &declared), None);
        assert_eq!(closest("ok", &declared), None);
    }
}
