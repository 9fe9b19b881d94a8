//! `exhausted-retry-unhandled`: a bounded retry loop whose two endings —
//! converged, or out of attempts — look the same to the code after it, or
//! that forces success on its last attempt.

use std::collections::BTreeSet;

use crate::js::syntax::tree::Node;

use super::{Area, Category, JsContext, ReportMeta, Rule, RuleMeta, Sink, Sites};
use crate::diagnostic::Severity;
use crate::js::analysis::effects::method_path;
use crate::js::analysis::loops::{comparisons_in, conjuncts, walk, Bound, LoopAnalysis};
use crate::js::model::scope::BindingId;
use crate::js::model::{objects, TaskTarget};
use crate::js::model::{LoopId, LoopKind};
use crate::js::syntax::{contains, is_function, span, string_value, unparen};
use crate::js::{EffectKind, JsModel};
use crate::rules::convergence::{call_name, excerpt, loop_header};

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
    fix: crate::rules::FixAvailability::Never,
};

const HELP: &str = "record an explicit outcome (`let outcome = 'failed'`; `outcome = 'passed'` on \
     success; `'escalated'` after a breakpoint that approved) and branch on it after the loop: \
     `if (outcome !== 'passed') { … }` — ask a breakpoint and branch on `.approved`, or fail";

/// For a loop that leaves on a breakpoint's approval: asking again after
/// the cap only restarts it; what is missing is the rejected ending.
const APPROVAL_HELP: &str = "keep whether a round was approved (`let approved = false`; \
     `approved = true` before the `break`) and, when none was, stop with the feedback: \
     `if (!approved) throw new Error('not approved: ' + feedback)`, or return a \
     failure that carries it (`return { success: false, feedback }`)";

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
            for forced in forced_successes(&a, l) {
                sink.push(forced_diag(m, sink, forced));
            }
            // When every cap exit throws or returns, falling out of the
            // loop can only mean it converged.
            let exhaustion_falls_through = matches!(bound, Bound::Counter { .. })
                || a.counter_exits(l)
                    .iter()
                    .any(|e| e.kind_str() == "break_statement");
            if exhaustion_falls_through {
                let cap = match bound {
                    Bound::Counter { comparison } | Bound::GuardedExit { comparison, .. } => {
                        cap_of(&a, lp.node, comparison)
                    }
                    _ => None,
                };
                check_outcome_read(&a, l, &retry, cap, sink);
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
    }
    is_retry.then_some(Retry {
        carriers,
        histories,
    })
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
            let root = n
                .field("left")
                .map(unparen)
                .filter(|l| l.kind_str() == "member_expression")
                .and_then(member_root)
                .and_then(|r| m.binding_of_expr(r));
            if let Some(b) = root.filter(|b| !contains(lp, m.scopes.get(*b).node)) {
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
    let header = loop_header(m, lp);
    let names: Vec<String> = retry
        .carriers
        .iter()
        .map(|b| format!("`{}`", m.scopes.get(*b).name))
        .collect();
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
    // The variable's name, or an inline definition's `name`/`id`/`labels`
    // (not its instructions, which may mention anything).
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
        .iter()
        .any(|n| words(n).any(|w| BOOKKEEPING_WORDS.contains(&w.as_str())))
}

/// The lower-case words of a name: `logProgressTask`, `log-progress` and
/// `['bookkeeping']` all split into theirs.
fn words(name: &str) -> impl Iterator<Item = String> + '_ {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut prev_lower = false;
    for ch in name.chars() {
        if !ch.is_alphanumeric() {
            if !cur.is_empty() {
                out.push(std::mem::take(&mut cur));
            }
            prev_lower = false;
            continue;
        }
        if ch.is_uppercase() && prev_lower && !cur.is_empty() {
            out.push(std::mem::take(&mut cur));
        }
        prev_lower = ch.is_lowercase() || ch.is_ascii_digit();
        cur.extend(ch.to_lowercase());
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out.into_iter()
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
        let target_outer = m.binding_of_expr(left).is_some_and(|b| outer.contains(&b));
        if !marks_success || !target_outer {
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
    .with_related(sink.location(span(bp)), "the breakpoint asked on the last attempt")
    .with_help(
        "read the breakpoint's answer and record the outcome apart from a pass: `const decision = \
         await ctx.breakpoint(…); if (!decision.approved) throw new Error(…); outcome = 'escalated';`",
    )
}

#[cfg(test)]
mod tests {
    use super::words;

    #[test]
    fn words_split_names() {
        let w: Vec<String> = words("logProgressTask").collect();
        assert_eq!(w, ["log", "progress", "task"]);
        let w: Vec<String> = words("'sdd-sync-persistence'").collect();
        assert_eq!(w, ["sdd", "sync", "persistence"]);
        let w: Vec<String> = words("logisticsPlanningTask").collect();
        assert_eq!(w, ["logistics", "planning", "task"]);
    }
}
