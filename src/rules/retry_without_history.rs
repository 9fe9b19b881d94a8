//! `retry-without-history`: a review/fix loop whose fixer sees only the
//! latest check result, never what was already tried.

use std::collections::HashSet;

use tree_sitter::Node;

use super::convergence::{call_name, loop_header};
use super::{Area, Category, JsContext, ReportMeta, Rule, RuleMeta, Sink, Sites};
use crate::diagnostic::Severity;
use crate::js::loops::{mentions, walk, Bound, LoopAnalysis};
use crate::js::model::{CallId, LoopKind};
use crate::js::scope::BindingId;
use crate::js::syntax::{contains, is_function, span, unparen, NodeExt};
use crate::js::{EffectKind, JsModel};

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
            let mut reported: HashSet<&str> = HashSet::new();
            // A fixer is a later task whose args carry an earlier task's
            // result (`issues: review.issues`).
            for (i, &check) in tasks.iter().enumerate() {
                let results = result_bindings(m, m.calls[check].node);
                if results.is_empty() {
                    continue;
                }
                for &fix in &tasks[i + 1..] {
                    let t = target(m, fix);
                    if t == target(m, check) || reported.contains(t) {
                        continue;
                    }
                    let Some(args) = m.calls[fix].args.get(1).copied() else {
                        continue;
                    };
                    let Some(&carried) = results.iter().find(|b| mentions(m, args, **b)) else {
                        continue;
                    };
                    if carries_history(m, lp.node, args, &accumulators) {
                        continue;
                    }
                    reported.insert(t);
                    let fix_call = &m.calls[fix];
                    let check_call = &m.calls[check];
                    sink.push(
                        sink.diag(
                            span(fix_call.node),
                            format!(
                                "the fixer `{}` in the loop `{}` gets only this round's `{}` and \
                                 nothing that accumulates across rounds: each round starts from \
                                 scratch and can repeat an approach that already failed",
                                call_name(m, fix_call),
                                loop_header(m, lp),
                                m.scopes.get(carried).name,
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
    while let Some(p) = m.parent(n) {
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
    walk(m, pattern, |n| {
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
    walk(m, args, |n| {
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
