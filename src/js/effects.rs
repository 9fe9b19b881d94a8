//! Which code dispatches effects: directly, or through functions of the same
//! module it calls (to a fixed depth).

use std::collections::HashSet;

use tree_sitter::Node;

use super::context_api::SIGNALLING_METHODS;
use super::model::{CallId, Effect, JsModel};
use super::scope::FnId;
use super::syntax::{contains, unparen};

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
    if callee.kind() != "member_expression" {
        return None;
    }
    let obj = unparen(callee.child_by_field_name("object")?);
    let method = m.text(callee.child_by_field_name("property")?);
    let (root, path) = if obj.kind() == "member_expression" {
        let inner = unparen(obj.child_by_field_name("object")?);
        let inner_prop = m.text(obj.child_by_field_name("property")?);
        (inner, format!("{inner_prop}.{method}"))
    } else {
        (obj, method.to_string())
    };
    (root.kind() == "identifier").then_some((root, path))
}

/// The effect recorded for a call, if the call is one.
pub fn effect_of_call<'m>(m: &'m JsModel, call: CallId) -> Option<&'m Effect> {
    m.effects.iter().find(|e| e.call == call)
}

/// Whether an effect throws the SDK's intrinsic signals (pending, requested,
/// halted) before it is resolved.
pub fn signals(effect: &Effect) -> bool {
    SIGNALLING_METHODS.contains(&effect.method.as_str())
}

/// The first signalling effect inside `node` (including callbacks written
/// inside it), else the first reached through a same-module function it
/// calls or passes as a callback.
pub fn signalling_effect_in(m: &JsModel, node: Node) -> Option<Reached> {
    let mut seen = HashSet::new();
    search(m, node, &mut seen, 0)
}

/// Whether a function dispatches a signalling effect, directly or through
/// same-module calls.
pub fn function_signals(m: &JsModel, f: FnId) -> Option<Reached> {
    let mut seen = HashSet::new();
    seen.insert(f);
    search(m, m.functions.get(f)?.node, &mut seen, 0)
}

fn search(m: &JsModel, node: Node, seen: &mut HashSet<FnId>, depth: usize) -> Option<Reached> {
    let inside: Vec<CallId> = (0..m.calls.len())
        .filter(|&c| contains(node, m.calls[c].node))
        .collect();
    if let Some(&c) = inside
        .iter()
        .find(|&&c| effect_of_call(m, c).is_some_and(signals))
    {
        return Some(Reached {
            effect: c,
            via: Vec::new(),
        });
    }
    if depth >= MAX_CALL_DEPTH {
        return None;
    }
    for c in inside {
        let call = &m.calls[c];
        // The callee, and functions handed over as callbacks
        // (`withRetry(runReview)`), which the callee will invoke.
        let targets = std::iter::once(call.callee)
            .chain(call.args.iter().copied())
            .filter_map(|n| m.function_of_expr(n));
        for f in targets {
            // Function literals inside `node` were searched already.
            if contains(node, m.functions[f].node) || !seen.insert(f) {
                continue;
            }
            if let Some(mut r) = search(m, m.functions[f].node, seen, depth + 1) {
                r.via.insert(0, c);
                return Some(r);
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::js::testing::with_model;

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
            let r = process.and_then(|f| function_signals(m, f));
            let r = r.unwrap_or_else(|| panic!("no effect reached"));
            assert_eq!(m.text(m.calls[r.effect].node), "ctx.task(t, {})");
            let via: Vec<&str> = r.via.iter().map(|c| m.text(m.calls[*c].callee)).collect();
            assert_eq!(via, ["a", "b"]);
            let quiet = m
                .functions
                .iter()
                .position(|f| f.name.as_deref() == Some("quiet"));
            assert!(quiet.and_then(|f| function_signals(m, f)).is_none());
        });
    }

    #[test]
    fn recursion_terminates() {
        let src = "function a(ctx) { return a(ctx); }\nfunction b(ctx) { return c(ctx); }\nfunction c(ctx) { return b(ctx); }\n";
        with_model(src, |m| {
            for f in 0..m.functions.len() {
                assert!(function_signals(m, f).is_none());
            }
        });
    }

    #[test]
    fn callbacks_count() {
        let src = "async function p(ctx) { await retry(run); }\nasync function run(ctx) { await ctx.breakpoint({}); }\nfunction retry(f) { return f(); }\n";
        with_model(src, |m| {
            let r = function_signals(m, 0).unwrap_or_else(|| panic!("not reached"));
            assert_eq!(m.text(m.calls[r.effect].callee), "ctx.breakpoint");
        });
    }
}
