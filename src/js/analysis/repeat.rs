//! Why a call may run more than once per process iteration: a loop around
//! it, a batch or array callback it sits in, a function of the module that
//! is itself called repeatedly (or recursively), or a function passed to a
//! helper that calls it in a loop.

use crate::js::syntax::tree::Node;

use crate::js::analysis::results::enclosing_function;
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
        if !leaves_its_loop(m, call, l) {
            return Some(Repeat::Loop(l));
        }
        // Made on one pass at most, and the loop ends: it repeats only if
        // an outer loop or the function around makes the loop run again.
        if let Some(&outer) = c.loops.iter().rev().nth(1) {
            return Some(Repeat::Loop(outer));
        }
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

/// Whether the call is followed in its own block by an exit from its
/// innermost loop `l` (`outcome = await rollBack(stage); break;`), in the
/// function that holds the loop: whenever the call is made the loop ends, so
/// one run of the loop makes it once at most.
fn leaves_its_loop(m: &JsModel, call: CallId, l: LoopId) -> bool {
    let (c, lp) = (&m.calls[call], &m.loops[l]);
    c.func == lp.func && lp.body.is_some_and(|body| ends_the_loop(c.node, body))
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
/// the same call as `origin` (same callee and first argument, as written),
/// other than in list order. Two elements that each make the call first
/// thing ([`made_in_list_order`]) make it in list order on every iteration,
/// once each: like two calls written one after the other, which the SDK's
/// occurrence count tells apart.
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
    let origin_in_order = made_in_list_order(e, o.node);
    // Past this many elements making the call in order, the list is taken
    // for a repetition as before: a list of thousands of the same call
    // would otherwise compare every element with every other.
    const IN_ORDER_LIMIT: usize = 64;
    let mut in_order = 0;
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
                .any(|c| {
                    if c.node.end_byte() > to || !same(c) {
                        return false;
                    }
                    if origin_in_order && made_in_list_order(other, c.node) {
                        in_order += 1;
                        return in_order > IN_ORDER_LIMIT;
                    }
                    true
                })
        })
}

/// Whether the list element `element` makes `call` as soon as the list
/// starts it: the element is the call itself (a bare promise, possibly
/// awaited), or a thunk whose body is the call (`() => ctx.task(…)`,
/// `async () => { return await ctx.task(…); }`), with no `await` in its
/// arguments. `ctx.parallel.all` starts its thunks in list order, each up
/// to its first pending effect (`runtime/intrinsics/parallel.ts`), and the
/// SDK derives a call's identity when `ctx.task` is called.
fn made_in_list_order(element: Node, call: Node) -> bool {
    let mut e = unparen(element);
    while e.kind_str() == "await_expression" {
        match e.named_child(0) {
            Some(inner) => e = unparen(inner),
            None => return false,
        }
    }
    let made_first = |mut body: Node| {
        if body.kind_str() == "statement_block" {
            let Some(first) = body.named_child(0) else {
                return false;
            };
            if first.kind_str() != "return_statement" {
                return false;
            }
            let Some(value) = first.named_child(0) else {
                return false;
            };
            body = value;
        }
        body = unparen(body);
        while body.kind_str() == "await_expression" {
            match body.named_child(0) {
                Some(inner) => body = unparen(inner),
                None => return false,
            }
        }
        body.id() == call.id()
    };
    let first = if e.kind_str() == "arrow_function" {
        e.field("body").is_some_and(made_first)
    } else {
        e.id() == call.id()
    };
    first && !has_await(call)
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
    grows_per_pass(m, call, *l)
}

/// Whether an args property of `call` is a `const` array that each pass of
/// loop `l` pushes to (see [`args_shape_grows`]).
fn grows_per_pass(m: &JsModel, call: CallId, l: LoopId) -> bool {
    let c = &m.calls[call];
    let lp = &m.loops[l];
    let Some(body) = lp.body.filter(|b| b.kind_str() == "statement_block") else {
        return false;
    };
    let Some(args) = c.args.get(1).and_then(|a| m.object_of_expr(*a)) else {
        return false;
    };
    // A push before the body's first `continue` runs on every pass that
    // goes on to the next one; the body is scanned for `continue` once,
    // and only when needed: most calls fail earlier.
    let mut first_continue: Option<Option<usize>> = None;
    let mut before_any_continue = |s: Node| {
        let at = *first_continue.get_or_insert_with(|| first_continue_at(body));
        at.is_none_or(|c| s.end_byte() <= c)
    };
    crate::js::model::objects::properties(m, args)
        .into_iter()
        .any(|(_, p)| {
            let value = unparen(p.value);
            if !matches!(
                value.kind_str(),
                "identifier" | "shorthand_property_identifier"
            ) {
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
                && body
                    .named()
                    .any(|s| pushes_to(m, s, b) && before_any_continue(s))
        })
}

/// Where the first `continue` in `body` starts (one of an inner loop's too:
/// a conservative bound).
fn first_continue_at(body: Node) -> Option<usize> {
    let mut first: Option<usize> = None;
    let mut stack = vec![body];
    while let Some(n) = stack.pop() {
        if n.kind_str() == "continue_statement" {
            first = Some(first.map_or(n.start_byte(), |f| f.min(n.start_byte())));
            continue;
        }
        stack.extend(n.named());
    }
    first
}

/// `list.push(…);` as a statement, `list` being the binding `b`, with an
/// element that is not spread (`list.push(...found)` adds nothing when
/// `found` is empty).
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
        && call.field("arguments").is_some_and(|args| {
            args.named()
                .any(|a| !matches!(a.kind_str(), "comment" | "spread_element"))
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

/// Whether the SDK's own occurrence count already names each repetition of
/// an unkeyed call as a key from the loop's counter (or the item's index)
/// would, so that neither a changed bound nor a replay can move a call onto
/// another call's record. Without a key the SDK names a call
/// `<task id>.<label>.<args shape>.<n>`, `n` counting the earlier calls of
/// the iteration with the same first three, in the order the calls are made
/// (`deriveStableTaskKey` in `runtime/intrinsics/task.ts`, run when
/// `ctx.task` is called, before its first await). That `n` is the
/// repetition's own position when no other `ctx.task` call of the module
/// can have the same task, label and args shape (it would share the count:
/// removing, adding or skipping it shifts every repetition), and:
/// - the call repeats for one loop only (no loop, callback or repeated
///   function around it besides), the loop body has no `continue`, and the
///   call is a statement of the body itself, so it runs on every pass until
///   the loop ends; or it is guarded by `if (v)` where `v` is falsy before
///   the loop and set to a value that is always truthy by statements of the
///   body after the call (the approval retry: no call on the first pass, one
///   on every later pass); or it is guarded, as the body's last statement,
///   by a condition whose every term is a term of the loop's condition, so
///   that when the guard fails the loop ends (the fix of a convergence loop,
///   `if (!ok && i < max) fix()` in `while (i < max && !ok)`: a call on
///   every pass but the last); or
/// - it repeats for one array or batch callback only
///   ([`callback_aligned`]): the callback's first call, over a list the run
///   fixes.
pub fn occurrence_aligned(m: &JsModel, call: CallId) -> bool {
    let c = &m.calls[call];
    let aligned = match c.loops.as_slice() {
        [l] => loop_aligned(m, call, *l),
        [] => callback_aligned(m, call),
        // An inner loop's call whose args carry a history each pass of the
        // outer loop grows (`previousRounds: rounds`): each outer pass's
        // calls have a shape of their own, and within one the count is the
        // inner pass.
        [outer, inner] => loop_aligned(m, call, *inner) && grows_per_pass(m, call, *outer),
        _ => false,
    };
    aligned
        && !m.effects_of(EffectKind::Task).any(|e| {
            e.call != call
                && may_share_base_key(m, call, e.call)
                && !exclusive_for_the_run(m, c.node, m.calls[e.call].node)
                && !outside_the_count(m, call, e.call)
        })
}

/// Whether `other` cannot move the loop call `call`'s occurrence count: it
/// is in the same function as the call's one loop, outside every loop, and
/// after that loop, so its calls come once the loop's are all made (the
/// final check after a convergence loop). Adding, dropping or skipping it
/// shifts no pass. A call of the same shape *before* the loop is another
/// matter: an edit that drops or adds it shifts every pass onto another
/// pass's record, which a key from the counter would not.
fn outside_the_count(m: &JsModel, call: CallId, other: CallId) -> bool {
    let (c, o) = (&m.calls[call], &m.calls[other]);
    let [l] = c.loops.as_slice() else {
        return false;
    };
    let lp = &m.loops[*l];
    o.loops.is_empty() && o.func == lp.func && o.node.start_byte() >= lp.node.end_byte()
}

/// Whether `a` and `b` sit in different branches of one `if`/`else` or
/// `?:` whose choice is the same on every pass and every
/// iteration of a run: its test is [`fixed_for_run`] (`inputs.mode ===
/// 'quick'`) and it is inside no loop. A run then makes calls from one
/// branch only, so the other's calls never share its occurrence count.
fn exclusive_for_the_run(m: &JsModel, a: Node, b: Node) -> bool {
    let Some(branching) = exclusive_at(a, b) else {
        return exclusive_siblings(m, a, b);
    };
    // Not a `switch`: a case without `break` runs on into the next one.
    branching.kind_str() != "switch_body"
        && branching
            .field("condition")
            .is_some_and(|t| fixed_for_run(m, t, 0))
        && !m
            .loops
            .iter()
            .any(|l| crate::js::syntax::contains(l.node, branching))
}

/// Whether `a` and `b` sit in two `if` statements of one block, without
/// `else`, testing one value the run fixes against two different literals
/// (`if (mode === 'daily') {…}` and `if (mode === 'full') {…}`), in no
/// loop: like the branches of one `if`/`else`, a run enters one of them
/// at most.
fn exclusive_siblings<'t>(m: &JsModel<'t>, a: Node<'t>, b: Node<'t>) -> bool {
    // (the `if`, the tested value's text, the literal), innermost first.
    let tests = |n: Node<'t>| -> Vec<(Node<'t>, &str, String)> {
        let src = m.src();
        let mut out = Vec::new();
        let mut child = n;
        while let Some(p) = child.parent() {
            if p.kind_str() == "if_statement"
                && p.field("alternative").is_none()
                && p.field("consequence").is_some_and(|c| c.id() == child.id())
            {
                if let Some((value, lit)) = p.field("condition").and_then(|c| equality(m, c)) {
                    if fixed_for_run(m, value, 0) && never_reassigned(m, value) {
                        out.push((p, value.utf8_text(src.as_bytes()).unwrap_or(""), lit));
                    }
                }
            }
            child = p;
        }
        out
    };
    let (ta, tb) = (tests(a), tests(b));
    ta.iter().any(|(ia, va, la)| {
        tb.iter().any(|(ib, vb, lb)| {
            ia.id() != ib.id()
                && va == vb
                && la != lb
                && ia.parent().map(|p| p.id()) == ib.parent().map(|p| p.id())
                && !m
                    .loops
                    .iter()
                    .any(|l| crate::js::syntax::contains(l.node, *ia))
        })
    })
}

/// Whether the variable a value is read from (`mode`, `opts.mode`) is
/// never assigned after its declaration: between two tests it is the same.
fn never_reassigned(m: &JsModel, value: Node) -> bool {
    let mut root = unparen(value);
    while matches!(
        root.kind_str(),
        "member_expression" | "subscript_expression"
    ) {
        match root.field("object") {
            Some(o) => root = unparen(o),
            None => return false,
        }
    }
    if root.kind_str() != "identifier" {
        return false;
    }
    let Some(b) = m.binding_of_expr(root) else {
        return true;
    };
    let binding = m.scopes.get(b);
    // Nor any member of it (`plan.mode = 'b'`, `delete plan.mode`).
    binding.writes.is_empty() && !binding.reads.iter().any(|r| member_written(*r))
}

/// The outermost member chain the read `r` is the object of (`r.a.b` for
/// `r` in `r.a.b = 1`), if it is the object of one.
fn outermost_member(r: Node) -> Option<Node> {
    let mut n = r;
    while let Some(p) = n.parent() {
        let is_object = matches!(p.kind_str(), "member_expression" | "subscript_expression")
            && p.field("object").is_some_and(|o| o.id() == n.id());
        if !is_object {
            break;
        }
        n = p;
    }
    (n.id() != r.id()).then_some(n)
}

/// Whether the read `r` is the object of a member chain that is written:
/// assigned, updated (`++`) or deleted.
fn member_written(r: Node) -> bool {
    let Some(n) = outermost_member(r) else {
        return false;
    };
    n.parent().is_some_and(|p| match p.kind_str() {
        "assignment_expression" | "augmented_assignment_expression" => {
            p.field("left").is_some_and(|l| l.id() == n.id())
        }
        "update_expression" => true,
        "unary_expression" => p.child(0).is_some_and(|op| op.kind_str() == "delete"),
        _ => false,
    })
}

/// `value === 'literal'` (either side; `==` too): the value and the string.
fn equality<'t>(m: &JsModel<'t>, cond: Node<'t>) -> Option<(Node<'t>, String)> {
    let c = unparen(cond);
    if c.kind_str() != "binary_expression" {
        return None;
    }
    let op = c.field("operator")?;
    if !matches!(m.text(op), "===" | "==") {
        return None;
    }
    let (l, r) = (unparen(c.field("left")?), unparen(c.field("right")?));
    let lit = |n: Node| crate::js::syntax::string_value(n, m.src());
    match (lit(l), lit(r)) {
        (None, Some(s)) => Some((l, s)),
        (Some(s), None) => Some((r, s)),
        _ => None,
    }
}

/// The loop case of [`occurrence_aligned`], but for the shared count.
fn loop_aligned(m: &JsModel, call: CallId, l: LoopId) -> bool {
    let c = &m.calls[call];
    let mut f = c.func;
    while let Some(fid) = f {
        if repeat_of_function(m, fid, call, 0).is_some() {
            return false;
        }
        f = m.functions[fid].parent;
    }
    let lp = &m.loops[l];
    let Some(body) = lp.body else {
        return false;
    };
    // A thunk of a literal `ctx.parallel.all([() => ctx.task(…), …])` in
    // the loop: the list starts its thunks in order, each up to its first
    // pending effect (`runtime/intrinsics/parallel.ts`), so a thunk that is
    // the call alone makes it whenever the list runs: the list's own place
    // in the body decides.
    let node = match c.func {
        Some(f) if c.func != lp.func => {
            let thunk = &m.functions[f];
            match thunk_batch(m, thunk.node, c.node) {
                Some(batch) if thunk.parent == lp.func => batch,
                _ => return false,
            }
        }
        _ => c.node,
    };
    match first_continue_at(body) {
        None => {
            runs_on_every_pass(m, node, body, lp.node)
                || runs_on_every_pass_but_the_last(m, node, body, lp)
                || ends_the_loop(node, body)
        }
        // A statement of the body written before the first `continue`
        // still runs on every pass: nothing can skip it yet.
        Some(first) => {
            node.end_byte() <= first
                && statement_of(node).is_some_and(|s| {
                    if body.kind_str() == "statement_block" {
                        s.parent().is_some_and(|p| p.id() == body.id())
                    } else {
                        s.id() == body.id()
                    }
                })
        }
    }
}

/// The literal `ctx.parallel.all` call whose list holds `thunk`, when the
/// thunk's body is `call` itself (`() => ctx.task(…)`, or with `await`).
fn thunk_batch<'t>(m: &JsModel<'t>, thunk: Node<'t>, call: Node<'t>) -> Option<Node<'t>> {
    if thunk.kind_str() != "arrow_function" {
        return None;
    }
    let mut body = unparen(thunk.field("body")?);
    if body.kind_str() == "await_expression" {
        body = unparen(body.named_child(0)?);
    }
    if body.id() != call.id() {
        return None;
    }
    literal_batch_of(m, thunk)
}

/// Whether the call's statement is followed in its own block by a `break`,
/// `return` or `throw` that leaves the loop whose body is `body` (no
/// `switch` in between, where `break` leaves the `switch`, no `try` with a
/// `catch` around the call, and no `continue` before the exit): the call
/// runs on one pass at most (`if (gate.approved) { await
/// ctx.task(conduct, …); break; }`). A direct call
/// so placed is not repeated by the loop ([`leaves_its_loop`]); a thunk's
/// call is when its list is.
fn ends_the_loop(node: Node, body: Node) -> bool {
    let Some(statement) = statement_of(node) else {
        return false;
    };
    let Some(block) = statement.parent() else {
        return false;
    };
    // Up to the loop's body: not in a `switch` case (a `break` leaves the
    // `switch`), nor in the body of a `try` with a `catch` (the call itself
    // may throw — a task that failed rethrows its error on replay — and the
    // catch lets the loop go on, whatever exit follows).
    let mut up = Some(block);
    while let Some(n) = up {
        if n.id() == body.id() {
            break;
        }
        let caught = n.kind_str() == "try_statement"
            && n.field("handler").is_some()
            && n.field("body")
                .is_some_and(|b| crate::js::syntax::contains(b, block));
        if caught || matches!(n.kind_str(), "switch_case" | "switch_default") {
            return false;
        }
        up = n.parent();
    }
    let mut after = false;
    for s in block.named() {
        if s.id() == statement.id() {
            after = true;
            continue;
        }
        if after {
            match s.kind_str() {
                "return_statement" | "throw_statement" => return true,
                "break_statement" => return s.named_child(0).is_none(),
                // `if (!r.ok) continue;` before the exit: the loop goes on.
                _ if first_continue_at(s).is_some() => return false,
                _ => {}
            }
        }
    }
    false
}

/// Whether the call at `node` is guarded by the last statement of the loop
/// body, `if (a && b) { … }`, whose every term is also a term of the loop's
/// condition, and nothing runs between the body and the condition (a
/// `while` or `do…while` loop, or a `for` without an update): a pass whose
/// guard fails ends the loop, so the call runs on every pass but the last.
fn runs_on_every_pass_but_the_last(
    m: &JsModel,
    node: Node,
    body: Node,
    lp: &crate::js::model::Loop,
) -> bool {
    if body.kind_str() != "statement_block" || lp.node.field("increment").is_some() {
        return false;
    }
    let Some(loop_cond) = lp.condition else {
        return false;
    };
    let Some(guard) = body.named().filter(|s| s.kind_str() != "comment").last() else {
        return false;
    };
    if guard.kind_str() != "if_statement" || guard.field("alternative").is_some() {
        return false;
    }
    let Some(consequence) = guard.field("consequence") else {
        return false;
    };
    let Some(statement) = statement_of(node) else {
        return false;
    };
    let direct = if consequence.kind_str() == "statement_block" {
        statement
            .parent()
            .is_some_and(|p| p.id() == consequence.id())
    } else {
        statement.id() == consequence.id()
    };
    if !direct {
        return false;
    }
    let Some(cond) = guard.field("condition") else {
        return false;
    };
    let loop_terms = conjuncts(m, loop_cond);
    let guard_terms = conjuncts(m, cond);
    !guard_terms.is_empty() && guard_terms.iter().all(|t| loop_terms.contains(t))
}

/// The terms of an `a && b && …` condition, as written (whitespace
/// squeezed).
fn conjuncts(m: &JsModel, cond: Node) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![cond];
    while let Some(n) = stack.pop() {
        let n = unparen(n);
        // `for (;;)` and `while (…)` wrap their condition.
        if matches!(
            n.kind_str(),
            "expression_statement" | "parenthesized_expression"
        ) {
            if let Some(inner) = n.named_child(0) {
                stack.push(inner);
                continue;
            }
        }
        if n.kind_str() == "binary_expression"
            && n.field("operator").is_some_and(|o| m.text(o) == "&&")
        {
            stack.extend(n.field("left"));
            stack.extend(n.field("right"));
            continue;
        }
        out.push(m.text(n).split_whitespace().collect::<Vec<_>>().join(" "));
    }
    out
}

/// Whether the items of a callback make this call in an order that can
/// change between iterations of unchanged code: the call sits in a callback
/// given to an array's `map`/`flatMap`/`forEach` or to `ctx.parallel.*`,
/// after another effect call of that callback. Each item's call then waits
/// for the item's earlier effect; `ctx.parallel.all`/`map` run the thunks in
/// turn, each until an effect is pending (`runtime/intrinsics/parallel.ts`),
/// and array callbacks run concurrently, so which item makes the first,
/// second… call of the task depends on which of those effects have resolved
/// in this iteration, and the SDK's occurrence count follows that order.
pub fn order_varies(m: &JsModel, call: CallId) -> bool {
    let c = &m.calls[call];
    let mut f = c.func;
    while let Some(fid) = f {
        let fnode = m.functions[fid].node;
        let per_item = per_item_callback(m, fnode) || called_per_item(m, fid);
        if per_item {
            // Made before the callback first waits (`d => Promise.all([
            // ctx.task(a, d), ctx.task(b, d)])`): no effect of the item's
            // can resolve first, so the items make it in item order (a
            // loop in the callback is `identity_varies`' concern, not
            // this one's).
            if c.func == Some(fid) && !awaits_before(fnode, c.node) {
                return false;
            }
            let (from, to) = (fnode.start_byte(), c.node.start_byte());
            let before =
                |n: Node| n.start_byte() >= from && n.end_byte() <= to && !exclusive(n, c.node);
            // An effect made inside a helper the item awaits, handed the
            // context (`await approvalGate(ctx, item)`), waits as well.
            let awaited_helper = |other: &crate::js::model::Call| {
                other
                    .node
                    .parent()
                    .is_some_and(|p| p.kind_str() == "await_expression")
                    && other.args.iter().any(|a| m.is_context_expr(*a))
            };
            return m
                .effects
                .iter()
                .any(|e| e.kind.dispatches() && e.call != call && before(m.calls[e.call].node))
                || m.calls.iter().enumerate().any(|(i, other)| {
                    i != call
                        && m.effect_of_call(i).is_none()
                        && before(other.node)
                        && awaited_helper(other)
                });
        }
        f = m.functions[fid].parent;
    }
    false
}

/// Whether `fnode` is a callback run once per item: given to an array's
/// `map`/`flatMap`/`forEach` or to `ctx.parallel.*`. A thunk written out in
/// a literal list runs once per run of the list: what repeats it per item
/// is further out.
fn per_item_callback(m: &JsModel, fnode: Node) -> bool {
    literal_batch_of(m, fnode).is_none()
        && callback_of(m, fnode).is_some_and(|cb| {
            m.call_of_node(cb)
                .is_some_and(|bi| match m.effect_of_call(bi).map(|e| e.kind) {
                    Some(k) => matches!(k, EffectKind::ParallelAll | EffectKind::ParallelMap),
                    None => unparen(m.calls[bi].callee)
                        .field("property")
                        .is_some_and(|p| matches!(m.text(p), "map" | "flatMap" | "forEach")),
                })
        })
}

/// Whether function `fid` is a module helper that per-item callbacks stand
/// for: bound to a name never reassigned, and every use of it a call that
/// such a callback returns (`(l) => strand(l)`, `(id) => fileReport(id)`).
/// Each item then runs its own copy, as if the helper were the callback.
fn called_per_item(m: &JsModel, fid: usize) -> bool {
    let Some(binding) = m.scopes.bindings.iter().find(|b| {
        b.writes.is_empty()
            && (b.function == Some(fid) || b.init.and_then(|i| m.function_of_expr(i)) == Some(fid))
    }) else {
        return false;
    };
    !binding.reads.is_empty()
        && binding.reads.iter().all(|r| {
            let Some(call) = r
                .parent()
                .filter(|p| p.kind_str() == "call_expression")
                .filter(|p| p.field("function").is_some_and(|f| f.id() == r.id()))
            else {
                return false;
            };
            // The call is what the callback returns.
            let mut returned = call;
            while let Some(p) = returned.parent() {
                if matches!(
                    p.kind_str(),
                    "parenthesized_expression" | "await_expression"
                ) {
                    returned = p;
                } else {
                    break;
                }
            }
            let Some(holder) = returned.parent() else {
                return false;
            };
            let callback = match holder.kind_str() {
                "arrow_function"
                    if holder
                        .field("body")
                        .is_some_and(|b| b.id() == returned.id()) =>
                {
                    Some(holder)
                }
                "return_statement" => enclosing_function(m, holder).map(|f| m.functions[f].node),
                _ => None,
            };
            callback.is_some_and(|cb| per_item_callback(m, cb))
        })
}

/// Whether `a` and `b` sit in different branches of one `if`/`else`,
/// `switch` or `?:`, so that no run makes both.
fn exclusive(a: Node, b: Node) -> bool {
    exclusive_at(a, b).is_some()
}

/// The `if_statement`, `switch_body` or `ternary_expression` of [`exclusive`].
fn exclusive_at<'t>(a: Node<'t>, b: Node<'t>) -> Option<Node<'t>> {
    let mut n = a;
    while let Some(p) = n.parent() {
        if crate::js::syntax::contains(p, b) {
            let branches = matches!(
                p.kind_str(),
                "if_statement" | "switch_body" | "ternary_expression"
            );
            // `b` is not in the branch that holds `a`, nor in the condition.
            let apart = branches
                && !crate::js::syntax::contains(n, b)
                && p.field("condition").is_none_or(|c| {
                    !crate::js::syntax::contains(c, a) && !crate::js::syntax::contains(c, b)
                });
            return apart.then_some(p);
        }
        n = p;
    }
    None
}

/// The callback case of [`occurrence_aligned`]: the call repeats for one
/// callback only (no loop or repeated function around it besides), given to
/// an array's `map`/`flatMap`/`forEach` or to `ctx.parallel.map`, and it is
/// the first thing the callback does that can wait: a statement of its body
/// (or of the thunk it returns) with no `await` before it and no branch
/// around it. `map` and `forEach` call their callback item by item, each up
/// to its first `await`; `ctx.parallel.all` and `ctx.parallel.map` start
/// their thunks in list order, one after another or, with
/// `maxConcurrency`, each launched synchronously up to its first `await`
/// (`runtime/intrinsics/parallel.ts`). Every item then makes the call, and
/// in list order, so its count is the item's index. A later call of the
/// callback is not aligned: it waits for the item's earlier effects, so the
/// items' calls of it come in the order those resolve, which can change from
/// one iteration to the next without any edit. The list must be one the run
/// fixes ([`fixed_for_run`]): a list that changes between iterations moves
/// items onto other items' records.
fn callback_aligned(m: &JsModel, call: CallId) -> bool {
    let c = &m.calls[call];
    let mut callback = None;
    let mut f = c.func;
    while let Some(fid) = f {
        match repeat_of_function(m, fid, call, 0) {
            None => {}
            Some(Repeat::Callback(batch)) if callback.is_none() => callback = Some((fid, batch)),
            Some(_) => return false,
        }
        f = m.functions[fid].parent;
    }
    let Some((fid, batch)) = callback else {
        return false;
    };
    let Some(bi) = m.call_of_node(batch) else {
        return false;
    };
    let b = &m.calls[bi];
    let list = match m.effect_of_call(bi).map(|e| e.kind) {
        Some(EffectKind::ParallelMap) => b.args.first().copied(),
        Some(_) => None,
        None => {
            let callee = unparen(b.callee);
            callee
                .field("property")
                .filter(|p| matches!(m.text(*p), "map" | "flatMap" | "forEach"))
                .and_then(|_| callee.field("object"))
        }
    };
    // The callback is the list's function argument, not a `thisArg`.
    let fnode = m.functions[fid].node;
    let is_callback_arg = b.args.iter().any(|a| unparen(*a).id() == fnode.id());
    is_callback_arg
        && list.is_some_and(|l| fixed_for_run(m, l, 0))
        && starts_with(m, fnode, c.node, 0)
}

/// Whether calling the function `fnode` makes the call at `call`
/// synchronously and on every run: its body (or that of the thunk it
/// returns) reaches the call's statement through plain statements with no
/// `await`, no branch and no exit before it.
fn starts_with(m: &JsModel, fnode: Node, call: Node, depth: usize) -> bool {
    if depth > 2 {
        return false;
    }
    let Some(body) = fnode.field("body") else {
        return false;
    };
    if body.kind_str() != "statement_block" {
        return leads_to(m, body, call, depth);
    }
    block_starts_with(m, body, call, depth)
}

fn block_starts_with(m: &JsModel, block: Node, call: Node, depth: usize) -> bool {
    for s in block.named() {
        if s.kind_str() == "comment" {
            continue;
        }
        if crate::js::syntax::contains(s, call) {
            return match s.kind_str() {
                "return_statement" => s
                    .named_child(0)
                    .is_some_and(|e| leads_to(m, e, call, depth)),
                "try_statement" => s
                    .field("body")
                    .is_some_and(|b| block_starts_with(m, b, call, depth)),
                _ => {
                    statement_of(call).is_some_and(|st| st.id() == s.id())
                        && !awaits_before(s, call)
                }
            };
        }
        let plain = matches!(
            s.kind_str(),
            "expression_statement" | "lexical_declaration" | "variable_declaration"
        );
        if !plain || has_await(s) {
            return false;
        }
    }
    false
}

/// The expression is the call (awaited or not), or a thunk that starts
/// with it.
fn leads_to(m: &JsModel, expr: Node, call: Node, depth: usize) -> bool {
    let mut e = unparen(expr);
    while e.kind_str() == "await_expression" {
        match e.named_child(0) {
            Some(inner) => e = unparen(inner),
            None => return false,
        }
    }
    if e.id() == call.id() {
        return true;
    }
    // `ctx.task(…).then(…)`: the call is made first, the handler later.
    if e.kind_str() == "call_expression" {
        if let Some(callee) = e.field("function").map(unparen) {
            let chained = callee.kind_str() == "member_expression"
                && callee
                    .field("property")
                    .is_some_and(|p| matches!(m.text(p), "then" | "catch" | "finally"));
            if chained {
                return callee
                    .field("object")
                    .is_some_and(|o| leads_to(m, o, call, depth));
            }
        }
    }
    matches!(
        e.kind_str(),
        "arrow_function" | "function_expression" | "function"
    ) && starts_with(m, e, call, depth + 1)
}

/// An `await` in `statement` that ends before `call` starts: an earlier
/// wait in the same statement (`f(await a(), await ctx.task(…))`).
fn awaits_before(statement: Node, call: Node) -> bool {
    let mut stack = vec![statement];
    while let Some(n) = stack.pop() {
        if n.start_byte() >= call.start_byte() {
            continue;
        }
        if n.kind_str() == "await_expression" && n.end_byte() <= call.start_byte() {
            return true;
        }
        stack.extend(n.named());
    }
    false
}

/// Any `await` or `yield` in `n` (nested functions' own included: a
/// conservative answer).
fn has_await(n: Node) -> bool {
    let mut stack = vec![n];
    while let Some(n) = stack.pop() {
        if matches!(n.kind_str(), "await_expression" | "yield_expression") {
            return true;
        }
        stack.extend(n.named());
    }
    false
}

/// Whether the list `expr` is the same on every iteration of a run: built
/// from the process's `inputs` (fixed for the run), literals, and the
/// results of effects (recorded, so replay returns them), through member
/// reads, destructuring, `||`/`??`/`?:`, and array methods (`filter`,
/// `map`, `slice`, …, `Object.keys`). A list from anything else (a helper's
/// parameter, the file system, the clock) is not known to be.
fn fixed_for_run(m: &JsModel, expr: Node, depth: usize) -> bool {
    if depth > 8 {
        return false;
    }
    let n = unparen(expr);
    let fixed = |e: Node| fixed_for_run(m, e, depth + 1);
    match n.kind_str() {
        "array" => n
            .named()
            .filter(|e| e.kind_str() == "spread_element")
            .all(|e| e.named_child(0).is_some_and(fixed)),
        "string" | "template_string" | "number" | "object" | "null" | "undefined" | "true"
        | "false" => true,
        "member_expression" | "subscript_expression" => n.field("object").is_some_and(fixed),
        "await_expression" => n.named_child(0).map(unparen).is_some_and(|inner| {
            m.call_of_node(inner)
                .and_then(|ci| m.effect_of_call(ci))
                .is_some_and(|e| e.kind.dispatches())
        }),
        "binary_expression" => {
            n.field("left").is_some_and(fixed) && n.field("right").is_some_and(fixed)
        }
        "unary_expression" => n.field("argument").is_some_and(fixed),
        // Which branch is taken is not checked: either list is fixed.
        "ternary_expression" => {
            n.field("consequence").is_some_and(fixed) && n.field("alternative").is_some_and(fixed)
        }
        "call_expression" => {
            let Some(callee) = n.field("function").map(unparen) else {
                return false;
            };
            let Some(args) = n.field("arguments") else {
                return false;
            };
            // Callbacks see only the list's items; other arguments must be
            // fixed too.
            let args_fixed = args.named().all(|a| {
                matches!(
                    a.kind_str(),
                    "arrow_function" | "function_expression" | "function"
                ) || fixed(a)
            });
            if !args_fixed {
                return false;
            }
            // A function of the module that reads nothing from outside it.
            if callee.kind_str() == "identifier" {
                return m
                    .function_of_expr(callee)
                    .is_some_and(|f| self_contained(m, m.functions[f].node));
            }
            if callee.kind_str() != "member_expression" {
                return false;
            }
            let (Some(object), Some(property)) = (callee.field("object"), callee.field("property"))
            else {
                return false;
            };
            let method = m.text(property);
            match m.text(unparen(object)) {
                "Object" | "Array" => {
                    return matches!(
                        method,
                        "keys" | "values" | "entries" | "from" | "freeze" | "isArray"
                    ) && args.named().next().is_some_and(fixed)
                }
                "Math" => return method != "random",
                _ => {}
            }
            matches!(
                method,
                "filter"
                    | "map"
                    | "flatMap"
                    | "flat"
                    | "slice"
                    | "concat"
                    | "sort"
                    | "toSorted"
                    | "reverse"
                    | "toReversed"
                    | "split"
            ) && fixed(object)
        }
        "identifier" => {
            let Some(b) = m.binding_of_expr(n) else {
                return false;
            };
            let binding = m.scopes.get(b);
            if let Some((f, 0)) = binding.param {
                // The process function's `inputs`: its second parameter is
                // the process context.
                return m.functions[f]
                    .param_bindings
                    .get(1)
                    .copied()
                    .flatten()
                    .is_some_and(|ctx| m.contexts.contains(&ctx));
            }
            if binding.param.is_some() {
                return false;
            }
            let source = binding.init.or_else(|| destructured_from(binding.node));
            source.is_some_and(fixed)
                && binding.writes.iter().all(|w| {
                    w.parent().is_some_and(|a| {
                        a.kind_str() == "assignment_expression"
                            && a.field("right").is_some_and(fixed)
                    })
                })
        }
        _ => false,
    }
}

/// Whether a function reads nothing that can differ between iterations: no
/// `await`, no import, no `new Date`, and none of the globals that reach
/// outside the process (the clock, randomness, the environment, the file
/// system).
fn self_contained(m: &JsModel, fnode: Node) -> bool {
    let mut stack = vec![fnode];
    while let Some(n) = stack.pop() {
        match n.kind_str() {
            "await_expression" | "yield_expression" => return false,
            // `new Date()` reads the clock; `new Error(…)`, `new Set(…)` do not.
            "new_expression" if n.field("constructor").is_some_and(|c| m.text(c) == "Date") => {
                return false
            }
            "identifier" => {
                let outside = match m.scopes.binding_of(n) {
                    Some(b) => m.import_of(b).is_some(),
                    None => matches!(
                        m.text(n),
                        "Date"
                            | "Math"
                            | "process"
                            | "require"
                            | "fetch"
                            | "globalThis"
                            | "performance"
                            | "crypto"
                    ),
                };
                if outside {
                    return false;
                }
            }
            _ => {}
        }
        stack.extend(n.named());
    }
    true
}

/// The value a binding declared in a destructuring pattern is taken from:
/// `files` in `const { files = [] } = inputs` comes from `inputs`.
fn destructured_from(declared: Node) -> Option<Node> {
    let mut n = declared;
    loop {
        let p = n.parent()?;
        match p.kind_str() {
            "object_pattern"
            | "array_pattern"
            | "pair_pattern"
            | "assignment_pattern"
            | "object_assignment_pattern"
            | "rest_pattern"
            | "shorthand_property_identifier_pattern" => n = p,
            "variable_declarator" => {
                // The binding must be in the pattern, not be the name.
                let name = p.field("name")?;
                return (name.id() != declared.id())
                    .then(|| p.field("value"))
                    .flatten();
            }
            _ => return None,
        }
    }
}

/// Whether the call at `node` runs on every pass of the loop whose body is
/// `body` (see [`occurrence_aligned`]).
fn runs_on_every_pass(m: &JsModel, node: Node, body: Node, loop_node: Node) -> bool {
    let Some(statement) = statement_of(node) else {
        return false;
    };
    let top = |s: Node| {
        if body.kind_str() == "statement_block" {
            s.parent().is_some_and(|p| p.id() == body.id())
        } else {
            s.id() == body.id()
        }
    };
    if top(statement) {
        return true;
    }
    // `if (v) { x = await ctx.task(…); }` as a statement of the body.
    let mut holder = statement.parent();
    if holder.is_some_and(|h| h.kind_str() == "statement_block") {
        holder = holder.and_then(|h| h.parent());
    }
    // `if (…) {…} else { x = await ctx.task(…); }`
    if holder.is_some_and(|h| h.kind_str() == "else_clause") {
        holder = holder.and_then(|h| h.parent());
    }
    let Some(guard) = holder.filter(|h| h.kind_str() == "if_statement" && top(*h)) else {
        return false;
    };
    let Some(cond) = guard.field("condition").map(unparen) else {
        return false;
    };
    // A test with one value on every pass: the call runs on every pass or
    // on none, and either way its count is the pass.
    let in_branch = |f: &str| {
        guard
            .field(f)
            .is_some_and(|c| crate::js::syntax::contains(c, node))
    };
    if (in_branch("consequence") || in_branch("alternative")) && loop_invariant(m, cond, loop_node)
    {
        return true;
    }
    if !in_branch("consequence") {
        return false;
    }
    if past_first_pass(m, cond, loop_node) {
        return true;
    }
    if cond.kind_str() != "identifier" {
        return false;
    }
    let Some(b) = m.binding_of_expr(cond) else {
        return false;
    };
    let binding = m.scopes.get(b);
    let falsy_before = !crate::js::syntax::contains(loop_node, binding.node)
        && binding.init.is_none_or(|i| falsy_literal(m, i));
    falsy_before
        && !binding.writes.is_empty()
        && binding.writes.iter().all(|w| {
            // After the loop it no longer matters.
            w.start_byte() >= loop_node.end_byte()
                || (w.start_byte() > guard.end_byte()
                    && statement_of(*w).is_some_and(&top)
                    && w.parent().is_some_and(|a| {
                        a.kind_str() == "assignment_expression"
                            && a.field("right").is_some_and(|r| truthy(m, r))
                    }))
        })
}

/// Methods that only read the value they are called on (and their
/// arguments).
const READING_METHODS: &[&str] = &[
    "includes",
    "startsWith",
    "endsWith",
    "indexOf",
    "has",
    "some",
    "every",
    "find",
    "toLowerCase",
    "toUpperCase",
    "trim",
    "isArray",
    "isFinite",
    "isInteger",
];

/// Whether `cond` has one value on every pass of `loop_node`: it reads
/// only variables declared outside the loop that nothing in the loop
/// writes, writes a member of or hands to a function (which could), calls
/// only methods that read, and awaits nothing
/// (`if (setup.ensemble.includes('NPT'))` on a result recorded before the
/// loop).
fn loop_invariant(m: &JsModel, cond: Node, loop_node: Node) -> bool {
    use crate::js::syntax::contains;
    let loop_fn = enclosing_function(m, loop_node);
    let mut stack = vec![cond];
    while let Some(n) = stack.pop() {
        match n.kind_str() {
            "await_expression"
            | "assignment_expression"
            | "augmented_assignment_expression"
            | "update_expression"
            | "new_expression"
            | "yield_expression"
            | "this" => return false,
            "call_expression" => {
                let method = n
                    .field("function")
                    .map(unparen)
                    .filter(|f| f.kind_str() == "member_expression")
                    .and_then(|f| f.field("property"));
                if !method.is_some_and(|p| READING_METHODS.contains(&m.text(p))) {
                    return false;
                }
            }
            "identifier" => match m.binding_of_expr(n) {
                None => {
                    if !matches!(m.text(n), "Number" | "Array" | "String" | "undefined") {
                        return false;
                    }
                }
                Some(b) => {
                    let binding = m.scopes.get(b);
                    // A callback's own parameter (`x => x.done`).
                    let own = contains(cond, binding.node);
                    // Changed in the loop, or in a function (a closure the
                    // loop may call): written, a member written, handed to
                    // a function, or a method called on it that may
                    // mutate it (`issues.push(…)`).
                    let may_change =
                        |n: Node| contains(loop_node, n) || enclosing_function(m, n) != loop_fn;
                    let changed = contains(loop_node, binding.node)
                        || binding.writes.iter().any(|w| may_change(*w))
                        || binding.reads.iter().any(|r| {
                            may_change(*r)
                                && (member_written(*r)
                                    || mutating_call(m, *r)
                                    || r.parent().is_some_and(|p| p.kind_str() == "arguments"))
                        });
                    if !own && changed {
                        return false;
                    }
                }
            },
            _ => {}
        }
        stack.extend(n.named());
    }
    true
}

/// Whether the read `r` is the object of a method call (at any depth of a
/// member chain: `r.items.push(…)`) whose method is not one that only
/// reads.
fn mutating_call(m: &JsModel, r: Node) -> bool {
    let Some(n) = outermost_member(r) else {
        return false;
    };
    let called = n.parent().is_some_and(|c| {
        c.kind_str() == "call_expression" && c.field("function").is_some_and(|f| f.id() == n.id())
    });
    called
        && !n
            .field("property")
            .is_some_and(|p| READING_METHODS.contains(&m.text(p)))
}

/// `i > K` or `i !== K` where `i` is the counter of the `for` loop
/// `loop_node`, declared there as `let i = K` (a number), stepped by
/// `i++` or `i += 1` in its update and written nowhere else: false on the
/// first pass only (the retry of `for (let round = 0; …; round++) { if
/// (round > 0) { redraft } … }`).
fn past_first_pass(m: &JsModel, cond: Node, loop_node: Node) -> bool {
    if loop_node.kind_str() != "for_statement" || cond.kind_str() != "binary_expression" {
        return false;
    }
    let (Some(op), Some(left), Some(right)) = (
        cond.field("operator").map(|o| m.text(o)),
        cond.field("left").map(unparen),
        cond.field("right").map(unparen),
    ) else {
        return false;
    };
    if !matches!(op, ">" | "!==" | "!=")
        || left.kind_str() != "identifier"
        || right.kind_str() != "number"
    {
        return false;
    }
    let Some(b) = m.binding_of_expr(left) else {
        return false;
    };
    let binding = m.scopes.get(b);
    let (Some(init), Some(update)) = (loop_node.field("initializer"), loop_node.field("increment"))
    else {
        return false;
    };
    let starts_at_k = crate::js::syntax::contains(init, binding.node)
        && binding.init.is_some_and(|i| {
            unparen(i).kind_str() == "number" && m.text(unparen(i)) == m.text(right)
        });
    let stepped = binding.writes.len() == 1
        && binding.writes.iter().all(|w| {
            crate::js::syntax::contains(update, *w)
                && w.parent().is_some_and(|p| match p.kind_str() {
                    "update_expression" => m.text(p).contains("++"),
                    "augmented_assignment_expression" => {
                        p.field("operator").is_some_and(|o| m.text(o) == "+=")
                            && p.field("right").is_some_and(|r| m.text(unparen(r)) == "1")
                    }
                    _ => false,
                })
        });
    starts_at_k && stepped
}

/// The statement an expression sits in, through the wrappers of a plain
/// call statement (`await`, assignment, declaration).
fn statement_of(node: Node) -> Option<Node> {
    let mut n = node;
    loop {
        let p = n.parent()?;
        match p.kind_str() {
            "await_expression"
            | "parenthesized_expression"
            | "assignment_expression"
            | "variable_declarator"
            // An argument or a value of a literal is evaluated whenever its
            // holder is: `audits.push(await ctx.task(…))`.
            | "arguments"
            | "array"
            | "object" => n = p,
            "pair" if p.field("value").is_some_and(|v| v.id() == n.id()) => n = p,
            // `(await ctx.task(…)).done`: the object is evaluated first.
            "member_expression" | "subscript_expression"
                if p.field("object").is_some_and(|o| o.id() == n.id()) =>
            {
                n = p
            }
            "call_expression" if p.field("arguments").is_some_and(|a| a.id() == n.id()) => {
                n = p
            }
            "expression_statement" | "lexical_declaration" | "variable_declaration" => {
                return Some(p)
            }
            _ => return None,
        }
    }
}

fn falsy_literal(m: &JsModel, node: Node) -> bool {
    let n = unparen(node);
    match n.kind_str() {
        "null" | "undefined" | "false" => true,
        "number" => m.text(n) == "0",
        "string" => crate::js::syntax::string_value(n, m.src()).is_some_and(|s| s.is_empty()),
        "identifier" => m.text(n) == "undefined",
        _ => false,
    }
}

/// A value that is always truthy: a non-empty string, an object or array,
/// or an `a || b` whose last operand is one.
fn truthy(m: &JsModel, node: Node) -> bool {
    let n = unparen(node);
    match n.kind_str() {
        "object" | "array" | "true" => true,
        "string" => crate::js::syntax::string_value(n, m.src()).is_some_and(|s| !s.is_empty()),
        "binary_expression" => {
            n.field("operator").is_some_and(|o| m.text(o) == "||")
                && n.field("right").is_some_and(|r| truthy(m, r))
        }
        _ => false,
    }
}

/// Whether two `ctx.task` calls may get the same base key (task id, label,
/// args shape), as far as the code shows: unknown parts may.
fn may_share_base_key(m: &JsModel, a: CallId, b: CallId) -> bool {
    let (ca, cb) = (&m.calls[a], &m.calls[b]);
    let (Some(ta), Some(tb)) = (ca.args.first(), cb.args.first()) else {
        return true;
    };
    use crate::js::model::TaskTarget;
    let same_task = match (m.task_target(*ta), m.task_target(*tb)) {
        (TaskTarget::Local(x), TaskTarget::Local(y)) => {
            x == y
                || match (&m.task_defs[x].id, &m.task_defs[y].id) {
                    (Some(i), Some(j)) => i == j,
                    _ => true,
                }
        }
        (
            TaskTarget::Imported {
                source: s1,
                name: n1,
            },
            TaskTarget::Imported {
                source: s2,
                name: n2,
            },
        ) => s1 == s2 && n1 == n2,
        (TaskTarget::Local(_), TaskTarget::Imported { .. })
        | (TaskTarget::Imported { .. }, TaskTarget::Local(_)) => false,
        _ => m.text(unparen(*ta)) == m.text(unparen(*tb)),
    };
    if !same_task {
        return false;
    }
    let (la, lb) = (label_of(m, a), label_of(m, b));
    if let (Some(x), Some(y)) = (&la, &lb) {
        if x != y {
            return false;
        }
    }
    match (args_keys(m, a), args_keys(m, b)) {
        (Some(x), Some(y)) => x == y,
        _ => true,
    }
}

/// The invocation's label when it is known: "default" without one.
fn label_of(m: &JsModel, call: CallId) -> Option<String> {
    let Some(opts) = m.calls[call].args.get(2) else {
        return Some("default".into());
    };
    let o = m.object_of_expr(*opts)?;
    if let Some(v) = crate::js::model::objects::property(m, o, "label") {
        return crate::js::syntax::string_value(unparen(v), m.src());
    }
    // A spread may bring a label in.
    (!o.named().any(|c| c.kind_str() == "spread_element")).then(|| "default".into())
}

/// The args' top-level key names when the code fixes them all (an object
/// literal, spreads of object literals included), sorted; none for args
/// whose keys are not all known.
fn args_keys(m: &JsModel, call: CallId) -> Option<Vec<String>> {
    let Some(args) = m.calls[call].args.get(1) else {
        return Some(vec!["<no args>".into()]);
    };
    let mut keys = Vec::new();
    collect_keys(m, m.object_of_expr(*args)?, 0, &mut keys)?;
    keys.sort_unstable();
    keys.dedup();
    Some(keys)
}

fn collect_keys(m: &JsModel, obj: Node, depth: usize, out: &mut Vec<String>) -> Option<()> {
    if depth > 4 {
        return None;
    }
    for child in obj.named() {
        match child.kind_str() {
            "pair" => out.push(crate::js::syntax::key_name(child.field("key")?, m.src())?),
            "shorthand_property_identifier" => out.push(m.text(child).to_string()),
            "method_definition" => {
                out.push(crate::js::syntax::key_name(child.field("name")?, m.src())?)
            }
            "spread_element" => {
                collect_keys(m, m.object_of_expr(child.named_child(0)?)?, depth + 1, out)?
            }
            "comment" => {}
            _ => return None,
        }
    }
    Some(())
}

/// The invocation's explicit key: `Some(None)` when present but not a
/// constant, `Some(Some(s))` for a constant string, `None` when absent.
/// Options that are not an object literal count as keyed (unknowable).
pub fn invocation_key(m: &JsModel, call: usize) -> Option<Option<String>> {
    let opts = m.calls[call].args.get(2)?;
    let Some(obj) = m.object_of_expr(*opts) else {
        return Some(None);
    };
    if crate::js::model::objects::has_opaque_spread(m, obj) {
        return Some(None);
    }
    let v = crate::js::model::objects::property(m, obj, "key")
        .or_else(|| crate::js::model::objects::property(m, obj, "stableKey"))?;
    Some(crate::js::syntax::string_value(unparen(v), m.src()))
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
