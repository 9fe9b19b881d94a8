//! Good practices found *present* in a module, each with the lines that
//! show it, for the retrospective's "What went well": review loops (with a
//! separate fixer, a cap and an escalation at the cap), loops that escalate
//! when their counter runs out, breakpoints that branch on the decision and
//! keep the feedback, keyed repeated dispatches, reviewer prompts that
//! demand independent verification, and parallel batches that snapshot the
//! shared state before and sort the results after. Kept small: the facts
//! are cached per file.

use std::collections::BTreeSet;
use std::sync::LazyLock;

use regex::Regex;
use serde::{Deserialize, Serialize};

use crate::js::analysis::flow::{uses_of, Use};
use crate::js::analysis::loops::{walk, Bound, LoopAnalysis};
use crate::js::analysis::repeat::invocation_key;
use crate::js::analysis::repeat::repetition;
use crate::js::model::{EffectKind, JsModel, TaskTarget};
use crate::js::syntax::tree::Node;
use crate::js::syntax::{next_statement, unparen};

/// A loop that dispatches a reviewing task.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ReviewLoop {
    pub line: u32,
    /// The reviewing task, as the code names it.
    pub reviewer: String,
    /// A different task the loop dispatches to fix what the review found.
    pub fixer: Option<String>,
    /// Line of the comparison that caps the loop.
    pub cap: Option<u32>,
    /// Line of the breakpoint or `throw` that runs at the cap.
    pub escalation: Option<u32>,
    /// Line of the enclosing function (loops of one function run in
    /// sequence).
    pub function: Option<u32>,
}

/// A counter-bounded loop that escalates (breakpoint or `throw`) when the
/// counter reaches its cap, instead of going on silently.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CappedLoop {
    pub line: u32,
    pub cap: u32,
    pub escalation: u32,
    /// `breakpoint` or `throw`.
    pub how: String,
}

/// A breakpoint whose result is branched on and whose feedback is read.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct GatedBreakpoint {
    pub line: u32,
    pub decision: String,
    pub feedback: String,
}

/// A reviewing prompt that tells the reviewer to verify independently.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct VerifyingPrompt {
    /// The task definition or the prompt variable.
    pub name: String,
    pub line: u32,
}

/// A parallel batch, with the snapshot it is given and the sort after it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct OrderedBatch {
    pub line: u32,
    /// (line, name) of the copy of shared state the batch reads.
    pub snapshot: Option<(u32, String)>,
    /// Line of the sort of the batch's results.
    pub sorted: Option<u32>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Practices {
    pub review_loops: Vec<ReviewLoop>,
    pub capped_loops: Vec<CappedLoop>,
    pub gated_breakpoints: Vec<GatedBreakpoint>,
    /// Lines of repeated `ctx.task` calls that pass an explicit key.
    pub keyed_repeats: Vec<u32>,
    pub verifying_prompts: Vec<VerifyingPrompt>,
    pub ordered_batches: Vec<OrderedBatch>,
}

fn re(pattern: &str) -> Option<Regex> {
    Regex::new(pattern).ok()
}

fn matches(re: &LazyLock<Option<Regex>>, text: &str) -> bool {
    re.as_ref().is_some_and(|r| r.is_match(text))
}

static REVIEWER: LazyLock<Option<Regex>> =
    LazyLock::new(|| re(r"(?i)review|audit|verif|inspect|critic|judge|assess|evaluat"));
static FIXER: LazyLock<Option<Regex>> =
    LazyLock::new(|| re(r"(?i)fix|repair|remediat|revis|patch|correct"));
/// Prompt text telling a reviewer not to take the implementer's word.
static VERIFY: LazyLock<Option<Regex>> = LazyLock::new(|| {
    re(
        r"(?i)(?:do not|don't|never|not) trust|distrust|verify (?:\w+ )?independently|independently verif|read (?:the )?(?:actual )?(?:code|source|diff)|(?:don't|do not) take .{0,30}(?:word|face value)",
    )
});
static DECISION: LazyLock<Option<Regex>> = LazyLock::new(|| {
    re(r"(?i)approv|decision|decide|accept|reject|choice|chose|select|option|confirm|proceed")
});
static FEEDBACK: LazyLock<Option<Regex>> = LazyLock::new(|| {
    re(r"(?i)feedback|comment|reason|response|note|message|instruction|answer|text|input")
});

pub fn practices(m: &JsModel) -> Practices {
    let line = |n: Node| m.file.pos(n.start_byte()).line;
    let la = LoopAnalysis::new(m);
    let mut p = Practices::default();
    for (l, lp) in m.loops.iter().enumerate() {
        let Some(body) = lp.body else {
            continue;
        };
        let bound = la.bound(l);
        let cap = match bound {
            Bound::Counter { comparison } | Bound::GuardedExit { comparison, .. } => {
                Some(comparison)
            }
            _ => None,
        };
        let escalation = cap.and_then(|c| {
            if let Bound::GuardedExit { exit, .. } = bound {
                if exit.kind_str() == "throw_statement" {
                    return Some((exit, "throw"));
                }
            }
            let counter = Counter::of(m, &la, lp.node, c)?;
            if let Some(inside) = escalation_in(m, body, &counter) {
                return Some(inside);
            }
            // After the loop, the escalation tests the counter at its cap,
            // or what the loop left behind: its condition's variables or a
            // flag it writes.
            let mut names = BTreeSet::new();
            if let Some(cond) = lp.condition {
                names.extend(identifiers(m, cond));
            }
            for b in la.outer_writes(l) {
                if let Some(binding) = m.scopes.bindings.get(b) {
                    names.insert(binding.name.clone());
                }
            }
            next_statement(lp.node)
                .filter(|n| n.kind_str() == "if_statement")
                .filter(|n| {
                    n.field("condition")
                        .is_some_and(|c| match counter.reached(m, c) {
                            Some(reached) => reached,
                            None => !identifiers(m, c).is_disjoint(&names),
                        })
                })
                .and_then(|n| n.field("consequence"))
                .and_then(|c| escalation_node(m, c))
        });
        if let (Some(c), Some((e, how))) = (cap, escalation) {
            if la.calls_in(l).iter().any(|&c| la.call_dispatches(c)) {
                p.capped_loops.push(CappedLoop {
                    line: line(lp.node),
                    cap: line(c),
                    escalation: line(e),
                    how: how.to_string(),
                });
            }
        }
        // Tasks the loop dispatches itself (not through a nested loop).
        let names: Vec<String> = m
            .effects_of(EffectKind::Task)
            .filter(|e| m.calls[e.call].loops.last() == Some(&l))
            .map(|e| task_name(m, e.call))
            .collect();
        let Some(reviewer) = names.iter().find(|n| matches(&REVIEWER, n)) else {
            continue;
        };
        let fixer = names
            .iter()
            .find(|n| *n != reviewer && matches(&FIXER, n) && !matches(&REVIEWER, n));
        p.review_loops.push(ReviewLoop {
            line: line(lp.node),
            reviewer: reviewer.clone(),
            fixer: fixer.cloned(),
            cap: cap.map(line),
            escalation: escalation.map(|(e, _)| line(e)),
            function: lp.func.map(|f| line(m.functions[f].node)),
        });
    }
    for e in m.effects_of(EffectKind::Breakpoint) {
        let mut decision = None;
        let mut feedback = None;
        for u in uses_of(m, m.calls[e.call].node) {
            if let Use::Property { name, .. } = u {
                if decision.is_none() && matches(&DECISION, &name) {
                    decision = Some(name);
                } else if feedback.is_none() && matches(&FEEDBACK, &name) {
                    feedback = Some(name);
                }
            }
        }
        if let (Some(decision), Some(feedback)) = (decision, feedback) {
            p.gated_breakpoints.push(GatedBreakpoint {
                line: line(m.calls[e.call].node),
                decision,
                feedback,
            });
        }
    }
    for e in m.effects_of(EffectKind::Task) {
        if repetition(m, e.call).is_some() && invocation_key(m, e.call).is_some() {
            p.keyed_repeats.push(line(m.calls[e.call].node));
        }
    }
    verifying_prompts(m, &mut p);
    for e in m
        .effects
        .iter()
        .filter(|e| matches!(e.kind, EffectKind::ParallelAll | EffectKind::ParallelMap))
    {
        let call = m.calls[e.call].node;
        if let Some(b) = ordered_batch(m, call) {
            p.ordered_batches.push(b);
        }
    }
    p
}

/// The task a `ctx.task` call dispatches, as the code names it: its id and
/// the variable it is passed as.
fn task_name(m: &JsModel, call: usize) -> String {
    let Some(&arg) = m.calls[call].args.first() else {
        return String::new();
    };
    let arg = unparen(arg);
    match (arg.kind_str(), m.task_target(arg)) {
        ("identifier" | "member_expression", _) => m.text(arg).to_string(),
        (_, TaskTarget::Local(i)) => m
            .task_defs
            .get(i)
            .and_then(|t| t.id.clone())
            .unwrap_or_default(),
        _ => crate::js::syntax::shorten_code(m.text(arg), 40),
    }
}

fn identifiers(m: &JsModel, n: Node) -> BTreeSet<String> {
    identifiers_within(m, n, false)
}

/// The identifiers `n` reads; with `closures`, also those its nested
/// functions read (a batch's callback reads the snapshot).
fn identifiers_within(m: &JsModel, n: Node, closures: bool) -> BTreeSet<String> {
    let mut out = BTreeSet::new();
    walk(n, |x| {
        // `{ snap }` reads `snap` too.
        if matches!(x.kind_str(), "identifier" | "shorthand_property_identifier") {
            out.insert(m.text(x).to_string());
        }
        closures || !crate::js::syntax::is_function(x)
    });
    out
}

/// Which way a comparison holds, the counter on the left.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Dir {
    Below,
    Above,
    At,
    NotAt,
}

/// The counter a loop's cap compares, and the way the loop goes on.
struct Counter {
    name: String,
    goes_on: Dir,
}

impl Counter {
    fn of<'t>(
        m: &JsModel<'t>,
        la: &LoopAnalysis<'_, 't>,
        lp: Node<'t>,
        cmp: Node<'t>,
    ) -> Option<Counter> {
        let (left, right) = (cmp.field("left")?, cmp.field("right")?);
        let (counter, on_left) = if la.is_advanced_counter(lp, left) {
            (left, true)
        } else if la.is_advanced_counter(lp, right) {
            (right, false)
        } else {
            return None;
        };
        Some(Counter {
            name: m.text(unparen(counter)).to_string(),
            goes_on: dir(m.text(cmp.field("operator")?), on_left)?,
        })
    }

    /// Whether `cond` tests the counter at (or past) its cap; `None` when
    /// it compares no counter.
    fn reached(&self, m: &JsModel, cond: Node) -> Option<bool> {
        let mut any = None;
        walk(cond, |x| {
            if x.kind_str() == "binary_expression" {
                let side = |f: &str| x.field(f).map(|n| m.text(unparen(n)) == self.name);
                let op = x.field("operator").map(|o| m.text(o)).unwrap_or("");
                let d = if side("left") == Some(true) {
                    dir(op, true)
                } else if side("right") == Some(true) {
                    dir(op, false)
                } else {
                    None
                };
                if let Some(d) = d {
                    let reached = matches!(
                        (self.goes_on, d),
                        (Dir::Below, Dir::Above | Dir::At)
                            | (Dir::Above, Dir::Below | Dir::At)
                            | (Dir::NotAt, Dir::At)
                    );
                    any = Some(any.unwrap_or(false) || reached);
                }
            }
            !crate::js::syntax::is_function(x)
        });
        any
    }
}

fn dir(op: &str, counter_left: bool) -> Option<Dir> {
    let d = match op {
        "<" | "<=" => Dir::Below,
        ">" | ">=" => Dir::Above,
        "==" | "===" => Dir::At,
        "!=" | "!==" => Dir::NotAt,
        _ => return None,
    };
    Some(match (d, counter_left) {
        (Dir::Below, false) => Dir::Above,
        (Dir::Above, false) => Dir::Below,
        (d, _) => d,
    })
}

/// A breakpoint or `throw` in `body` under an `if` (or `else if`) whose
/// condition tests the counter at its cap (not a per-round check such as
/// `round < rounds`).
fn escalation_in<'t>(
    m: &JsModel<'t>,
    body: Node<'t>,
    counter: &Counter,
) -> Option<(Node<'t>, &'static str)> {
    let mut found = None;
    walk(body, |n| {
        if found.is_some() {
            return false;
        }
        if n.kind_str() == "if_statement" {
            let reads = n
                .field("condition")
                .is_some_and(|c| counter.reached(m, c) == Some(true));
            if reads {
                if let Some(e) = n.field("consequence").and_then(|c| escalation_node(m, c)) {
                    found = Some(e);
                    return false;
                }
            }
        }
        !crate::js::syntax::is_function(n)
    });
    found
}

/// The first breakpoint call or `throw` in `n` (not in nested functions).
fn escalation_node<'t>(m: &JsModel<'t>, n: Node<'t>) -> Option<(Node<'t>, &'static str)> {
    let mut found = None;
    walk(n, |x| {
        if found.is_some() {
            return false;
        }
        if x.kind_str() == "throw_statement" {
            found = Some((x, "throw"));
            return false;
        }
        if x.kind_str() == "call_expression" {
            let bp = m
                .call_of_node(x)
                .and_then(|c| m.effect_of_call(c))
                .is_some_and(|e| e.kind == EffectKind::Breakpoint);
            if bp {
                found = Some((x, "breakpoint"));
                return false;
            }
        }
        !crate::js::syntax::is_function(x)
    });
    found
}

fn verifying_prompts(m: &JsModel, p: &mut Practices) {
    let first_match_line = |n: Node| -> Option<u32> {
        let text = m.text(n);
        let r = VERIFY.as_ref()?;
        let at = r.find(text)?.start();
        Some(m.file.pos(n.start_byte() + at).line)
    };
    for t in &m.task_defs {
        let var = t
            .binding
            .map(|b| m.scopes.bindings[b].name.to_string())
            .unwrap_or_default();
        let id = t.id.clone().unwrap_or_default();
        if !matches(&REVIEWER, &id) && !matches(&REVIEWER, &var) {
            continue;
        }
        if let Some(l) = first_match_line(m.calls[t.call].node) {
            let name = if var.is_empty() { id } else { var };
            p.verifying_prompts.push(VerifyingPrompt { name, line: l });
        }
    }
    // Module-level prompt text for reviewers (`const reviewerInstructions = [...]`).
    for stmt in m.tree.root_node().named() {
        let decl = match stmt.kind_str() {
            "export_statement" => stmt.field("declaration"),
            _ => Some(stmt),
        };
        let Some(decl) =
            decl.filter(|d| matches!(d.kind_str(), "lexical_declaration" | "variable_declaration"))
        else {
            continue;
        };
        for d in decl
            .named()
            .filter(|d| d.kind_str() == "variable_declarator")
        {
            let (Some(name), Some(value)) = (d.field("name"), d.field("value")) else {
                continue;
            };
            let name = m.text(name);
            if !matches(&REVIEWER, name)
                || p.verifying_prompts.iter().any(|v| v.name == name)
                || m.call_of_node(value)
                    .is_some_and(|c| m.task_defs.iter().any(|t| t.call == c))
            {
                continue;
            }
            if let Some(l) = first_match_line(value) {
                p.verifying_prompts.push(VerifyingPrompt {
                    name: name.to_string(),
                    line: l,
                });
            }
        }
    }
}

/// The statement holding `n`, directly in a block or the module.
fn statement_of(n: Node) -> Option<Node> {
    let mut cur = n;
    loop {
        let parent = cur.parent()?;
        if matches!(
            parent.kind_str(),
            "statement_block" | "program" | "switch_case" | "switch_default"
        ) {
            return Some(cur);
        }
        if crate::js::syntax::is_function(parent) {
            return None;
        }
        cur = parent;
    }
}

/// The names a declaration declares and their values.
fn declarators<'t>(m: &JsModel<'t>, stmt: Node<'t>) -> Vec<(&'t str, Option<Node<'t>>)> {
    if !matches!(
        stmt.kind_str(),
        "lexical_declaration" | "variable_declaration"
    ) {
        return Vec::new();
    }
    stmt.named()
        .filter(|d| d.kind_str() == "variable_declarator")
        .filter_map(|d| Some((m.text(d.field("name")?), d.field("value"))))
        .collect()
}

/// A copy of another value: `[...xs]`, `{ ...o }`, `structuredClone(x)`,
/// `xs.slice()`, `Object.freeze(…)`, `JSON.parse(JSON.stringify(x))`.
fn is_copy(m: &JsModel, v: Node) -> bool {
    let v = unparen(v);
    match v.kind_str() {
        "array" | "object" => {
            let items: Vec<Node> = v.named().filter(|c| c.kind_str() != "comment").collect();
            !items.is_empty() && items.iter().all(|c| c.kind_str() == "spread_element")
        }
        "call_expression" => {
            let callee = v.field("function").map(|f| m.text(f)).unwrap_or("");
            callee.ends_with("structuredClone")
                || callee.ends_with(".slice")
                || callee == "Object.freeze"
                || callee == "JSON.parse"
                || callee == "Array.from"
        }
        _ => false,
    }
}

const NEAR: usize = 3;

fn ordered_batch<'t>(m: &JsModel<'t>, call: Node<'t>) -> Option<OrderedBatch> {
    let stmt = statement_of(call)?;
    let call_ids = identifiers_within(m, call, true);
    let mut snapshot = None;
    let mut prev = stmt.prev_named_sibling();
    let mut seen = 0;
    while let Some(s) = prev {
        if s.kind_str() == "comment" {
            prev = s.prev_named_sibling();
            continue;
        }
        seen += 1;
        if seen > NEAR {
            break;
        }
        for (name, value) in declarators(m, s) {
            if call_ids.contains(name) && value.is_some_and(|v| is_copy(m, v)) {
                snapshot = Some((m.file.pos(s.start_byte()).line, name.to_string()));
            }
        }
        if snapshot.is_some() {
            break;
        }
        prev = s.prev_named_sibling();
    }
    let results: Vec<&str> = declarators(m, stmt).into_iter().map(|(n, _)| n).collect();
    let mut sorted = None;
    let mut next = next_statement(stmt);
    for _ in 0..NEAR {
        let Some(s) = next else { break };
        let mut hit = None;
        walk(s, |x| {
            if hit.is_some() {
                return false;
            }
            if x.kind_str() == "call_expression" {
                let callee = x.field("function");
                let sorts = callee
                    .and_then(|f| f.field("property"))
                    .is_some_and(|p| m.text(p) == "sort");
                let on_results = callee
                    .and_then(|f| f.field("object"))
                    .is_some_and(|o| identifiers(m, o).iter().any(|i| results.contains(&&**i)));
                if sorts && on_results {
                    hit = Some(x);
                    return false;
                }
            }
            true
        });
        if let Some(h) = hit {
            sorted = Some(m.file.pos(h.start_byte()).line);
            break;
        }
        next = next_statement(s);
    }
    if snapshot.is_none() && sorted.is_none() {
        return None;
    }
    Some(OrderedBatch {
        line: m.file.pos(call.start_byte()).line,
        snapshot,
        sorted,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::js::model::testing::with_model;

    #[test]
    fn review_loop_with_fixer_cap_and_escalation() {
        let src = "export async function process(inputs, ctx) {\n\
  let passed = false;\n\
  let attempts = 0;\n\
  while (!passed && attempts < 3) {\n\
    attempts++;\n\
    const review = await ctx.task(reviewTask, {});\n\
    if (review.passed) { passed = true; }\n\
    else if (attempts >= 3) { await ctx.breakpoint({ question: 'Accept?' }); }\n\
    else { await ctx.task(fixTask, { issues: review.issues }); }\n\
  }\n\
}\n";
        with_model(src, |m| {
            let p = practices(m);
            assert_eq!(p.review_loops.len(), 1, "{p:?}");
            let r = &p.review_loops[0];
            assert_eq!(r.line, 4);
            assert_eq!(r.fixer.as_deref(), Some("fixTask"));
            assert_eq!(r.cap, Some(4));
            assert_eq!(r.escalation, Some(8));
            assert_eq!(p.capped_loops.len(), 1);
        });
    }

    #[test]
    fn a_per_round_breakpoint_is_not_an_escalation() {
        let src = "export async function process(inputs, ctx) {\n\
  let round = 0;\n\
  while (round < 3) {\n\
    round++;\n\
    await ctx.task(debateTask, {});\n\
    if (round < 3) { await ctx.breakpoint({ question: 'Next round?' }); }\n\
  }\n\
}\n";
        with_model(src, |m| assert_eq!(practices(m).capped_loops, vec![]));
    }

    #[test]
    fn snapshot_before_and_sort_after_a_batch() {
        let src = "export async function process(inputs, ctx) {\n\
  const state = [];\n\
  const snap = [...state];\n\
  const results = await ctx.parallel.map(inputs.items, (i) => ctx.task(t, { i, snap }));\n\
  const sorted = [...results].sort((a, b) => a.n - b.n);\n\
  return sorted;\n\
}\n";
        with_model(src, |m| {
            let p = practices(m);
            assert_eq!(
                p.ordered_batches,
                vec![OrderedBatch {
                    line: 4,
                    snapshot: Some((3, "snap".into())),
                    sorted: Some(5)
                }]
            );
        });
    }

    #[test]
    fn reviewer_prompt_that_distrusts_the_report() {
        let src = "const reviewerInstructions = [\n  'Check the spec.',\n  'Do NOT trust the implementer report.',\n];\n";
        with_model(src, |m| {
            let p = practices(m);
            assert_eq!(
                p.verifying_prompts,
                vec![VerifyingPrompt {
                    name: "reviewerInstructions".into(),
                    line: 3
                }]
            );
        });
    }
}
