//! `missing-stable-key`: a repeated `ctx.task` call without an explicit key
//! (or with a constant one).

use super::{Area, Category, JsContext, ProjectSink, ReportMeta, Rule, RuleMeta, Sink, Sites};
use crate::diagnostic::Fix;
use crate::diagnostic::Severity;
use crate::js::analysis::repeat::{repetition, Repeat};
use crate::js::summary::build::{describe_repeat, invocation_key, key_example};
use crate::js::syntax::span;
use crate::js::EffectKind;
use crate::project::config::Config;
use crate::project::Project;

pub struct MissingStableKey;

static META: RuleMeta = RuleMeta {
    id: "missing-stable-key",
    summary:
        "A task dispatched repeatedly has no explicit key, so replay tells its calls apart by order alone.",
    severity: Severity::Warning,
    area: Area::Idempotency,
    category: Category::Suspicious,
    doc: include_str!("../../rules/missing-stable-key.md"),
    builtin: false,
    options: &[],
};

impl Rule for MissingStableKey {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn report(&self) -> ReportMeta {
        ReportMeta {
            sites: Sites::RepeatedInvocations,
            praise: "Every repeated dispatch has an explicit key",
            sdk_hint: "Unkeyed repeated dispatches recur across modules: the SDK could warn at run time when the same task id is requested twice in one iteration without a key, or derive the key from a loop counter it is given.",
        }
    }

    /// Constant keys: every repetition gets the same identity.
    fn check_js(&self, cx: &JsContext, sink: &mut Sink) {
        let m = cx.model;
        for e in m.effects_of(EffectKind::Task) {
            let Some(Some(key)) = invocation_key(m, e.call) else {
                continue;
            };
            let Some(r) = repetition(m, e.call) else {
                continue;
            };
            // An element written out in a `ctx.parallel.all([...])` list
            // runs once per run of the list: its constant key names one
            // effect, not many (two elements that share a key are another
            // matter, not told here).
            if let Repeat::Callback(batch) = r.root() {
                if in_literal_list(m, e.call, *batch) {
                    continue;
                }
            }
            let info = describe_repeat(m, &r);
            let call = &m.calls[e.call];
            let task = call.args.first().map(|a| m.text(*a)).unwrap_or("task");
            let key_node = call.args.get(2).copied().unwrap_or(call.node);
            let d = sink
                .diag(
                    span(key_node),
                    format!(
                        "`{}({task}, …)` uses the constant key `'{key}'` in {}: every repetition gets the same identity, so replay returns the first result each time",
                        m.text(call.callee),
                        info.what
                    ),
                )
                .with_related(info.location, "repeats here")
                .with_help(format!(
                    "build the key from what differs per repetition, e.g. `` {} ``{}",
                    key_example(task, info.variable.as_deref()),
                    placeholder_note(info.variable.as_deref()),
                ));
            sink.push(d);
        }
    }

    /// Unkeyed repeated calls. A `stableKey` in the task definition is not a
    /// key: the SDK reads `key`/`stableKey` only from the invocation options.
    fn check_project(&self, p: &Project, _config: &Config, sink: &mut ProjectSink) {
        for (module_index, module) in p.modules.iter().enumerate() {
            if !module.report {
                continue;
            }
            for inv in &module.invocations {
                let Some(info) = inv.unkeyed_repeat() else {
                    continue;
                };
                // A task whose definition cannot be built records no
                // effect to mis-identify; the error on its definition is
                // the one finding it needs.
                if p.task_of(module_index, &inv.target)
                    .is_some_and(|(mi, ti)| p.modules[mi].tasks[ti].build_throws)
                {
                    continue;
                }
                let task = inv
                    .call_text
                    .split_once('(')
                    .map(|(_, rest)| rest.trim_end_matches(", …)"))
                    .unwrap_or("task");
                let mut d = sink
                    .diag(
                        inv.location.clone(),
                        format!(
                            "`{}` is dispatched repeatedly (in {}) without a key: replay tells these calls apart by their order alone, so a changed order or shape returns the wrong recorded result or re-dispatches the effect",
                            inv.call_text, info.what
                        ),
                    )
                    .with_related(info.location.clone(), "repeats here")
                    .with_help(format!(
                        "pass an explicit key in the invocation options, built from what differs per repetition (a string or number): `` {}(…, {}) ``{}",
                        inv.call_text.split('(').next().unwrap_or("ctx.task"),
                        key_example(task, info.variable.as_deref()),
                        placeholder_note(info.variable.as_deref()),
                    ));
                // Not safe to apply blindly: a new key changes the identity
                // of effects already recorded by in-flight runs.
                if let Some(edit) = &inv.key_edit {
                    d = d.with_fix(Fix {
                        description: "add an invocation key".into(),
                        edits: vec![(**edit).clone()],
                        safe: false,
                    });
                }
                sink.push(d);
            }
        }
    }
}

/// Says what the `…` of a key example stands for, when no variable of the
/// repetition was found to put there.
fn placeholder_note(variable: Option<&str>) -> &'static str {
    if variable.is_some() {
        ""
    } else {
        ", with `…` replaced by what tells the repetitions apart"
    }
}

/// Whether the call sits in the array literal passed to `batch`.
fn in_literal_list(
    m: &crate::js::JsModel,
    call: usize,
    batch: crate::js::syntax::tree::Node,
) -> bool {
    let node = m.calls[call].node;
    batch
        .field("arguments")
        .and_then(|a| a.named().find(|n| n.kind_str() != "comment"))
        .filter(|list| list.kind_str() == "array")
        .is_some_and(|list| {
            list.start_byte() <= node.start_byte() && node.end_byte() <= list.end_byte()
        })
}
