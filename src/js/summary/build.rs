//! Builds the owned [`ModuleSummary`] of a module from its model: what the
//! cross-module pass needs, and nothing that pins the tree in memory.

use std::path::PathBuf;

use crate::js::syntax::tree::Node;

use crate::js::analysis::repeat::{invocation_key, repetition, Repeat};
use crate::js::analysis::results::{reads_of, reads_of_pattern, Reads};
use crate::js::analysis::strings::{literal_text, strings_of, ArgsParam, Strings};
use crate::js::model::objects;
use crate::js::model::{Imported, JsModel, LoopKind, TaskTarget};
use crate::js::summary::{
    ExportKind, ExportSummary, ImportSummary, ImportedCall, ImportedTask, InvocationSummary,
    ModuleSummary, PendingFlow, ReadSet, RepeatInfo, SchemaFields, SchemaSlots, SchemaState, Slot,
    SlotList, StringLit, StringSet, TaskRef, TaskSummary, UndefinedName, UntestedResult,
};
use crate::js::syntax::{span, string_value, unparen};
use crate::js::EffectKind;
use crate::source::Span;

pub fn summarize(m: &JsModel, key: PathBuf, report: bool) -> ModuleSummary {
    let mut tasks: Vec<TaskSummary> = m.task_defs.iter().map(|t| task_summary(m, t)).collect();
    mark_fields_asked_elsewhere(&mut tasks);
    // Sized once: a dense module has one per statement, and a doubling
    // array leaves its old copies to the allocator.
    let mut invocations = Vec::with_capacity(m.effects_of(EffectKind::Task).count());
    invocations.extend(
        m.effects_of(EffectKind::Task)
            .map(|e| invocation(m, e.call)),
    );
    ModuleSummary {
        path: m.file.path.clone(),
        key,
        report,
        imports: m
            .imports
            .iter()
            .map(|i| ImportSummary {
                source: i.source.clone(),
                name: match &i.imported {
                    Imported::Named(n) => n.clone(),
                    Imported::Default => "default".into(),
                    Imported::Namespace => "*".into(),
                },
                location: m.file.location(i.span),
            })
            .collect(),
        tasks,
        invocations,
        exports: exports(m),
        opaque_exports: crate::js::analysis::exports::opaque_exports(m),
        imported_calls: imported_calls(m),
        flag_defaults: flag_defaults(m),
        undefined: crate::js::analysis::undefined::undefined_names(m)
            .into_iter()
            .filter_map(|u| {
                Some(UndefinedName {
                    name: u.name.into(),
                    location: m.file.location(span(*u.uses.first()?)),
                    declared: u.declared.is_some(),
                    called: u.called,
                })
            })
            .collect(),
    }
}

/// The boolean defaults of the module's names (see
/// [`ModuleSummary::flag_defaults`]), in source order.
fn flag_defaults(m: &JsModel) -> Vec<(Box<str>, bool)> {
    let boolean = |n: Node| match unparen(n).kind_str() {
        "true" => Some(true),
        "false" => Some(false),
        _ => None,
    };
    let mut out: Vec<(Box<str>, bool)> = Vec::new();
    for node in m.tree.nodes() {
        match node.kind_str() {
            // `{ autoCommit = false }`, `(push = true) =>`, and
            // `{ autoCommit: commit = false }` under both names.
            "object_assignment_pattern" | "assignment_pattern" => {
                let (Some(left), Some(value)) =
                    (node.field("left"), node.field("right").and_then(boolean))
                else {
                    continue;
                };
                out.push((m.text(left).into(), value));
                if let Some(key) = node
                    .parent()
                    .filter(|p| p.kind_str() == "pair_pattern")
                    .and_then(|p| p.field("key"))
                {
                    out.push((m.text(key).into(), value));
                }
            }
            // `const push = inputs.push ?? false` (or `|| false`), and
            // `inputs.push !== false` (on unless turned off).
            "binary_expression" => {
                let op = node.field("operator").map(|o| m.text(o)).unwrap_or("");
                let (Some(left), Some(value)) =
                    (node.field("left"), node.field("right").and_then(boolean))
                else {
                    continue;
                };
                let name = match unparen(left).kind_str() {
                    "member_expression" => unparen(left).field("property").map(|p| m.text(p)),
                    "identifier" => Some(m.text(unparen(left))),
                    _ => None,
                };
                let Some(name) = name else { continue };
                match op {
                    "??" | "||" => out.push((name.into(), value)),
                    "!==" | "!=" if !value => out.push((name.into(), true)),
                    _ => {}
                }
            }
            _ => {}
        }
    }
    out.sort();
    out.dedup();
    out
}

/// Whether a name is a function's input: a parameter (`args`, `inputs`,
/// a destructured `{ autoCommit }`), or a name destructured from one
/// (`const { autoCommit = false } = inputs`).
fn is_input(m: &JsModel, id: Node) -> bool {
    use crate::js::model::scope::BindingKind;
    let Some(b) = m.scopes.binding_of(id) else {
        return false;
    };
    let binding = m.scopes.get(b);
    match binding.kind {
        BindingKind::Param => true,
        BindingKind::Const | BindingKind::Let | BindingKind::Var if binding.init.is_none() => {
            let mut n = binding.node;
            while let Some(parent) = n.parent() {
                if parent.kind_str() == "variable_declarator" {
                    return parent
                        .field("value")
                        .map(unparen)
                        .filter(|v| v.kind_str() == "identifier")
                        .and_then(|v| m.scopes.binding_of(v))
                        .is_some_and(|vb| m.scopes.get(vb).kind == BindingKind::Param);
                }
                n = parent;
            }
            false
        }
        _ => false,
    }
}

/// The flag a literal is written under, within its expression: the
/// consequence of `flag ? '…' : …`, or the right of `flag && '…'`, where
/// `flag` is an input or a member of one (`args.autoCommit`); its last
/// name.
fn flag_guard<'t>(m: &JsModel<'t>, literal: Node<'t>) -> Option<Box<str>> {
    // Only an input is a flag: a condition on a result (`review.approved
    // ? 'Commit …'`) is decided by the run, not by an option.
    let flag = |test: Node<'t>| -> Option<&'t str> {
        let test = unparen(test);
        match test.kind_str() {
            "identifier" if is_input(m, test) => Some(m.text(test)),
            "member_expression" => {
                let mut root = test;
                while root.kind_str() == "member_expression" {
                    root = unparen(root.field("object")?);
                }
                (root.kind_str() == "identifier" && is_input(m, root))
                    .then(|| test.field("property").map(|p| m.text(p)))
                    .flatten()
            }
            _ => None,
        }
    };
    let mut child = literal;
    while let Some(parent) = child.parent() {
        if crate::js::syntax::is_function(parent) || crate::js::syntax::holds_statements(parent) {
            return None;
        }
        let from = |field: &str| parent.field(field).is_some_and(|n| n.id() == child.id());
        let guard = match parent.kind_str() {
            "ternary_expression" if from("consequence") => parent.field("condition").and_then(flag),
            "binary_expression"
                if from("right") && parent.field("operator").is_some_and(|o| m.text(o) == "&&") =>
            {
                parent.field("left").and_then(flag)
            }
            _ => None,
        };
        if let Some(g) = guard {
            return Some(g.into());
        }
        child = parent;
    }
    None
}

/// `r.value.x` read as the path `[value]` at `node` (`r.value`): the edit
/// that drops `.value`, and `x`.
/// A read of a `.value`/`.result` wrapper on a result, with the edit that
/// drops it when it is followed by a field (`r.value.x` → `r.x`); a read
/// of the wrapper itself (`r.value`, passed on whole) or one whose drop
/// would swallow a comment or line break has none (it blocks the fix).
fn unwrap(m: &JsModel, path: &[String], node: Node) -> Option<crate::js::summary::Unwrap> {
    let [wrapper] = path else { return None };
    if !matches!(wrapper.as_str(), "value" | "result") {
        return None;
    }
    let droppable = || {
        // `const { value } = r` or `r['value']` is a read the fix does not
        // rewrite: it blocks the others.
        if node.kind_str() != "member_expression"
            || node.field("property").map(|p| m.text(p)) != Some(wrapper.as_str())
        {
            return None;
        }
        let object = node.field("object")?;
        let parent = node
            .parent()
            .filter(|p| p.kind_str() == "member_expression" && p.field("object") == Some(node))?;
        let next = parent
            .field("property")
            .filter(|p| p.kind_str() == "property_identifier")?;
        // `r.value?.x.trim()` short-circuits on the missing wrapper; without
        // it the chain would go on past an absent `x` and throw.
        let optional_after = m
            .src()
            .get(node.end_byte()..next.start_byte())
            .is_some_and(|t| t.contains("?."));
        let chain_goes_on = parent.parent().is_some_and(|g| {
            (g.kind_str() == "member_expression" && g.field("object") == Some(parent))
                || (g.kind_str() == "subscript_expression" && g.field("object") == Some(parent))
                || (g.kind_str() == "call_expression" && g.field("function") == Some(parent))
        });
        if optional_after && chain_goes_on {
            return None;
        }
        // Only `.value` / `?.value` between the object and the end: no
        // comment or line break that the edit would swallow.
        let dropped = m.src().get(object.end_byte()..node.end_byte())?;
        if dropped != format!(".{wrapper}") && dropped != format!("?.{wrapper}") {
            return None;
        }
        Some((
            crate::diagnostic::Edit {
                span: crate::source::Span::new(object.end_byte(), node.end_byte()),
                replacement: String::new(),
            },
            m.text(next).to_string(),
        ))
    };
    let (edit, next) = droppable().unzip();
    Some(crate::js::summary::Unwrap {
        wrapper: wrapper.clone(),
        location: loc(m, node),
        edit,
        next,
    })
}

fn loc(m: &JsModel, node: Node) -> crate::diagnostic::Location {
    m.file.location(span(node))
}

pub fn string_set(m: &JsModel, s: &Strings) -> StringSet {
    StringSet {
        literals: s
            .literals
            .iter()
            .map(|n| StringLit {
                text: literal_text(m, *n),
                location: loc(m, *n),
                guard: flag_guard(m, *n),
            })
            .collect(),
        pending: s.pending.clone(),
        arg_fields: s.arg_fields.clone(),
    }
}

/// The one-field paths read only as later links of `||`/`??` chains, with
/// the earlier links' fields (those of the first such read).
fn fallbacks(r: &Reads) -> Vec<(String, Vec<String>)> {
    let mut out: Vec<(String, Vec<String>)> = Vec::new();
    let mut direct: Vec<&str> = Vec::new();
    for (path, node) in &r.paths {
        let [field] = path.as_slice() else {
            continue;
        };
        match r.fallbacks.iter().find(|(n, _)| n.id() == node.id()) {
            Some((_, earlier)) if !direct.contains(&field.as_str()) => {
                if !out.iter().any(|(f, _)| f == field) {
                    out.push((field.clone(), earlier.clone()));
                }
            }
            Some(_) => {}
            None => {
                direct.push(field);
                out.retain(|(f, _)| f != field);
            }
        }
    }
    out.sort();
    out
}

pub fn read_set(m: &JsModel, r: &Reads) -> ReadSet {
    let unwraps = r
        .paths
        .iter()
        .filter_map(|(path, node)| unwrap(m, path, *node))
        .collect();
    // A path is logged only where every read of it is.
    let mut only_logged: std::collections::BTreeMap<&[String], bool> = Default::default();
    for (path, node) in &r.paths {
        let here = crate::js::analysis::effects::in_log_arguments(m, *node);
        *only_logged.entry(path.as_slice()).or_insert(here) &= here;
    }
    let logged = only_logged
        .into_iter()
        .filter(|(_, only)| *only)
        .map(|(path, _)| path.to_vec())
        .collect();
    let mut out = ReadSet {
        logged,
        unwraps,
        paths: r
            .paths
            .iter()
            .map(|(path, node)| (path.clone(), loc(m, *node)))
            .collect(),
        ..ReadSet::default()
    };
    // Sorted by path, the first place each path is read (a stable sort
    // keeps reads of one path in source order).
    out.paths.sort_by(|a, b| a.0.cmp(&b.0));
    out.paths.dedup_by(|later, first| later.0 == first.0);
    out.fallbacks = fallbacks(r);
    out.paths.shrink_to_fit();
    out.provided = r.provided.iter().map(|n| loc(m, *n)).collect();
    out.forwards = r
        .forwards
        .iter()
        .map(|f| (f.kind.clone(), f.acc.clone()))
        .collect();
    // Rules only ask whether a value escapes to a kind of place, so a
    // (kind, path) pair seen twice says nothing new.
    out.forwards.sort_unstable();
    out.forwards.dedup();
    out.forwards.shrink_to_fit();
    out.pending = r
        .pending
        .iter()
        .map(|p| PendingFlow {
            source: p.source.clone(),
            name: p.name.clone(),
            kind: p.kind.clone(),
            wrap: p.wrap.clone(),
            acc: p.acc.clone(),
        })
        .collect();
    out
}

fn task_summary(m: &JsModel, t: &crate::js::model::TaskDef) -> TaskSummary {
    let prop = |name: &str| {
        t.objects
            .iter()
            .find_map(|o| objects::property(m, *o, name))
    };
    let kind = t.declared_kind().map(str::to_owned);
    let args_param = t.factory.map(|f| ArgsParam::of(m, f)).unwrap_or_default();
    let agent = t
        .objects
        .iter()
        .find_map(|o| objects::path(m, *o, &["agent", "prompt"]));
    // The task-level `outputSchema` is the one the SDK itself reads (it
    // validates shell results with it, and parses an external agent's
    // answer as JSON when it is set); `agent.outputSchema` travels to the
    // agent with the task.
    let schema = t
        .objects
        .iter()
        .find_map(|o| objects::path(m, *o, &["agent", "outputSchema"]))
        .or_else(|| prop("outputSchema"));
    let schema_fields = schema.and_then(|s| schema_properties(m, s));
    let schema_required = schema.map(|s| schema_required(m, s)).unwrap_or_default();
    // Yes/no answers; and amounts, which no status is.
    let schema_flags = schema
        .map(|s| schema_typed(m, s, &["boolean"]))
        .unwrap_or_default();
    let schema_numbers = schema
        .map(|s| schema_typed(m, s, &["number", "integer"]))
        .unwrap_or_default();
    // `outputSchema: reviewSchema` imported from a shared module.
    let schema_import = schema
        .and_then(|s| m.binding_of_expr(s))
        .and_then(|b| m.import_of(b))
        .and_then(|i| match &i.imported {
            Imported::Named(n) => Some((i.source.clone(), n.clone())),
            _ => None,
        });
    let schema_node = schema;
    let schema_slots = schema
        .filter(|_| m.calls[t.call].func.is_none())
        .and_then(|s| schema_slots(m, s));
    let schema = schema_state(m, t, schema, schema_fields.as_ref());
    let schema_slot = match schema {
        SchemaState::Missing | SchemaState::NoProperties => {
            schema_slot(m, t, schema_node).map(Box::new)
        }
        _ => None,
    };
    // A schema written inside the prompt: text the agent reads, not a
    // schema of the task.
    let prompt_schema_fields = t
        .objects
        .iter()
        .find_map(|o| objects::path(m, *o, &["agent", "prompt", "outputSchema"]))
        .and_then(|s| schema_properties(m, s));
    let title = prop("title").map(|v| string_set(m, &strings_of(m, v, &args_param)));
    let prompt = agent.map(|p| string_set(m, &strings_of(m, p, &args_param)));
    let output_request = output_request(m, t, &args_param);
    // The fields the prompt asks for in words: named in `outputFormat`, or
    // in a prompt string that describes the output ("Return JSON with
    // summary"). Checked here, while the prompt's every literal is at hand
    // (the summary keeps only those some phrase rule reads).
    let asking = output_request.iter().flat_map(|s| &s.literals).chain(
        prompt
            .iter()
            .flat_map(|s| &s.literals)
            .filter(|l| describes_output(&l.text)),
    );
    let asking: Vec<&str> = asking.map(|l| l.text.as_str()).collect();
    let prompt_names: Box<[Box<str>]> = schema_fields
        .iter()
        .flat_map(|fields| fields.iter())
        .filter(|(name, _)| {
            asking
                .iter()
                .any(|text| crate::js::analysis::strings::names_word(text, name))
        })
        .map(|(name, _)| name.as_str().into())
        .collect();
    TaskSummary {
        prompt_names,
        schema,
        schema_slot,
        title,
        id: t.id.clone(),
        static_id: match crate::js::analysis::tasks::task_id(m, t) {
            crate::js::analysis::tasks::TaskId::Literal(s)
            | crate::js::analysis::tasks::TaskId::Const(s) => Some(s),
            _ => None,
        },
        id_location: loc(m, t.id_node),
        definition: loc(m, m.calls[t.call].node),
        local_name: t.binding.map(|b| m.scopes.get(b).name.clone()),
        kind,
        schema_fields,
        schema_required,
        schema_flags,
        schema_numbers,
        fields_asked_elsewhere: Box::default(),
        schema_import,
        schema_slots,
        prompt_empty: agent.is_some_and(|p| empty_prompt(m, p)) || agent_without_prompt(m, t),
        prompt,
        never_records: crate::js::analysis::tasks::never_records(m, t),
        at_load: m.calls[t.call].func.is_none(),
        output_request,
        prompt_schema_fields,
        shell_never_fails: t.declared_kind() == Some("shell")
            && crate::js::analysis::shell::task_never_fails(m, t),
    }
}

/// `agent: {}` (an empty `agent` object, comments aside) in every
/// definition of the task: the agent is told nothing. An `agent` with other
/// properties is not: its instructions may come another way
/// (`metadata.instructions`).
fn agent_without_prompt(m: &JsModel, t: &crate::js::model::TaskDef) -> bool {
    !t.objects.is_empty()
        && t.objects.iter().all(|o| {
            objects::property(m, *o, "agent")
                .map(unparen)
                .filter(|a| a.kind_str() == "object")
                .is_some_and(|a| a.named().all(|c| c.kind_str() == "comment"))
        })
}

/// `prompt: { /* … */ }` or `prompt: ''`: a prompt written with nothing in
/// it (comments aside), which dispatches an agent with no instructions.
fn empty_prompt(m: &JsModel, prompt: Node) -> bool {
    let p = unparen(prompt);
    match p.kind_str() {
        "object" => p.named().all(|c| c.kind_str() == "comment"),
        "string" => string_value(p, m.src()).is_some_and(|s| s.trim().is_empty()),
        _ => false,
    }
}

/// Where a prompt asks for its output in words: `outputFormat`, and the
/// `instructions` agents write as "Return JSON: { stack, projectName }" —
/// in the prompt, or in the definition's `metadata`, which the SDK writes
/// into the task's `task.json` for whoever runs it (`tasks/serializer.ts`).
const OUTPUT_REQUEST_PATHS: [&[&str]; 4] = [
    &["agent", "prompt", "outputFormat"],
    &["agent", "prompt", "instructions"],
    &["metadata", "instructions"],
    &["metadata", "checks"],
];

fn output_request(
    m: &JsModel,
    t: &crate::js::model::TaskDef,
    args_param: &ArgsParam,
) -> Option<StringSet> {
    let mut out: Option<StringSet> = None;
    for path in OUTPUT_REQUEST_PATHS {
        let Some(node) = t.objects.iter().find_map(|o| objects::path(m, *o, path)) else {
            continue;
        };
        let mut set = string_set(m, &strings_of(m, node, args_param));
        // An instruction names a field as output only when it describes
        // the output ("Return JSON: { stack, projectName }"), not when it
        // asks to "flag critical issues".
        if path.last() != Some(&"outputFormat") {
            // An object written out over several instruction lines
            // (`'Return {'`, `'  classified: […]'`, `'}'`): the lines up to
            // its closing brace describe the output too.
            let mut open = 0i64;
            set.literals.retain(|l| {
                let keep = open > 0 || describes_output(&l.text);
                if keep {
                    open = (open + brace_balance(&l.text)).max(0);
                }
                keep
            });
        }
        match &mut out {
            Some(o) => {
                o.literals.extend(set.literals);
                o.pending.extend(set.pending);
                o.arg_fields.extend(set.arg_fields);
            }
            None => out = Some(set),
        }
    }
    out
}

/// Object braces a text opens minus those it closes (a template's `${…}`
/// is not an object).
fn brace_balance(text: &str) -> i64 {
    let mut balance = 0i64;
    let mut template = 0i64;
    let mut prev = None;
    for c in text.chars() {
        match c {
            '{' if prev == Some('$') => template += 1,
            '{' => balance += 1,
            '}' if template > 0 => template -= 1,
            '}' => balance -= 1,
            _ => {}
        }
        prev = Some(c);
    }
    balance
}

fn describes_output(text: &str) -> bool {
    let lower = text.to_ascii_lowercase();
    // `{` of a template's `${…}` is not an object written out.
    let object = text
        .char_indices()
        .any(|(i, c)| c == '{' && !text[..i].ends_with('$'));
    object
        || ["json", "return", "output"]
            .iter()
            .any(|w| lower.contains(w))
}

/// Where a definition with one object and no schema fields can have them
/// written: into its `agent` object literal (no `outputSchema`), into its
/// `agent.outputSchema` object literal of `type: 'object'` (no
/// `properties`), or in place of an empty `properties: {}`.
fn schema_slot(
    m: &JsModel,
    t: &crate::js::model::TaskDef,
    schema: Option<Node>,
) -> Option<crate::js::summary::SchemaSlot> {
    use crate::js::summary::{SchemaSlot, SlotKind};
    let [def] = t.objects.as_slice() else {
        return None;
    };
    let quote = match m.text(t.id_node).chars().next() {
        Some('"') => '"',
        _ => '\'',
    };
    let agent = object_literal(objects::property(m, *def, "agent")?)?;
    let Some(schema) = schema else {
        let (span, before, after) = insertion(m, agent)?;
        return Some(SchemaSlot {
            span,
            before,
            after,
            what: SlotKind::OutputSchema,
            quote,
        });
    };
    // Only the schema written in `agent` itself (not a shared const, not
    // the task-level one, which the SDK validates shell results with).
    let schema =
        object_literal(schema).filter(|s| s.parent().and_then(|p| p.parent()) == Some(agent))?;
    if let Some(t) = objects::property(m, schema, "type") {
        if string_value(t, m.src()).as_deref() != Some("object") {
            return None;
        }
    }
    match objects::property(m, schema, "properties") {
        None => {
            let (span, before, after) = insertion(m, schema)?;
            Some(SchemaSlot {
                span,
                before,
                after,
                what: SlotKind::Properties,
                quote,
            })
        }
        Some(p) => {
            let p = object_literal(p)?;
            if m.text(p).chars().filter(|c| !c.is_whitespace()).count() != 2 {
                return None;
            }
            Some(SchemaSlot {
                span: span(p),
                before: String::new(),
                after: String::new(),
                what: SlotKind::PropertiesValue,
                quote,
            })
        }
    }
}

/// Where a new last property goes in an object literal, and the text
/// around it: after the last property (and its comma), on a line of its own
/// at that property's indentation when the object spans lines.
fn insertion(m: &JsModel, obj: Node) -> Option<(crate::source::Span, String, String)> {
    let src = m.src();
    let props: Vec<Node> = obj.named().filter(|n| n.kind_str() != "comment").collect();
    if obj.named().any(|n| n.kind_str() == "comment") {
        return None;
    }
    let at = |i: usize| crate::source::Span::new(i, i);
    let Some(last) = props.last() else {
        // `{}`: nothing to align with.
        let inner = src.get(obj.start_byte() + 1..obj.end_byte() - 1)?;
        if !inner.trim().is_empty() {
            return None;
        }
        return Some((at(obj.start_byte() + 1), " ".into(), " ".into()));
    };
    let rest = src.get(last.end_byte()..obj.end_byte())?;
    let comma = rest.trim_start().starts_with(',');
    let end = if comma {
        last.end_byte() + rest.find(',')? + 1
    } else {
        last.end_byte()
    };
    let multiline = src.get(obj.start_byte()..last.start_byte())?.contains('\n');
    if !multiline {
        return Some(if comma {
            (at(end), " ".into(), ",".into())
        } else {
            (at(end), ", ".into(), String::new())
        });
    }
    // Nothing else on the line after the last property.
    let tail = src.get(end..)?;
    let line_rest = tail.split('\n').next().unwrap_or("");
    if !line_rest.trim().is_empty() && !line_rest.trim_start().starts_with('}') {
        return None;
    }
    let line_start = src.get(..last.start_byte())?.rfind('\n')? + 1;
    let indent = src.get(line_start..last.start_byte())?;
    if !indent.chars().all(|c| c == ' ' || c == '\t') {
        return None;
    }
    let nl = if src.get(..line_start)?.ends_with("\r\n") {
        "\r\n"
    } else {
        "\n"
    };
    Some(if comma {
        (at(end), format!("{nl}{indent}"), ",".into())
    } else {
        (at(end), format!(",{nl}{indent}"), String::new())
    })
}

/// `n` when it is an object literal (in parentheses or not).
fn object_literal(n: Node) -> Option<Node> {
    Some(unparen(n)).filter(|n| n.kind_str() == "object")
}

/// Distinguishes "no output schema" from "one proclint cannot read".
fn schema_state(
    m: &JsModel,
    t: &crate::js::model::TaskDef,
    schema: Option<Node>,
    fields: Option<&SchemaFields>,
) -> SchemaState {
    if fields.is_some_and(|f| !f.is_empty()) {
        return SchemaState::Declared;
    }
    if t.objects.is_empty() || t.objects.iter().any(|o| objects::has_opaque_spread(m, *o)) {
        return SchemaState::Unknown;
    }
    let Some(schema) = schema else {
        // No schema found: sure only when `agent` is an object read in full.
        let Some(agent) = t
            .objects
            .iter()
            .find_map(|o| objects::property(m, *o, "agent"))
        else {
            return SchemaState::Missing;
        };
        return match m.object_of_expr(agent) {
            Some(a) if !objects::has_opaque_spread(m, a) => SchemaState::Missing,
            _ => SchemaState::Unknown,
        };
    };
    let Some(schema) = m.object_of_expr(schema) else {
        return SchemaState::Unknown;
    };
    match objects::property(m, schema, "properties") {
        None if objects::has_opaque_spread(m, schema) => SchemaState::Unknown,
        None => SchemaState::NoProperties,
        Some(p) => match m.object_of_expr(p) {
            Some(_) => SchemaState::NoProperties,
            None => SchemaState::Unknown,
        },
    }
}

/// The fields a JSON Schema object expression declares: the keys of its
/// `properties` and the names in its `required` list (the SDK's validator,
/// `runtime/schemaValidator.ts`, enforces `required` with or without
/// `properties`). `None` when neither is there to read.
fn schema_properties(m: &JsModel, schema: Node) -> Option<SchemaFields> {
    let s = m.object_of_expr(schema)?;
    let props = objects::property(m, s, "properties").and_then(|p| m.object_of_expr(p));
    let required = objects::property(m, s, "required")
        .map(unparen)
        .filter(|r| r.kind_str() == "array");
    if props.is_none() && required.is_none() {
        return None;
    }
    let mut fields: Vec<(String, crate::diagnostic::Location)> = props
        .map(|p| {
            objects::properties(m, p)
                .into_iter()
                .map(|(name, p)| (name, loc(m, p.key)))
                .collect()
        })
        .unwrap_or_default();
    for item in required.iter().flat_map(|r| r.named()) {
        if let Some(name) = string_value(item, m.src()) {
            if !fields.iter().any(|(n, _)| *n == name) {
                fields.push((name, loc(m, item)));
            }
        }
    }
    Some(fields.into())
}

/// Where the entries of a task's own schema literal are written (see
/// [`SchemaSlots`]): the schema is the literal itself, or a module-local
/// `const` read only here and not exported, and its `properties` and
/// `required` are literals written in it (not spread in, not named
/// constants, which other schemas may share). The caller passes only
/// definitions made when the module loads: a `defineTask` inside a
/// function may define many tasks from one literal.
fn schema_slots(m: &JsModel, schema: Node) -> Option<Box<SchemaSlots>> {
    let node = unparen(schema);
    let obj = match node.kind_str() {
        "object" => node,
        "identifier" => {
            let b = m.binding_of_expr(node)?;
            let exported = m.exports.iter().any(|e| {
                e.source.is_none()
                    && e.value.is_some_and(|v| {
                        m.binding_of_expr(v) == Some(b) || m.scopes.get(b).node.id() == v.id()
                    })
            });
            if m.scopes.get(b).reads.len() != 1 || exported {
                return None;
            }
            let obj = m.object_of_expr(node)?;
            // `export const schema = {…}` declares and exports at once.
            let mut up = obj.parent();
            while let Some(p) = up {
                if p.kind_str() == "export_statement" {
                    return None;
                }
                up = p.parent();
            }
            obj
        }
        _ => return None,
    };
    // The value in effect must be written in this literal.
    let own = |name: &str, kind: &str| -> Result<Option<Node>, ()> {
        let Some(v) = objects::property(m, obj, name) else {
            return Ok(None);
        };
        let pair = v.parent().filter(|p| p.kind_str() == "pair");
        let in_obj = pair
            .and_then(|p| p.parent())
            .is_some_and(|p| p.id() == obj.id());
        if !in_obj || v.kind_str() != kind {
            return Err(());
        }
        Ok(Some(v))
    };
    let properties = own("properties", "object").ok()?;
    let required = own("required", "array").ok()?;
    if properties.is_none() && required.is_none() {
        return None;
    }
    Some(Box::new(SchemaSlots {
        properties: match properties {
            Some(p) => Some(slot_list(m, p)?),
            None => None,
        },
        required: match required {
            Some(r) => Some(slot_list(m, r)?),
            None => None,
        },
    }))
}

/// The entries of an object or array literal (see [`SlotList`]); `None`
/// when its separators cannot be found.
fn slot_list(m: &JsModel, list: Node) -> Option<SlotList> {
    let src = m.src();
    let bytes = src.as_bytes();
    let array = list.kind_str() == "array";
    let entries: Vec<Node> = list.named().filter(|c| c.kind_str() != "comment").collect();
    let mut items = Vec::with_capacity(entries.len());
    let mut lines = true;
    for (n, e) in entries.iter().enumerate() {
        let name = if array {
            (e.kind_str() == "string")
                .then(|| string_value(*e, src))
                .flatten()
        } else {
            match e.kind_str() {
                "pair" => e
                    .field("key")
                    .filter(|k| matches!(k.kind_str(), "property_identifier" | "string"))
                    .and_then(|k| crate::js::syntax::key_name(k, src)),
                "shorthand_property_identifier" => Some(m.text(*e).to_string()),
                _ => None,
            }
        };
        let (start, end) = (e.start_byte(), e.end_byte());
        // The comma after the entry, past comments; every entry but the
        // last has one.
        let mut at = skip_trivia(bytes, end);
        let comma = (bytes.get(at) == Some(&b',')).then_some(at);
        let token_end = if comma.is_some() {
            at += 1;
            while bytes.get(at).is_some_and(u8::is_ascii_whitespace) {
                at += 1;
            }
            at
        } else if n + 1 < entries.len() {
            return None;
        } else {
            end
        };
        let line = line_extent(bytes, start, end);
        lines &= line.is_some();
        items.push((
            name,
            Span::new(start, end),
            line,
            Span::new(start, token_end),
            comma,
        ));
    }
    let items = items
        .into_iter()
        .map(|(name, span, line, token, comma)| Slot {
            name: name.map(String::into_boxed_str),
            span,
            extent: if lines { line.unwrap_or(token) } else { token },
            comma,
        })
        .collect();
    Some(SlotList {
        inner: Span::new(list.start_byte() + 1, list.end_byte().saturating_sub(1)),
        lines,
        items,
    })
}

/// Past whitespace and comments from `at`.
fn skip_trivia(bytes: &[u8], mut at: usize) -> usize {
    loop {
        while bytes.get(at).is_some_and(u8::is_ascii_whitespace) {
            at += 1;
        }
        match (bytes.get(at), bytes.get(at + 1)) {
            (Some(b'/'), Some(b'/')) => {
                while bytes.get(at).is_some_and(|b| *b != b'\n') {
                    at += 1;
                }
            }
            (Some(b'/'), Some(b'*')) => {
                at += 2;
                while at < bytes.len() && !bytes[at..].starts_with(b"*/") {
                    at += 1;
                }
                at = (at + 2).min(bytes.len());
            }
            _ => return at,
        }
    }
}

/// The whole lines of an entry that stands on lines of its own: only
/// indentation before it, and after it only its comma, a comment on the
/// same line and the line's end.
fn line_extent(bytes: &[u8], start: usize, end: usize) -> Option<Span> {
    let mut first = start;
    while first > 0 && matches!(bytes[first - 1], b' ' | b'\t') {
        first -= 1;
    }
    if first == 0 || bytes[first - 1] != b'\n' {
        return None;
    }
    let blank = |at: &mut usize| {
        while bytes.get(*at).is_some_and(|b| matches!(b, b' ' | b'\t')) {
            *at += 1;
        }
    };
    let mut at = end;
    blank(&mut at);
    if bytes.get(at) == Some(&b',') {
        at += 1;
        blank(&mut at);
    }
    if bytes[at..].starts_with(b"//") {
        while bytes.get(at).is_some_and(|b| *b != b'\n') {
            at += 1;
        }
    } else if bytes[at..].starts_with(b"/*") {
        let close = bytes[at..].windows(2).position(|w| w == b"*/")? + at + 2;
        if bytes[at..close].contains(&b'\n') {
            return None;
        }
        at = close;
        blank(&mut at);
    }
    if bytes.get(at) == Some(&b'\r') {
        at += 1;
    }
    (bytes.get(at) == Some(&b'\n')).then(|| Span::new(first, at + 1))
}

/// The names in a JSON Schema object expression's `required` list.
fn schema_required(m: &JsModel, schema: Node) -> Box<[String]> {
    let Some(s) = m.object_of_expr(schema) else {
        return Box::default();
    };
    objects::property(m, s, "required")
        .map(unparen)
        .filter(|r| r.kind_str() == "array")
        .map(|r| {
            r.named()
                .filter_map(|item| string_value(item, m.src()))
                .collect()
        })
        .unwrap_or_default()
}

/// Records, for each task, the fields of its schema named by two words or
/// more that another task's prompt in the module talks about
/// (`conversationGuides` in "use the conversation guides"): done here, while
/// every prompt's text is at hand (the summary keeps only the literals some
/// phrase rule reads).
fn mark_fields_asked_elsewhere(tasks: &mut [TaskSummary]) {
    mark_fields_asked_elsewhere_within(tasks, MAX_PROMPT_SCAN);
}

/// How many tasks whose prompt talks about a field are kept for it.
const MAX_ASKERS: usize = 8;

/// Bytes of prompt text scanned, summed over the fields looked for, past
/// which a module's prompts are not searched: each field is looked for in
/// every other task's prompt, so a generated module of thousands of tasks
/// would scan for minutes; it only loses the warnings this search keeps.
const MAX_PROMPT_SCAN: usize = 200_000_000;

fn mark_fields_asked_elsewhere_within(tasks: &mut [TaskSummary], budget: usize) {
    let texts: Vec<String> = tasks
        .iter()
        .map(|t| {
            t.prompt
                .iter()
                .flat_map(|s| &s.literals)
                .map(|l| l.text.to_lowercase())
                .collect::<Vec<_>>()
                .join("\n")
        })
        .collect();
    let fields: usize = tasks
        .iter()
        .map(|t| t.schema_fields.as_ref().map_or(0, |f| f.len()))
        .sum();
    let bytes: usize = texts.iter().map(String::len).sum();
    if fields.saturating_mul(bytes) > budget {
        return;
    }
    // A prompt asking for a field of its own output is no request for
    // another task's.
    let declares: Vec<Vec<String>> = tasks
        .iter()
        .map(|t| {
            t.schema_fields
                .iter()
                .flat_map(|f| f.iter().map(|(n, _)| n.clone()))
                .collect()
        })
        .collect();
    for (ti, task) in tasks.iter_mut().enumerate() {
        let Some(fields) = &task.schema_fields else {
            continue;
        };
        // Every task whose prompt talks about the field: whether one runs
        // after this task is the project's to say (it sees every caller).
        task.fields_asked_elsewhere = fields
            .iter()
            .flat_map(|(name, _)| {
                // A name of one word (`evidence`, `timeline`) is everyday
                // prose in another prompt, not a request for this field.
                let words = crate::source::names::name_words(name);
                // As words ("the run manifest") or as the key itself
                // ("in the order given by runManifest").
                let phrase = words.join(" ");
                let key = name.to_lowercase();
                let (texts, declares) = (&texts, &declares);
                let searched = if words.len() >= 2 { texts.len() } else { 0 };
                (0..searched)
                    .filter(move |&tj| {
                        tj != ti
                            && !declares[tj].contains(name)
                            && (wants(&texts[tj], &phrase) || wants(&texts[tj], &key))
                    })
                    // A few askers are enough to name one and decide
                    // whether any runs after; thousands of prompts naming
                    // thousands of fields must not keep every pair.
                    .take(MAX_ASKERS)
                    .map(move |tj| (name.clone(), tj))
            })
            .collect();
    }
}

/// Whether a prompt's text talks about `phrase` as something its agent
/// needs: named as a word of its own, at least once not as the object of a
/// verb that makes it ("Create rollback plan", "Recalculate diversity
/// metrics": that agent produces its own, and wants nothing handed over).
fn wants(text: &str, phrase: &str) -> bool {
    const MAKES: &[&str] = &[
        "build",
        "calculate",
        "compute",
        "construct",
        "create",
        "define",
        "derive",
        "design",
        "develop",
        "draft",
        "establish",
        "formulate",
        "generate",
        "produce",
        "recalculate",
        "recompute",
    ];
    // The words next to a match are looked at within a few bytes: a long
    // run of letters must not be scanned again for every match in it.
    const NEAR: usize = 48;
    let near_end = |t: &str| {
        let mut i = t.len().saturating_sub(NEAR);
        while !t.is_char_boundary(i) {
            i += 1;
        }
        i
    };
    let near_start = |t: &str| {
        let mut i = NEAR.min(t.len());
        while !t.is_char_boundary(i) {
            i -= 1;
        }
        i
    };
    crate::js::analysis::strings::word_matches(text, phrase).any(|i| {
        let before = &text[..i];
        let after = &text[i + phrase.len()..];
        // The word right before, across spaces only ("Create: x" has
        // none); "Create a rollback plan": past the article.
        fn word_before(t: &str) -> (&str, usize) {
            let t = t.trim_end_matches(' ');
            let w = t
                .rsplit(|c: char| !c.is_alphanumeric())
                .next()
                .unwrap_or("");
            (w, t.len() - w.len())
        }
        let before = &before[near_end(before)..];
        let (mut verb, at) = word_before(before);
        if matches!(verb, "a" | "an" | "the") {
            verb = word_before(&before[..at]).0;
        }
        // "Design calibration curve experiment" makes an experiment:
        // the phrase is what it is about, a thing the agent may need.
        let rest = after.trim_start_matches(' ');
        let rest = &rest[..near_start(rest)];
        let next = rest
            .split(|c: char| !c.is_alphanumeric())
            .next()
            .unwrap_or("");
        let object = next.is_empty()
            || matches!(
                next,
                "and"
                    | "or"
                    | "for"
                    | "with"
                    | "to"
                    | "that"
                    | "from"
                    | "using"
                    | "in"
                    | "of"
                    | "based"
                    | "as"
                    | "by"
                    | "per"
                    | "if"
                    | "when"
            );
        !(MAKES.contains(&verb) && object)
    })
}

/// The properties the schema types with one of `types` (`type: 'boolean'`,
/// or a list naming it: `['boolean', 'null']`).
fn schema_typed(m: &JsModel, schema: Node, types: &[&str]) -> Box<[String]> {
    let Some(props) = m
        .object_of_expr(schema)
        .and_then(|s| objects::property(m, s, "properties"))
        .and_then(|p| m.object_of_expr(p))
    else {
        return Box::default();
    };
    objects::properties(m, props)
        .into_iter()
        .filter(|(_, p)| {
            m.object_of_expr(p.value)
                .and_then(|o| objects::property(m, o, "type"))
                .map(unparen)
                .is_some_and(|t| {
                    let named = |n: Node| {
                        string_value(n, m.src()).is_some_and(|v| types.contains(&v.as_str()))
                    };
                    named(t) || (t.kind_str() == "array" && t.named().any(|e| named(unparen(e))))
                })
        })
        .map(|(name, _)| name)
        .collect()
}

/// Whether function `f` runs at most once per run of the module's code: a
/// named function referred to once at most (the exported `process`, a
/// phase called once). A helper called from two places, or an anonymous
/// callback, may run its calls in either order.
fn runs_once(m: &JsModel, f: usize) -> bool {
    let node = m.functions[f].node;
    let name = match node.kind_str() {
        "function_declaration" | "generator_function_declaration" => node.field("name"),
        _ => node
            .parent()
            .filter(|p| p.kind_str() == "variable_declarator")
            .and_then(|p| p.field("name")),
    };
    name.and_then(|n| m.scopes.binding_of(n))
        .is_some_and(|b| m.scopes.get(b).reads.len() <= 1)
}

/// `ctx.task(fixTask, …)`: a call as messages name it.
fn describe_call(m: &JsModel, call: usize) -> String {
    let c = &m.calls[call];
    format!(
        "{}({}, …)",
        m.text(c.callee),
        c.args.first().map(|a| m.text(*a)).unwrap_or("")
    )
}

fn invocation(m: &JsModel, call: usize) -> InvocationSummary {
    let c = &m.calls[call];
    let target = match c.args.first().map(|a| m.task_target(*a)) {
        Some(TaskTarget::Local(i)) => TaskRef::Local(i),
        Some(TaskTarget::Imported { source, name }) => {
            TaskRef::Imported(Box::new(ImportedTask { source, name }))
        }
        _ => TaskRef::Unknown,
    };
    let bound = c.node.parent().and_then(|p| {
        let p = if p.kind_str() == "await_expression" {
            p.parent()?
        } else {
            p
        };
        (p.kind_str() == "variable_declarator")
            .then(|| p.field("name"))
            .flatten()
            .map(|n| loc(m, n))
    });
    let properties = c
        .args
        .get(1)
        .and_then(|a| m.object_of_expr(*a))
        .map(|o| objects::properties(m, o));
    let arg_names = properties
        .iter()
        .flatten()
        .map(|(k, _)| k.clone())
        .collect();
    let args = properties
        .map(|props| {
            props
                .into_iter()
                .map(|(k, p)| {
                    (
                        k,
                        string_set(m, &strings_of(m, p.value, &ArgsParam::default())),
                    )
                })
                // Rules read an argument's strings only.
                .filter(|(_, set)| !set.is_empty())
                .collect()
        })
        .unwrap_or_default();
    let repetition = repetition(m, call);
    let repeat = repetition.as_ref().map(|r| {
        let mut info = describe_repeat(m, r);
        // A key from one variable names the repetitions only when nothing
        // else repeats the call.
        if !crate::js::analysis::repeat::one_layer(m, call) {
            info.variable = None;
        }
        Box::new(info)
    });
    let keyed = invocation_key(m, call).is_some()
        || repetition
            .as_ref()
            .is_some_and(|r| crate::js::analysis::repeat::identity_varies(m, call, r));
    let key_edit = repeat
        .as_ref()
        .filter(|_| !keyed)
        .and_then(|info| info.variable.as_deref())
        .and_then(|v| key_edit(m, call, v))
        .map(Box::new);
    let call_text = describe_call(m, call).into_boxed_str();
    let result_reads = reads_of(m, c.node);
    let reads = read_set(m, &result_reads);
    let untested = untested(m, call, &target, &result_reads);
    let checked_by = crate::js::analysis::gates::checked_after(m, call).map(|n| {
        let text = m
            .call_of_node(n.node)
            .map(|ci| describe_call(m, ci))
            .unwrap_or_default();
        Box::new((text, loc(m, n.node)))
    });
    InvocationSummary {
        arg_names,
        function: crate::js::analysis::results::enclosing_function(m, c.node)
            .filter(|&f| runs_once(m, f))
            .and_then(|f| u32::try_from(f).ok()),
        untested,
        checked_by,
        target,
        call_text,
        location: loc(m, c.node),
        bound,
        result_reads: (!reads.is_empty()).then(|| Box::new(reads)),
        args,
        shape_grows: repeat.is_some()
            && !keyed
            && crate::js::analysis::repeat::args_shape_grows(m, call),
        batch: crate::js::analysis::effects::batch_of(m, call).map(|b| loc(m, b)),
        breakpoint_follows: crate::js::analysis::effects::breakpoint_follows(m, call),
        occurrence_aligned: repeat.is_some()
            && !keyed
            && crate::js::analysis::repeat::occurrence_aligned(m, call),
        order_varies: repeat.is_some()
            && !keyed
            && crate::js::analysis::repeat::order_varies(m, call),
        repeat,
        keyed,
        key_edit,
    }
}

/// What the process does with an untested result of a call that may be a
/// shell task's: a local one whose kind is `shell`, or an imported one (its
/// kind is known in the cross-module pass).
fn untested(
    m: &JsModel,
    call: usize,
    target: &TaskRef,
    reads: &Reads,
) -> Option<Box<UntestedResult>> {
    let candidate = match target {
        TaskRef::Local(i) => m
            .task_defs
            .get(*i)
            .is_some_and(|t| t.declared_kind() == Some("shell")),
        TaskRef::Imported(_) => true,
        TaskRef::Unknown => false,
    };
    if !candidate {
        return None;
    }
    let gate = crate::js::analysis::gates::result_gate(m, call, reads);
    if gate.tested {
        return None;
    }
    Some(Box::new(UntestedResult {
        catch: gate.catch.map(|c| loc(m, c)),
        next: gate.next.map(|n| (n.what, loc(m, n.node))),
        judged_by_task: gate.judged_by_task,
    }))
}

/// `` { key: `review-${round}` } `` for a task variable and a per-repetition
/// variable.
pub fn key_example(task: &str, variable: Option<&str>) -> String {
    // No invented variable: `…` is a placeholder the help explains.
    let v = variable.unwrap_or("…");
    let mut stem = String::new();
    for c in task.trim_end_matches("Task").chars() {
        if c.is_uppercase() {
            stem.push('-');
            stem.extend(c.to_lowercase());
        } else if c.is_alphanumeric() {
            stem.push(c);
        } else {
            stem.push('-');
        }
    }
    let stem = stem.trim_matches('-');
    format!("{{ key: `{stem}-${{{v}}}` }}")
}

/// Adds `{ key: … }` as the options argument (or into an options literal).
fn key_edit(m: &JsModel, call: usize, variable: &str) -> Option<crate::diagnostic::Edit> {
    let c = &m.calls[call];
    let task = m.text(*c.args.first()?);
    let example = key_example(task, Some(variable));
    let (at, text) = match c.args.len() {
        1 => (c.args[0].end_byte(), format!(", {{}}, {example}")),
        2 => (c.args[1].end_byte(), format!(", {example}")),
        _ => {
            let opts = m
                .object_of_expr(c.args[2])
                .filter(|o| o.id() == unparen(c.args[2]).id())?;
            let inner = example.trim_start_matches("{ ").trim_end_matches(" }");
            let empty = opts.named_child_count() == 0;
            (
                opts.start_byte() + 1,
                if empty {
                    format!(" {inner} ")
                } else {
                    format!(" {inner},")
                },
            )
        }
    };
    Some(crate::diagnostic::Edit {
        span: crate::source::Span::new(at, at),
        replacement: text,
    })
}

/// "the `while (!passed)` loop", the place to point at, and a variable that
/// differs per repetition.
pub fn describe_repeat(m: &JsModel, r: &Repeat) -> RepeatInfo {
    let via = match r {
        Repeat::Via { via, .. } => Some(*via),
        _ => None,
    };
    let callee_of = |call: &Node, default: &'static str| -> String {
        call.field("function")
            .map(|f| m.text(f).to_string())
            .unwrap_or_else(|| default.to_string())
    };
    let (what, location, variable) = match r.root() {
        Repeat::Loop(l) => {
            let lp = &m.loops[*l];
            let header = lp.display(m.src(), 60);
            (
                format!("the `{header}` loop"),
                m.file.location(lp.header()),
                loop_variable(m, lp.node),
            )
        }
        Repeat::Callback(call) if is_literal_list(m, *call) => (
            format!(
                "the `{}` list, which holds the same task more than once",
                callee_of(call, "batch")
            ),
            loc(m, *call),
            None,
        ),
        Repeat::Callback(call) => {
            let variable = call
                .field("arguments")
                .and_then(|a| {
                    let f = a.named().find_map(|n| m.function_of_node(n));
                    f
                })
                .and_then(|f| m.functions[f].param_bindings.first().copied().flatten())
                .map(|b| m.scopes.get(b).name.clone());
            (
                format!("the `{}` callback", callee_of(call, "batch")),
                loc(m, *call),
                variable,
            )
        }
        Repeat::Recursive(call) => (
            format!("the recursive call to `{}`", callee_of(call, "itself")),
            loc(m, *call),
            None,
        ),
        Repeat::Via { .. } => (
            "a repeated call".to_string(),
            loc(m, m.tree.root_node()),
            None,
        ),
    };
    let what = match via {
        Some(v) => format!("{what}, through `{}(…)`", callee_of(&v, "a helper")),
        None => what,
    };
    // Suggest only a variable the call can see: the call sits lexically in
    // the loop or callback, but through a helper the loop's variable is out
    // of its scope.
    let variable = variable
        .filter(|_| via.is_none())
        .filter(|_| holds_primitive(m, r.root()));
    RepeatInfo {
        what,
        location,
        variable,
    }
}

/// Whether the repetition's variable holds a string or a number: a key
/// built from an object renders as `[object Object]` on every repetition
/// (the keys collide), so no example or fix builds one from anything else.
/// Known to: a `for` counter that starts at a number, a `for…in` key, and
/// the item of a `for…of` or callback over a list written out of strings
/// and numbers.
fn holds_primitive(m: &JsModel, r: &Repeat) -> bool {
    let primitive_list = |list: Option<Node>| {
        list.map(unparen).is_some_and(|l| {
            l.kind_str() == "array"
                && l.named()
                    .filter(|e| e.kind_str() != "comment")
                    .all(|e| matches!(e.kind_str(), "string" | "number"))
        })
    };
    match r {
        Repeat::Loop(l) => {
            let lp = &m.loops[*l];
            match lp.kind {
                LoopKind::For => lp
                    .node
                    .field("initializer")
                    .and_then(|i| i.named_child(0))
                    .and_then(|d| d.field("value"))
                    .is_some_and(|v| unparen(v).kind_str() == "number"),
                LoopKind::ForIn => true,
                LoopKind::ForOf => primitive_list(lp.node.field("right")),
                LoopKind::While | LoopKind::DoWhile => false,
            }
        }
        Repeat::Callback(call) => {
            // `ctx.parallel.map(list, fn)` / `list.map(fn)`.
            let list = call
                .field("arguments")
                .and_then(|a| a.named().find(|n| n.kind_str() != "comment"))
                .filter(|first| m.function_of_node(*first).is_none())
                .or_else(|| {
                    call.field("function")
                        .filter(|f| f.kind_str() == "member_expression")
                        .and_then(|f| f.field("object"))
                });
            primitive_list(list)
        }
        Repeat::Recursive(_) | Repeat::Via { .. } => false,
    }
}

/// Whether a batch call's list is written out (`ctx.parallel.all([...])`).
fn is_literal_list(m: &JsModel, call: Node) -> bool {
    let all = m
        .call_of_node(call)
        .and_then(|ci| m.effect_of_call(ci))
        .is_some_and(|e| e.kind == EffectKind::ParallelAll);
    all && call
        .field("arguments")
        .and_then(|a| a.named().find(|n| n.kind_str() != "comment"))
        .is_some_and(|first| first.kind_str() == "array")
}

/// `round` in `for (let round = 1; …)`, `item` in `for (const item of …)`.
fn loop_variable(m: &JsModel, node: Node) -> Option<String> {
    let target = match node.kind_str() {
        "for_statement" => node
            .field("initializer")
            .and_then(|i| i.named_child(0))
            .and_then(|d| d.field("name").or(Some(d))),
        "for_in_statement" => node.field("left"),
        _ => None,
    }?;
    (target.kind_str() == "identifier").then(|| m.text(target).to_string())
}

fn exports(m: &JsModel) -> Vec<ExportSummary> {
    let mut out = Vec::new();
    for e in &m.exports {
        let location = m.file.location(e.span);
        if let Some(source) = &e.source {
            let orig = e
                .value
                .map(|v| m.text(v).to_string())
                .unwrap_or_else(|| e.name.clone());
            out.push(ExportSummary {
                name: e.name.clone(),
                kind: ExportKind::Other,
                location,
                reexport: Some((source.clone(), orig)),
                schema_fields: None,
            });
            continue;
        }
        let Some(value) = e.value else { continue };
        // `export { imported }`: a re-export of an import.
        if let Some(imp) = m.binding_of_expr(value).and_then(|b| m.import_of(b)) {
            if let Imported::Named(n) = &imp.imported {
                out.push(ExportSummary {
                    name: e.name.clone(),
                    kind: ExportKind::Other,
                    location,
                    reexport: Some((imp.source.clone(), n.clone())),
                    schema_fields: None,
                });
                continue;
            }
        }
        let kind = export_kind(m, value);
        out.push(ExportSummary {
            name: e.name.clone(),
            kind,
            location,
            reexport: None,
            schema_fields: schema_properties(m, value),
        });
    }
    out
}

fn export_kind(m: &JsModel, value: Node) -> ExportKind {
    if let TaskTarget::Local(i) = m.task_target(value) {
        return ExportKind::Task(i);
    }
    // `export const x = defineTask(…)`: the value node is the name.
    if let Some(b) = m.binding_of_expr(value) {
        if let Some(i) = m.task_defs.iter().position(|t| t.binding == Some(b)) {
            return ExportKind::Task(i);
        }
    }
    if let Some(f) = m.function_of_expr(value) {
        let fun = &m.functions[f];
        let params = fun
            .params
            .iter()
            .map(|p| read_set(m, &reads_of_pattern(m, *p)))
            .collect();
        // Instruction builders return strings; processes return results.
        let strings = crate::js::analysis::strings::returned_exprs(m, f)
            .into_iter()
            .map(|r| strings_of(m, r, &ArgsParam::default()))
            .fold(Strings::default(), |mut acc, s| {
                acc.literals.extend(s.literals);
                acc.pending.extend(s.pending);
                acc
            });
        if !strings.literals.is_empty() && fun.params.is_empty() {
            return ExportKind::Strings(string_set(m, &strings));
        }
        return ExportKind::Function { params };
    }
    let s = strings_of(m, value, &ArgsParam::default());
    if s.literals.is_empty() && s.pending.is_empty() {
        ExportKind::Other
    } else {
        ExportKind::Strings(string_set(m, &s))
    }
}

fn imported_calls(m: &JsModel) -> Vec<ImportedCall> {
    let mut out = Vec::new();
    for c in &m.calls {
        let callee = unparen(c.callee);
        let (binding, name) = match callee.kind_str() {
            "identifier" => (m.binding_of_expr(callee), None),
            "member_expression" => (
                callee.field("object").and_then(|o| m.binding_of_expr(o)),
                callee.field("property").map(|p| m.text(p).to_string()),
            ),
            _ => continue,
        };
        let Some(imp) = binding.and_then(|b| m.import_of(b)) else {
            continue;
        };
        if !imp.source.starts_with('.') {
            continue;
        }
        let name = match (&imp.imported, name) {
            (Imported::Named(n), None) => n.clone(),
            (Imported::Namespace, Some(n)) => n,
            _ => continue,
        };
        out.push(ImportedCall {
            source: imp.source.clone(),
            name,
            reads: read_set(m, &reads_of(m, c.node)),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::{mark_fields_asked_elsewhere_within, summarize};
    use crate::js::model::testing::with_model;

    const SRC: &str = "import { defineTask } from '@a5c-ai/babysitter-sdk';\n\
        const gather = defineTask('gather', () => ({ kind: 'agent', agent: { prompt: { task: 'Gather' },\n\
        \x20 outputSchema: { type: 'object', required: ['context', 'triggeringEvent'], properties: { context: {}, triggeringEvent: {} } } } }));\n\
        const draft = defineTask('draft', () => ({ kind: 'agent', agent: { prompt: { task: 'State the triggering event' } } }));\n";

    #[test]
    fn a_prompt_that_makes_its_own_wants_nothing() {
        use super::wants;
        assert!(wants("document threat model", "threat model"));
        assert!(wants("include special handling notes", "special handling"));
        assert!(!wants("7. create threat model", "threat model"));
        assert!(!wants("recalculate diversity metrics", "diversity metrics"));
        assert!(!wants(
            "create rollback plan and contingencies",
            "rollback plan"
        ));
        assert!(!wants("- define kpi framework, targets", "kpi framework"));
        // The verb makes something the phrase only qualifies.
        assert!(wants(
            "2. design calibration curve experiment",
            "calibration curve"
        ));
        // Made once, used once: the use is a need.
        assert!(wants(
            "create rollback plan; then review the rollback plan",
            "rollback plan"
        ));
        // Only as part of another word.
        assert!(!wants("the rollback planner", "rollback plan"));
    }

    #[test]
    fn fields_another_prompt_talks_about_within_a_budget() {
        let asked = |budget: usize| {
            with_model(SRC, |m| {
                let mut s = summarize(m, "p.js".into(), true);
                for t in &mut s.tasks {
                    t.fields_asked_elsewhere = Box::default();
                }
                mark_fields_asked_elsewhere_within(&mut s.tasks, budget);
                s.tasks[0]
                    .fields_asked_elsewhere
                    .iter()
                    .map(|(f, tj)| (f.clone(), *tj))
                    .collect::<Vec<_>>()
            })
        };
        assert_eq!(asked(usize::MAX), [("triggeringEvent".to_string(), 1)]);
        // Past the budget the module's prompts are not searched.
        assert!(asked(10).is_empty());
    }

    #[test]
    fn flags_are_the_fields_typed_boolean() {
        let src = "import { defineTask } from '@a5c-ai/babysitter-sdk';\n\
            const t = defineTask('t', () => ({ kind: 'agent', agent: { prompt: 'Do', outputSchema: { type: 'object',\n\
            \x20 properties: { ok: { type: 'boolean' }, maybe: { type: ['boolean', 'null'] }, note: { type: ['string', 'null'] }, n: { type: 'number' } } } } }));\n";
        let flags = with_model(src, |m| {
            summarize(m, "p.js".into(), true).tasks[0]
                .schema_flags
                .to_vec()
        });
        assert_eq!(flags, ["ok", "maybe"]);
    }
}
