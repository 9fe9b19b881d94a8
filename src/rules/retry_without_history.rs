//! `retry-without-history`: a review/fix loop whose fixer sees only the
//! latest check result, never what was already tried.

use std::collections::HashSet;

use crate::js::syntax::tree::Node;

use super::{Area, Category, JsContext, ReportMeta, Rule, RuleMeta, Sink, Sites};
use crate::diagnostic::Severity;
use crate::js::analysis::loops::{mentions, walk, Bound, LoopAnalysis};
use crate::js::model::scope::BindingId;
use crate::js::model::{CallId, LoopKind};
use crate::js::syntax::{contains, is_function, span, unparen};
use crate::js::{EffectKind, JsModel};
use crate::rules::convergence::{call_name, loop_header};

pub struct RetryWithoutHistory;

static META: RuleMeta = RuleMeta {
    id: "retry-without-history",
    summary: "A fixer in a review/fix loop receives only the latest check result, no history.",
    severity: Severity::Info,
    area: Area::EffectGranularity,
    category: Category::Pedantic,
    doc: include_str!("../../rules/retry-without-history.md"),
    builtin: false,
    options: &[],
    fix: crate::rules::FixAvailability::Never,
};

impl Rule for RetryWithoutHistory {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn report(&self) -> ReportMeta {
        ReportMeta {
            // No site count fits ("bounded retry loops" is not one of
            // the retrospective's counts), so no praise is claimed from
            // silence: an unbounded loop would be praised vacuously.
            sites: Sites::None,
            praise: "Fixers in review/fix loops receive the history of prior attempts",
            sdk_hint: "",
        }
    }

    fn check_js(&self, cx: &JsContext, sink: &mut Sink) {
        let m = cx.model;
        let a = LoopAnalysis::new(m);
        for (l, lp) in m.loops.iter().enumerate() {
            if matches!(lp.kind, LoopKind::ForIn | LoopKind::ForOf) {
                continue;
            }
            if !matches!(
                a.bound(l),
                Bound::Counter { .. } | Bound::GuardedExit { .. }
            ) {
                continue;
            }
            let tasks: Vec<CallId> = a
                .calls_in(l)
                .iter()
                .copied()
                .filter(|c| {
                    m.effects
                        .iter()
                        .any(|e| e.call == *c && e.kind == EffectKind::Task)
                })
                .collect();
            let targets: HashSet<&str> = tasks.iter().map(|c| target(m, *c)).collect();
            if targets.len() < 2 {
                continue;
            }
            let accumulators = a.accumulators(l);
            // State carried between rounds (`previousFindings = review.findings`
            // at the end of a round) is history too; a counter is not.
            let carried: Vec<BindingId> = a
                .outer_writes(l)
                .into_iter()
                .filter(|b| !is_counter(m, lp.node, *b))
                .collect();
            let body = lp.body;
            let exits: Vec<Node> = body.map(|b| a.exits(lp.node, b)).unwrap_or_default();
            let mut reported: HashSet<&str> = HashSet::new();
            // A fixer is a later task whose args carry an earlier task's
            // result (`issues: review.issues`).
            for (i, &check) in tasks.iter().enumerate() {
                let results = result_bindings(m, m.calls[check].node);
                if results.is_empty() {
                    continue;
                }
                // The verdict: the check's result, or a variable the loop
                // sets from it (`passed = review.ok`).
                let mut verdict = results.clone();
                verdict.extend(
                    carried
                        .iter()
                        .copied()
                        .filter(|b| set_from(m, lp.node, *b, &results)),
                );
                let tests_check = |n: Node| verdict.iter().any(|b| mentions(m, n, *b));
                // A retry loop ends on the check's verdict: its condition
                // or a guarded exit tests the check's result. A per-item
                // or generation loop that merely contains two tasks is not
                // one.
                let exit_guards: Vec<(Node, bool)> = match body {
                    Some(b) => exits
                        .iter()
                        .map(|e| (*e, a.guards(b, *e).into_iter().any(tests_check)))
                        .collect(),
                    None => Vec::new(),
                };
                let loop_tests = lp.condition.is_some_and(tests_check);
                // The verdict variables the loop really ends on; other
                // state set from the check (`previousFindings =
                // review.issues`) is history.
                let ends_on = |b: &BindingId| {
                    results.contains(b)
                        || lp.condition.is_some_and(|c| mentions(m, c, *b))
                        || body.is_some_and(|bd| {
                            exits
                                .iter()
                                .any(|e| a.guards(bd, *e).iter().any(|g| mentions(m, *g, *b)))
                        })
                };
                if !loop_tests && !exit_guards.iter().any(|(_, t)| *t) {
                    continue;
                }
                let check_node = m.calls[check].node;
                // A fixer written before the check sees the previous
                // round's result, carried in a variable declared outside
                // the loop (`let review; … fix(review.issues); review = …`).
                let carried_result = results
                    .iter()
                    .all(|b| !contains(lp.node, m.scopes.get(*b).node));
                for (j, &fix) in tasks.iter().enumerate() {
                    if j < i && !carried_result || j == i {
                        continue;
                    }
                    let t = target(m, fix);
                    if t == target(m, check) || reported.contains(t) {
                        continue;
                    }
                    let fix_node = m.calls[fix].node;
                    // Reported by the innermost loop holding the fixer.
                    if innermost_loop(m, fix_node) != Some(l) {
                        continue;
                    }
                    let Some(args) = m.calls[fix].args.get(1).copied() else {
                        continue;
                    };
                    let Some(&latest) = results.iter().find(|b| mentions(m, args, **b)) else {
                        continue;
                    };
                    // The fixer runs on the failure path: after an exit
                    // on the check's verdict, or under an `if` testing it.
                    // (For a fixer before the check: the exit after the
                    // check is taken before the next round reaches it.)
                    let after_verdict = exit_guards.iter().any(|(e, t)| {
                        *t && e.start_byte() > check_node.end_byte()
                            && (e.end_byte() <= fix_node.start_byte() || j < i)
                    });
                    if !after_verdict && !under_verdict(lp.node, fix_node, &exits, &tests_check) {
                        continue;
                    }
                    // Its output feeds the next check, or it works on the
                    // workspace the check reads again (no bound result).
                    let fix_results = result_bindings(m, fix_node);
                    let check_args = m.calls[check].args.get(1).copied();
                    if !fix_results.is_empty()
                        && !check_args
                            .is_some_and(|ca| fix_results.iter().any(|b| mentions(m, ca, *b)))
                    {
                        continue;
                    }
                    // History: accumulators, and state carried between
                    // rounds other than this round's verdict and the
                    // fixer's own latest output (the artifact being fixed).
                    let history: Vec<BindingId> = accumulators
                        .iter()
                        .chain(carried.iter())
                        .copied()
                        .filter(|b| !(fix_results.contains(b) || verdict.contains(b) && ends_on(b)))
                        .collect();
                    if carries_history(m, lp.node, args, &history) {
                        continue;
                    }
                    reported.insert(t);
                    let fix_call = &m.calls[fix];
                    let check_call = &m.calls[check];
                    sink.push(
                        sink.diag(
                            span(fix_call.node),
                            format!(
                                "the fixer `{}` in the loop `{}` gets only the latest `{}` and \
                                 nothing that accumulates across rounds: each round starts from \
                                 scratch and can repeat an approach that already failed",
                                call_name(m, fix_call),
                                loop_header(m, lp),
                                m.scopes.get(latest).name,
                            ),
                        )
                        .with_related(
                            sink.location(span(check_call.node)),
                            format!("check: `{}`", call_name(m, check_call)),
                        )
                        .with_help(
                            "keep a ledger outside the loop (`const attempts = []`), record each \
                             round's findings and what was tried (`attempts.push({ round, issues: \
                             review.issues })`), and pass it to the fixer (`priorAttempts: attempts`)",
                        ),
                    );
                }
            }
        }
    }
}

/// Whether every write of `b` inside the loop advances it by a number
/// (`i++`, `n += 1`, `n = n + 1`).
///
/// Not [`LoopAnalysis::is_advanced_counter`], on purpose: that asks whether
/// the loop moves a compared counter towards its bound, so one advancing
/// write is enough (also one in a closure the loop calls), and `n += step`
/// or `n = n - step` advance. Here the question is whether carried state is
/// a mere tally rather than history: every write in the loop must be
/// arithmetic with a number literal (`n *= 2`, `n = n * 2` count; `n +=
/// step` does not), so a variable also set from a result (`n =
/// review.count`) stays history. Sharing one test would move findings.
fn is_counter(m: &JsModel, lp: Node, b: BindingId) -> bool {
    let bind = m.scopes.get(b);
    bind.writes.iter().filter(|w| contains(lp, **w)).all(|w| {
        let Some(p) = w.parent() else {
            return false;
        };
        match p.kind_str() {
            "update_expression" => true,
            "augmented_assignment_expression" | "assignment_expression" => p
                .field("right")
                .map(unparen)
                .is_some_and(|r| match r.kind_str() {
                    "number" => p.kind_str() == "augmented_assignment_expression",
                    "binary_expression" => {
                        mentions(m, r, b) && r.named().any(|c| c.kind_str() == "number")
                    }
                    _ => false,
                }),
            _ => false,
        }
    })
}

/// Whether the loop sets `b` from one of `from`: from its value
/// (`passed = review.ok`) or under a test of it (`if (review.ok) passed =
/// true`).
fn set_from(m: &JsModel, lp: Node, b: BindingId, from: &[BindingId]) -> bool {
    let mentions_from = |n: Node| from.iter().any(|f| mentions(m, n, *f));
    m.scopes.get(b).writes.iter().any(|w| {
        if !contains(lp, *w) {
            return false;
        }
        let Some(p) = w
            .parent()
            .filter(|p| p.kind_str() == "assignment_expression")
        else {
            return false;
        };
        if p.field("right").is_some_and(mentions_from) {
            return true;
        }
        let mut cur = p;
        while let Some(up) = cur.parent() {
            if up.id() == lp.id() {
                break;
            }
            if up.kind_str() == "if_statement"
                && up
                    .field("condition")
                    .is_some_and(|c| c.id() != cur.id() && mentions_from(c))
            {
                return true;
            }
            cur = up;
        }
        false
    })
}

/// The innermost loop whose body holds `n` (within its function).
fn innermost_loop(m: &JsModel, n: Node) -> Option<usize> {
    m.loops
        .iter()
        .enumerate()
        .filter(|(_, lp)| lp.body.is_some_and(|b| contains(b, n)))
        .min_by_key(|(_, lp)| lp.node.end_byte() - lp.node.start_byte())
        .map(|(i, _)| i)
}

/// Whether `n` sits under an `if` inside the loop whose condition tests
/// the check's result, in the branch that goes round again (a branch
/// that leaves the loop is the way out, and what runs there — a report,
/// a notification — is no fixer).
fn under_verdict<'t>(
    lp: Node<'t>,
    n: Node<'t>,
    exits: &[Node<'t>],
    tests_check: &impl Fn(Node<'t>) -> bool,
) -> bool {
    let mut cur = n;
    while let Some(p) = cur.parent() {
        if p.id() == lp.id() {
            return false;
        }
        if p.kind_str() == "if_statement"
            && p.field("condition") != Some(cur)
            && p.field("condition")
                .is_some_and(|c| tests_check(unparen(c)))
        {
            return !exits.iter().any(|e| contains(cur, *e));
        }
        cur = p;
    }
    false
}

/// The task a `ctx.task` call dispatches, as written (`reviewTask`).
fn target<'t>(m: &JsModel<'t>, c: CallId) -> &'t str {
    m.calls[c]
        .args
        .first()
        .map(|a| m.text(unparen(*a)))
        .unwrap_or("")
}

/// Variables a call's result lands in: `const review = await ctx.task(…)`,
/// `const { passed, issues } = …`, `review = await ctx.task(…)`.
fn result_bindings(m: &JsModel, call: Node) -> Vec<BindingId> {
    let mut n = call;
    while let Some(p) = n.parent() {
        match p.kind_str() {
            "await_expression" | "parenthesized_expression" => n = p,
            "variable_declarator" => {
                return p
                    .field("name")
                    .map(|name| pattern_bindings(m, name))
                    .unwrap_or_default();
            }
            "assignment_expression" if p.field("right") == Some(n) => {
                return p
                    .field("left")
                    .map(|l| pattern_bindings(m, l))
                    .unwrap_or_default();
            }
            _ => return Vec::new(),
        }
    }
    Vec::new()
}

fn pattern_bindings(m: &JsModel, pattern: Node) -> Vec<BindingId> {
    let mut out = Vec::new();
    walk(pattern, |n| {
        if matches!(
            n.kind_str(),
            "identifier" | "shorthand_property_identifier_pattern"
        ) {
            // Only the names the pattern binds; defaults (`{ a = x }`) are
            // reads.
            if let Some(b) = m.scopes.binding_of(n) {
                let bind = m.scopes.get(b);
                if bind.node.id() == n.id() || bind.writes.iter().any(|w| w.id() == n.id()) {
                    out.push(b);
                }
            }
        }
        true
    });
    out
}

/// Whether the fixer's args reference an accumulator, directly or through
/// a variable the loop derives from one (`const prior = attempts.slice(-3)`).
fn carries_history(m: &JsModel, lp: Node, args: Node, accumulators: &[BindingId]) -> bool {
    let mut found = false;
    walk(args, |n| {
        if found || is_function(n) {
            return false;
        }
        if matches!(n.kind_str(), "identifier" | "shorthand_property_identifier") {
            if let Some(b) = m.scopes.binding_of(n) {
                let bind = m.scopes.get(b);
                let derived = contains(lp, bind.node)
                    && bind
                        .init
                        .is_some_and(|i| accumulators.iter().any(|acc| mentions(m, i, *acc)));
                if accumulators.contains(&b) || derived {
                    found = true;
                }
            }
        }
        true
    });
    found
}
