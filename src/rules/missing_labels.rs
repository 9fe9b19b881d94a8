//! `missing-labels`: a task whose effects carry no labels.
//!
//! Only the `labels` of the definition a factory returns (or of a
//! single-object definition without `run`) reach the effect: the SDK
//! collects them into EFFECT_REQUESTED, the `task.created` hook and the
//! policy context. `defineTask`'s third argument, and the envelope beside
//! `run` in the object form, go to the in-memory task registry only.

use crate::js::syntax::tree::Node;

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::PathBuf;

use super::{Area, Category, JsContext, MergeContext, ReportMeta, Rule, RuleMeta, Sink, Sites};
use crate::diagnostic::{Diagnostic, Edit, Fix, Related, Severity};
use crate::js::model::objects;
use crate::js::model::TaskDef;
use crate::js::syntax::{span, unparen};
use crate::js::JsModel;
use crate::project::facts::Facts;
use crate::source::Span;

pub struct MissingLabels;

static META: RuleMeta = RuleMeta {
    id: "missing-labels",
    summary: "A task's effects carry no labels, so hooks, policies and journal queries cannot filter on them.",
    severity: Severity::Warning,
    area: Area::Labels,
    category: Category::Suspicious,
    doc: include_str!("../../rules/missing-labels.md"),
    builtin: false,
    options: &[],
    fix: crate::rules::FixAvailability::Sometimes,
};

/// Where labels that never reach an effect were written.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Misplaced {
    /// `defineTask(id, factory, { labels })`.
    Options,
    /// `defineTask({ id, labels, run })`.
    BesideRun,
}

impl Rule for MissingLabels {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn report(&self) -> ReportMeta {
        ReportMeta {
            sites: Sites::TaskDefinitions,
            praise: "Labels on every task",
            sdk_hint: "",
        }
    }

    fn merges_across_files(&self) -> bool {
        true
    }

    fn merge_across_files(&self, found: Vec<Diagnostic>, cx: &MergeContext) -> Vec<Diagnostic> {
        merge_projects(found, cx)
    }

    fn check_js(&self, cx: &JsContext, sink: &mut Sink) {
        let m = cx.model;
        // Found once: a fix looks for the line start before each task, and
        // searching backwards on a minified one-line file is linear per task.
        let first_newline = m.src().find(['\n', '\r']);
        // Tasks with no labels, reported together: one finding per module
        // naming them all, since the remedy (a taxonomy) is one decision.
        let mut unlabelled: Vec<(&TaskDef, bool)> = Vec::new();
        let mut with_definition = 0usize;
        for t in &m.task_defs {
            let call = &m.calls[t.call];
            let Some(shape) = definition_shape(m, call.args.as_slice(), &t.objects) else {
                continue;
            };
            // Definitions proclint cannot see (a factory returning a call,
            // a spread of something imported) are not judged.
            if shape.returned.is_empty()
                || shape
                    .returned
                    .iter()
                    .any(|o| objects::has_opaque_spread(m, *o))
            {
                continue;
            }
            // A definition without `kind` cannot run at all (reported by
            // invalid-task-definition, which also names labels left in the
            // options): its labels are not what needs fixing, and one
            // finding per broken task is enough.
            if shape
                .returned
                .iter()
                .any(|o| objects::property(m, *o, "kind").is_none())
            {
                continue;
            }
            // A task nothing can dispatch (bound to a name never read nor
            // exported; a string id passed to `ctx.task` is not the task)
            // never requests an effect for labels to reach.
            if never_dispatched(m, t) {
                continue;
            }
            with_definition += 1;
            let problems: Vec<(Node, Option<Node>)> = shape
                .returned
                .iter()
                .filter_map(|o| labels_problem(m, *o))
                .collect();
            let Some(&(_, empty)) = problems.first() else {
                continue;
            };
            let Some((place, value)) = shape.misplaced else {
                unlabelled.push((t, empty.is_some()));
                continue;
            };
            // Misplaced labels are reported per task: each is its own slip,
            // with its own fix.
            let id = t.id.clone().unwrap_or_else(|| "task".into());
            let (message, help) = match place {
                Misplaced::Options => (
                    format!("task `{id}` sets `labels` only in `defineTask`'s options, which reach the task registry, not its effects"),
                    "move `labels` into the definition the factory returns: only those are journaled with each effect and passed to the `task.created` hook and to dispatch policies",
                ),
                Misplaced::BesideRun => (
                    format!("task `{id}` sets `labels` beside `run`, which reach the task registry, not its effects"),
                    "move `labels` into the definition `run` returns: only those are journaled with each effect and passed to the `task.created` hook and to dispatch policies",
                ),
            };
            let d = sink.diag(span(t.id_node), message).with_help(help);
            // Every returned object must lack labels, or moving would change
            // only some of the task's definitions.
            let d = match (problems.len() == shape.returned.len())
                .then(|| move_fix(m, first_newline, &problems, value, shape.inline_factory))
                .flatten()
            {
                Some(fix) => d.with_fix(fix),
                None => d,
            };
            sink.push(d);
        }
        if let Some(d) = unlabelled_finding(sink, &unlabelled, with_definition) {
            sink.push(d);
        }
    }
}

/// Whether `d` is this rule's finding about tasks without labels: its
/// wording depends on the project's other modules (see
/// [`merge_projects`]), and no fix writes or removes labels that could
/// cause it, so a fix's re-check does not compare it.
pub fn is_unlabelled_finding(d: &Diagnostic) -> bool {
    d.rule == META.id && d.help.as_deref() == Some(UNLABELLED_HELP)
}

const UNLABELLED_HELP: &str = "return `labels` in each task definition (e.g. `labels: ['review']`): they are journaled with each effect and passed to the `task.created` hook and to dispatch policies, which can match on them";

/// A project where no task has labels has made no taxonomy yet: that is
/// one decision, so its modules' findings become one, at the first, with
/// every task as a related location. Where some module labels its tasks,
/// the others are inconsistent with it, and each keeps its finding.
fn merge_projects(found: Vec<Diagnostic>, cx: &MergeContext) -> Vec<Diagnostic> {
    let unlabelled = |d: &Diagnostic| d.help.as_deref() == Some(UNLABELLED_HELP);
    if found.iter().filter(|d| unlabelled(d)).count() < 2 {
        return found;
    }
    let labelled: HashSet<PathBuf> = cx
        .facts
        .iter()
        .filter(|(_, f)| matches!(f, Facts::Process(p) if p.tasks.iter().any(|t| t.has_labels)))
        .filter_map(|(path, _)| (cx.project_of)(path))
        .collect();
    // Only where every module was described (a `check` run): the editor
    // and a fix's re-check see some modules of a project, not all.
    let described: HashSet<&str> = cx.facts.iter().map(|(path, _)| *path).collect();
    let mut groups: BTreeMap<PathBuf, Vec<usize>> = BTreeMap::new();
    for (i, d) in found.iter().enumerate() {
        if !unlabelled(d) || !described.contains(&*d.location.path) {
            continue;
        }
        if let Some(root) = (cx.project_of)(&d.location.path).filter(|r| !labelled.contains(r)) {
            groups.entry(root).or_default().push(i);
        }
    }
    let mut merged_into: HashMap<usize, Vec<usize>> = HashMap::new();
    for members in groups.into_values().filter(|m| m.len() > 1) {
        merged_into.insert(members[0], members[1..].to_vec());
    }
    if merged_into.is_empty() {
        return found;
    }
    let absorbed: HashSet<usize> = merged_into.values().flatten().copied().collect();
    let mut slots: Vec<Option<Diagnostic>> = found.into_iter().map(Some).collect();
    let mut out = Vec::with_capacity(slots.len() - absorbed.len());
    for i in 0..slots.len() {
        if absorbed.contains(&i) {
            continue;
        }
        let Some(mut d) = slots[i].take() else {
            continue;
        };
        if let Some(others) = merged_into.get(&i) {
            let others: Vec<Diagnostic> = others.iter().filter_map(|j| slots[*j].take()).collect();
            let tasks: usize = d.occurrences + others.iter().map(|o| o.occurrences).sum::<usize>();
            let here = names_in(&d.message);
            d.message = format!(
                "none of the {tasks} tasks in this project's {} modules has `labels` (here: {here})",
                others.len() + 1
            );
            d.occurrences = tasks;
            for o in others {
                d.related.push(Related {
                    location: o.location,
                    message: o.message,
                });
                d.related.extend(o.related);
            }
        }
        out.push(d);
    }
    out
}

/// The task names a module's finding lists: after "has `labels`: ", or the
/// one of "task `x` has no `labels`".
fn names_in(message: &str) -> &str {
    if let Some((_, names)) = message.split_once("`labels`: ") {
        return names;
    }
    message
        .strip_prefix("task ")
        .and_then(|rest| rest.split_once(" has "))
        .map_or(message, |(name, _)| name)
}

/// One finding for the module's tasks without labels, at the first, with
/// the others as related locations. No fix: labels are the author's
/// taxonomy, and words taken from the id add nothing the effect's `taskId`
/// does not already carry.
fn unlabelled_finding(
    sink: &Sink,
    unlabelled: &[(&TaskDef, bool)],
    of: usize,
) -> Option<crate::diagnostic::Diagnostic> {
    let (first, first_empty) = *unlabelled.first()?;
    let name = |t: &TaskDef| format!("`{}`", t.id.as_deref().unwrap_or("task"));
    let message = if unlabelled.len() == 1 {
        if first_empty {
            format!("task {} has an empty `labels` array", name(first))
        } else {
            format!("task {} has no `labels`", name(first))
        }
    } else {
        let names: Vec<String> = unlabelled.iter().map(|(t, _)| name(t)).collect();
        if unlabelled.len() == of {
            format!(
                "none of this module's {of} tasks has `labels`: {}",
                super::prose_list(&names, 8)
            )
        } else {
            format!(
                "{} of this module's {of} tasks have no `labels`: {}",
                unlabelled.len(),
                super::prose_list(&names, 8)
            )
        }
    };
    let mut d = sink
        .diag(span(first.id_node), message)
        .with_help(UNLABELLED_HELP);
    d.occurrences = unlabelled.len();
    for (t, empty) in &unlabelled[1..] {
        let what = if *empty {
            "an empty `labels` array"
        } else {
            "no `labels`"
        };
        d = d.with_related(
            sink.location(span(t.id_node)),
            format!("task {} has {what}", name(t)),
        );
    }
    Some(d)
}

/// Bound to a name that is never read and not exported: nothing can pass
/// the definition to `ctx.task`.
fn never_dispatched(m: &JsModel, t: &TaskDef) -> bool {
    let Some(b) = t.binding else {
        return false;
    };
    let binding = m.scopes.get(b);
    binding.reads.is_empty()
        && !std::iter::successors(Some(binding.node), |n| n.parent())
            .any(|n| n.kind_str() == "export_statement")
        && !crate::js::analysis::exports::opaque_exports(m)
}

struct Shape<'t> {
    /// The definitions whose labels reach the effect.
    returned: Vec<Node<'t>>,
    /// Labels written where they reach only the registry, and where.
    misplaced: Option<(Misplaced, Node<'t>)>,
    /// The factory is a function literal written in the call, so editing
    /// its returned objects changes this task only.
    inline_factory: bool,
}

fn is_function_literal(n: Node) -> bool {
    matches!(
        n.kind_str(),
        "arrow_function" | "function_expression" | "function" | "method_definition"
    )
}

/// Non-empty labels given as `labels` in `obj` (not through a spread).
fn own_labels<'t>(m: &JsModel<'t>, obj: Node<'t>) -> Option<Node<'t>> {
    let v = objects::property(m, obj, "labels")?;
    let inner = unparen(v);
    if inner.kind_str() == "array" && inner.named_child_count() == 0 {
        return None;
    }
    Some(v)
}

fn definition_shape<'t>(
    m: &JsModel<'t>,
    args: &[Node<'t>],
    objects_of_def: &[Node<'t>],
) -> Option<Shape<'t>> {
    let first = unparen(*args.first()?);
    if first.kind_str() == "object" {
        // Object form: with `run`, the envelope is `defineTask`'s options
        // and `run` returns the definition; without, the envelope is it.
        let Some(run) = objects::property(m, first, "run") else {
            return Some(Shape {
                returned: vec![first],
                misplaced: None,
                inline_factory: true,
            });
        };
        let run = unparen(run);
        let f = m.function_of_expr(run)?;
        return Some(Shape {
            returned: m.returned_objects(f),
            misplaced: own_labels(m, first).map(|v| (Misplaced::BesideRun, v)),
            inline_factory: is_function_literal(run),
        });
    }
    let options = args
        .get(2)
        .map(|a| unparen(*a))
        .filter(|a| a.kind_str() == "object");
    Some(Shape {
        returned: objects_of_def.to_vec(),
        misplaced: options
            .and_then(|o| own_labels(m, o))
            .map(|v| (Misplaced::Options, v)),
        inline_factory: args
            .get(1)
            .is_some_and(|a| is_function_literal(unparen(*a))),
    })
}

/// `Some((object, Some(empty_array)))` for `labels: []`, `Some((object,
/// None))` when absent, `None` when labels are present.
fn labels_problem<'t>(m: &JsModel<'t>, obj: Node<'t>) -> Option<(Node<'t>, Option<Node<'t>>)> {
    match objects::property(m, obj, "labels") {
        None => Some((obj, None)),
        Some(v) => {
            let v = unparen(v);
            if v.kind_str() == "array" && v.named_child_count() == 0 {
                Some((obj, Some(v)))
            } else {
                None
            }
        }
    }
}

/// Moves misplaced labels into every returned definition: removes the
/// property where it is and inserts its text after `kind` in each object.
/// Safe when the labels are a list of plain strings; an expression could
/// name something the factory shadows, so moving it is offered as unsafe.
fn move_fix(
    m: &JsModel,
    first_newline: Option<usize>,
    problems: &[(Node, Option<Node>)],
    value: Node,
    inline_factory: bool,
) -> Option<Fix> {
    if !inline_factory {
        return None;
    }
    // Only a `labels: …` pair written in the envelope itself can be removed
    // (not one reached through a spread, not a shorthand).
    let pair = value.parent().filter(|p| p.kind_str() == "pair")?;
    let text = m.text(value).to_string();
    let mut edits = vec![remove_property(m, pair)];
    for (obj, empty) in problems {
        edits.push(insert_edit(m, first_newline, *obj, *empty, &text)?);
    }
    let inner = unparen(value);
    let plain = inner.kind_str() == "array" && inner.named().all(|e| e.kind_str() == "string");
    Some(Fix {
        description: format!("move labels {text} into the returned definition"),
        edits,
        safe: plain,
    })
}

/// Removes a property: its whole line when it stands alone on one,
/// otherwise the property and the comma that separates it. The commas are
/// the object's own tokens, found past any comments between (text
/// matching left `{ /* c */, timeout: 1 }` from `{ labels: ['l'] /* c */,
/// timeout: 1 }`, a syntax error).
fn remove_property(m: &JsModel, pair: Node) -> Edit {
    let src = m.src();
    let start = pair.start_byte();
    // The object's tokens around the pair, comments skipped.
    let siblings: Vec<Node> = pair.parent().map_or_else(Vec::new, |o| {
        o.all_children()
            .filter(|c| c.kind_str() != "comment")
            .collect()
    });
    let at = siblings.iter().position(|c| *c == pair);
    let comma = |i: Option<usize>| {
        i.and_then(|i| siblings.get(i).copied())
            .filter(|n| n.kind_str() == ",")
    };
    let comma_after = comma(at.map(|i| i + 1));
    let end = comma_after.map_or(pair.end_byte(), |c| c.end_byte());
    // Lines end at `\n`, `\r\n` or a lone `\r`.
    let line_start = src[..start].rfind(['\n', '\r']).map_or(0, |i| i + 1);
    let alone_before = src[line_start..start].trim().is_empty();
    let rest = &src[end..];
    let line_end_rel = rest.find(['\n', '\r']);
    let alone_after = line_end_rel.is_some_and(|i| rest[..i].trim().is_empty());
    if alone_before && alone_after && line_start > 0 {
        let stop = end + line_end_rel.map_or(0, |i| i + crate::source::break_len(rest, i));
        // The last property loses its comma-less line; a comma left on the
        // property before it is a trailing comma, which is valid.
        return Edit {
            span: Span::new(line_start, stop),
            replacement: String::new(),
        };
    }
    if comma_after.is_some() {
        let next = end + (rest.len() - rest.trim_start_matches([' ', '\t']).len());
        return Edit {
            span: Span::new(start, next),
            replacement: String::new(),
        };
    }
    // The last property: take the comma before it.
    let comma_before = comma(at.and_then(|i| i.checked_sub(1)));
    Edit {
        span: Span::new(
            comma_before.map_or(start, |c| c.start_byte()),
            pair.end_byte(),
        ),
        replacement: String::new(),
    }
}

/// Inserts `labels: <text>` after `kind` (or at the top of the object),
/// matching the indentation of the surrounding properties; fills an empty
/// `labels: []` in place.
fn insert_edit(
    m: &JsModel,
    first_newline: Option<usize>,
    obj: Node,
    empty: Option<Node>,
    text: &str,
) -> Option<Edit> {
    let src = m.src();
    if let Some(array) = empty {
        return Some(Edit {
            span: span(array),
            replacement: text.to_string(),
        });
    }
    let props: Vec<Node> = obj.named().filter(|n| n.kind_str() != "comment").collect();
    let first = *props.first()?;
    let kind_pair = props
        .iter()
        .copied()
        .find(|p| p.kind_str() == "pair" && p.field("key").is_some_and(|k| m.text(k) == "kind"));
    let anchor = kind_pair.unwrap_or(first);
    // No line start (nothing but the object on the first line): no fix.
    if first_newline.is_none_or(|nl| nl >= anchor.start_byte()) {
        return None;
    }
    // The indentation: spaces and tabs back to a newline. Anything else
    // before `anchor` on its line makes it a one-line object.
    let head = &src.as_bytes()[..anchor.start_byte()];
    let blank = head
        .iter()
        .rev()
        .take_while(|b| **b == b' ' || **b == b'\t')
        .count();
    let line_start = head.len() - blank;
    let indent = &src[line_start..anchor.start_byte()];
    if line_start == 0 || !matches!(head[line_start - 1], b'\n' | b'\r') {
        // A one-line object: insert inline after `{`.
        let open = obj.start_byte() + 1;
        return Some(Edit {
            span: Span::new(open, open),
            replacement: format!(" labels: {text},"),
        });
    }
    Some(match kind_pair {
        Some(pair) => {
            // After the pair and its comma, and after a trailing comment on
            // that line, using the file's own line ending.
            let mut end = pair.end_byte();
            let rest = &src[end..];
            let trimmed = rest.trim_start_matches([' ', '\t']);
            let comma = trimmed.starts_with(',');
            if comma {
                end += rest.len() - trimmed.len() + 1;
            }
            let line_end = src[end..]
                .find(['\n', '\r'])
                .map(|i| end + i)
                .unwrap_or(src.len());
            let tail = src[end..line_end].trim();
            let newline = match crate::source::break_len(src, line_end) {
                2 => "\r\n",
                1 if src.as_bytes()[line_end] == b'\r' => "\r",
                _ => "\n",
            };
            if comma && (tail.is_empty() || tail.starts_with("//")) {
                Edit {
                    span: Span::new(line_end, line_end),
                    replacement: format!("{newline}{indent}labels: {text},"),
                }
            } else if comma {
                Edit {
                    span: Span::new(end, end),
                    replacement: format!("{newline}{indent}labels: {text},"),
                }
            } else {
                Edit {
                    span: Span::new(end, end),
                    replacement: format!(",{newline}{indent}labels: {text}"),
                }
            }
        }
        None => Edit {
            span: Span::new(line_start, line_start),
            replacement: format!("{indent}labels: {text},{}", crate::source::newline_of(src)),
        },
    })
}

#[cfg(test)]
mod tests {
    use crate::diagnostic::Diagnostic;
    use crate::engine::discover::FileKind;
    use crate::engine::lint_text;
    use crate::project::config::Config;

    fn lint(src: &str) -> Vec<Diagnostic> {
        let mut config = Config::default();
        config.select = Some(vec!["missing-labels".into()]);
        lint_text("p.js", FileKind::Process, src.to_string(), &config)
            .into_iter()
            .filter(|d| d.rule == "missing-labels")
            .collect()
    }

    fn apply(text: &str, d: &Diagnostic) -> String {
        let fix = d.fix.as_ref().unwrap_or_else(|| panic!("no fix on {d:?}"));
        let edits: &[crate::diagnostic::Edit] = &fix.edits;
        crate::engine::fix::apply(text, &[edits]).0
    }

    const HEAD: &str = "import { defineTask } from '@a5c-ai/babysitter-sdk';\n";

    #[test]
    fn options_labels_are_moved_into_the_definition() {
        let src = format!("{HEAD}export const t = defineTask('lint', (args) => ({{\n  kind: 'shell',\n  title: 'Lint',\n}}), {{\n  description: 'd',\n  labels: ['lint'],\n}});\n");
        let ds = lint(&src);
        assert_eq!(ds.len(), 1, "{ds:#?}");
        assert!(ds[0].message.contains("options"), "{}", ds[0].message);
        assert!(ds[0].fix.as_ref().is_some_and(|f| f.safe));
        let fixed = apply(&src, &ds[0]);
        assert_eq!(
            fixed,
            format!("{HEAD}export const t = defineTask('lint', (args) => ({{\n  kind: 'shell',\n  labels: ['lint'],\n  title: 'Lint',\n}}), {{\n  description: 'd',\n}});\n")
        );
        assert!(lint(&fixed).is_empty());
    }

    /// A lone-CR file (old Mac line endings) got no fix; CRLF and lone CR
    /// get the LF file's fix with their own line breaks.
    #[test]
    fn the_fix_keeps_every_line_ending() {
        let lf = format!("{HEAD}export const t = defineTask('lint', (args) => ({{\n  kind: 'shell',\n  title: 'Lint',\n}}), {{\n  description: 'd',\n  labels: ['lint'],\n}});\n");
        let fixed_lf = apply(&lf, &lint(&lf)[0]);
        for newline in ["\r\n", "\r"] {
            let src = lf.replace('\n', newline);
            let ds = lint(&src);
            assert_eq!(ds.len(), 1, "{newline:?}: {ds:#?}");
            assert!(ds[0].fix.as_ref().is_some_and(|f| f.safe), "{newline:?}");
            let fixed = apply(&src, &ds[0]);
            assert_eq!(fixed, fixed_lf.replace('\n', newline), "{newline:?}");
            assert!(lint(&fixed).is_empty(), "{newline:?}");
        }
    }

    #[test]
    fn labels_beside_run_are_moved_into_what_run_returns() {
        let src = format!("{HEAD}export const t = defineTask({{ id: 'draft', labels: ['w'], run: () => ({{ kind: 'agent' }}) }});\n");
        let ds = lint(&src);
        assert_eq!(ds.len(), 1, "{ds:#?}");
        assert!(ds[0].message.contains("beside `run`"));
        let fixed = apply(&src, &ds[0]);
        assert_eq!(
            fixed,
            format!("{HEAD}export const t = defineTask({{ id: 'draft', run: () => ({{ labels: ['w'], kind: 'agent' }}) }});\n")
        );
        assert!(lint(&fixed).is_empty());
    }

    #[test]
    fn labels_from_a_variable_move_only_unsafely_and_absent_labels_get_no_fix() {
        let src = format!("{HEAD}const ls = ['a'];\nexport const t = defineTask('a', () => ({{ kind: 'agent' }}), {{ labels: ls }});\nexport const u = defineTask('u', () => ({{ kind: 'agent' }}));\n");
        let ds = lint(&src);
        assert_eq!(ds.len(), 2, "{ds:#?}");
        assert!(ds[0].fix.as_ref().is_some_and(|f| !f.safe));
        assert!(ds[1].fix.is_none());
        assert!(!ds[1].help.as_deref().unwrap_or("").contains("'u'"));
    }

    #[test]
    fn a_module_s_unlabelled_tasks_are_one_finding() {
        let src = format!("{HEAD}export const a = defineTask('a', () => ({{ kind: 'agent' }}));\nexport const b = defineTask('b', () => ({{ kind: 'agent', labels: [] }}));\nexport const c = defineTask('c', () => ({{ kind: 'agent', labels: ['c'] }}));\nexport const d = defineTask('d', () => ({{ kind: 'agent' }}));\n");
        let ds = lint(&src);
        assert_eq!(ds.len(), 1, "{ds:#?}");
        assert_eq!(
            ds[0].message,
            "3 of this module's 4 tasks have no `labels`: `a`, `b` and `d`"
        );
        assert_eq!(ds[0].occurrences, 3);
        let related: Vec<(u32, &str)> = ds[0]
            .related
            .iter()
            .map(|r| (r.location.start.line, r.message.as_str()))
            .collect();
        assert_eq!(
            related,
            [
                (3, "task `b` has an empty `labels` array"),
                (5, "task `d` has no `labels`")
            ]
        );
        let all = format!("{HEAD}export const a = defineTask('a', () => ({{ kind: 'agent' }}));\nexport const d = defineTask('d', () => ({{ kind: 'agent' }}));\n");
        assert_eq!(
            lint(&all)[0].message,
            "none of this module's 2 tasks has `labels`: `a` and `d`"
        );
    }

    /// Bound to a name nothing reads and not exported (called only by its
    /// string id, which `ctx.task` rejects): the task never runs.
    #[test]
    fn a_task_nothing_can_dispatch_is_not_reported() {
        let src = format!("{HEAD}const t = defineTask('t', () => ({{ kind: 'agent' }}));\nexport async function process(inputs, ctx) {{ return ctx.task('t', {{}}); }}\n");
        assert!(lint(&src).is_empty());
        for used in [
            "export async function process(inputs, ctx) { return ctx.task(t, {}); }",
            "export { t };",
            "module.exports = { t };",
        ] {
            let src =
                format!("{HEAD}const t = defineTask('t', () => ({{ kind: 'agent' }}));\n{used}\n");
            assert_eq!(lint(&src).len(), 1, "{used}");
        }
    }
}
