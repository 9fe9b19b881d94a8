//! `unbounded-loop`: a loop (or a recursion) that dispatches effects with
//! nothing bounding how many times it runs.

use super::{Area, Category, JsContext, ReportMeta, Rule, RuleMeta, Sink, Sites};
use crate::diagnostic::Severity;
use crate::js::analysis::loops::{Bound, LoopAnalysis, Unbounded};
use crate::js::syntax::span;
use crate::rules::convergence::{call_name, excerpt, loop_header};

pub struct UnboundedLoop;

static META: RuleMeta = RuleMeta {
    id: "unbounded-loop",
    summary: "A loop that dispatches effects has nothing bounding its number of iterations.",
    severity: Severity::Error,
    area: Area::ErrorSurfacing,
    category: Category::Correctness,
    doc: include_str!("../../rules/unbounded-loop.md"),
    builtin: false,
    options: &[],
    fix: crate::rules::FixAvailability::Never,
};

const CAP_HELP: &str = "decide what happens at the cap: a breakpoint whose result is branched \
     on (`if (!decision.approved) …`), or an explicit failure (`throw` / `return { success: false }`)";

impl Rule for UnboundedLoop {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn report(&self) -> ReportMeta {
        ReportMeta {
            sites: Sites::EffectLoops,
            praise: "Every loop that dispatches effects has a round cap",
            sdk_hint: "Bounding a review/fix loop and deciding what happens at the cap is left to every process. A loop primitive with a required cap and an explicit cap handler (`ctx.loop({ maxRounds, onCap })`) would make the unbounded form impossible to write by accident.",
        }
    }

    fn check_js(&self, cx: &JsContext, sink: &mut Sink) {
        let m = cx.model;
        let a = LoopAnalysis::new(m);
        for (l, lp) in m.loops.iter().enumerate() {
            let Bound::Unbounded(why) = a.bound(l) else {
                continue;
            };
            let Some(&first) = a.dispatches_in(l).first() else {
                continue;
            };
            let header = loop_header(m, lp);
            let (message, help) = match why {
                Unbounded::Always => (
                    format!(
                        "`{header}` dispatches effects and nothing bounds how many times it runs: \
                         its condition never turns false and no `break`/`return`/`throw` is \
                         guarded by a counter"
                    ),
                    format!(
                        "bound it: `for (let round = 1; round <= MAX_ROUNDS; round++) {{ … }}`; \
                         then {CAP_HELP}"
                    ),
                ),
                Unbounded::ResultDependent { condition } => {
                    let cond = excerpt(m, condition);
                    (
                        format!(
                            "`{header}` dispatches effects and runs until `{cond}` turns false, \
                             which only the effects' results can do: nothing bounds how many \
                             rounds it takes"
                        ),
                        format!(
                            "add a round cap: `for (let round = 1; round <= MAX_ROUNDS; round++) \
                             {{ … if (…) break; }}` (or `while ({cond} && round < MAX_ROUNDS)` with \
                             `round++` in the body); then {CAP_HELP}"
                        ),
                    )
                }
                Unbounded::NotAdvanced {
                    counter,
                    comparison,
                } => {
                    let c = excerpt(m, counter);
                    (
                        format!(
                            "`{header}` dispatches effects and compares `{c}` (`{}`) but never \
                             advances it in the loop, so nothing bounds how many times it runs",
                            excerpt(m, comparison)
                        ),
                        format!(
                            "advance the counter in the loop (`{c}++`) or write the loop as \
                             `for (let round = 1; round <= MAX_ROUNDS; round++)`; then {CAP_HELP}"
                        ),
                    )
                }
            };
            let first_call = &m.calls[first];
            let label = if a.is_effect(first) {
                format!("dispatches `{}` on every pass", call_name(m, first_call))
            } else {
                format!(
                    "calls `{}`, which dispatches effects",
                    call_name(m, first_call)
                )
            };
            sink.push(
                sink.diag(lp.header(), message)
                    .with_related(sink.location(span(first_call.node)), label)
                    .with_help(help),
            );
        }
        for r in a.unbounded_recursion() {
            let call = &m.calls[r.call];
            let f = &m.functions[r.function];
            let name = f.name.clone().unwrap_or_else(|| "this function".into());
            let fname = f.name.as_deref().unwrap_or("retry");
            sink.push(
                sink.diag(
                    span(call.node),
                    format!(
                        "`{name}` dispatches effects and calls itself with no depth argument \
                         compared against a limit, so nothing bounds how deep the recursion goes"
                    ),
                )
                .with_help(format!(
                    "pass a depth and stop at a limit: `{fname}(…, depth + 1)` with \
                     `if (depth >= MAX_ROUNDS) …` at the top; then {CAP_HELP}"
                )),
            );
        }
    }
}
