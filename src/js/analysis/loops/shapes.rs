//! Syntactic shapes the loop queries look for: comparisons and their
//! operands, advancing and accumulating writes, exits, labels.

use crate::js::model::scope::{BindingId, FnId};
use crate::js::model::JsModel;
use crate::js::syntax::tree::Node;
use crate::js::syntax::{is_function, is_loop, text, unparen};
use std::collections::HashSet;

use super::{COMPARISONS, MAX_WALK_NODES};

/// Array methods that call their callback once per element.
const ITERATING_METHODS: &[&str] = &[
    "forEach",
    "map",
    "flatMap",
    "filter",
    "some",
    "every",
    "find",
    "findIndex",
    "findLast",
    "findLastIndex",
    "reduce",
    "reduceRight",
];

/// Whether `node` sits in code that runs once per element of a list that
/// is empty as written — the body of `for (const x of [])`, of
/// `for (let i = 0; i < list.length; i++)` over `const list = []`, or the
/// callback of `[].forEach(…)` — and so never runs.
pub fn never_iterates(m: &JsModel, node: Node) -> bool {
    let mut child = node;
    while let Some(p) = child.parent() {
        let in_body = p.field("body") == Some(child);
        let empty = match p.kind_str() {
            "for_in_statement" if in_body => p.field("right").is_some_and(|r| is_empty_list(m, r)),
            "for_statement" if in_body => counts_over_empty(m, p),
            "arguments" => p
                .parent()
                .and_then(|call| call.field("function"))
                .map(unparen)
                .filter(|c| c.kind_str() == "member_expression")
                .filter(|c| {
                    c.field("property")
                        .is_some_and(|pr| ITERATING_METHODS.contains(&m.text(pr)))
                })
                .and_then(|c| c.field("object"))
                .is_some_and(|o| is_function(child) && is_empty_list(m, o)),
            _ => false,
        };
        if empty {
            return true;
        }
        child = p;
    }
    false
}

/// `[]`, or a `const` initialised to `[]` that is only iterated or
/// measured (`for … of`, `.length`, `.forEach(…)`): nothing adds to it.
fn is_empty_list(m: &JsModel, expr: Node) -> bool {
    let expr = unparen(expr);
    match expr.kind_str() {
        "array" => expr.named().all(|c| c.kind_str() == "comment"),
        "identifier" => {
            let Some(b) = m.scopes.binding_of(expr) else {
                return false;
            };
            let bind = m.scopes.get(b);
            let is_const = bind
                .node
                .parent()
                .and_then(|d| d.parent())
                .is_some_and(|decl| {
                    decl.kind_str() == "lexical_declaration"
                        && decl.child(0).is_some_and(|k| text(k, m.src()) == "const")
                });
            is_const
                && bind.writes.is_empty()
                && bind.init.is_some_and(|i| {
                    let i = unparen(i);
                    i.kind_str() == "array" && i.named().all(|c| c.kind_str() == "comment")
                })
                && bind.reads.iter().all(|r| only_iterated(m, *r))
        }
        _ => false,
    }
}

/// A read of a list that cannot add to it: the iterable of a `for … of`,
/// `.length`, or the receiver of an iterating method.
fn only_iterated(m: &JsModel, r: Node) -> bool {
    let Some(p) = r.parent() else { return false };
    match p.kind_str() {
        "for_in_statement" => p.field("right") == Some(r),
        "member_expression" if p.field("object") == Some(r) => p
            .field("property")
            .map(|pr| m.text(pr))
            .is_some_and(|name| name == "length" || ITERATING_METHODS.contains(&name)),
        // `list[i]`: an element read.
        "subscript_expression" => p.field("object") == Some(r),
        _ => false,
    }
}

/// `for (let i = 0; i < list.length; …)` over an empty list.
fn counts_over_empty(m: &JsModel, for_stmt: Node) -> bool {
    let Some(cond) = for_stmt.field("condition") else {
        return false;
    };
    let cond = if cond.kind_str() == "expression_statement" {
        match cond.named_child(0) {
            Some(c) => c,
            None => return false,
        }
    } else {
        cond
    };
    let cond = unparen(cond);
    if cond.kind_str() != "binary_expression" || op(m, cond) != "<" {
        return false;
    }
    let starts_at_zero = for_stmt.field("initializer").is_some_and(|init| {
        let mut ok = false;
        walk(init, |n| {
            if n.kind_str() == "variable_declarator" {
                ok = n.field("value").is_some_and(|v| {
                    unparen(v).kind_str() == "number" && text(unparen(v), m.src()) == "0"
                });
            }
            !ok
        });
        ok
    });
    starts_at_zero
        && cond
            .field("right")
            .map(unparen)
            .filter(|r| r.kind_str() == "member_expression")
            .filter(|r| r.field("property").is_some_and(|p| m.text(p) == "length"))
            .and_then(|r| r.field("object"))
            .is_some_and(|o| is_empty_list(m, o))
}

/// Top-level `&&` operands: each must hold for the loop to go on, so any
/// one of them can bound it. `||` operands cannot.
pub fn conjuncts<'t>(m: &JsModel<'t>, cond: Node<'t>) -> Vec<Node<'t>> {
    let mut out = Vec::new();
    let mut stack = vec![unparen(cond)];
    while let Some(n) = stack.pop() {
        if n.kind_str() == "binary_expression" && op(m, n) == "&&" {
            for f in ["right", "left"] {
                if let Some(c) = n.field(f) {
                    stack.push(unparen(c));
                }
            }
        } else {
            out.push(n);
        }
    }
    out
}

/// Comparisons anywhere in an expression (nested functions excluded).
pub fn comparisons_in<'t>(m: &JsModel<'t>, expr: Node<'t>) -> Vec<Node<'t>> {
    let mut out = Vec::new();
    walk(expr, |n| {
        if is_function(n) {
            return false;
        }
        if n.kind_str() == "binary_expression" && COMPARISONS.contains(&op(m, n)) {
            out.push(n);
        }
        true
    });
    out
}

/// `true`, `1`, `!0`, `!false`.
pub(super) fn is_always_true(m: &JsModel, n: Node) -> bool {
    let n = unparen(n);
    match n.kind_str() {
        "true" => true,
        "number" => text(n, m.src()).trim() != "0",
        "unary_expression" if op(m, n) == "!" => {
            n.field("argument").map(unparen).is_some_and(|a| {
                a.kind_str() == "false"
                    || (a.kind_str() == "number" && text(a, m.src()).trim() == "0")
            })
        }
        _ => false,
    }
}

/// `x++`, `x -= 1`, `x = x + 1`, `x = x - step`.
pub(super) fn is_advancing_write(m: &JsModel, w: Node, b: BindingId) -> bool {
    let Some(p) = w.parent() else { return false };
    match p.kind_str() {
        "update_expression" => true,
        // `n += 1`, `n -= step`; not `notes += text`.
        "augmented_assignment_expression" => {
            matches!(op(m, p), "+=" | "-=")
                && p.field("right").map(unparen).is_some_and(|r| {
                    matches!(r.kind_str(), "number" | "identifier" | "member_expression")
                })
        }
        "assignment_expression" => p.field("right").map(unparen).is_some_and(|r| {
            r.kind_str() == "binary_expression"
                && matches!(op(m, r), "+" | "-")
                && ["left", "right"]
                    .iter()
                    .any(|f| r.field(f).is_some_and(|o| m.binding_of_expr(o) == Some(b)))
        }),
        _ => false,
    }
}

/// `notes += text` (not `n += 1`), `history = [...history, x]`,
/// `all = all.concat(batch)`.
pub(super) fn is_accumulating_write(m: &JsModel, w: Node, b: BindingId) -> bool {
    let Some(p) = w.parent() else { return false };
    match p.kind_str() {
        "augmented_assignment_expression" => p
            .field("right")
            .map(unparen)
            .is_some_and(|r| r.kind_str() != "number"),
        "assignment_expression" => p.field("right").is_some_and(|r| rebuilds(m, unparen(r), b)),
        _ => false,
    }
}

/// Whether a value extends the old value of `b`: `[...b, x]`,
/// `{ ...b, k: v }`, `b.concat(x)`, `b + x`. Passing `b` to a task that
/// returns its replacement (`report = await ctx.task(fix, { report })`)
/// keeps only the latest value, so it does not count.
pub(super) fn rebuilds(m: &JsModel, value: Node, b: BindingId) -> bool {
    let is_b = |n: Option<Node>| n.is_some_and(|n| m.binding_of_expr(n) == Some(b));
    match value.kind_str() {
        "array" | "object" => {
            let found = value
                .named()
                .any(|e| e.kind_str() == "spread_element" && is_b(e.named_child(0)));
            found
        }
        "call_expression" => value
            .field("function")
            .map(unparen)
            .is_some_and(|f| f.kind_str() == "member_expression" && is_b(f.field("object"))),
        "binary_expression" => {
            op(m, value) == "+" && (is_b(value.field("left")) || is_b(value.field("right")))
        }
        _ => false,
    }
}

/// The method name when `r` is the object of a method call (`r.push(…)`).
pub(super) fn method_call_on<'t>(m: &JsModel<'t>, r: Node<'t>) -> Option<&'t str> {
    let member = r.parent()?;
    if member.kind_str() != "member_expression" || member.field("object") != Some(r) {
        return None;
    }
    let call = member.parent()?;
    if call.kind_str() != "call_expression" || call.field("function") != Some(member) {
        return None;
    }
    member.field("property").map(|p| text(p, m.src()))
}

/// `r[k] = v` / `r.k = v`.
pub(super) fn is_member_assignment_target(r: Node) -> bool {
    let Some(member) = r.parent() else {
        return false;
    };
    if !matches!(
        member.kind_str(),
        "member_expression" | "subscript_expression"
    ) || member.field("object") != Some(r)
    {
        return false;
    }
    member.parent().is_some_and(|a| {
        matches!(
            a.kind_str(),
            "assignment_expression" | "augmented_assignment_expression"
        ) && a.field("left") == Some(member)
    })
}

/// Whether a read sits in a comparison (`depth < MAX`, `opts.depth >= 3`).
pub(super) fn in_comparison(m: &JsModel, r: Node) -> bool {
    let mut n = r;
    while let Some(p) = n.parent() {
        match p.kind_str() {
            "member_expression" | "parenthesized_expression" if !is_function(p) => n = p,
            "binary_expression" => return COMPARISONS.contains(&op(m, p)),
            "unary_expression" => return op(m, p) == "!",
            _ => return false,
        }
    }
    false
}

/// Whether any identifier under `n` resolves to `b`.
pub fn mentions(m: &JsModel, n: Node, b: BindingId) -> bool {
    let mut found = false;
    walk(n, |c| {
        if found {
            return false;
        }
        if matches!(c.kind_str(), "identifier" | "shorthand_property_identifier")
            && m.scopes.binding_of(c) == Some(b)
        {
            found = true;
        }
        true
    });
    found
}

/// The variable a member read starts from (`state` of `state.done`,
/// `fs` of `fs.promises.readFile`), if it is a plain name.
pub fn member_root(n: Node) -> Option<Node> {
    let mut n = unparen(n);
    while n.kind_str() == "member_expression" || n.kind_str() == "subscript_expression" {
        n = unparen(n.field("object")?);
    }
    (n.kind_str() == "identifier").then_some(n)
}

/// The function in whose body `n` runs on every path that reaches its
/// end: no branch, loop, `catch`, conditional or short-circuit lies
/// between them (an early `return`/`throw` before it leaves the function,
/// which the callers' loops then see as an exception or an exit).
pub(super) fn unconditional_in(m: &JsModel, n: Node) -> Option<FnId> {
    let mut cur = n;
    while let Some(p) = cur.parent() {
        if is_function(p) {
            return m.function_of_node(p);
        }
        match p.kind_str() {
            "if_statement" | "switch_statement" | "catch_clause" | "ternary_expression" => {
                return None
            }
            "binary_expression" if matches!(op(m, p), "&&" | "||" | "??") => return None,
            k if is_loop(p) || k == "for_statement" => return None,
            _ => {}
        }
        cur = p;
    }
    None
}

/// The last statement of a block (comments skipped).
pub(super) fn last_statement<'t>(block: Node<'t>) -> Option<Node<'t>> {
    if block.kind_str() != "statement_block" {
        return Some(block);
    }
    block.named().filter(|c| c.kind_str() != "comment").last()
}

pub(super) fn same_text(m: &JsModel, a: Node, b: Node) -> bool {
    let norm = |n: Node| -> String { text(n, m.src()).split_whitespace().collect() };
    norm(a) == norm(b)
}

/// Whether `n` is inside a loop nested in `lp` (a `continue` there
/// continues that loop).
pub(super) fn inside_loop(n: Node, lp: Node) -> bool {
    let mut cur = n;
    while let Some(p) = cur.parent() {
        if p.id() == lp.id() {
            return false;
        }
        if is_loop(p) || is_function(p) {
            return true;
        }
        cur = p;
    }
    false
}

/// Whether an unlabelled `break` at `n` leaves a loop or `switch` nested
/// inside `lp` rather than `lp` itself.
pub(super) fn inside_breakable(n: Node, lp: Node) -> bool {
    let mut cur = n;
    while let Some(p) = cur.parent() {
        if p.id() == lp.id() {
            return false;
        }
        if is_loop(p) || p.kind_str() == "switch_statement" {
            return true;
        }
        cur = p;
    }
    false
}

/// Labels declared inside a node (a labelled `break` to one of them stays
/// inside).
pub(super) fn labels_inside<'t>(m: &JsModel<'t>, node: Node<'t>) -> HashSet<&'t str> {
    let mut out = HashSet::new();
    walk(node, |n| {
        if n.kind_str() == "labeled_statement" {
            if let Some(l) = n.field("label") {
                out.insert(text(l, m.src()));
            }
        }
        true
    });
    out
}

pub(super) fn op<'a>(m: &JsModel<'a>, node: Node<'a>) -> &'a str {
    node.field("operator")
        .map(|o| text(o, m.src()))
        .unwrap_or("")
}

/// Pre-order walk with an explicit stack; `visit` returns whether to
/// descend into the node's children. Bounded by [`MAX_WALK_NODES`].
pub fn walk<'t>(root: Node<'t>, mut visit: impl FnMut(Node<'t>) -> bool) {
    let mut stack = vec![root];
    let mut seen = 0;
    while let Some(n) = stack.pop() {
        seen += 1;
        if seen > MAX_WALK_NODES {
            return;
        }
        if !visit(n) {
            continue;
        }
        let children: Vec<Node<'t>> = n.named().collect();
        stack.extend(children.into_iter().rev());
    }
}
