//! Why a call may run more than once per process iteration: a loop around
//! it, a batch or array callback it sits in, a function of the module that
//! is itself called repeatedly (or recursively), or a function passed to a
//! helper that calls it in a loop.

use crate::js::syntax::tree::Node;

use crate::js::model::scope::FnId;
use crate::js::model::{CallId, EffectKind, JsModel, LoopId};
use crate::js::syntax::unparen;

/// How far calls are followed within the module.
const MAX_DEPTH: usize = 4;

#[derive(Debug, Clone)]
pub enum Repeat<'t> {
    /// Lexically inside this loop.
    Loop(LoopId),
    /// Inside a callback of this batch or array call.
    Callback(Node<'t>),
    /// Inside a function that calls itself here.
    Recursive(Node<'t>),
    /// Inside a function called (or invoked through a parameter) at `via`,
    /// which repeats for `cause`.
    Via {
        via: Node<'t>,
        cause: Box<Repeat<'t>>,
    },
}

impl<'t> Repeat<'t> {
    /// The innermost syntactic reason: the loop header, batch or self-call.
    pub fn root(&self) -> &Repeat<'t> {
        match self {
            Repeat::Via { cause, .. } => cause.root(),
            other => other,
        }
    }
}

const ARRAY_CALLBACKS: &[&str] = &[
    "map", "forEach", "flatMap", "filter", "reduce", "some", "every",
];

pub fn repetition<'t>(m: &JsModel<'t>, call: CallId) -> Option<Repeat<'t>> {
    repeat_of_call(m, call, 0)
}

fn repeat_of_call<'t>(m: &JsModel<'t>, call: CallId, depth: usize) -> Option<Repeat<'t>> {
    let c = &m.calls[call];
    if let Some(&l) = c.loops.last() {
        return Some(Repeat::Loop(l));
    }
    // `ctx.parallel.all([ctx.task(a, …), ctx.task(a, …)])`: bare promises.
    if let Some(batch) = literal_batch_of(m, c.node) {
        if elsewhere_in_list(m, c.node, call) {
            return Some(Repeat::Callback(batch));
        }
    }
    let mut f = c.func;
    while let Some(fid) = f {
        if let Some(r) = repeat_of_function(m, fid, call, depth) {
            return Some(r);
        }
        f = m.functions[fid].parent;
    }
    None
}

fn repeat_of_function<'t>(
    m: &JsModel<'t>,
    f: FnId,
    origin: CallId,
    depth: usize,
) -> Option<Repeat<'t>> {
    let fnode = m.functions[f].node;
    if let Some(cb) = callback_of(m, fnode) {
        // A thunk written out in a `ctx.parallel.all([...])` list runs once
        // per run of the list: it repeats only if its call appears in
        // another element too (the list inside a loop is found outside).
        let once = literal_batch_of(m, fnode).is_some() && !elsewhere_in_list(m, fnode, origin);
        if !once {
            return Some(Repeat::Callback(cb));
        }
    }
    if depth >= MAX_DEPTH {
        return None;
    }
    // Direct call sites of the function in this module.
    for &ci in m.call_sites_of(f) {
        let call = &m.calls[ci];
        if crate::js::syntax::contains(fnode, call.node) {
            return Some(Repeat::Recursive(call.node));
        }
        if ci == origin {
            continue;
        }
        if let Some(cause) = repeat_of_call(m, ci, depth + 1) {
            return Some(Repeat::Via {
                via: call.node,
                cause: Box::new(cause),
            });
        }
    }
    // Passed to a helper: `runStep({ runCheck: async () => ctx.task(…) })`.
    let (helper_call, index, key) = passed_to(m, fnode)?;
    let helper = m.function_of_expr(m.calls[helper_call].callee)?;
    let param = (*m.functions[helper].param_bindings.get(index)?)?;
    for (ci, call) in m.calls.iter().enumerate() {
        let callee = unparen(call.callee);
        let invokes = match (&key, callee.kind_str()) {
            (None, "identifier") => m.binding_of_expr(callee) == Some(param),
            (Some(k), "member_expression") => {
                callee.field("object").and_then(|o| m.binding_of_expr(o)) == Some(param)
                    && callee.field("property").is_some_and(|p| m.text(p) == k)
            }
            _ => false,
        };
        if !invokes {
            continue;
        }
        if let Some(cause) = repeat_of_call(m, ci, depth + 1) {
            return Some(Repeat::Via {
                via: call.node,
                cause: Box::new(cause),
            });
        }
    }
    None
}

/// The batch/array call a function is a callback of, if any.
fn callback_of<'t>(m: &JsModel<'t>, fnode: Node<'t>) -> Option<Node<'t>> {
    let mut holder = fnode.parent()?;
    // `ctx.parallel.all([() => …])`: thunks sit in an array argument.
    if holder.kind_str() == "array" {
        holder = holder.parent()?;
    }
    if holder.kind_str() != "arguments" {
        return None;
    }
    let call = holder.parent()?;
    let ci = m.call_of_node(call)?;
    if m.effect_of_call(ci)
        .is_some_and(|e| matches!(e.kind, EffectKind::ParallelAll | EffectKind::ParallelMap))
    {
        return Some(call);
    }
    let callee = unparen(m.calls[ci].callee);
    let method = callee.field("property").map(|p| m.text(p))?;
    (callee.kind_str() == "member_expression" && ARRAY_CALLBACKS.contains(&method)).then_some(call)
}

/// The `ctx.parallel.all` call whose literal list holds `element` directly
/// (a thunk, or a bare promise, possibly awaited).
fn literal_batch_of<'t>(m: &JsModel<'t>, element: Node<'t>) -> Option<Node<'t>> {
    let mut e = element;
    while let Some(p) = e.parent().filter(|p| p.kind_str() == "await_expression") {
        e = p;
    }
    let array = e.parent().filter(|p| p.kind_str() == "array")?;
    let call = array.parent().filter(|a| a.kind_str() == "arguments")?;
    let call = call.parent()?;
    let ci = m.call_of_node(call)?;
    m.effect_of_call(ci)
        .is_some_and(|e| e.kind == EffectKind::ParallelAll)
        .then_some(call)
}

/// Whether another element of the literal list that holds `element` makes
/// the same call as `origin` (same callee and first argument, as written).
fn elsewhere_in_list(m: &JsModel, element: Node, origin: CallId) -> bool {
    let mut e = element;
    while let Some(p) = e.parent().filter(|p| p.kind_str() == "await_expression") {
        e = p;
    }
    let Some(array) = e.parent() else {
        return false;
    };
    let o = &m.calls[origin];
    let same = |c: &crate::js::model::Call| {
        m.text(c.callee) == m.text(o.callee)
            && c.args.first().map(|a| m.text(*a)) == o.args.first().map(|a| m.text(*a))
    };
    array
        .named()
        .filter(|other| other.id() != e.id())
        .any(|other| {
            // Calls are in source order.
            let (from, to) = (other.start_byte(), other.end_byte());
            let first = m.calls.partition_point(|c| c.node.start_byte() < from);
            m.calls[first..]
                .iter()
                .take_while(|c| c.node.start_byte() < to)
                .any(|c| c.node.end_byte() <= to && same(c))
        })
}

/// `helper(fn)` → (call, 0, None); `helper({ k: fn })` → (call, 0, Some(k)).
fn passed_to(m: &JsModel, fnode: Node) -> Option<(CallId, usize, Option<String>)> {
    let parent = fnode.parent()?;
    let (arg, key) = if parent.kind_str() == "pair" {
        let key = parent
            .field("key")
            .and_then(|k| crate::js::syntax::key_name(k, m.src()))?;
        (parent.parent()?, Some(key))
    } else {
        (fnode, None)
    };
    let args = arg.parent().filter(|a| a.kind_str() == "arguments")?;
    let call = m.call_of_node(args.parent()?)?;
    let index = m.calls[call].args.iter().position(|a| a.id() == arg.id())?;
    Some((call, index, key))
}

/// Whether every pass of the one loop around `call` sends args of a new
/// shape, which the SDK's key derivation tells apart as a key would
/// (`runtime/intrinsics/task.ts`: without a key a call is identified by
/// task id, label and a hash of the args' shape, array lengths included):
/// an args property is a `const` array declared outside the loop and pushed
/// to by a statement of the loop body itself, in a loop with no `continue`
/// (so no pass that calls skips the push) and nothing that shrinks the
/// array. Only a call repeated by that loop alone counts: an outer
/// repetition would start the array afresh.
pub fn args_shape_grows(m: &JsModel, call: CallId) -> bool {
    let c = &m.calls[call];
    let [l] = c.loops.as_slice() else {
        return false;
    };
    let mut f = c.func;
    while let Some(fid) = f {
        if repeat_of_function(m, fid, call, 0).is_some() {
            return false;
        }
        f = m.functions[fid].parent;
    }
    let lp = &m.loops[*l];
    let Some(body) = lp.body.filter(|b| b.kind_str() == "statement_block") else {
        return false;
    };
    let Some(args) = c.args.get(1).and_then(|a| m.object_of_expr(*a)) else {
        return false;
    };
    // The body is scanned for `continue` last: most calls fail earlier.
    let grows = crate::js::model::objects::properties(m, args)
        .into_iter()
        .any(|(_, p)| {
            let value = unparen(p.value);
            if value.kind_str() != "identifier" {
                return false;
            }
            let Some(b) = m.binding_of_expr(value) else {
                return false;
            };
            let binding = m.scopes.get(b);
            binding.kind == crate::js::model::scope::BindingKind::Const
                && binding
                    .init
                    .is_some_and(|i| unparen(i).kind_str() == "array")
                && !crate::js::syntax::contains(lp.node, binding.node)
                && !binding.reads.iter().any(|r| shrinks(m, *r))
                && body.named().any(|s| pushes_to(m, s, b))
        });
    grows && !has_continue(body)
}

/// `list.push(…);` as a statement, `list` being the binding `b`.
fn pushes_to(m: &JsModel, statement: Node, b: crate::js::model::scope::BindingId) -> bool {
    if statement.kind_str() != "expression_statement" {
        return false;
    }
    let Some(call) = statement.named_child(0).map(unparen) else {
        return false;
    };
    call.kind_str() == "call_expression"
        && call.field("function").is_some_and(|f| {
            f.kind_str() == "member_expression"
                && f.field("property").is_some_and(|p| m.text(p) == "push")
                && f.field("object").and_then(|o| m.binding_of_expr(o)) == Some(b)
        })
}

/// A read that may shorten the array: `pop`/`shift`/`splice`, or an
/// assignment to its `length`.
fn shrinks(m: &JsModel, read: Node) -> bool {
    let Some(member) = m.member_of_object(read) else {
        return false;
    };
    let property = member.field("property").map(|p| m.text(p)).unwrap_or("");
    match property {
        "pop" | "shift" | "splice" => true,
        "length" => member
            .parent()
            .is_some_and(|p| p.kind_str().contains("assignment")),
        _ => false,
    }
}

/// Any `continue` in `body` (nested loops' own included: a conservative
/// answer).
fn has_continue(body: Node) -> bool {
    let mut stack = vec![body];
    while let Some(n) = stack.pop() {
        if n.kind_str() == "continue_statement" {
            return true;
        }
        stack.extend(n.named());
    }
    false
}

/// Whether the call repeats for one reason only, written around it: one
/// loop (and no function around the call that is itself repeated), or one
/// callback (and no loop around it). A key from that loop's or callback's
/// variable then names every repetition. With two layers (a loop in a loop,
/// a callback in a loop) the inner variable takes the same values on every
/// outer pass, so a key from it alone would collide; through a helper call
/// the variable is not in scope at the call.
pub fn one_layer(m: &JsModel, call: CallId) -> bool {
    let c = &m.calls[call];
    let mut layers = c.loops.len();
    let mut f = c.func;
    while let Some(fid) = f {
        match repeat_of_function(m, fid, call, 0) {
            Some(Repeat::Callback(_)) => layers += 1,
            Some(_) => return false,
            None => {}
        }
        f = m.functions[fid].parent;
    }
    layers == 1
}

/// Whether the SDK's identity of an unkeyed call differs per repetition. It
/// derives the identity from the task id, the invocation's `label`, the
/// argument shape and an occurrence count (`deriveStableTaskKey`), so a
/// label built from what changes per repetition
/// (`` label: `judge:${task.id}` ``), or a task defined per repetition with
/// an id that does (`` defineTask(`write-tests-${i}`, …) `` in the loop),
/// names each call as a key would. What changes: a variable declared or
/// assigned inside the repeating loop or callback, or a parameter of a
/// function around the call (called again, it may get other arguments).
pub fn identity_varies(m: &JsModel, call: CallId, r: &Repeat) -> bool {
    let c = &m.calls[call];
    let region = match r.root() {
        Repeat::Loop(l) => Some(m.loops[*l].node),
        Repeat::Callback(batch) => Some(*batch),
        Repeat::Recursive(_) | Repeat::Via { .. } => None,
    };
    let label = c
        .args
        .get(2)
        .and_then(|o| m.object_of_expr(*o))
        .and_then(|o| crate::js::model::objects::property(m, o, "label"));
    let task_id = match c.args.first().map(|a| m.task_target(*a)) {
        Some(crate::js::model::TaskTarget::Local(i)) => {
            let t = &m.task_defs[i];
            t.id.is_none().then_some(t.id_node)
        }
        _ => None,
    };
    [label, task_id]
        .into_iter()
        .flatten()
        .any(|expr| reads_per_repetition(m, expr, region, c.node))
}

/// Whether `expr` reads a variable declared inside `region` or a parameter
/// of a function around `call`.
fn reads_per_repetition(m: &JsModel, expr: Node, region: Option<Node>, call: Node) -> bool {
    let mut stack = vec![expr];
    while let Some(n) = stack.pop() {
        if n.kind_str() == "identifier" {
            if let Some(b) = m.scopes.binding_of(n) {
                let binding = m.scopes.get(b);
                // Declared in the repeating region, or written there (a
                // counter declared before the loop and bumped in it).
                let inside = region.is_some_and(|r| {
                    crate::js::syntax::contains(r, binding.node)
                        || binding
                            .writes
                            .iter()
                            .any(|w| crate::js::syntax::contains(r, *w))
                });
                let enclosing_param = binding
                    .param
                    .is_some_and(|(f, _)| crate::js::syntax::contains(m.functions[f].node, call));
                if inside || enclosing_param {
                    return true;
                }
            }
        }
        stack.extend(n.named());
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::js::model::testing::with_model;

    /// `args_shape_grows` for the one `ctx.task` call of a process body.
    fn grows(body: &str) -> bool {
        let src = format!("export async function process(inputs, ctx) {{\n{body}\n}}\n");
        with_model(&src, |m| {
            let call = m
                .calls
                .iter()
                .position(|c| m.text(c.callee) == "ctx.task")
                .unwrap_or_else(|| panic!("no ctx.task in {body}"));
            args_shape_grows(m, call)
        })
    }

    #[test]
    fn an_array_pushed_on_every_pass_gives_each_pass_its_own_shape() {
        let loop_ = |decl: &str, after: &str| {
            format!(
                "{decl}\nfor (let i = 0; i < 3; i++) {{\n  const r = await ctx.task(t, {{ previous: h }});\n  {after}\n}}"
            )
        };
        assert!(grows(&loop_("const h = [];", "h.push(r);")));
        // Pushed only on some passes, or shortened, or rebindable: two
        // passes may send the same shape.
        assert!(!grows(&loop_("const h = [];", "if (r.ok) h.push(r);")));
        assert!(!grows(&loop_("const h = [];", "h.push(r); h.shift();")));
        assert!(!grows(&loop_("const h = [];", "h.push(r); h.length = 0;")));
        assert!(!grows(&loop_("let h = [];", "h.push(r);")));
        assert!(!grows(&loop_(
            "const h = [];",
            "if (r.skip) continue; h.push(r);"
        )));
        assert!(!grows(&loop_("const h = inputs.history;", "h.push(r);")));
        // Declared inside an outer loop: each outer pass starts afresh.
        assert!(!grows(&format!(
            "for (const p of inputs.parts) {{\n{}\n}}",
            loop_("const h = [];", "h.push(r);")
        )));
        // Passed as a slice: its length stops growing.
        assert!(!grows(
            "const h = [];\nfor (let i = 0; i < 3; i++) {\n  const r = await ctx.task(t, { previous: h.slice(-2) });\n  h.push(r);\n}"
        ));
    }
}
