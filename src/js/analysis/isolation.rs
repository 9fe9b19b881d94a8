//! Per-peer error capture in `ctx.parallel.map` / `ctx.parallel.all`
//! batches: which peers dispatch effects that can fail without a handler
//! that turns the failure into a value.
//!
//! A dispatch is *captured* when, within the peer, it sits in the `try`
//! block of a `try`/`catch` whose handler completes for an ordinary error
//! (returns or falls through instead of rethrowing), or its promise is
//! chained into `.catch(…)` / `.then(_, onRejected)`, or it runs inside a
//! function handed to a same-module wrapper that calls it under such a
//! `try`. Whether the handler also lets the SDK's intrinsic signals through
//! is not judged here: that is `swallowed-effect-signal`'s finding.
//!
//! `catch.rs` answers the other question — what a handler does with the
//! SDK's intrinsic signals — for `swallowed-effect-signal`. This module only
//! needs "does some path turn an ordinary error into a value", a smaller
//! walk that shares its guard and error-name lists.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};

use crate::js::syntax::tree::Node;

use crate::js::analysis::effects::effect_of_call;
use crate::js::model::context_api::{INTRINSIC_ERROR_NAMES, INTRINSIC_GUARDS};
use crate::js::model::scope::{BindingKind, FnId};
use crate::js::model::{EffectKind, JsModel};
use crate::js::syntax::{contains, unparen};

/// How far same-module helpers are followed.
const MAX_DEPTH: usize = 4;
/// Statement nesting beyond this counts as capturing (never flagged).
const MAX_NESTING: usize = 100;

/// Effect kinds whose dispatch can reject.
fn can_fail(kind: EffectKind) -> bool {
    matches!(
        kind,
        EffectKind::Task | EffectKind::ParallelAll | EffectKind::ParallelMap
    )
}

/// The peer functions of a batch call: the callback of `ctx.parallel.map`,
/// the thunks of `ctx.parallel.all([...])` (an array literal, a local const
/// array, or `items.map(x => () => …)`). `None` when they cannot be seen.
pub fn peers(m: &JsModel, effect_call: usize) -> Option<Vec<FnId>> {
    let effect = effect_of_call(m, effect_call)?;
    let call = &m.calls[effect_call];
    match effect.kind {
        EffectKind::ParallelMap => Some(vec![m.function_of_expr(*call.args.get(1)?)?]),
        EffectKind::ParallelAll => thunks(m, *call.args.first()?, 0),
        _ => None,
    }
}

fn thunks(m: &JsModel, list: Node, depth: usize) -> Option<Vec<FnId>> {
    if depth > MAX_DEPTH {
        return None;
    }
    let list = unparen(list);
    match list.kind_str() {
        "array" => {
            let mut out = Vec::new();
            for item in list.named() {
                match item.kind_str() {
                    "comment" => {}
                    "spread_element" => out.extend(thunks(m, item.named_child(0)?, depth + 1)?),
                    _ => out.push(m.function_of_expr(item)?),
                }
            }
            Some(out)
        }
        "identifier" => {
            let b = m.scopes.get(m.binding_of_expr(list)?);
            if b.kind != BindingKind::Const {
                return None;
            }
            thunks(m, b.init?, depth + 1)
        }
        // `items.map((item) => () => ctx.task(…))`
        "call_expression" => {
            let callee = list.field("function")?;
            let method = callee.field("property")?;
            if m.text(method) != "map" {
                return None;
            }
            let f = m.function_of_expr(list.field("arguments")?.named_child(0)?)?;
            let returned = crate::js::analysis::strings::returned_exprs(m, f);
            let fns: Option<Vec<FnId>> = returned.iter().map(|r| m.function_of_expr(*r)).collect();
            fns.filter(|v| !v.is_empty())
        }
        _ => None,
    }
}

/// Places in a peer that dispatch a failing effect without per-peer
/// capture: an effect call, or a call to a same-module helper that
/// dispatches one uncaptured.
pub fn uncaptured_dispatches<'t>(m: &JsModel<'t>, peer: FnId) -> Vec<Node<'t>> {
    let mut out = Vec::new();
    let mut seen = HashSet::new();
    let memo = RefCell::new(HashMap::new());
    uncaptured_in(m, peer, &mut out, &mut seen, &memo, 0);
    out.sort_by_key(|n| n.start_byte());
    out.dedup_by_key(|n| n.id());
    out
}

fn uncaptured_in<'t>(
    m: &JsModel<'t>,
    f: FnId,
    out: &mut Vec<Node<'t>>,
    seen: &mut HashSet<FnId>,
    memo: &Memo,
    depth: usize,
) {
    if depth > MAX_DEPTH || !seen.insert(f) {
        return;
    }
    for site in dispatch_sites(m, f, memo, depth) {
        if !captured(m, site, f, depth) {
            out.push(site);
        }
    }
}

/// Calls inside `f` (and the functions nested in it) that may dispatch a
/// failing effect.
fn dispatch_sites<'t>(m: &JsModel<'t>, f: FnId, memo: &Memo, depth: usize) -> Vec<Node<'t>> {
    let fnode = m.functions[f].node;
    let mut out = Vec::new();
    // `m.calls` is sorted by start byte: the calls inside the function are
    // those starting in its range (a scan of every call per peer made one
    // batch of n thunks quadratic: 16k thunks, 11 s).
    let first = m
        .calls
        .partition_point(|c| c.node.start_byte() < fnode.start_byte());
    let inside = m.calls[first..]
        .iter()
        .take_while(|c| c.node.start_byte() < fnode.end_byte());
    for (ci, c) in inside.enumerate().map(|(i, c)| (first + i, c)) {
        if !contains(fnode, c.node) || c.node.id() == fnode.id() {
            continue;
        }
        if let Some(e) = effect_of_call(m, ci) {
            if can_fail(e.kind) {
                out.push(c.node);
            }
            continue;
        }
        if let Some(g) = m.function_of_expr(c.callee) {
            // A helper whose own dispatches are all captured is fine.
            if g != f && !contains(fnode, m.functions[g].node) && leaks(m, g, memo, depth + 1) {
                out.push(c.node);
            }
            continue;
        }
        // `runReview(item, ctx)` with an imported function: it may well
        // capture its own failures, and proclint cannot see it, so it is
        // not judged (no finding without a visible dispatch).
    }
    out
}

/// Whether a failing dispatch in a function (or a helper it calls) can
/// leave it uncaptured.
fn leaks(m: &JsModel, f: FnId, memo: &Memo, depth: usize) -> bool {
    if depth > MAX_DEPTH {
        return false;
    }
    if let Some(known) = memo.borrow().get(&f) {
        return *known;
    }
    // Provisionally false while it is being computed: recursion through
    // a cycle of helpers adds nothing.
    memo.borrow_mut().insert(f, false);
    let leaks = dispatch_sites(m, f, memo, depth)
        .into_iter()
        .any(|site| !captured(m, site, f, depth));
    memo.borrow_mut().insert(f, leaks);
    leaks
}

/// Per-query cache of [`leaks`]: helpers shared by many call sites are
/// analysed once, so helper-heavy modules stay linear-ish.
type Memo = RefCell<HashMap<FnId, bool>>;

/// Whether the dispatch at `site` is captured before its failure leaves
/// `f`.
fn captured(m: &JsModel, site: Node, f: FnId, depth: usize) -> bool {
    let fnode = m.functions[f].node;
    let mut node = site;
    while let Some(parent) = node.parent() {
        if parent.id() == fnode.id() {
            break;
        }
        let handled = match parent.kind_str() {
            "try_statement" => {
                parent.field("body") == Some(node)
                    && parent
                        .field("handler")
                        .is_some_and(|h| handler_captures(m, h))
            }
            "member_expression" => {
                parent.field("object") == Some(node) && promise_handled(m, parent)
            }
            _ => false,
        };
        if handled {
            return true;
        }
        // Crossing into an inner function: it is captured if whoever calls
        // it does so under a capturing handler.
        if let Some(g) = m.function_of_node(parent) {
            if passed_to_capturing_wrapper(m, g, depth) {
                return true;
            }
        }
        node = parent;
    }
    false
}

/// `p.catch(h)` or `p.then(ok, h)` on the dispatch's promise.
fn promise_handled(m: &JsModel, member: Node) -> bool {
    let Some(prop) = member.field("property") else {
        return false;
    };
    let Some(call) = member
        .parent()
        .filter(|p| p.kind_str() == "call_expression")
    else {
        return false;
    };
    let nargs = call
        .field("arguments")
        .map(|a| {
            let n = a.named().filter(|n| n.kind_str() != "comment").count();
            n
        })
        .unwrap_or(0);
    match m.text(prop) {
        "catch" => nargs >= 1,
        "then" => nargs >= 2,
        _ => false,
    }
}

/// `safe(() => ctx.task(…))` where `safe` is a same-module function that
/// calls its parameter inside a capturing `try`.
fn passed_to_capturing_wrapper(m: &JsModel, g: FnId, depth: usize) -> bool {
    let gnode = m.functions[g].node;
    let Some(args) = gnode.parent().filter(|p| p.kind_str() == "arguments") else {
        return false;
    };
    let Some(call) = args.parent().and_then(|c| m.call_of_node(c)) else {
        return false;
    };
    let Some(index) = m.calls[call].args.iter().position(|a| a.id() == gnode.id()) else {
        return false;
    };
    let Some(wrapper) = m.function_of_expr(m.calls[call].callee) else {
        return false;
    };
    let Some(Some(param)) = m.functions[wrapper].param_bindings.get(index) else {
        return false;
    };
    let invocations: Vec<Node> = m
        .calls
        .iter()
        .filter(|c| m.binding_of_expr(c.callee) == Some(*param))
        .map(|c| c.node)
        .collect();
    !invocations.is_empty()
        && invocations
            .into_iter()
            .all(|site| depth < MAX_DEPTH && captured(m, site, wrapper, depth + 1))
}

/// Whether a `catch` clause completes (returns or falls through) for an
/// ordinary, non-SDK error on some path.
pub fn handler_captures(m: &JsModel, clause: Node) -> bool {
    let err = clause
        .field("parameter")
        .filter(|p| p.kind_str() == "identifier")
        .map(|p| m.text(p).to_string());
    match clause.field("body") {
        Some(body) => completes(m, body, err.as_deref(), 0),
        None => true,
    }
}

/// Whether a statement can complete without throwing, for an error that
/// is not one of the SDK's intrinsic signals.
fn completes(m: &JsModel, stmt: Node, err: Option<&str>, depth: usize) -> bool {
    if depth > MAX_NESTING {
        return true;
    }
    match stmt.kind_str() {
        "throw_statement" => false,
        "statement_block" => {
            let stmts: Vec<Node> = stmt.named().filter(|n| n.kind_str() != "comment").collect();
            for s in stmts {
                if !completes(m, s, err, depth + 1) {
                    return false;
                }
                if s.kind_str() == "return_statement" {
                    return true;
                }
            }
            true
        }
        "if_statement" => {
            let then = stmt
                .field("consequence")
                .is_none_or(|c| completes(m, c, err, depth + 1));
            let otherwise = stmt
                .field("alternative")
                .and_then(|a| a.named_child(0))
                .is_none_or(|a| completes(m, a, err, depth + 1));
            let intrinsic_test = stmt
                .field("condition")
                .is_some_and(|c| tests_intrinsic(m, c, err));
            // An ordinary error never takes the intrinsic-signal branch.
            if intrinsic_test {
                otherwise
            } else {
                then || otherwise
            }
        }
        _ => true,
    }
}

/// `isIntrinsicError(e)`, `e instanceof EffectRequestedError`,
/// `e.name === 'EffectPendingError'` and the like: the condition mentions
/// the caught error and one of the SDK's guards or intrinsic error names
/// (the lists `catch.rs` uses).
fn tests_intrinsic(m: &JsModel, cond: Node, err: Option<&str>) -> bool {
    let t = m.text(cond);
    let mentions_err = err.is_none_or(|e| t.contains(e));
    mentions_err
        && (INTRINSIC_GUARDS.iter().any(|g| t.contains(g))
            || INTRINSIC_ERROR_NAMES.iter().any(|n| t.contains(n))
            || t.contains("Intrinsic"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::js::syntax::parse;
    use crate::js::ModelOptions;
    use crate::source::SourceFile;

    /// Uncaptured dispatch texts per batch, in source order.
    fn batches(src: &str) -> Vec<Option<Vec<String>>> {
        let file = SourceFile::new("t.js", src.to_string());
        let Some(tree) = parse::parse_tree(&file.text) else {
            panic!("parse failed");
        };
        let m = JsModel::build(&file, &tree, &ModelOptions::default());
        m.effects
            .iter()
            .filter(|e| matches!(e.kind, EffectKind::ParallelAll | EffectKind::ParallelMap))
            .map(|e| {
                peers(&m, e.call).map(|ps| {
                    ps.into_iter()
                        .flat_map(|p| uncaptured_dispatches(&m, p))
                        .map(|n| m.text(n).to_string())
                        .collect()
                })
            })
            .collect()
    }

    #[test]
    fn wrapped_and_unwrapped_peers() {
        let src = r#"
async function safe(fn) { try { return await fn(); } catch (e) { if (isIntrinsicError(e)) throw e; return null; } }
export async function process(inputs, ctx) {
  await ctx.parallel.map(inputs.items, (item) => ctx.task(t, { item }));
  await ctx.parallel.map(inputs.items, async (item) => {
    try { return await ctx.task(t, { item }); }
    catch (e) { if (isIntrinsicError(e)) throw e; return { ok: false, error: String(e) }; }
  });
  await ctx.parallel.all([() => ctx.task(a, {}), () => safe(() => ctx.task(b, {}))]);
  await ctx.parallel.map(inputs.items, async (item) => {
    try { return await ctx.task(t, { item }); } catch (e) { ctx.log(String(e)); throw e; }
  });
  await ctx.parallel.all([() => ctx.task(a, {}).catch((e) => null)]);
}
"#;
        let got = batches(src);
        assert_eq!(got.len(), 5, "{got:?}");
        assert_eq!(
            got[0].as_deref(),
            Some(&["ctx.task(t, { item })".to_string()][..])
        );
        assert_eq!(got[1].as_deref(), Some(&[][..]));
        assert_eq!(
            got[2].as_deref(),
            Some(&["ctx.task(a, {})".to_string()][..])
        );
        assert_eq!(got[3].as_ref().map(Vec::len), Some(1));
        assert_eq!(got[4].as_deref(), Some(&[][..]));
    }
}
