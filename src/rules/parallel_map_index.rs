//! `parallel-map-index`: a `ctx.parallel.map` callback that reads an index
//! or array parameter, which the SDK never passes.

use super::{Area, Category, JsContext, ReportMeta, Rule, RuleMeta, Sink, Sites};
use crate::diagnostic::Severity;
use crate::js::syntax::{span, unparen};
use crate::js::EffectKind;

pub struct ParallelMapIndex;

static META: RuleMeta = RuleMeta {
    id: "parallel-map-index",
    summary: "A `ctx.parallel.map` callback reads an index or array parameter, which the SDK never passes.",
    severity: Severity::Error,
    area: Area::RuntimeCorrectness,
    category: Category::Correctness,
    doc: include_str!("../../rules/parallel-map-index.md"),
    builtin: false,
    options: &[],
    fix: crate::rules::FixAvailability::Never,
};

const HELP: &str = "carry the index with the item: `ctx.parallel.map(items.map((item, i) => ({ item, i })), ({ item, i }) => …)`";

impl Rule for ParallelMapIndex {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn report(&self) -> ReportMeta {
        ReportMeta {
            sites: Sites::ParallelSites,
            praise: "`ctx.parallel.map` callbacks read only their item",
            sdk_hint: "`ctx.parallel.map` calls its callback with the item alone; passing the index as `Array.prototype.map` does would make the common `(item, i) =>` callback work as written.",
        }
    }

    fn check_js(&self, cx: &JsContext, sink: &mut Sink) {
        let m = cx.model;
        for e in m.effects_of(EffectKind::ParallelMap) {
            // Only a function written in the call: a named function may be
            // called elsewhere with the arguments it expects.
            let Some(f) = m.calls[e.call]
                .args
                .get(1)
                .and_then(|a| m.function_of_node(unparen(*a)))
            else {
                continue;
            };
            let func = &m.functions[f];
            for (position, binding) in func.param_bindings.iter().enumerate().skip(1) {
                let Some(b) = binding else { continue };
                let param = m.scopes.get(*b);
                // `(item, i = 0)`: the default, not `undefined`.
                if param
                    .node
                    .parent()
                    .is_some_and(|p| p.kind_str() == "assignment_pattern")
                {
                    continue;
                }
                let Some(first_read) = param.reads.first() else {
                    continue;
                };
                let what = if position == 1 { "index" } else { "array" };
                let callee = m.text(m.calls[e.call].callee);
                let name = &param.name;
                let d = sink
                    .diag(
                        span(param.node),
                        format!(
                            "`{callee}` calls this callback with the item alone, not with an {what}: \
                             `{name}` is `undefined` in every call"
                        ),
                    )
                    .with_related(sink.location(span(*first_read)), format!("`{name}` is read here"))
                    .with_help(HELP);
                sink.push(d);
            }
        }
    }
}
