//! `exhausted-retry-unhandled`: a bounded retry loop whose two endings —
//! converged, or out of attempts — look the same to the code after it, or
//! that forces success on its last attempt.

use std::collections::BTreeSet;

use crate::js::syntax::tree::Node;

use std::sync::LazyLock;

use regex::Regex;

use super::unchecked_breakpoint::{decides, DECISION_FIELDS};
use super::{Area, Category, JsContext, ReportMeta, Rule, RuleMeta, Sink, Sites};
use crate::diagnostic::{Edit, Fix, Severity};
use crate::js::analysis::effects::method_path;
use crate::js::analysis::flow::{uses_of, Use};
use crate::js::analysis::loops::{comparisons_in, conjuncts, walk, Bound, LoopAnalysis};
use crate::js::model::scope::BindingId;
use crate::js::model::{objects, TaskTarget};
use crate::js::model::{LoopId, LoopKind};
use crate::js::syntax::{contains, is_function, span, string_value, unparen};
use crate::js::{EffectKind, JsModel};
use crate::rules::convergence::{call_name, excerpt, loop_header};
use crate::source::Span;

pub struct ExhaustedRetryUnhandled;

static META: RuleMeta = RuleMeta {
    id: "exhausted-retry-unhandled",
    summary: "A bounded retry loop's \"out of attempts\" ending is indistinguishable from success.",
    severity: Severity::Warning,
    area: Area::ErrorSurfacing,
    category: Category::Suspicious,
    doc: include_str!("../../rules/exhausted-retry-unhandled.md"),
    builtin: false,
    options: &[],
    fix: crate::rules::FixAvailability::Sometimes,
};

const HELP: &str = "record an explicit outcome (`let outcome = 'failed'`; `outcome = 'passed'` on \
     success; `'escalated'` after a breakpoint that approved) and branch on it after the loop: \
     `if (outcome !== 'passed') { … }` — ask a breakpoint and branch on `.approved`, or fail";

/// For a loop that leaves on a breakpoint's approval: asking again after
/// the cap only restarts it; what is missing is the rejected ending. The
/// SDK's guidance is to loop back on a rejection, never to fail: keep the
/// outcome and carry it on rather than throwing.
const APPROVAL_HELP: &str = "keep whether a round was approved (`let approved = false`; \
     `approved = true` before the `break`) and carry it on instead of continuing as if \
     approved: the SDK's guidance is to loop back on a rejection rather than fail, so refine \
     while rounds remain and, when none was approved, hand the outcome and the last feedback \
     to what comes next (`if (!approved) return { success: false, approved, feedback }`, or \
     pass `{ approved, feedback }` to the next phase and let it branch)";

/// For a loop whose exhaustion reaches a breakpoint that claims success.
const CLAIM_HELP: &str = "let the gate say what the loop ended with instead of asserting it \
     (`Build: ${ok ? 'passes' : 'still failing'}`), or branch on the outcome before it";

/// Values that mark success when assigned to a flag.
const SUCCESS_VALUES: &[&str] = &["approved", "passed", "done", "success", "accepted", "ok"];

impl Rule for ExhaustedRetryUnhandled {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn report(&self) -> ReportMeta {
        ReportMeta {
            // No site count fits ("bounded retry loops" is not one of
            // the retrospective's counts), so no praise is claimed from
            // silence: an unbounded loop would be praised vacuously.
            sites: Sites::None,
            praise: "Every bounded retry loop tells convergence from exhaustion",
            sdk_hint: "A retry helper that returns an explicit outcome (`{ outcome: 'passed' | 'exhausted', attempts }`) instead of the last result would make the exhausted case impossible to mistake for success.",
        }
    }

    fn check_js(&self, cx: &JsContext, sink: &mut Sink) {
        let m = cx.model;
        let a = LoopAnalysis::new(m);
        let mut hoisted = BTreeSet::new();
        for (l, lp) in m.loops.iter().enumerate() {
            if matches!(lp.kind, LoopKind::ForIn | LoopKind::ForOf) {
                continue;
            }
            let bound = a.bound(l);
            if !matches!(bound, Bound::Counter { .. } | Bound::GuardedExit { .. }) {
                continue;
            }
            if a.dispatches_in(l).is_empty() {
                continue;
            }
            let Some(retry) = retry_shape(&a, l) else {
                continue;
            };
            // One escalation finding per loop, and none for a breakpoint
            // `unchecked-breakpoint` reports (its answer dropped) or whose
            // decision is read.
            let mut escalation_reported = false;
            for forced in forced_successes(&a, l) {
                if let Some(bp) = forced.asked {
                    if escalation_reported || !answer_kept_unread(m, bp) {
                        continue;
                    }
                    escalation_reported = true;
                }
                sink.push(forced_diag(m, sink, forced));
            }
            let cap = match bound {
                Bound::Counter { comparison } | Bound::GuardedExit { comparison, .. } => {
                    cap_of(&a, lp.node, comparison)
                }
                _ => None,
            };
            // When every cap exit throws or returns, falling out of the
            // loop can only mean it converged; so too when the last
            // attempt throws, returns or asks a human instead of falling
            // out (what a breakpoint's answer does is that breakpoint's
            // finding, not this one).
            let exhaustion_falls_through = (matches!(bound, Bound::Counter { .. })
                || a.counter_exits(l)
                    .iter()
                    .any(|e| e.kind_str() == "break_statement"))
                && !stops_on_last_attempt(&a, l, cap)
                && !escalates_on_last_attempt(&a, l, cap);
            if exhaustion_falls_through {
                check_outcome_read(&a, l, &retry, cap, &mut hoisted, sink);
            }
        }
    }
}

/// How a retry loop can end converged, and what records that it did.
struct Retry {
    /// Outer variables that tell the two endings apart: success flags in
    /// the condition, the tested result, flags set before a success
    /// `break`.
    carriers: BTreeSet<BindingId>,
    /// Arrays from before the loop that each round's tested result is
    /// pushed to before the convergence `break`: handed whole to the next
    /// phase, their last entry tells it which ending it got.
    histories: BTreeSet<BindingId>,
    /// Locals a convergence `break` tests (`if (review.passed) break;`).
    tested: BTreeSet<BindingId>,
}

/// Recognises a retry loop: a non-counter conjunct in the condition
/// (`!ok && attempt < max`) or a `break` guarded by a test of something
/// the loop computes (`if (review.passed) break;`).
fn retry_shape(a: &LoopAnalysis, l: LoopId) -> Option<Retry> {
    let m = a.model();
    let lp = &m.loops[l];
    let outer = a.outer_writes(l);
    let outer_written = |b: BindingId| outer.contains(&b);
    let mut carriers = BTreeSet::new();
    let mut histories = BTreeSet::new();
    let mut all_tested = BTreeSet::new();
    let mut is_retry = false;
    if let Some(cond) = lp.condition {
        for c in conjuncts(m, cond) {
            if is_counter_test(a, lp.node, c) {
                continue;
            }
            for b in bindings_in(m, c) {
                if outer_written(b) {
                    carriers.insert(b);
                    is_retry = true;
                }
            }
        }
    }
    // A counter read after the loop (`if (attempt > MAX) …`) also tells
    // the endings apart.
    for b in &outer {
        if a.is_advanced_counter(lp.node, m.scopes.get(*b).node) {
            carriers.insert(*b);
        }
    }
    let Some(body) = lp.body else {
        return is_retry.then_some(Retry {
            carriers,
            histories: BTreeSet::new(),
            tested: BTreeSet::new(),
        });
    };
    // Locals the loop computes (`const review = await ctx.task(…)`).
    let written_in_loop = |b: BindingId| {
        let bind = m.scopes.get(b);
        contains(lp.node, bind.node) || outer_written(b)
    };
    for exit in a.exits(lp.node, body) {
        if exit.kind_str() != "break_statement" {
            continue;
        }
        let guards = a.guards(body, exit);
        if guards.is_empty() || guards.iter().any(|g| is_counter_test(a, lp.node, *g)) {
            continue;
        }
        let tested: Vec<BindingId> = guards
            .iter()
            .flat_map(|g| bindings_in(m, *g))
            .filter(|b| written_in_loop(*b))
            .collect();
        if tested.is_empty() {
            continue;
        }
        is_retry = true;
        all_tested.extend(tested.iter().copied());
        for &b in &tested {
            if outer_written(b) {
                carriers.insert(b);
            }
        }
        // `if (r.passed) { ok = true; break; }`: flags set on the way out.
        if let Some(branch) = exit.parent() {
            // `entry.approved = true; break;`: a member of an object declared
            // before the loop carries the outcome just as well.
            for b in member_flags_before(m, lp.node, branch, exit) {
                carriers.insert(b);
            }
            for b in &outer {
                let set_here = m
                    .scopes
                    .get(*b)
                    .writes
                    .iter()
                    .any(|w| contains(branch, *w) && w.start_byte() < exit.start_byte());
                if set_here {
                    carriers.insert(*b);
                }
            }
        }
        // `rounds.push({ round, failures: probe.failures })` before the
        // `break`: an array from before the loop collects the tested
        // results, and its last entry tells the endings apart.
        histories.extend(pushed_into(a, l, exit, &tested));
        // `last = review` / `verdict = review.passed` elsewhere in the
        // body: the last result survives the loop.
        for b in &outer {
            let copies_tested = m.scopes.get(*b).writes.iter().any(|w| {
                contains(lp.node, *w)
                    && assigned_value(*w).is_some_and(|v| {
                        // `verdict = review.passed`, or an object built from
                        // it (`outcome = { approved: review.approved }`).
                        bindings_in(m, v).iter().any(|r| tested.contains(r))
                    })
            });
            if copies_tested {
                carriers.insert(*b);
            }
        }
        // `state.sub.verified = check.verified === true` anywhere in the
        // body: a member of an object from before the loop keeps the last
        // result just as well.
        for b in member_copies(m, lp.node, body, &guards) {
            carriers.insert(b);
        }
    }
    is_retry.then_some(Retry {
        carriers,
        histories,
        tested: all_tested,
    })
}

/// The object an assignment to a member writes into (`entry` of
/// `entry.approved = …`, `breach` of `breach.remediation.verified = …`),
/// when it is declared outside the loop `lp`.
fn outer_member_root(m: &JsModel, lp: Node, assignment: Node) -> Option<BindingId> {
    assignment
        .field("left")
        .map(unparen)
        .filter(|l| l.kind_str() == "member_expression")
        .and_then(member_root)
        .and_then(|r| m.binding_of_expr(r))
        .filter(|b| !contains(lp, m.scopes.get(*b).node))
}

/// Objects declared outside the loop `lp` whose member (at any depth) is
/// assigned, in `body`, a value that reads what a convergence `break`'s
/// `guards` test (`slaBreach.remediation.verified = verify.verified ===
/// true` beside `if (verify.verified === true) break;`) — not any other
/// field of the result.
fn member_copies(m: &JsModel, lp: Node, body: Node, guards: &[Node]) -> Vec<BindingId> {
    // The values the guards test (`verify.verified`, or `ok` itself), as a
    // variable and the members read on it.
    let mut tested: Vec<ValuePath> = Vec::new();
    for g in guards {
        each_value(*g, |n| tested.extend(value_path(m, n)));
    }
    let mut out = Vec::new();
    walk(body, |n| {
        if is_function(n) {
            return false;
        }
        if n.kind_str() == "assignment_expression" {
            let root = outer_member_root(m, lp, n);
            let mut copies = false;
            if let Some(v) = n.field("right") {
                each_value(v, |r| {
                    // The tested value or a member of it.
                    copies |= value_path(m, r).is_some_and(|(b, path)| {
                        tested
                            .iter()
                            .any(|(tb, tp)| *tb == b && path.starts_with(tp))
                    });
                });
            }
            if let Some(b) = root.filter(|b| copies && !out.contains(b)) {
                out.push(b);
            }
        }
        true
    });
    out
}

/// A variable and the members read on it (`verify.verified`).
type ValuePath<'t> = (BindingId, Vec<&'t str>);

/// Calls `f` on each outermost value read in `n`: a variable, or a member
/// chain on one (`verify.verified`, not its `verify`).
fn each_value<'t>(n: Node<'t>, mut f: impl FnMut(Node<'t>)) {
    walk(n, |n| {
        let value = matches!(
            n.kind_str(),
            "member_expression" | "identifier" | "shorthand_property_identifier"
        ) && !n.parent().is_some_and(|p| {
            p.kind_str() == "member_expression"
                && p.field("object").is_some_and(|o| o.id() == n.id())
        });
        if value {
            f(n);
            return false;
        }
        true
    });
}

/// The variable a value is read from and the members read on it, when it
/// is a plain chain of named members (`a.b.c`, `a?.b`).
fn value_path<'t>(m: &JsModel<'t>, n: Node<'t>) -> Option<ValuePath<'t>> {
    let mut members = Vec::new();
    let mut n = unparen(n);
    while n.kind_str() == "member_expression" {
        let prop = n.field("property")?;
        if prop.kind_str() != "property_identifier" {
            return None;
        }
        members.push(m.text(prop));
        n = unparen(n.field("object")?);
    }
    // `{ verified }` reads the variable `verified`.
    if !matches!(n.kind_str(), "identifier" | "shorthand_property_identifier") {
        return None;
    }
    members.reverse();
    Some((m.binding_of_expr(n)?, members))
}

/// Objects declared outside the loop `lp` whose member is assigned in
/// `branch` before `exit` (`entry.approved = true; break;`).
fn member_flags_before(m: &JsModel, lp: Node, branch: Node, exit: Node) -> Vec<BindingId> {
    let mut out = Vec::new();
    walk(branch, |n| {
        if is_function(n) || n.start_byte() >= exit.start_byte() {
            return false;
        }
        if n.kind_str() == "assignment_expression" {
            if let Some(b) = outer_member_root(m, lp, n) {
                if !out.contains(&b) {
                    out.push(b);
                }
            }
        }
        true
    });
    out
}

/// Whether some `break` out of the loop is guarded by a breakpoint's
/// result (`if (decision.approved) break;`): the loop asks until approved.
fn exits_on_approval(a: &LoopAnalysis, l: LoopId) -> bool {
    let m = a.model();
    let lp = &m.loops[l];
    let Some(body) = lp.body else { return false };
    a.exits(lp.node, body).into_iter().any(|e| {
        e.kind_str() == "break_statement"
            && a.guards(body, e).iter().any(|g| reads_breakpoint(m, *g))
    })
}

/// The cap of a counter comparison: the operand that is not the counter
/// (`MAX_ROUNDS` in `round < MAX_ROUNDS`).
fn cap_of<'t>(a: &LoopAnalysis<'_, 't>, lp: Node<'t>, cmp: Node<'t>) -> Option<Node<'t>> {
    let ops: Vec<Node> = ["left", "right"]
        .iter()
        .filter_map(|f| cmp.field(f))
        .collect();
    let counter = ops.iter().position(|o| a.is_advanced_counter(lp, *o))?;
    ops.get(1 - counter).copied()
}

/// Whether an expression compares a counter the loop advances.
fn is_counter_test(a: &LoopAnalysis, lp: Node, expr: Node) -> bool {
    comparisons_in(a.model(), expr).into_iter().any(|cmp| {
        ["left", "right"]
            .iter()
            .any(|f| cmp.field(f).is_some_and(|o| a.is_advanced_counter(lp, o)))
    })
}

/// Bindings referenced in an expression, in source order.
fn bindings_in(m: &JsModel, expr: Node) -> Vec<BindingId> {
    let mut out = Vec::new();
    walk(expr, |n| {
        if is_function(n) {
            return false;
        }
        if matches!(n.kind_str(), "identifier" | "shorthand_property_identifier") {
            if let Some(b) = m.scopes.binding_of(n) {
                if !out.contains(&b) {
                    out.push(b);
                }
            }
        }
        true
    });
    out
}

/// Arrays declared outside loop `l` that a `push`/`unshift` inside it,
/// before `exit`, gives something built from one of `tested`.
fn pushed_into(a: &LoopAnalysis, l: LoopId, exit: Node, tested: &[BindingId]) -> Vec<BindingId> {
    let m = a.model();
    let lp = m.loops[l].node;
    let mut out = Vec::new();
    for &ci in a.calls_in(l) {
        let c = &m.calls[ci];
        if c.node.end_byte() > exit.start_byte() {
            break;
        }
        let Some((array, method)) = method_path(m, c.callee) else {
            continue;
        };
        let Some(b) = m.scopes.binding_of(array) else {
            continue;
        };
        if !matches!(method.as_str(), "push" | "unshift")
            || contains(lp, m.scopes.get(b).node)
            || out.contains(&b)
        {
            continue;
        }
        if c.args
            .iter()
            .any(|v| bindings_in(m, *v).iter().any(|t| tested.contains(t)))
        {
            out.push(b);
        }
    }
    out
}

/// Whether the read `r` passes the value itself on (`{ rounds }`,
/// `{ history: rounds }`, `f(rounds)`), not a member of it
/// (`rounds.length`).
fn is_handed_whole(r: Node) -> bool {
    r.kind_str() == "shorthand_property_identifier"
        || r.parent().is_some_and(|p| match p.kind_str() {
            "pair" => p.field("value") == Some(r),
            "arguments" | "array" | "spread_element" => true,
            _ => false,
        })
}

/// The variable a plain value reads (`review`, `review.passed`); `None`
/// for anything computed.
fn member_root(v: Node) -> Option<Node> {
    let mut n = unparen(v);
    while matches!(n.kind_str(), "member_expression" | "subscript_expression") {
        n = unparen(n.field("object")?);
    }
    (n.kind_str() == "identifier").then_some(n)
}

/// The value assigned by the write reference `w` (`x = value`).
fn assigned_value<'t>(w: Node<'t>) -> Option<Node<'t>> {
    let p = w.parent()?;
    match p.kind_str() {
        "assignment_expression" if p.field("left") == Some(w) => p.field("right"),
        "variable_declarator" => p.field("value"),
        _ => None,
    }
}

/// Flags the loop when nothing after it reads what tells the endings apart
/// before the function returns or the next phase dispatches.
fn check_outcome_read(
    a: &LoopAnalysis,
    l: LoopId,
    retry: &Retry,
    cap: Option<Node>,
    hoisted: &mut BTreeSet<(usize, String)>,
    sink: &mut Sink,
) {
    let m = a.model();
    let lp = &m.loops[l];
    let end = lp.node.end_byte();
    let scope_end = lp
        .func
        .map(|f| m.functions[f].node.end_byte())
        .unwrap_or(m.src().len());
    // The next dispatch after the loop in the same function: the next phase.
    // Calls are recorded in source order: start at the loop's end.
    let from = m.calls.partition_point(|c| c.node.start_byte() < end);
    let next_phase = m.calls[from..]
        .iter()
        .enumerate()
        .map(|(i, c)| (from + i, c))
        .take_while(|(_, c)| c.node.start_byte() < scope_end)
        .find(|(ci, c)| {
            c.func == lp.func
                && c.node.end_byte() <= scope_end
                && a.call_dispatches(*ci)
                && !is_bookkeeping(m, *ci)
        });
    let horizon = next_phase
        .map(|(_, c)| c.node.end_byte())
        .unwrap_or(scope_end);
    let read_in_time = retry.carriers.iter().any(|b| {
        m.scopes
            .get(*b)
            .reads
            .iter()
            .any(|r| r.start_byte() >= end && r.end_byte() <= horizon)
    });
    // A history is read in time only when the next phase is given it: a
    // count or a log line of it does not tell the endings apart. Feedback
    // collected by an approval loop does not either (see below).
    let approval = exits_on_approval(a, l);
    let handed_on = !approval
        && next_phase.is_some_and(|(_, next)| {
            retry.histories.iter().any(|b| {
                m.scopes
                    .get(*b)
                    .reads
                    .iter()
                    .any(|r| contains(next.node, *r) && is_handed_whole(*r))
            })
        });
    if read_in_time || handed_on {
        return;
    }
    // The outcome read where the run is judged — a later breakpoint's
    // question, the returned value — records it, unless something that
    // cannot be taken back, or a claim of success, came first.
    let stake = first_stake(a, l, scope_end);
    let gate = gate_read(a, l, retry, scope_end);
    if gate.is_some_and(|g| stake.as_ref().is_none_or(|s| g < s.at)) {
        return;
    }
    // In a chain of loops over the same check, the next link's first
    // attempt re-runs the check this loop gave up on: only a loop after
    // which something is at stake before any re-check can mislead.
    let chain = if approval {
        None
    } else {
        chain_of(a, l, retry)
    };
    if let Some(chain) = &chain {
        if chain
            .recheck
            .is_some_and(|r| stake.as_ref().is_none_or(|s| r < s.at))
            || stake.is_none()
        {
            return;
        }
    }
    let header = loop_header(m, lp);
    let names: Vec<String> = retry
        .carriers
        .iter()
        .map(|b| format!("`{}`", m.scopes.get(*b).name))
        .collect();
    if let Some(stake) = stake.filter(|_| !approval && (chain.is_some() || gate.is_some())) {
        // A carrier read before the stake is a counter shown as a number
        // ("converged in ${round} rounds"): it is read, but says nothing
        // of how the loop ended.
        let (read, unread): (Vec<BindingId>, Vec<BindingId>) =
            retry.carriers.iter().partition(|b| {
                m.scopes
                    .get(**b)
                    .reads
                    .iter()
                    .any(|r| r.start_byte() >= lp.node.end_byte() && r.start_byte() < stake.at)
            });
        let (counted, late): (Vec<BindingId>, Vec<BindingId>) = read
            .into_iter()
            .partition(|b| a.is_advanced_counter(lp.node, m.scopes.get(*b).node));
        let name = |b: &BindingId| format!("`{}`", m.scopes.get(*b).name);
        let names: Vec<String> = unread.iter().map(name).collect();
        let read_before = ReadBefore {
            counted: counted.iter().map(name).collect(),
            late: late.iter().map(name).collect(),
        };
        let mut d = stake_diag(m, sink, lp, &header, &names, &read_before, &stake);
        if let Some(fix) = outcome_fix(a, l, cap, hoisted) {
            d = d.with_fix(fix);
        }
        sink.push(d);
        return;
    }
    // A loop that leaves on a breakpoint's approval: exhausting it means
    // the human rejected every time, and the code after it cannot tell.
    // What an approval loop carries between rounds is the feedback, which
    // stays set when a later round is approved: naming it would steer the
    // reader to `if (lastFeedback) fail`, which fails approved runs.
    let unread = match names.len() {
        _ if approval => None,
        0 => None,
        1 => Some(format!("{} is not read after it", names[0])),
        _ => Some(format!("none of {} is read after it", names.join(", "))),
    };
    let head = if approval {
        format!("the approval loop `{header}` ends either approved or out of attempts, but")
    } else {
        format!("the retry loop `{header}` ends either converged or out of attempts, but")
    };
    // With no next phase the code after the loop may just return (often
    // `{ success: true }`): it runs as if approved, whatever it does.
    let goes_on = if next_phase.is_some() {
        "the process continues"
    } else {
        "the code after the loop runs"
    };
    let consequence = |default: &str| -> String {
        if approval {
            match cap {
                Some(c) => format!(
                    "after `{}` rejections {goes_on} as if approved",
                    excerpt(m, c)
                ),
                None => format!("after the last rejection {goes_on} as if approved"),
            }
        } else {
            default.to_string()
        }
    };
    let mut d = match (next_phase, unread) {
        (Some((_, next)), unread) => {
            let what = unread
                .map(|u| format!("{u} before the next phase starts"))
                .unwrap_or_else(|| {
                    if approval {
                        "nothing after it tells which before the next phase starts".into()
                    } else {
                        "nothing outside the loop records which one happened and the next phase \
                         starts regardless"
                            .into()
                    }
                });
            sink.diag(
                lp.header(),
                format!(
                    "{head} {what}: {}",
                    consequence("running out of attempts carries on as if it had passed")
                ),
            )
            .with_related(
                sink.location(span(next.node)),
                format!("next phase: `{}`", call_name(m, next)),
            )
        }
        (None, unread) => {
            let what = unread
                .unwrap_or_else(|| "nothing outside the loop records which one happened".into());
            sink.diag(
                lp.header(),
                format!(
                    "{head} {what}: {}",
                    consequence("running out of attempts looks the same as success")
                ),
            )
        }
    };
    d = d.with_help(if approval { APPROVAL_HELP } else { HELP });
    if let Some(fix) = outcome_fix(a, l, cap, hoisted) {
        d = d.with_fix(fix);
    }
    sink.push(d);
}

/// Words naming a task that records what happened (a log line, progress,
/// a status) rather than doing the next piece of work.
const BOOKKEEPING_WORDS: &[&str] = &[
    "log",
    "logs",
    "logging",
    "record",
    "recording",
    "persist",
    "persistence",
    "journal",
    "progress",
    "status",
    "bookkeeping",
];

/// A `ctx.task` whose result is dropped and whose variable, id or labels
/// say it records what happened (`await ctx.task(logProgressTask, …)`):
/// bookkeeping between the loop and the read of its outcome, not the next
/// phase.
fn is_bookkeeping(m: &JsModel, ci: usize) -> bool {
    let c = &m.calls[ci];
    if !m
        .effect_of_call(ci)
        .is_some_and(|e| e.kind == EffectKind::Task)
    {
        return false;
    }
    let mut n = c.node;
    while let Some(p) = n.parent() {
        if !matches!(
            p.kind_str(),
            "await_expression" | "parenthesized_expression"
        ) {
            break;
        }
        n = p;
    }
    if n.parent().map(|p| p.kind_str()) != Some("expression_statement") {
        return false;
    }
    let Some(&target) = c.args.first() else {
        return false;
    };
    task_names(m, target).iter().any(|n| {
        super::name_words(n)
            .into_iter()
            .any(|w| BOOKKEEPING_WORDS.contains(&w.as_str()))
    })
}

/// The names a dispatched task goes by: the variable's name, or an inline
/// definition's `name`/`id`/`labels`, and a local definition's id and
/// labels (not its instructions, which may mention anything).
fn task_names<'a, 't: 'a>(m: &'a JsModel<'t>, target: Node<'t>) -> Vec<&'a str> {
    let mut names = Vec::new();
    match m.object_of_expr(target) {
        Some(obj) => names.extend(
            ["name", "id", "labels"]
                .iter()
                .filter_map(|p| objects::property(m, obj, p))
                .map(|v| m.text(v)),
        ),
        None => names.push(m.text(target)),
    }
    if let TaskTarget::Local(i) = m.task_target(target) {
        let t = &m.task_defs[i];
        names.extend(t.id.as_deref());
        names.extend(
            t.objects
                .iter()
                .filter_map(|o| objects::property(m, *o, "labels"))
                .map(|l| m.text(l)),
        );
    }
    names
}

/// Whether the last attempt stops the loop another way: a `throw` or
/// `return` under a test that the counter reached its cap
/// (`if (attempt >= maxAttempts) throw …`).
fn stops_on_last_attempt(a: &LoopAnalysis, l: LoopId, cap: Option<Node>) -> bool {
    let lp = &a.model().loops[l];
    let Some(body) = lp.body else { return false };
    a.exits(lp.node, body).into_iter().any(|e| {
        matches!(e.kind_str(), "throw_statement" | "return_statement")
            && taken_guards(body, e)
                .iter()
                .any(|g| is_last_attempt_test(a, lp.node, cap, *g))
    })
}

/// Whether the last attempt asks a human: a breakpoint under a test that
/// the counter reached its cap.
fn escalates_on_last_attempt(a: &LoopAnalysis, l: LoopId, cap: Option<Node>) -> bool {
    let m = a.model();
    let lp = &m.loops[l];
    let Some(body) = lp.body else { return false };
    a.calls_in(l).iter().any(|&ci| {
        m.effect_of_call(ci)
            .is_some_and(|e| e.kind == EffectKind::Breakpoint)
            && taken_guards(body, m.calls[ci].node)
                .iter()
                .any(|g| is_last_attempt_test(a, lp.node, cap, *g))
    })
}

/// The `if` conditions that hold where `node` runs inside `body`: those of
/// the `if`s it is in the consequence of (not the `else` branches).
fn taken_guards<'t>(body: Node<'t>, node: Node<'t>) -> Vec<Node<'t>> {
    let mut out = Vec::new();
    let mut n = node;
    while let Some(p) = n.parent() {
        if p.id() == body.id() || !contains(body, p) {
            break;
        }
        if p.kind_str() == "if_statement" && p.field("consequence") == Some(n) {
            out.extend(p.field("condition").map(unparen));
        }
        n = p;
    }
    out
}

/// Whether an expression tests that a counter the loop advances has
/// reached the loop's cap: `attempt >= max`, `attempt === MAX`,
/// `max - 1 <= attempt` (not `attempt === 0`, `attempt > 1`).
fn is_last_attempt_test(a: &LoopAnalysis, lp: Node, cap: Option<Node>, expr: Node) -> bool {
    let m = a.model();
    let Some(cap) = cap else { return false };
    let cap_text = m.text(cap);
    let names_cap = |o: Node| {
        let t = m.text(o);
        t.contains(cap_text)
            || matches!(
                (t.parse::<i64>(), cap_text.parse::<i64>()),
                (Ok(n), Ok(c)) if n + 1 >= c && n <= c
            )
    };
    comparisons_in(m, expr).into_iter().any(|cmp| {
        let side = |f: &str| cmp.field(f);
        let counter_then_cap = |c: &str, k: &str| {
            side(c).is_some_and(|o| a.is_advanced_counter(lp, o)) && side(k).is_some_and(names_cap)
        };
        match cmp.field("operator").map(|o| m.text(o)) {
            Some(">=" | ">") => counter_then_cap("left", "right"),
            Some("<=" | "<") => counter_then_cap("right", "left"),
            Some("===" | "==") => {
                counter_then_cap("left", "right") || counter_then_cap("right", "left")
            }
            _ => false,
        }
    })
}

/// Whether a breakpoint's answer is kept but its decision never read
/// (`escalations.push(answer)`): a breakpoint whose answer is dropped is
/// `unchecked-breakpoint`'s finding, and one whose `.approved` is read
/// decides.
fn answer_kept_unread(m: &JsModel, bp: Node) -> bool {
    let uses = uses_of(m, bp);
    uses.iter().any(decides)
        && !uses.iter().any(
            |u| matches!(u, Use::Property { name, .. } if DECISION_FIELDS.contains(&name.as_str())),
        )
}

/// Something after a loop that an exhausted loop should not reach as if it
/// had converged.
struct Stake<'t> {
    at: usize,
    node: Node<'t>,
    kind: StakeKind,
}

enum StakeKind {
    /// A task that commits, pushes, releases or deploys: `call` names it,
    /// `verb` says what it does (`releases`).
    Irreversible { call: String, verb: &'static str },
    /// A breakpoint whose own text says the check passed.
    Claim(String),
    /// `return { success: true, … }`.
    SuccessReturn,
}

/// Words in a task's name that make it irreversible, with what it does.
const IRREVERSIBLE_WORDS: &[(&str, &str)] = &[
    ("commit", "commits"),
    ("push", "pushes"),
    ("release", "releases"),
    ("deploy", "deploys"),
    ("deployment", "deploys"),
    ("publish", "publishes"),
    ("ship", "ships"),
];

/// Words that make "release" in a name a software release
/// (`buildAndReleaseTask`, `labels: ['github', 'release']`).
const SOFTWARE_RELEASE_WORDS: &[&str] = &[
    "build",
    "version",
    "github",
    "gh",
    "npm",
    "tag",
    "create",
    "cut",
    "publish",
    "app",
    "apk",
    "package",
    "artifact",
    "artifacts",
    "binary",
    "binaries",
];

/// Words that make such a name a document or a check about the act
/// (`releaseNotesTask`, `deploymentPlanTask`, `commitMessageTask`).
const ABOUT_WORDS: &[&str] = &[
    "notes",
    "note",
    "plan",
    "planning",
    "strategy",
    "message",
    "messages",
    "readiness",
    "check",
    "checklist",
    "review",
    "design",
    "analysis",
    "report",
    "docs",
    "validation",
    "verify",
];

/// Commands in a local definition that publish or commit.
static PUBLISHING_COMMAND: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r"(?i)\b(?:git\s+(commit|push)|gh\s+(release)\s+create|npm\s+(publish)|gh\s+pr\s+(merge))\b").ok()
});

/// A breakpoint text that states the check passed ("Build passes", "all
/// tests passed", "build succeeds").
static SUCCESS_CLAIM: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\b(?:build|builds|tests?|compil\w*|checks?|lint\w*|ci)\b[^.?!:\n]{0,40}?\b(?:pass|passes|passed|passing|succeeds|succeeded|successful|successfully|green)\b",
    )
    .ok()
});

/// Whether the dispatch `ci` commits, pushes, releases or deploys, by its
/// names or by the commands its local definition spells out.
fn irreversible(m: &JsModel, ci: usize) -> Option<StakeKind> {
    let c = &m.calls[ci];
    let target = *c.args.first()?;
    let call = call_name(m, c);
    for name in task_names(m, target) {
        let ws: Vec<String> = super::name_words(name);
        if ws.iter().any(|w| ABOUT_WORDS.contains(&w.as_str())) {
            continue;
        }
        let found = IRREVERSIBLE_WORDS.iter().find(|(w, _)| {
            ws.iter().any(|x| x == w)
                // "release" names many things (drug release, release
                // completion ceremonies): a software release says so.
                && (*w != "release"
                    || ws.iter().all(|x| matches!(x.as_str(), "release" | "task"))
                    || ws.iter().any(|x| SOFTWARE_RELEASE_WORDS.contains(&x.as_str())))
        });
        if let Some((_, verb)) = found {
            return Some(StakeKind::Irreversible { call, verb });
        }
    }
    let TaskTarget::Local(i) = m.task_target(target) else {
        return None;
    };
    let re = PUBLISHING_COMMAND.as_ref()?;
    m.task_defs[i].objects.iter().find_map(|o| {
        let caps = re.captures(m.text(*o))?;
        let verb = match (1..=4)
            .find_map(|g| caps.get(g))?
            .as_str()
            .to_lowercase()
            .as_str()
        {
            "commit" => "commits",
            "push" => "pushes",
            "release" => "releases",
            "publish" => "publishes",
            _ => "merges",
        };
        Some(StakeKind::Irreversible {
            call: call.clone(),
            verb,
        })
    })
}

/// The text a breakpoint's payload states whatever the run did: its
/// strings and the literal parts of its templates, not what a `${…}`, a
/// `?:` or a `||` chooses.
fn stated_texts(m: &JsModel, payload: Node) -> Vec<String> {
    let src = m.src();
    let mut out = Vec::new();
    walk(payload, |n| match n.kind_str() {
        "template_substitution" | "ternary_expression" => false,
        "binary_expression"
            if matches!(
                n.field("operator").map(|o| m.text(o)),
                Some("&&" | "||" | "??")
            ) =>
        {
            false
        }
        "string" => {
            out.extend(string_value(n, src));
            false
        }
        "template_string" => {
            let mut text = String::new();
            let mut pos = n.start_byte() + 1;
            for sub in n
                .named()
                .filter(|c| c.kind_str() == "template_substitution")
            {
                text.push_str(src.get(pos..sub.start_byte()).unwrap_or(""));
                text.push_str(" … ");
                pos = sub.end_byte();
            }
            text.push_str(src.get(pos..n.end_byte().saturating_sub(1)).unwrap_or(""));
            out.push(text);
            false
        }
        _ => !is_function(n),
    });
    out
}

/// The success a breakpoint's payload asserts, if it does: a statement,
/// not a question or a condition ("Does the build pass?", "if the tests
/// pass").
fn success_claim(m: &JsModel, payload: Node) -> Option<String> {
    stated_texts(m, payload).iter().find_map(|t| claim_in(t))
}

/// The first success a text states outright.
fn claim_in(text: &str) -> Option<String> {
    let re = SUCCESS_CLAIM.as_ref()?;
    for hit in re.find_iter(text) {
        let start = text[..hit.start()]
            .rfind(['.', '!', '?', '\n'])
            .map_or(0, |i| i + 1);
        let end = text[hit.end()..]
            .find(['.', '!', '?', '\n'])
            .map_or(text.len(), |i| hit.end() + i);
        let question = text[end..].starts_with('?');
        // `Tests passed: 4/5` labels a count; it states nothing.
        let label = text[hit.end()..].trim_start().starts_with(':');
        let conditional = text[start..hit.start()]
            .split(|c: char| !c.is_alphanumeric())
            .any(|w| {
                matches!(
                    w.to_lowercase().as_str(),
                    "if" | "whether" | "once" | "until" | "unless" | "when" | "after" | "not"
                )
            });
        if !question && !conditional && !label {
            return Some(hit.as_str().to_string());
        }
    }
    None
}

/// Whether a `return` argument says `success: true`.
fn returns_success(m: &JsModel, ret: Node) -> bool {
    let Some(arg) = ret.named_child(0).map(unparen) else {
        return false;
    };
    arg.kind_str() == "object"
        && arg.named().any(|p| {
            p.kind_str() == "pair"
                && p.field("key").is_some_and(|k| {
                    matches!(
                        m.text(k).trim_matches(['\'', '"']),
                        "success" | "passed" | "ok"
                    )
                })
                && p.field("value")
                    .is_some_and(|v| unparen(v).kind_str() == "true")
        })
}

/// The function (or program) a loop is in.
fn enclosing_root<'t>(m: &JsModel<'t>, lp: &crate::js::model::Loop<'t>) -> Node<'t> {
    match lp.func {
        Some(f) => m.functions[f].node,
        None => {
            let mut n = lp.node;
            while let Some(p) = n.parent() {
                n = p;
            }
            n
        }
    }
}

/// The first thing after loop `l`, in its function, that an exhausted
/// loop should not reach as if it had passed: an irreversible task, a
/// breakpoint that claims success, `return { success: true }`.
fn first_stake<'t>(a: &LoopAnalysis<'_, 't>, l: LoopId, scope_end: usize) -> Option<Stake<'t>> {
    let m = a.model();
    let lp = &m.loops[l];
    let end = lp.node.end_byte();
    let from = m.calls.partition_point(|c| c.node.start_byte() < end);
    let call_stake = m.calls[from..]
        .iter()
        .enumerate()
        .map(|(i, c)| (from + i, c))
        .take_while(|(_, c)| c.node.start_byte() < scope_end)
        .filter(|(_, c)| c.func == lp.func)
        .find_map(|(ci, c)| {
            let kind = match m.effect_of_call(ci).map(|e| e.kind) {
                Some(EffectKind::Task) if a.call_dispatches(ci) => irreversible(m, ci)?,
                Some(EffectKind::Breakpoint) => {
                    StakeKind::Claim(success_claim(m, *c.args.first()?)?)
                }
                _ => return None,
            };
            Some(Stake {
                at: c.node.start_byte(),
                node: c.node,
                kind,
            })
        });
    let root = enclosing_root(m, lp);
    let mut ret = None;
    walk(root, |n| {
        if ret.is_some() || n.end_byte() <= end || (is_function(n) && n.id() != root.id()) {
            return false;
        }
        if n.kind_str() == "return_statement" && n.start_byte() >= end && returns_success(m, n) {
            ret = Some(n);
        }
        true
    });
    let ret_stake = ret.map(|n| Stake {
        at: n.start_byte(),
        node: n,
        kind: StakeKind::SuccessReturn,
    });
    match (call_stake, ret_stake) {
        (Some(c), Some(r)) => Some(if r.at < c.at { r } else { c }),
        (c, r) => c.or(r),
    }
}

/// Where, after loop `l`, the outcome is first read at the gate: inside a
/// breakpoint's payload or a `return` of the loop's function. Counters do
/// not count ("done in 3 iterations" does not say how).
fn gate_read(a: &LoopAnalysis, l: LoopId, retry: &Retry, scope_end: usize) -> Option<usize> {
    let m = a.model();
    let lp = &m.loops[l];
    let end = lp.node.end_byte();
    let at_gate = |r: Node| {
        // In a `return`, the outcome itself (`{ converged }`,
        // `success: converged && …`), not a field of the kept result
        // (`files: report.filesChanged`).
        let whole = r.kind_str() == "shorthand_property_identifier"
            || r.parent().is_none_or(|p| {
                !(matches!(p.kind_str(), "member_expression" | "subscript_expression")
                    && p.field("object") == Some(r))
            });
        let mut outcome_key = false;
        let mut n = r;
        while let Some(p) = n.parent() {
            if is_function(p) {
                return false;
            }
            if p.kind_str() == "pair" && p.field("value") == Some(n) {
                outcome_key |= p
                    .field("key")
                    .is_some_and(|k| OUTCOME_KEYS.contains(&m.text(k).trim_matches(['\'', '"'])));
            }
            if p.kind_str() == "return_statement" {
                return whole || outcome_key;
            }
            if m.call_of_node(p).is_some_and(|c| {
                m.effect_of_call(c)
                    .is_some_and(|e| e.kind == EffectKind::Breakpoint)
            }) {
                return true;
            }
            n = p;
        }
        false
    };
    retry
        .carriers
        .iter()
        .filter(|b| !a.is_advanced_counter(lp.node, m.scopes.get(**b).node))
        .flat_map(|b| m.scopes.get(*b).reads.iter())
        .filter(|r| r.start_byte() >= end && r.end_byte() <= scope_end && at_gate(**r))
        .map(|r| r.start_byte())
        .min()
}

/// Keys of a returned object that report how the run went.
const OUTCOME_KEYS: &[&str] = &[
    "success",
    "passed",
    "ok",
    "converged",
    "approved",
    "status",
    "outcome",
    "done",
    "completed",
];

/// A check task dispatched with a target: the task and the arguments that
/// name what it checks (`{ androidDir }`), without per-attempt values.
type CheckKey = (String, Vec<(String, String)>);

/// The check a dispatch runs, when its task is named and its arguments
/// are an object literal (or absent).
fn check_key(m: &JsModel, ci: usize) -> Option<CheckKey> {
    let c = &m.calls[ci];
    let task = unparen(*c.args.first()?);
    if !matches!(task.kind_str(), "identifier" | "member_expression") {
        return None;
    }
    let mut targets = Vec::new();
    if let Some(args) = c.args.get(1).map(|n| unparen(*n)) {
        if args.kind_str() != "object" {
            return None;
        }
        for p in args.named() {
            let (key, value) = match p.kind_str() {
                "shorthand_property_identifier" => (m.text(p).to_string(), p),
                "pair" => match (p.field("key"), p.field("value")) {
                    (Some(k), Some(v)) => {
                        (m.text(k).trim_matches(['\'', '"']).to_string(), unparen(v))
                    }
                    _ => continue,
                },
                _ => continue,
            };
            let root = if value.kind_str() == "shorthand_property_identifier" {
                Some(value)
            } else {
                member_root(value)
            };
            let Some(b) = root.and_then(|r| m.scopes.binding_of(r)) else {
                continue;
            };
            // A value that stays put: never reassigned, not declared per
            // iteration of some loop.
            let bind = m.scopes.get(b);
            if bind.writes.is_empty() && !m.loops.iter().any(|lp| contains(lp.node, bind.node)) {
                targets.push((key, m.text(value).to_string()));
            }
        }
    }
    targets.sort();
    // With no stable argument to compare, only the same arguments name
    // the same check.
    if targets.is_empty() {
        let args = c.args.get(1).map_or("", |a| m.text(*a));
        targets.push((String::new(), args.to_string()));
    }
    Some((m.text(task).to_string(), targets))
}

/// The checks loop `l` converges on: dispatches whose result the success
/// flag or the kept result is computed from.
fn check_keys(a: &LoopAnalysis, l: LoopId, retry: &Retry) -> Vec<CheckKey> {
    let m = a.model();
    let lp = &m.loops[l];
    let mut out = Vec::new();
    for &ci in a.calls_in(l) {
        let c = &m.calls[ci];
        if c.func != lp.func
            || !m
                .effect_of_call(ci)
                .is_some_and(|e| e.kind == EffectKind::Task)
        {
            continue;
        }
        let result = result_binding(m, c.node);
        let feeds = result.is_some_and(|r| retry.tested.contains(&r))
            || retry.carriers.iter().any(|b| {
                Some(*b) == result
                    || m.scopes.get(*b).writes.iter().any(|w| {
                        contains(lp.node, *w)
                            && assigned_value(*w).is_some_and(|v| {
                                contains(v, c.node)
                                    || result.is_some_and(|r| bindings_in(m, v).contains(&r))
                            })
                    })
            });
        if feeds {
            out.extend(check_key(m, ci));
        }
    }
    out
}

/// The variable a call's (awaited) result is stored in.
fn result_binding(m: &JsModel, call: Node) -> Option<BindingId> {
    let mut n = call;
    let mut p = n.parent()?;
    while matches!(
        p.kind_str(),
        "await_expression" | "parenthesized_expression"
    ) {
        n = p;
        p = n.parent()?;
    }
    match p.kind_str() {
        "variable_declarator" if p.field("value") == Some(n) => {
            p.field("name").and_then(|x| m.scopes.binding_of(x))
        }
        "assignment_expression" if p.field("right") == Some(n) => {
            p.field("left").and_then(|x| m.binding_of_expr(x))
        }
        _ => None,
    }
}

/// Whether a call's (awaited) result is used at all, not dropped as a
/// statement.
fn result_kept(call: Node) -> bool {
    let mut n = call;
    while let Some(p) = n.parent() {
        if !matches!(
            p.kind_str(),
            "await_expression" | "parenthesized_expression"
        ) {
            return p.kind_str() != "expression_statement";
        }
        n = p;
    }
    false
}

/// Whether, once control has passed `lp`, it always reaches `later` (no
/// branch, `catch` or callback in between; loops are allowed: a retry
/// loop's first attempt runs).
fn reached_after(lp: Node, later: Node) -> bool {
    let mut n = later;
    while let Some(p) = n.parent() {
        if contains(p, lp) {
            return true;
        }
        let branch = match p.kind_str() {
            "if_statement" => p.field("condition") != Some(n),
            "ternary_expression" | "switch_case" | "switch_default" | "catch_clause" => true,
            "binary_expression" => p.field("right") == Some(n),
            _ => is_function(p),
        };
        if branch {
            return false;
        }
        n = p;
    }
    false
}

struct Chain {
    /// Where the check is next run again, on every path after the loop.
    recheck: Option<usize>,
}

/// Whether loop `l` is a link in a chain of loops over the same check, and
/// where the check runs again after it.
fn chain_of(a: &LoopAnalysis, l: LoopId, retry: &Retry) -> Option<Chain> {
    let m = a.model();
    let lp = &m.loops[l];
    let keys = check_keys(a, l, retry);
    if keys.is_empty() {
        return None;
    }
    let mut linked = false;
    let mut recheck: Option<usize> = None;
    for (ci, c) in m.calls.iter().enumerate() {
        if c.func != lp.func
            || contains(lp.node, c.node)
            || !m
                .effect_of_call(ci)
                .is_some_and(|e| e.kind == EffectKind::Task)
            || !check_key(m, ci).is_some_and(|k| keys.contains(&k))
        {
            continue;
        }
        let in_other_loop = m
            .loops
            .iter()
            .any(|o| contains(o.node, c.node) && !contains(o.node, lp.node));
        let after = c.node.start_byte() >= lp.node.end_byte();
        if after && result_kept(c.node) && reached_after(lp.node, c.node) {
            let at = c.node.start_byte();
            recheck = Some(recheck.map_or(at, |r| r.min(at)));
            linked = true;
        } else if in_other_loop && result_kept(c.node) {
            linked = true;
        }
    }
    linked.then_some(Chain { recheck })
}

/// Carriers read between the loop and the stake: counters (shown as a
/// number of rounds), and others read only after the next phase was
/// dispatched.
struct ReadBefore {
    counted: Vec<String>,
    late: Vec<String>,
}

/// The finding for a loop whose exhaustion reaches something at stake
/// before its outcome is read.
fn stake_diag(
    m: &JsModel,
    sink: &Sink,
    lp: &crate::js::model::Loop,
    header: &str,
    names: &[String],
    read_before: &ReadBefore,
    stake: &Stake,
) -> crate::diagnostic::Diagnostic {
    let before = match &stake.kind {
        StakeKind::Irreversible { call, verb } => format!("`{call}`, which {verb}"),
        StakeKind::Claim(text) => format!("the breakpoint that states \"{text}\""),
        StakeKind::SuccessReturn => format!("`{}`", excerpt(m, stake.node)),
    };
    let mut unread = match names.len() {
        0 => format!("nothing outside the loop records which one happened before {before}"),
        1 => format!("{} is not read before {before}", names[0]),
        _ => format!("none of {} is read before {before}", names.join(", ")),
    };
    let who = |names: &[String]| {
        if names.len() == 1 {
            (names[0].clone(), "is")
        } else {
            (names.join(", "), "are")
        }
    };
    if !read_before.counted.is_empty() {
        let (who, verb) = who(&read_before.counted);
        unread.push_str(&format!(
            " ({who} {verb}, but only as a count of rounds, which does not say how the loop ended)"
        ));
    }
    if !read_before.late.is_empty() {
        let (who, verb) = who(&read_before.late);
        unread.push_str(&format!(
            " ({who} {verb} read only after the next phase was dispatched)"
        ));
    }
    let (consequence, related, help) = match &stake.kind {
        StakeKind::Irreversible { verb, .. } => (
            format!("running out of attempts {verb} as if the check had passed"),
            format!("{verb} whatever the loop ended with"),
            HELP,
        ),
        StakeKind::Claim(_) => (
            "running out of attempts tells the human it passed".to_string(),
            "states success whatever the loop ended with".to_string(),
            CLAIM_HELP,
        ),
        StakeKind::SuccessReturn => (
            "running out of attempts is returned as a success".to_string(),
            "reports success whatever the loop ended with".to_string(),
            HELP,
        ),
    };
    sink.diag(
        lp.header(),
        format!("the retry loop `{header}` ends either converged or out of attempts, but {unread}: {consequence}"),
    )
    .with_related(sink.location(span(stake.node)), related)
    .with_help(help)
}

struct Forced<'t> {
    assignment: Node<'t>,
    guard: Node<'t>,
    /// A breakpoint asked on the way, whose answer the assignment does not
    /// read (`await ctx.breakpoint(…); passed = true;`).
    asked: Option<Node<'t>>,
}

/// A breakpoint call in the statement `guard` tests, before `assignment`.
fn breakpoint_before<'t>(
    m: &JsModel<'t>,
    guard: Node<'t>,
    assignment: Node<'t>,
) -> Option<Node<'t>> {
    // The test sits in the statement's (parenthesised) condition.
    let mut branch = guard.parent()?;
    while !matches!(
        branch.kind_str(),
        "if_statement" | "ternary_expression" | "switch_case"
    ) {
        if is_function(branch)
            || (contains(branch, assignment) && branch.kind_str() != "parenthesized_expression")
        {
            return None;
        }
        branch = branch.parent()?;
    }
    let mut found = None;
    walk(branch, |n| {
        if found.is_some() || is_function(n) || n.start_byte() >= assignment.start_byte() {
            return false;
        }
        let is_bp = m.call_of_node(n).is_some_and(|c| {
            m.effect_of_call(c)
                .is_some_and(|e| e.kind == EffectKind::Breakpoint)
        });
        if is_bp && contains(branch, assignment) {
            found = Some(n);
        }
        found.is_none()
    });
    found
}

/// `ok = true` inside the loop under a counter test (the last attempt)
/// with no breakpoint decision read on the way.
fn forced_successes<'t>(a: &LoopAnalysis<'_, 't>, l: LoopId) -> Vec<Forced<'t>> {
    let m = a.model();
    let lp = &m.loops[l];
    let Some(body) = lp.body else {
        return Vec::new();
    };
    let outer = a.outer_writes(l);
    // The flags the loop's condition converges on (`!fixSucceeded` in
    // `while (!fixSucceeded && n < max)`): when there are any, `true`
    // written to another variable on the last attempt is not the loop's
    // success (`architecturalIssue = true` marks the failure).
    // Only a condition of plain flags (`!ok`, `!state.ok`) names them; a
    // test such as `issues.length > 0` does not say which variable is the
    // success.
    let flag = |c: Node| {
        let c = unparen(c);
        let c = if c.kind_str() == "unary_expression" {
            c.field("argument").map(unparen).unwrap_or(c)
        } else {
            c
        };
        matches!(c.kind_str(), "identifier" | "member_expression")
    };
    let converges_on: Vec<_> = lp
        .condition
        .map(|c| {
            let rest: Vec<Node> = conjuncts(m, c)
                .into_iter()
                .filter(|c| !is_counter_test(a, lp.node, *c))
                .collect();
            if rest.iter().all(|c| flag(*c)) {
                rest.into_iter().flat_map(|c| bindings_in(m, c)).collect()
            } else {
                Vec::new()
            }
        })
        .unwrap_or_default();
    let mut out = Vec::new();
    walk(body, |n| {
        if is_function(n) {
            return false;
        }
        if n.kind_str() != "assignment_expression" {
            return true;
        }
        let (Some(left), Some(right)) =
            (n.field("left").map(unparen), n.field("right").map(unparen))
        else {
            return true;
        };
        let marks_success = right.kind_str() == "true"
            || string_value(right, m.src()).is_some_and(|s| SUCCESS_VALUES.contains(&s.as_str()));
        let target = m.binding_of_expr(left);
        let target_outer = target.is_some_and(|b| outer.contains(&b));
        // A name that reads as success (`ok`, `passed`) is one whatever the
        // condition tests.
        let reads_as_success = |name: &str| {
            let name = name.to_ascii_lowercase();
            [
                "ok", "pass", "success", "succeed", "approved", "done", "complete", "resolved",
                "valid",
            ]
            .iter()
            .any(|w| name.contains(w))
        };
        let the_loops_flag = converges_on.is_empty()
            || target.is_some_and(|b| {
                converges_on.contains(&b) || reads_as_success(&m.scopes.get(b).name)
            });
        if !marks_success || !target_outer || !the_loops_flag {
            return true;
        }
        let guards = a.guards(body, n);
        let counter_guard = guards
            .iter()
            .copied()
            .find(|g| is_counter_test(a, lp.node, *g));
        let decided = guards.iter().any(|g| reads_breakpoint(m, *g));
        if let (Some(guard), false) = (counter_guard, decided) {
            out.push(Forced {
                assignment: n,
                guard,
                asked: breakpoint_before(m, guard, n),
            });
        }
        true
    });
    out
}

/// Whether an expression reads a breakpoint's result: contains the call or
/// a variable holding it.
fn reads_breakpoint(m: &JsModel, expr: Node) -> bool {
    let is_bp = |n: Node| {
        m.call_of_node(n).is_some_and(|c| {
            m.effects
                .iter()
                .any(|e| e.call == c && e.kind == EffectKind::Breakpoint)
        })
    };
    let mut found = false;
    walk(expr, |n| {
        if found {
            return false;
        }
        if is_bp(n) {
            found = true;
        } else if n.kind_str() == "identifier" {
            if let Some(b) = m.scopes.binding_of(n) {
                let bind = m.scopes.get(b);
                let sources = bind
                    .init
                    .into_iter()
                    .chain(bind.writes.iter().filter_map(|w| assigned_value(*w)));
                for v in sources {
                    walk(v, |c| {
                        if is_bp(c) {
                            found = true;
                        }
                        !found
                    });
                }
            }
        }
        true
    });
    found
}

fn forced_diag(m: &JsModel, sink: &Sink, f: Forced) -> crate::diagnostic::Diagnostic {
    let Some(bp) = f.asked else {
        return sink
            .diag(
                span(f.assignment),
                format!(
                    "on the last attempt (`{}`) `{}` marks success without any decision: running out \
                     of attempts is reported as a pass",
                    excerpt(m, f.guard),
                    excerpt(m, f.assignment)
                ),
            )
            .with_help(HELP);
    };
    // The breakpoint resolves with the human's answer (`{ approved: false }`
    // on a rejection) and does not throw: the assignment runs either way.
    sink.diag(
        span(f.assignment),
        format!(
            "on the last attempt (`{}`) `{}` follows a breakpoint without reading its answer: a \
             rejection marks success too, and the outcome is still not recorded — after the loop \
             `{}` cannot tell a pass from an exhausted, escalated run",
            excerpt(m, f.guard),
            excerpt(m, f.assignment),
            f.assignment
                .field("left")
                .map(|l| excerpt(m, l))
                .unwrap_or_default(),
        ),
    )
    .with_related(
        sink.location(span(bp)),
        "the breakpoint asked on the last attempt",
    )
    .with_help(
        "read the breakpoint's answer and record the outcome apart from a pass: `const decision = \
         await ctx.breakpoint(…); outcome = decision.approved ? 'escalated' : 'rejected';`, then \
         branch on `outcome` after the loop (a rejection loops back or returns the outcome with \
         its feedback, as the SDK's breakpoint guidance recommends)",
    )
}

/// The fix for a loop whose exhaustion falls through: right after it, fail
/// the run when the condition the loop converges on does not hold —
/// `if (!approved) { throw … }`. Offered only when that condition is
/// determined: the loop's own condition (less its counter test) with no
/// `break` besides the cap's, or the test of its one convergence `break`;
/// free of calls, so re-reading it dispatches nothing; over variables that
/// outlive the loop holding what the last attempt was judged on. A result
/// declared in the body (`const decision = await ctx.breakpoint(…)`) is
/// declared before the loop instead, so that it outlives it.
fn outcome_fix(
    a: &LoopAnalysis,
    l: LoopId,
    cap: Option<Node>,
    hoisted: &mut BTreeSet<(usize, String)>,
) -> Option<Fix> {
    let m = a.model();
    let src = m.src();
    let lp = &m.loops[l];
    let body = lp.body?;
    // A check after a loop that is an `if`'s unbraced body, or labelled,
    // would land outside what runs it.
    let holder = lp.node.parent()?;
    if !matches!(holder.kind_str(), "statement_block" | "program") {
        return None;
    }
    let indent = line_indent(src, lp.node.start_byte())?;
    let nl = if src.contains("\r\n") { "\r\n" } else { "\n" };
    let counter_exits: Vec<usize> = a.counter_exits(l).iter().map(|e| e.id()).collect();
    let breaks: Vec<Node> = a
        .exits(lp.node, body)
        .into_iter()
        .filter(|e| e.kind_str() == "break_statement" && !counter_exits.contains(&e.id()))
        .collect();
    let cond_rest: Vec<Node> = lp
        .condition
        .map(|c| {
            conjuncts(m, c)
                .into_iter()
                .filter(|c| !is_counter_test(a, lp.node, *c))
                .collect()
        })
        .unwrap_or_default();
    let mut edits = Vec::new();
    let failed = if !cond_rest.is_empty() {
        // `while (!approved && attempts < max)`: it leaves converged only
        // when the rest of its condition is false.
        if !breaks.is_empty() {
            return None;
        }
        for c in &cond_rest {
            if !reevaluable(m, *c) || !declared_before(m, lp.node, *c) {
                return None;
            }
        }
        match cond_rest.as_slice() {
            [one] => m.text(*one).to_string(),
            _ => cond_rest
                .iter()
                .map(|c| conjunct_text(m.text(*c), *c))
                .collect::<Vec<_>>()
                .join(" && "),
        }
    } else {
        let [exit] = breaks.as_slice() else {
            return None;
        };
        let exit = *exit;
        if continues_in(lp.node, body) {
            return None;
        }
        let guards = break_guards(body, exit)?;
        if guards.is_empty() {
            return None;
        }
        if let Some(flag) = flag_set_before(m, lp.node, exit) {
            // `if (r.passed) { ok = true; break; }` with `let ok = false`
            // before the loop and no other write: `ok` is the outcome.
            format!("!{flag}")
        } else {
            let mut refs = Vec::new();
            for g in &guards {
                if !reevaluable(m, *g) {
                    return None;
                }
                refs.extend(bindings_in(m, *g));
            }
            refs.sort_unstable();
            refs.dedup();
            for b in refs {
                let bind = m.scopes.get(b);
                if !contains(lp.node, bind.node) {
                    // Declared before the loop: it must still hold what the
                    // last attempt was judged on.
                    let later_write = bind.writes.iter().any(|w| {
                        contains(lp.node, *w)
                            && (w.start_byte() > exit.start_byte()
                                || in_function_within(*w, lp.node))
                    });
                    if later_write || bind.node.start_byte() > lp.node.start_byte() {
                        return None;
                    }
                    continue;
                }
                let (decl, keyword) = hoistable(m, lp.node, body, exit, b)?;
                let key = (holder.id(), bind.name.clone());
                if hoisted.contains(&key) {
                    return None;
                }
                hoisted.insert(key);
                edits.push(Edit {
                    span: Span::new(lp.node.start_byte(), lp.node.start_byte()),
                    replacement: format!("let {};{nl}{indent}", bind.name),
                });
                edits.push(Edit {
                    span: Span::new(keyword.start_byte(), decl_name_start(decl)?),
                    replacement: String::new(),
                });
            }
            // Before the first attempt a result declared before the loop
            // may hold nothing: read its members with `?.`.
            let pass = guards
                .iter()
                .map(|g| optional_text(m, *g))
                .collect::<Option<Vec<_>>>()?;
            match (guards.as_slice(), pass.as_slice()) {
                ([g], [t]) if is_operand(*g) => format!("!{t}"),
                // `if (!issues.length) break;`: fail when `issues.length`.
                ([g], [_]) if is_negated_operand(m, *g) => {
                    optional_text(m, unparen(g.field("argument")?))?
                }
                ([_], [t]) => format!("!({t})"),
                _ => {
                    let joined = guards
                        .iter()
                        .zip(&pass)
                        .map(|(g, t)| conjunct_text(t, *g))
                        .collect::<Vec<_>>()
                        .join(" && ");
                    format!("!({joined})")
                }
            }
        }
    };
    if !reads_as_convergence(&failed) {
        return None;
    }
    // A loop over a list (`i < steps.length`) that breaks is not retrying
    // one check: its `break` may as well be the stop on a failure.
    if cap.is_some_and(|c| {
        unparen(c).kind_str() == "member_expression"
            && unparen(c)
                .field("property")
                .is_some_and(|p| m.text(p) == "length")
    }) {
        return None;
    }
    let pass_text = describe_pass(&failed);
    let attempts = attempts_of(a, l, cap)
        .map(|n| format!("after {n} attempts"))
        .unwrap_or_else(|| "after the last attempt".to_string());
    let approval = exits_on_approval(a, l);
    // The process is `(inputs, ctx)`: a default-exported helper that takes
    // the context first (`requestApproval(ctx, …)`) is called by code that
    // would carry on after a `return`.
    let in_process = lp.func.is_some_and(|f| {
        let params = &m.functions[f].params;
        let context_second = params.len() >= 2
            && params[1].kind_str() == "identifier"
            && !matches!(m.text(params[0]), "ctx" | "context");
        context_second
            && m.exports_of_fn(f)
                .any(|e| e.source.is_none() && m.is_process_export(&e.name))
    });
    // The SDK's guidance is to loop back on a rejection, never to fail the
    // run (`prompts/templates/breakpoint-handling.md`): in the process
    // itself, a rejected ending returns the outcome instead, with the
    // feedback the loop kept, as the finding's help says.
    let (stop, description) = if approval && in_process {
        let feedback = feedback_kept(m, lp.node, holder)
            .map(|f| format!(", feedback: {f}"))
            .unwrap_or_default();
        (
            format!("return {{ success: false, approved: false{feedback} }};"),
            "after the loop, return the rejected outcome when no round was approved",
        )
    } else {
        let what = if approval {
            "Not approved"
        } else {
            "Did not pass"
        };
        (
            format!("throw new Error(`{what} {attempts} ({pass_text})`);"),
            "fail the run after the loop when its last attempt did not pass",
        )
    };
    edits.push(Edit {
        span: Span::new(lp.node.end_byte(), lp.node.end_byte()),
        replacement: format!("{nl}{indent}if ({failed}) {{{nl}{indent}  {stop}{nl}{indent}}}"),
    });
    Some(Fix {
        description: description.into(),
        edits,
        safe: false,
    })
}

/// The variable an approval loop keeps the last rejection's feedback in:
/// declared in the block that holds the loop, before it, with "feedback"
/// in its name, and written inside the loop (`let lastFeedback = null;`,
/// then `lastFeedback = approval.response || …`).
fn feedback_kept(m: &crate::js::model::JsModel, loop_node: Node, holder: Node) -> Option<String> {
    m.scopes
        .bindings
        .iter()
        .filter(|b| b.name.to_ascii_lowercase().contains("feedback"))
        .filter(|b| b.node.start_byte() < loop_node.start_byte())
        .filter(|b| {
            b.node
                .parent()
                .and_then(|d| d.parent())
                .and_then(|s| s.parent())
                .is_some_and(|block| block.id() == holder.id())
        })
        // Assigned with `=` in the loop (a counter such as `feedbackRounds++`
        // is not the feedback).
        .find(|b| {
            b.writes.iter().any(|w| {
                contains(loop_node, *w)
                    && w.parent().is_some_and(|a| {
                        a.kind_str() == "assignment_expression"
                            && a.field("right").is_some_and(|r| r.kind_str() != "number")
                    })
            })
        })
        .map(|b| b.name.clone())
}

/// Words that make a loop's exit a stop rather than convergence
/// (`!stoppedEarly`, `if (shouldBreak) break;`).
const STOP_WORDS: &[&str] = &[
    "stop",
    "stopped",
    "break",
    "fail",
    "failed",
    "failure",
    "failures",
    "error",
    "errors",
    "abort",
    "aborted",
    "halt",
    "halted",
    "cancel",
    "cancelled",
    "canceled",
    "blocked",
    "skip",
    "skipped",
    "escalate",
    "escalated",
];

/// Whether the check made after the loop (`failed`, true when the last
/// attempt did not pass) reads as "not converged": it names no stop or
/// failure, and does not hold on a success (`if (!step.success) break;`
/// leaves on a failure: `failed` would be `step.success`).
fn reads_as_convergence(failed: &str) -> bool {
    let ws: Vec<String> = super::name_words(failed);
    if ws.iter().any(|w| STOP_WORDS.contains(&w.as_str())) {
        return false;
    }
    failed.starts_with('!') || !ws.iter().any(|w| SUCCESS_WORDS.contains(&w.as_str()))
}

/// Words that name a pass: a check that fails the run when one holds
/// would fail converged runs.
const SUCCESS_WORDS: &[&str] = &[
    "success",
    "succeeded",
    "successful",
    "pass",
    "passed",
    "passes",
    "ok",
    "approved",
    "valid",
    "verified",
    "complete",
    "completed",
    "done",
    "converged",
];

/// The whitespace before `at` on its line, when only whitespace precedes it.
fn line_indent(src: &str, at: usize) -> Option<&str> {
    let start = src.get(..at)?.rfind('\n').map_or(0, |i| i + 1);
    let indent = src.get(start..at)?;
    indent
        .chars()
        .all(|c| c == ' ' || c == '\t')
        .then_some(indent)
}

/// What the error names as the condition that did not hold (`approved`
/// for `!approved`; `score < target still holds`), fit for a template
/// literal.
fn describe_pass(failed: &str) -> String {
    let simple = |t: &str| {
        t.chars()
            .all(|c| c.is_alphanumeric() || matches!(c, '_' | '$' | '.' | '?'))
    };
    let pass = match failed.strip_prefix('!') {
        Some(rest) if simple(rest) => rest.to_string(),
        Some(rest) => match rest.strip_prefix('(').and_then(|r| r.strip_suffix(')')) {
            Some(inner) => inner.to_string(),
            None => format!("{failed} still holds"),
        },
        None => format!("{failed} still holds"),
    };
    let pass = pass.replace("?.", ".");
    pass.replace('\\', "\\\\")
        .replace('`', "\\`")
        .replace("${", "\\${")
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

/// Whether an expression can be evaluated again after the loop without
/// doing anything: names, members, literals and operators — no call, no
/// `await`, no assignment.
fn reevaluable(m: &JsModel, expr: Node) -> bool {
    let mut ok = true;
    walk(expr, |n| {
        if !ok {
            return false;
        }
        match n.kind_str() {
            "identifier" => {
                ok = m.scopes.binding_of(n).is_some()
                    || matches!(m.text(n), "undefined" | "NaN" | "Infinity");
            }
            "member_expression"
            | "subscript_expression"
            | "property_identifier"
            | "parenthesized_expression"
            | "binary_expression"
            | "ternary_expression"
            | "number"
            | "string"
            | "string_fragment"
            | "escape_sequence"
            | "true"
            | "false"
            | "null"
            | "optional_chain" => {}
            "unary_expression" => {
                ok = matches!(
                    n.field("operator").map(|o| m.text(o)),
                    Some("!" | "-" | "+" | "typeof")
                );
            }
            _ => ok = !n.is_named(),
        }
        ok
    });
    ok
}

/// Whether every variable an expression reads is declared before the loop
/// `lp`, outside it, and not written in a function within it.
fn declared_before(m: &JsModel, lp: Node, expr: Node) -> bool {
    bindings_in(m, expr).into_iter().all(|b| {
        let bind = m.scopes.get(b);
        !contains(lp, bind.node)
            && bind.node.start_byte() < lp.start_byte()
            && !bind
                .writes
                .iter()
                .any(|w| contains(lp, *w) && in_function_within(*w, lp))
    })
}

/// Whether `n` is inside a function nested in `outer`.
fn in_function_within(n: Node, outer: Node) -> bool {
    let mut cur = n;
    while let Some(p) = cur.parent() {
        if p.id() == outer.id() {
            return false;
        }
        if is_function(p) {
            return true;
        }
        cur = p;
    }
    false
}

/// Whether the loop's body has a `continue` of its own: the last attempt
/// may then skip the convergence test, and what it leaves behind was
/// never judged.
fn continues_in(lp: Node, body: Node) -> bool {
    let mut found = false;
    walk(body, |n| {
        if found || is_function(n) {
            return false;
        }
        if n.kind_str() == "continue_statement" {
            found = n.field("label").is_some() || !nested_loop_between(n, lp);
        }
        !found
    });
    found
}

fn nested_loop_between(n: Node, lp: Node) -> bool {
    let mut cur = n;
    while let Some(p) = cur.parent() {
        if p.id() == lp.id() {
            return false;
        }
        if matches!(
            p.kind_str(),
            "for_statement" | "for_in_statement" | "while_statement" | "do_statement"
        ) {
            return true;
        }
        cur = p;
    }
    false
}

/// The conditions under which `exit` runs, when it sits only in blocks,
/// `if` consequences and `try` bodies of `body` (`None` for an `else`, a
/// `switch`, a `catch`).
fn break_guards<'t>(body: Node<'t>, exit: Node<'t>) -> Option<Vec<Node<'t>>> {
    let mut out = Vec::new();
    let mut n = exit;
    while let Some(p) = n.parent() {
        if p.id() == body.id() {
            return Some(out);
        }
        match p.kind_str() {
            "statement_block" => {}
            "if_statement" if p.field("consequence") == Some(n) => {
                out.push(unparen(p.field("condition")?));
            }
            "try_statement" if p.field("body") == Some(n) => {}
            _ => return None,
        }
        n = p;
    }
    None
}

/// `ok` in `if (r.passed) { ok = true; break; }`, when `ok` is declared
/// before the loop as `false` and that is its only write: it is true after
/// the loop exactly when the loop converged.
fn flag_set_before<'t>(m: &JsModel<'t>, lp: Node<'t>, exit: Node<'t>) -> Option<&'t str> {
    let block = exit
        .parent()
        .filter(|b| b.kind_str() == "statement_block")?;
    block.named().find_map(|st| {
        if st.start_byte() >= exit.start_byte() || st.kind_str() != "expression_statement" {
            return None;
        }
        let assign = st
            .named_child(0)
            .filter(|e| e.kind_str() == "assignment_expression")?;
        let left = assign
            .field("left")
            .filter(|l| l.kind_str() == "identifier")?;
        if unparen(assign.field("right")?).kind_str() != "true" {
            return None;
        }
        let b = m.scopes.binding_of(left)?;
        let bind = m.scopes.get(b);
        let declared_false = bind.init.is_some_and(|i| unparen(i).kind_str() == "false");
        (declared_false
            && bind.writes.len() == 1
            && !contains(lp, bind.node)
            && bind.node.start_byte() < lp.start_byte())
        .then(|| m.text(left))
    })
}

/// A `const`/`let` of the loop's body, before `exit`, declaring only `b`
/// with a value, never reassigned, read only after it and not in a
/// function: declared before the loop instead, each attempt assigns it and
/// it outlives the loop. Returns the declaration and its keyword.
fn hoistable<'t>(
    m: &JsModel<'t>,
    lp: Node<'t>,
    body: Node<'t>,
    exit: Node<'t>,
    b: BindingId,
) -> Option<(Node<'t>, Node<'t>)> {
    let bind = m.scopes.get(b);
    let declarator = bind.node.parent().filter(|d| {
        d.kind_str() == "variable_declarator"
            && d.field("name") == Some(bind.node)
            && d.field("value").is_some()
    })?;
    let decl = declarator
        .parent()
        .filter(|d| d.kind_str() == "lexical_declaration" && d.parent() == Some(body))?;
    if decl.named().count() != 1 || decl.start_byte() >= exit.start_byte() {
        return None;
    }
    if !bind.writes.is_empty()
        || bind
            .reads
            .iter()
            .any(|r| r.start_byte() < declarator.end_byte() || in_function_within(*r, lp))
    {
        return None;
    }
    // The name must not be taken where the loop stands: a new declaration
    // there would clash with it or shadow it.
    let outer = m.scopes.scopes.get(bind.scope)?.parent?;
    if m.scopes.lookup(outer, &bind.name).is_some() {
        return None;
    }
    let keyword = decl.child(0)?;
    matches!(m.text(keyword), "const" | "let").then_some((declarator, keyword))
}

/// Where a declarator's name starts: the keyword before it is removed up
/// to there (`const x = …` → `x = …`).
fn decl_name_start(declarator: Node) -> Option<usize> {
    declarator.field("name").map(|n| n.start_byte())
}

/// `!x` for a plain operand `x`.
fn is_negated_operand(m: &JsModel, n: Node) -> bool {
    n.kind_str() == "unary_expression"
        && n.field("operator").is_some_and(|o| m.text(o) == "!")
        && n.field("argument").is_some_and(is_operand)
}

/// A plain operand: no operator binds looser than a `!` before it.
fn is_operand(n: Node) -> bool {
    matches!(
        unparen(n).kind_str(),
        "identifier" | "member_expression" | "subscript_expression" | "true" | "false"
    ) || n.kind_str() == "parenthesized_expression"
}

/// The text `t` of the condition `c` as one operand of `&&`: in
/// parentheses when an operator in it binds more loosely.
fn conjunct_text(t: &str, c: Node) -> String {
    let loose = match c.kind_str() {
        "binary_expression" => c
            .field("operator")
            .is_some_and(|o| matches!(o.kind_str(), "||" | "??")),
        "ternary_expression" | "assignment_expression" | "sequence_expression" => true,
        _ => false,
    };
    if loose {
        format!("({t})")
    } else {
        t.to_string()
    }
}

/// The text of `expr` with the first member read of each variable made
/// optional (`r.passed` → `r?.passed`).
fn optional_text(m: &JsModel, expr: Node) -> Option<String> {
    let src = m.src();
    let mut inserts = Vec::new();
    walk(expr, |n| {
        if matches!(n.kind_str(), "member_expression" | "subscript_expression") {
            let object = n.field("object");
            if let Some(o) = object.filter(|o| o.kind_str() == "identifier") {
                let after = &src[o.end_byte()..];
                let trimmed = after.trim_start();
                let at = o.end_byte() + (after.len() - trimmed.len());
                if trimmed.starts_with("?.") {
                } else if n.kind_str() == "member_expression" && trimmed.starts_with('.') {
                    inserts.push((at, "?"));
                } else if trimmed.starts_with('[') {
                    inserts.push((at, "?."));
                }
            }
        }
        !is_function(n)
    });
    let mut out = String::new();
    let mut pos = expr.start_byte();
    for (at, text) in inserts {
        out.push_str(src.get(pos..at)?);
        out.push_str(text);
        pos = at;
    }
    out.push_str(src.get(pos..expr.end_byte())?);
    Some(out)
}

/// How many attempts the loop makes, when its counter starts at 0 and
/// stays below the cap or starts at 1 and reaches it: the cap as written
/// (a number, or `${name}` for a variable declared before the loop).
fn attempts_of(a: &LoopAnalysis, l: LoopId, cap: Option<Node>) -> Option<String> {
    let m = a.model();
    let lp = &m.loops[l];
    let cap = cap?;
    let cmp = cap
        .parent()
        .filter(|p| p.kind_str() == "binary_expression")?;
    let counter_left = cmp.field("right") == Some(cap);
    let counter = cmp.field(if counter_left { "left" } else { "right" })?;
    let op = m.text(cmp.field("operator")?);
    let strict = match (op, counter_left) {
        ("<", true) | (">", false) => true,
        ("<=", true) | (">=", false) => false,
        _ => return None,
    };
    let b = m.scopes.binding_of(unparen(counter))?;
    let start = m.text(unparen(m.scopes.get(b).init?));
    if (strict && start != "0") || (!strict && start != "1") {
        return None;
    }
    let cap = unparen(cap);
    match cap.kind_str() {
        "number" => Some(m.text(cap).to_string()),
        "identifier" | "member_expression"
            if reevaluable(m, cap) && declared_before(m, lp.node, cap) =>
        {
            Some(format!("${{{}}}", m.text(cap)))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::{claim_in, describe_pass, reads_as_convergence};
    use crate::diagnostic::Diagnostic;

    fn lint(body: &str) -> Vec<Diagnostic> {
        super::super::testing::lint_process_body("exhausted-retry-unhandled", body)
    }

    /// The replacements of the one finding's fix.
    fn fix_of(body: &str) -> Option<Vec<String>> {
        let ds = lint(body);
        assert_eq!(ds.len(), 1, "{ds:#?}");
        let fix = ds[0].fix.as_ref()?;
        assert!(!fix.safe);
        Some(fix.edits.iter().map(|e| e.replacement.clone()).collect())
    }

    /// A member of an object from before the loop, at any depth, keeps the
    /// last check's verdict: read after the loop, it tells the endings
    /// apart; never read, it does not.
    #[test]
    fn a_verdict_kept_in_a_nested_member_is_an_outcome() {
        let kept = "  const s = { sub: { verified: false } };\n  for (let a = 1; a <= 3; a++) {\n    const v = await ctx.task(reviewTask, { a });\n    s.sub.verified = v.verified === true;\n    if (v.verified === true) break;\n  }\n  ROUTE\n  await ctx.task(fixTask, {});";
        let read = kept.replace("ROUTE", "if (!s.sub.verified) return { ok: false };");
        assert!(lint(&read).is_empty(), "{:#?}", lint(&read));
        let unread = kept.replace("ROUTE", "");
        assert_eq!(lint(&unread).len(), 1, "{:#?}", lint(&unread));
        // Another field of the result kept there records nothing of how
        // the loop ended.
        let other = kept
            .replace(
                "s.sub.verified = v.verified === true;",
                "s.sub.note = v.summary;",
            )
            .replace("ROUTE", "log(s.sub.note);");
        assert_eq!(lint(&other).len(), 1, "{:#?}", lint(&other));
    }

    /// A counter shown as a number before the stake is read, but says
    /// nothing of how the loop ended: the message does not call it unread.
    #[test]
    fn a_counter_shown_as_a_count_is_named_as_such() {
        // A chain of two loops over one check (as users write them), the
        // next phase, then a deploy after a breakpoint that shows the
        // second loop's count.
        let ds = lint("  let first = false;\n  let n = 0;\n  while (!first && n < 3) {\n    n++;\n    const r = await ctx.task(reviewTask, { part: 'a' });\n    first = r.passed;\n  }\n  let ok = false;\n  let round = 0;\n  while (!ok && round < 3) {\n    round++;\n    const r = await ctx.task(reviewTask, { part: 'a' });\n    ok = r.passed;\n  }\n  await ctx.task(fixTask, {});\n  await ctx.breakpoint({ question: `Build converged in ${round} iterations. Deploy?` });\n  await ctx.task(deployTask, {});");
        assert_eq!(ds.len(), 1, "{ds:#?}");
        assert!(
            ds[0]
                .message
                .contains("`ok` is not read before `ctx.task(deployTask, …)`")
                && ds[0]
                    .message
                    .contains("(`round` is, but only as a count of rounds"),
            "{}",
            ds[0].message
        );
        // A flag read after the next phase is named for what it is.
        let ds = lint("  let first = false;\n  let n = 0;\n  while (!first && n < 3) {\n    n++;\n    const r = await ctx.task(reviewTask, { part: 'a' });\n    first = r.passed;\n  }\n  let ok = false;\n  let round = 0;\n  while (!ok && round < 3) {\n    round++;\n    const r = await ctx.task(reviewTask, { part: 'a' });\n    ok = r.passed;\n  }\n  await ctx.task(fixTask, {});\n  ctx.log(`status: ${ok}`);\n  await ctx.task(deployTask, {});");
        assert_eq!(ds.len(), 1, "{ds:#?}");
        assert!(
            ds[0]
                .message
                .contains("(`ok` is read only after the next phase was dispatched)")
                && !ds[0].message.contains("`ok` is, but only as a count"),
            "{}",
            ds[0].message
        );
    }

    #[test]
    fn the_fix_checks_the_flag_of_the_condition() {
        let edits = fix_of(
            "  let ok = false;\n  let n = 0;\n  while (!ok && n < 3) {\n    n++;\n    const r = await ctx.task(reviewTask, {});\n    ok = r.passed;\n  }\n  await ctx.task(fixTask, {});",
        );
        assert_eq!(
            edits.as_deref(),
            Some(&["\n  if (!ok) {\n    throw new Error(`Did not pass after 3 attempts (ok)`);\n  }".to_string()][..])
        );
    }

    #[test]
    fn a_result_declared_in_the_loop_is_declared_before_it() {
        let edits = fix_of(
            "    for (let a = 1; a <= inputs.max; a++) {\n      const d = await ctx.breakpoint({ question: 'Ok?' });\n      if (d.approved) break;\n    }\n    await ctx.task(fixTask, {});",
        )
        .unwrap_or_default();
        assert_eq!(edits.len(), 3, "{edits:?}");
        assert_eq!(edits[0], "let d;\n    ");
        assert_eq!(edits[1], "");
        // In the process itself a rejected ending returns its outcome: the
        // SDK's guidance is to loop back on a rejection, never to fail.
        assert_eq!(
            edits[2],
            "\n    if (!d?.approved) {\n      return { success: false, approved: false };\n    }"
        );
    }

    /// The feedback the approval loop keeps goes with the returned outcome;
    /// in a helper, where a return would let its caller carry on, the fix
    /// fails the run and its message names the cap.
    #[test]
    fn an_approval_loop_returns_its_feedback_in_the_process_and_throws_in_a_helper() {
        let edits = fix_of(
            "  let lastFeedback = null;\n  let approved = false;\n  for (let a = 0; a < 3; a++) {\n    const d = await ctx.breakpoint({ question: 'Ok?' });\n    if (d.approved) { approved = true; break; }\n    lastFeedback = d.response;\n  }\n  await ctx.task(fixTask, {});",
        )
        .unwrap_or_default();
        assert_eq!(
            edits.last().map(String::as_str),
            Some("\n  if (!approved) {\n    return { success: false, approved: false, feedback: lastFeedback };\n  }"),
            "{edits:?}"
        );
        let edits = fix_of(
            "  const ask = async () => {\n    for (let a = 1; a <= inputs.max; a++) {\n      const d = await ctx.breakpoint({ question: 'Ok?' });\n      if (d.approved) break;\n    }\n    await ctx.task(fixTask, {});\n  };\n  await ask();",
        )
        .unwrap_or_default();
        assert!(
            edits
                .last()
                .is_some_and(|e| e.contains("if (!d?.approved) {")
                    && e.contains("`Not approved after ${inputs.max} attempts (d.approved)`")),
            "{edits:?}"
        );
    }

    /// A CommonJS module names its process in `module.exports = { process }`:
    /// the approval loop there returns, as in an ES module.
    #[test]
    fn a_commonjs_process_exported_by_shorthand_returns_the_outcome() {
        let src = "const { defineTask } = require('@a5c-ai/babysitter-sdk');\n\
                   const fixTask = defineTask('fix', () => ({ kind: 'agent', labels: ['f'] }));\n\
                   async function process(inputs, ctx) {\n\
                   \x20 for (let a = 0; a < 3; a++) {\n\
                   \x20   const d = await ctx.breakpoint({ question: 'Ok?' });\n\
                   \x20   if (d.approved) break;\n\
                   \x20 }\n\
                   \x20 await ctx.task(fixTask, {});\n\
                   }\n\
                   module.exports = { process };\n";
        let ds = super::super::testing::lint_source("exhausted-retry-unhandled", src);
        assert_eq!(ds.len(), 1, "{ds:#?}");
        let last = ds[0]
            .fix
            .as_ref()
            .and_then(|f| f.edits.last())
            .map(|e| e.replacement.clone())
            .unwrap_or_default();
        assert!(
            last.contains("return { success: false, approved: false }"),
            "{last}"
        );
    }

    /// A counter with "feedback" in its name is not the feedback; a helper
    /// default-exported with the context first is not the process.
    #[test]
    fn the_feedback_is_assigned_and_the_process_takes_inputs_first() {
        let edits = fix_of(
            "  let feedbackRounds = 0;\n  let lastFeedback = null;\n  let approved = false;\n  for (let a = 0; a < 3; a++) {\n    const d = await ctx.breakpoint({ question: 'Ok?' });\n    if (d.approved) { approved = true; break; }\n    feedbackRounds++;\n    lastFeedback = d.response;\n  }\n  await ctx.task(fixTask, {});",
        )
        .unwrap_or_default();
        assert!(
            edits
                .last()
                .is_some_and(|e| e.contains("feedback: lastFeedback }")),
            "{edits:?}"
        );
        let src = "export default async function requestApproval(ctx, question) {\n  let approved = false;\n  for (let a = 0; a < 3; a++) {\n    const d = await ctx.breakpoint({ question, title: 'Approve' });\n    if (d.approved) { approved = true; break; }\n  }\n  ctx.log('approved');\n}\n";
        let ds = crate::rules::testing::lint_source("exhausted-retry-unhandled", src);
        let edits: Vec<String> = ds
            .iter()
            .filter_map(|d| d.fix.as_ref())
            .flat_map(|f| f.edits.iter().map(|e| e.replacement.clone()))
            .collect();
        assert!(
            edits.iter().any(|e| e.contains("throw new Error"))
                && !edits.iter().any(|e| e.contains("return {")),
            "{ds:#?}"
        );
    }

    /// `true` written on the last attempt to a flag other than the one the
    /// loop converges on marks the failure, not a pass; the outcome is
    /// returned.
    #[test]
    fn a_failure_flag_on_the_last_attempt_is_not_a_forced_success() {
        let body = "  let n = 0;\n  let ok = false;\n  let stuck = false;\n  while (!ok && n < 3) {\n    n++;\n    const r = await ctx.task(reviewTask, {});\n    if (r.passed) {\n      ok = true;\n    } else if (n >= 3) {\n      stuck = true;\n    }\n  }\n  return { success: ok, stuck };";
        assert!(lint(body).is_empty(), "{:#?}", lint(body));
        // The loop's own flag forced on the last attempt still is one.
        let forced = body.replace("stuck = true;", "ok = true;");
        assert_eq!(lint(&forced).len(), 1, "{:#?}", lint(&forced));
        // So is a flag named for success beside a condition that is not a
        // plain flag.
        let body = "  let n = 0;\n  let ok = false;\n  let issues = inputs.issues;\n  while (issues.length > 0 && n < 3) {\n    n++;\n    const r = await ctx.task(fixTask, {});\n    issues = r.remaining;\n    if (n >= 3) {\n      ok = true;\n    }\n  }\n  if (issues.length > 0) ctx.log('left', issues);\n  await ctx.task(fixTask, {});\n  return { ok };";
        assert_eq!(lint(body).len(), 1, "{body}\n{:#?}", lint(body));
    }

    #[test]
    fn no_fix_when_the_outcome_is_not_determined() {
        // The name is taken where the loop stands.
        let taken = "  const d = 1;\n  for (let a = 0; a < 3; a++) {\n    const d = await ctx.breakpoint({ question: 'Ok?' });\n    if (d.approved) break;\n  }\n  await ctx.task(fixTask, { d });";
        assert_eq!(fix_of(taken), None);
        // A loop over a list that stops on a failure.
        let list = "  for (let i = 0; i < inputs.steps.length; i++) {\n    const r = await ctx.task(reviewTask, { i });\n    if (r.passed) break;\n  }\n  await ctx.task(fixTask, {});";
        assert_eq!(fix_of(list), None);
        // A read in a callback would see one shared variable instead of
        // one per attempt.
        let captured = "  for (let a = 0; a < 3; a++) {\n    const r = await ctx.task(reviewTask, {});\n    inputs.later.push(() => r);\n    if (r.passed) break;\n  }\n  await ctx.task(fixTask, {});";
        assert_eq!(fix_of(captured), None);
    }

    #[test]
    fn a_stop_or_a_failure_is_not_convergence() {
        assert!(reads_as_convergence("!approved"));
        assert!(reads_as_convergence("needsRemediation"));
        assert!(!reads_as_convergence("!stoppedEarly"));
        assert!(!reads_as_convergence("!shouldBreak"));
        // `if (!step.success) break;` leaves on a failure.
        assert!(!reads_as_convergence("step?.success"));
        assert_eq!(describe_pass("!r?.passed"), "r.passed");
        assert_eq!(describe_pass("!(a && b)"), "a && b");
        assert_eq!(
            describe_pass("score < target"),
            "score < target still holds"
        );
        assert_eq!(describe_pass("!`${x}`"), "!\\`\\${x}\\` still holds");
    }

    #[test]
    fn claims_are_statements() {
        assert_eq!(
            claim_in("Database layer applied. Build passes. Please test.").as_deref(),
            Some("Build passes")
        );
        assert_eq!(
            claim_in("Fix implemented and build succeeds. Approve?").as_deref(),
            Some("build succeeds")
        );
        assert_eq!(claim_in("Does the build pass?"), None);
        assert_eq!(claim_in("Approve once the tests pass."), None);
        assert_eq!(claim_in("Tests passed:  … . APK built:  … "), None);
        assert_eq!(claim_in("Visual polish complete. Approve?"), None);
    }

    #[test]
    fn words_split_names() {
        let w: Vec<String> = super::super::name_words("logProgressTask");
        assert_eq!(w, ["log", "progress", "task"]);
        let w: Vec<String> = super::super::name_words("'sdd-sync-persistence'");
        assert_eq!(w, ["sdd", "sync", "persistence"]);
        let w: Vec<String> = super::super::name_words("logisticsPlanningTask");
        assert_eq!(w, ["logistics", "planning", "task"]);
    }
}
