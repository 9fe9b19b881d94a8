//! Which code dispatches effects: directly, or through functions of the same
//! module it calls (to a fixed depth).

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};

use crate::js::syntax::tree::Node;

use crate::js::analysis::loops::never_iterates;
use crate::js::model::context_api::SIGNALLING_METHODS;
use crate::js::model::scope::FnId;
use crate::js::model::{CallId, Effect, JsModel};
use crate::js::syntax::{contains, unparen};

/// How deep to follow same-module calls (`run → phase → helper → ctx.task`).
pub const MAX_CALL_DEPTH: usize = 4;

/// An effect call reached from some code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reached {
    /// The effect call (`ctx.task(…)`).
    pub effect: CallId,
    /// The same-module calls it was reached through, outermost first; empty
    /// when the effect call is in the code itself.
    pub via: Vec<CallId>,
}

/// `ctx.parallel.all` → (`ctx`, `parallel.all`): the root identifier of a
/// one- or two-level member callee and the method path, as the model spells
/// effect methods.
pub fn method_path<'t>(m: &JsModel<'t>, callee: Node<'t>) -> Option<(Node<'t>, String)> {
    let callee = unparen(callee);
    if callee.kind_str() != "member_expression" {
        return None;
    }
    let obj = unparen(callee.field("object")?);
    let method = m.text(callee.field("property")?);
    let (root, path) = if obj.kind_str() == "member_expression" {
        let inner = unparen(obj.field("object")?);
        let inner_prop = m.text(obj.field("property")?);
        (inner, format!("{inner_prop}.{method}"))
    } else {
        (obj, method.to_string())
    };
    (root.kind_str() == "identifier").then_some((root, path))
}

/// The effect recorded for a call, if the call is one.
pub fn effect_of_call<'m>(m: &'m JsModel, call: CallId) -> Option<&'m Effect> {
    m.effect_of_call(call)
}

/// Whether an effect throws the SDK's intrinsic signals (pending, requested,
/// halted) before it is resolved.
pub fn signals(effect: &Effect) -> bool {
    SIGNALLING_METHODS.contains(&effect.method.as_str())
}

/// Answers "which effect does this code reach" for one module, with the
/// per-function answers cached: a rule asks once per `try` block, and many
/// blocks call the same helpers.
pub struct Reach<'m, 't> {
    m: &'m JsModel<'t>,
    /// Call ids sorted by start byte, for range lookups by node.
    order: Vec<CallId>,
    /// The signalling effect of each call, precomputed.
    signalling: Vec<bool>,
    /// Calls that never run ([`never_iterates`]).
    dead: Vec<bool>,
    memo: RefCell<HashMap<FnId, Option<Reached>>>,
}

impl<'m, 't> Reach<'m, 't> {
    pub fn new(m: &'m JsModel<'t>) -> Self {
        let mut order: Vec<CallId> = (0..m.calls.len()).collect();
        order.sort_by_key(|&c| {
            (
                m.calls[c].node.start_byte(),
                std::cmp::Reverse(m.calls[c].node.end_byte()),
            )
        });
        let mut signalling = vec![false; m.calls.len()];
        for e in &m.effects {
            if signals(e) {
                if let Some(s) = signalling.get_mut(e.call) {
                    *s = true;
                }
            }
        }
        // A call in a loop over a list that is empty as written never runs:
        // neither does the effect it is or leads to.
        let dead: Vec<bool> = m.calls.iter().map(|c| never_iterates(m, c.node)).collect();
        for (s, d) in signalling.iter_mut().zip(&dead) {
            *s &= !d;
        }
        Reach {
            m,
            order,
            signalling,
            dead,
            memo: RefCell::new(HashMap::new()),
        }
    }

    /// Calls lexically inside `node`, in source order.
    fn calls_in(&self, node: Node) -> impl Iterator<Item = CallId> + '_ {
        let m = self.m;
        let from = self
            .order
            .partition_point(|&c| m.calls[c].node.start_byte() < node.start_byte());
        let end = node.end_byte();
        self.order[from..]
            .iter()
            .copied()
            .take_while(move |&c| m.calls[c].node.start_byte() < end)
            .filter(move |&c| m.calls[c].node.end_byte() <= end)
    }

    /// The first signalling effect inside `node` (including callbacks
    /// written inside it), else the first reached through a same-module
    /// function it calls or passes as a callback.
    pub fn in_node(&self, node: Node) -> Option<Reached> {
        self.search(node, &mut HashSet::new(), 0).0
    }

    /// Whether a function dispatches a signalling effect, directly or
    /// through same-module calls.
    pub fn in_function(&self, f: FnId) -> Option<Reached> {
        self.function(f, &mut HashSet::new(), 0).0
    }

    /// `(result, complete)`: `complete` is false when the depth bound or a
    /// cycle cut the search, so a negative answer must not be cached.
    fn function(
        &self,
        f: FnId,
        active: &mut HashSet<FnId>,
        depth: usize,
    ) -> (Option<Reached>, bool) {
        if let Some(r) = self.memo.borrow().get(&f) {
            return (r.clone(), true);
        }
        let Some(func) = self.m.functions.get(f) else {
            return (None, true);
        };
        if !active.insert(f) {
            return (None, false);
        }
        let (r, complete) = self.search(func.node, active, depth);
        active.remove(&f);
        if r.is_some() || complete {
            self.memo.borrow_mut().insert(f, r.clone());
        }
        (r, complete)
    }

    fn search(
        &self,
        node: Node,
        active: &mut HashSet<FnId>,
        depth: usize,
    ) -> (Option<Reached>, bool) {
        let m = self.m;
        if let Some(c) = self.calls_in(node).find(|&c| self.signalling[c]) {
            return (
                Some(Reached {
                    effect: c,
                    via: Vec::new(),
                }),
                true,
            );
        }
        if depth >= MAX_CALL_DEPTH {
            return (None, false);
        }
        let mut complete = true;
        let calls: Vec<CallId> = self.calls_in(node).filter(|&c| !self.dead[c]).collect();
        for c in calls {
            let call = &m.calls[c];
            // The callee, and functions handed over as callbacks
            // (`withRetry(runReview)`), which the callee will invoke.
            let targets = std::iter::once(call.callee)
                .chain(call.args.iter().copied())
                .filter_map(|n| m.function_of_expr(n));
            for f in targets {
                // Function literals inside `node` were searched already.
                if contains(node, m.functions[f].node) {
                    continue;
                }
                let (r, done) = self.function(f, active, depth + 1);
                complete &= done;
                if let Some(mut r) = r {
                    r.via.insert(0, c);
                    return (Some(r), true);
                }
            }
        }
        (None, complete)
    }
}

/// The `ctx.parallel.all`/`ctx.parallel.map` call whose arguments hold
/// `call` (a thunk, a bare promise, a callback): the batch it runs in, its
/// peers running at the same time.
pub fn batch_of<'t>(m: &JsModel<'t>, call: CallId) -> Option<Node<'t>> {
    let node = m.calls[call].node;
    let mut n = node.parent();
    while let Some(p) = n {
        if p.kind_str() == "call_expression" {
            if let Some(ci) = m.call_of_node(p) {
                let batch = effect_of_call(m, ci).is_some_and(|e| {
                    matches!(
                        e.kind,
                        crate::js::model::EffectKind::ParallelAll
                            | crate::js::model::EffectKind::ParallelMap
                    )
                });
                if batch && m.calls[ci].args.iter().any(|a| contains(*a, node)) {
                    return Some(p);
                }
            }
        }
        n = p.parent();
    }
    None
}

/// Whether a `ctx.breakpoint` runs after `call` whenever it does: later in
/// the same function and not under a condition the call is not under, or
/// after a call site of that function (two callers up).
pub fn breakpoint_follows(m: &JsModel, call: CallId) -> bool {
    let c = &m.calls[call];
    breakpoint_after(m, c.node, c.func, 0)
}

fn breakpoint_after(m: &JsModel, node: Node, func: Option<FnId>, depth: usize) -> bool {
    let follows = m
        .effects_of(crate::js::model::EffectKind::Breakpoint)
        .map(|e| &m.calls[e.call])
        .any(|b| {
            b.func == func
                && b.node.start_byte() >= node.end_byte()
                && !conditional_apart(m, b.node, node)
        });
    if follows {
        return true;
    }
    let Some(f) = func.filter(|_| depth < 2) else {
        return false;
    };
    m.call_sites_of(f).iter().any(|&ci| {
        let site = &m.calls[ci];
        !contains(m.functions[f].node, site.node)
            && breakpoint_after(m, site.node, site.func, depth + 1)
    })
}

/// Whether `node` is part of an argument of a logging call, within its
/// statement and function (`ctx.log('info', `${r.count || 0} found`)`):
/// what it reads ends up in a log line and nowhere else. Only a log of
/// the run or the console counts (`ctx.log`, `console.*`, a `log`/`logger`
/// object's `.log`/`.info`/`.warn`/`.error`/`.debug`: not `Math.log`, not
/// an audit trail's `.log`), and only through a template, a string
/// concatenation, a fallback (`||`, `??`), a `?:` branch or a member read:
/// a value passed through another call, assigned or awaited on the way may
/// matter elsewhere.
pub fn in_log_arguments(m: &JsModel, node: Node) -> bool {
    let mut n = node;
    while let Some(p) = n.parent() {
        match p.kind_str() {
            "arguments" => {
                return p
                    .parent()
                    .and_then(|c| c.field("function"))
                    .is_some_and(|f| is_run_log(m.text(f)));
            }
            "template_substitution" | "template_string" | "parenthesized_expression" => {}
            "member_expression" | "subscript_expression"
                if p.field("object").is_some_and(|o| o.id() == n.id()) => {}
            "binary_expression"
                if p.field("operator")
                    .is_some_and(|o| matches!(m.text(o), "+" | "||" | "??")) => {}
            "ternary_expression" if p.field("condition").is_none_or(|c| c.id() != n.id()) => {}
            _ => return false,
        }
        n = p;
    }
    false
}

/// `ctx.log`, `console.*`, or a `log`/`logger` object's logging method.
fn is_run_log(callee: &str) -> bool {
    const METHODS: &[&str] = &["log", "info", "warn", "error", "debug"];
    if callee == "ctx.log" || callee.starts_with("console.") {
        return true;
    }
    callee.rsplit_once('.').is_some_and(|(object, method)| {
        let object = object.rsplit('.').next().unwrap_or(object);
        matches!(object.to_ascii_lowercase().as_str(), "log" | "logger")
            && METHODS.contains(&method)
    })
}

/// Whether `node` sits under a branch (an `if`, a `?:`, a `switch` case, a
/// `catch`, an `&&`/`||` operand) that `other` is not under.
fn conditional_apart(m: &JsModel, node: Node, other: Node) -> bool {
    let mut n = node;
    while let Some(p) = n.parent() {
        if contains(p, other) {
            return false;
        }
        let branch = match p.kind_str() {
            "if_statement" => p.field("condition").is_none_or(|c| !contains(c, n)),
            "ternary_expression" | "switch_case" | "switch_default" | "catch_clause" => true,
            "binary_expression" => p
                .field("operator")
                .is_some_and(|o| matches!(m.text(o), "&&" | "||" | "??")),
            _ => false,
        };
        if branch {
            return true;
        }
        if matches!(
            p.kind_str(),
            "function_declaration" | "function_expression" | "arrow_function" | "method_definition"
        ) {
            return false;
        }
        n = p;
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::js::model::testing::with_model;

    #[test]
    fn direct_and_transitive() {
        let src = r#"
export async function process(inputs, ctx) {
  ctx.log('start');
  await a(ctx);
}
async function a(ctx) { return b(ctx); }
async function b(ctx) { return ctx.task(t, {}); }
function quiet(ctx) { ctx.log('x'); return ctx.now(); }
"#;
        with_model(src, |m| {
            let process = m
                .functions
                .iter()
                .position(|f| f.name.as_deref() == Some("process"));
            let reach = Reach::new(m);
            let r = process.and_then(|f| reach.in_function(f));
            let r = r.unwrap_or_else(|| panic!("no effect reached"));
            assert_eq!(m.text(m.calls[r.effect].node), "ctx.task(t, {})");
            let via: Vec<&str> = r.via.iter().map(|c| m.text(m.calls[*c].callee)).collect();
            assert_eq!(via, ["a", "b"]);
            let quiet = m
                .functions
                .iter()
                .position(|f| f.name.as_deref() == Some("quiet"));
            assert!(quiet.and_then(|f| reach.in_function(f)).is_none());
        });
    }

    #[test]
    fn loops_over_empty_lists_reach_nothing() {
        let src = r#"
async function empty(ctx) {
  for (const x of []) await ctx.task(t, { x });
  [].forEach((x) => ctx.task(t, { x }));
  const later = [];
  for (let i = 0; i < later.length; i++) await helper(ctx, later[i]);
}
async function filled(ctx) {
  const items = [];
  items.push(1);
  for (let i = 0; i < items.length; i++) await ctx.task(t, {});
}
async function helper(ctx, x) { return ctx.task(t, { x }); }
"#;
        with_model(src, |m| {
            let reach = Reach::new(m);
            let f = |name: &str| {
                m.functions
                    .iter()
                    .position(|f| f.name.as_deref() == Some(name))
            };
            assert!(f("empty").and_then(|f| reach.in_function(f)).is_none());
            assert!(f("filled").and_then(|f| reach.in_function(f)).is_some());
        });
    }

    #[test]
    fn recursion_terminates() {
        let src = "function a(ctx) { return a(ctx); }\nfunction b(ctx) { return c(ctx); }\nfunction c(ctx) { return b(ctx); }\n";
        with_model(src, |m| {
            let reach = Reach::new(m);
            for f in 0..m.functions.len() {
                assert!(reach.in_function(f).is_none());
            }
        });
    }

    #[test]
    fn callbacks_count() {
        let src = "async function p(ctx) { await retry(run); }\nasync function run(ctx) { await ctx.breakpoint({}); }\nfunction retry(f) { return f(); }\n";
        with_model(src, |m| {
            let r = Reach::new(m)
                .in_function(0)
                .unwrap_or_else(|| panic!("not reached"));
            assert_eq!(m.text(m.calls[r.effect].callee), "ctx.breakpoint");
        });
    }
}
