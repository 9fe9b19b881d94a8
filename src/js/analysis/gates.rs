//! Gates: is a task's result tested before the process goes on, and what
//! does the process go on to? For results that carry failure as a value (a
//! failed shell task resolves to `{ success: false, exitCode, … }`) the
//! code that reads them is the only gate there is.

use std::sync::LazyLock;

use regex::Regex;

use crate::js::analysis::results::{reads_of, ForwardKind, Reads};
use crate::js::model::scope::FnId;
use crate::js::model::{objects, CallId, EffectKind, JsModel, LoopKind};
use crate::js::syntax::tree::Node;
use crate::js::syntax::{is_function, shorten_code, string_value, unparen};

/// Fields whose value reflects whether a command passed: the SDK's own
/// (`success`, `exitCode`, `error`) and the verdicts commands and schemas
/// report (`allPassed`, `buildSuccess`, `failures`, `status`, `valid`).
pub fn is_verdict_field(name: &str) -> bool {
    static RE: LazyLock<Option<Regex>> = LazyLock::new(|| {
        Regex::new(r"(?i)^(?:ok|code|result_?code)$|pass|fail|succe|exit|error|status|valid|verif|broken|green|clean").ok()
    });
    RE.as_ref().is_some_and(|re| re.is_match(name))
}

/// Callees that judge what they are given (assertion helpers).
pub fn is_assertion(callee: &str) -> bool {
    static RE: LazyLock<Option<Regex>> = LazyLock::new(|| {
        Regex::new(r"(?i)(?:^|[._])(?:assert|expect|ensure|check|verify|require|must|invariant|gate|fail|throwif|judge|evaluate|validate)").ok()
    });
    RE.as_ref().is_some_and(|re| re.is_match(callee))
}

/// What the process does after a call as if its result were fine.
#[derive(Debug, Clone)]
pub struct Next<'t> {
    /// "goes on to `ctx.task(deployTask, …)`", "asks “Deploy?” at a breakpoint".
    pub what: String,
    pub node: Node<'t>,
}

#[derive(Debug, Clone)]
pub struct Gate<'t> {
    /// A read of the result decides something: a verdict field is read, or
    /// a read sits in a condition, a comparison, a negation or an
    /// assertion's arguments.
    pub tested: bool,
    /// The result is handed whole, or a field of it, to another task.
    pub judged_by_task: bool,
    /// The `catch` clause of a `try` around the call (same function).
    pub catch: Option<Node<'t>>,
    pub next: Option<Next<'t>>,
}

/// The gate after `ctx.task(…)` call `call`, whose result's reads are
/// `reads` ([`crate::js::analysis::results::reads_of`] the call).
pub fn result_gate<'t>(m: &JsModel<'t>, call: CallId, reads: &Reads<'t>) -> Gate<'t> {
    let node = m.calls[call].node;
    let tested = reads
        .paths
        .iter()
        .any(|(path, at)| path.first().is_some_and(|f| is_verdict_field(f)) || decides(m, *at));
    let judged_by_task = reads
        .forwards
        .iter()
        .any(|f| matches!(f.kind, ForwardKind::Task(_)));
    Gate {
        tested,
        judged_by_task,
        catch: enclosing_catch(node).or_else(|| promise_catch(m, node)),
        next: next_step(m, call),
    }
}

/// The later task that checks the work of call `call`: going on from the
/// call through task calls only (the results of those between may be read,
/// but none is tested), the first task whose result's verdict, score or
/// metrics are read, in the same retry loop
/// (`while`, `do`, `for (;;)`) as the call — the test suite after a run of
/// implementers, whose failure sends the work round again. `None` when a
/// breakpoint, a batch or the end of the function comes first, or when the
/// check is outside the call's retry loop (a build loop after a branch is
/// created checks the build, and never creates the branch again).
pub fn checked_after<'t>(m: &JsModel<'t>, call: CallId) -> Option<Next<'t>> {
    let retry = *m.calls[call].loops.last()?;
    if !matches!(
        m.loops[retry].kind,
        LoopKind::While | LoopKind::DoWhile | LoopKind::For
    ) {
        return None;
    }
    let mut at = call;
    // A handful of work tasks between the work and its check; further on,
    // the check is no longer "right after".
    for _ in 0..6 {
        let next = next_step(m, at)?;
        let ci = m.call_of_node(next.node)?;
        if m.effect_of_call(ci)?.kind != EffectKind::Task {
            return None;
        }
        // Its verdict, score or metrics (`metrics[targetMetric]` of an
        // evaluation that picks the best model) decide what happens next.
        // Metrics only where they decide something (not a table of them).
        let checks = reads_of(m, next.node).paths.iter().any(|(path, at)| {
            path.first().is_some_and(|f| {
                let f = f.to_ascii_lowercase();
                is_verdict_field(&f)
                    || f.contains("score")
                    || (f.contains("metric") && decides(m, *at))
            })
        });
        if checks {
            return m.calls[ci].loops.contains(&retry).then_some(next);
        }
        at = ci;
    }
    None
}

/// Whether the value read at `at` decides something: climbing through what
/// passes it on (`r.stdout.includes('FAIL')`, `r.x || ''`), it reaches a
/// condition, a comparison, `!`, `&&` or an assertion's argument.
fn decides(m: &JsModel, at: Node) -> bool {
    decides_within(m, at, 2)
}

/// [`decides`], following a `const` that holds the value
/// (`const performance = evaluation.metrics[target]; if (performance > best)`)
/// at most `hops` times.
fn decides_within(m: &JsModel, at: Node, hops: usize) -> bool {
    let mut node = at;
    for _ in 0..16 {
        let Some(parent) = node.parent() else {
            return false;
        };
        match parent.kind_str() {
            "member_expression"
            | "subscript_expression"
            | "parenthesized_expression"
            | "await_expression"
            | "call_expression"
                if parent.field("arguments") != Some(node) =>
            {
                node = parent
            }
            "if_statement" | "while_statement" | "do_statement" | "switch_statement" => {
                return parent.field("condition") == Some(node)
                    || parent.field("value") == Some(node)
            }
            "for_statement" => return parent.field("condition") == Some(node),
            "ternary_expression" => return parent.field("condition") == Some(node),
            "variable_declarator" if hops > 0 && parent.field("value") == Some(node) => {
                let Some(b) = parent.field("name").and_then(|n| m.scopes.binding_of(n)) else {
                    return false;
                };
                let binding = m.scopes.get(b);
                return binding.kind == crate::js::model::scope::BindingKind::Const
                    && binding
                        .reads
                        .iter()
                        .take(64)
                        .any(|r| decides_within(m, *r, hops - 1));
            }
            "unary_expression" => {
                return parent.field("operator").is_some_and(|o| m.text(o) == "!")
            }
            "binary_expression" => {
                let op = parent.field("operator").map(|o| m.text(o)).unwrap_or("");
                match op {
                    "||" | "??" => node = parent,
                    "&&" | "===" | "!==" | "==" | "!=" | "<" | ">" | "<=" | ">=" => return true,
                    _ => return false,
                }
            }
            "arguments" => {
                return parent
                    .parent()
                    .and_then(|c| c.field("function"))
                    .is_some_and(|f| is_assertion(m.text(f)))
            }
            _ => return false,
        }
    }
    false
}

/// The catch clause of the innermost `try` whose block holds `node`, not
/// across a function boundary.
fn enclosing_catch(node: Node) -> Option<Node> {
    let mut child = node;
    while let Some(parent) = child.parent() {
        if is_function(parent) {
            return None;
        }
        if parent.kind_str() == "try_statement" && parent.field("body") == Some(child) {
            if let Some(handler) = parent.field("handler") {
                return Some(handler);
            }
        }
        child = parent;
    }
    None
}

/// `ctx.task(…).catch(…)` (or `.then(ok, failed)`): the rejection handler
/// on the call's promise.
fn promise_catch<'t>(m: &JsModel<'t>, call: Node<'t>) -> Option<Node<'t>> {
    let mut n = call;
    while let Some(p) = n
        .parent()
        .filter(|p| p.kind_str() == "parenthesized_expression")
    {
        n = p;
    }
    let member = n
        .parent()
        .filter(|p| p.kind_str() == "member_expression" && p.field("object") == Some(n))?;
    let handler = member
        .parent()
        .filter(|c| c.kind_str() == "call_expression")?;
    match m.text(member.field("property")?) {
        "catch" => Some(handler),
        "then" if handler.field("arguments")?.named().count() >= 2 => Some(handler),
        _ => None,
    }
}

/// The statement holding `node` in a block of its function (climbing out of
/// arrow-function thunks: `() => ctx.task(…)` in a batch).
fn statement_of(node: Node) -> Option<Node> {
    let mut n = node;
    loop {
        let parent = n.parent()?;
        if matches!(
            parent.kind_str(),
            "statement_block" | "program" | "switch_case" | "switch_default"
        ) {
            return Some(n);
        }
        n = parent;
    }
}

/// The first thing after the call that acts on its having passed: the next
/// effect (a task, a breakpoint, a batch) or `return`, in source order,
/// within the call's function.
fn next_step<'t>(m: &JsModel<'t>, call: CallId) -> Option<Next<'t>> {
    let c = &m.calls[call];
    let func = c.func;
    let mut stmt = statement_of(c.node)?;
    // The call may sit in a `return`: what follows is the caller's.
    if let Some(found) = return_step(m, stmt) {
        return Some(found);
    }
    for _ in 0..32 {
        let mut s = crate::js::syntax::next_statement(stmt);
        while let Some(n) = s {
            if let Some(found) = first_step_in(m, n, func) {
                return Some(found);
            }
            s = crate::js::syntax::next_statement(n);
        }
        // Out of this block to the statement holding it.
        let block = stmt.parent()?;
        if block.kind_str() == "program" || block.parent().is_some_and(is_function) {
            return None;
        }
        stmt = statement_of(block)?;
        if m.function_of_node(stmt).is_some() {
            return None;
        }
    }
    None
}

/// A `return` statement holding the call itself.
fn return_step<'t>(m: &JsModel<'t>, stmt: Node<'t>) -> Option<Next<'t>> {
    if stmt.kind_str() != "return_statement" {
        return None;
    }
    let value = stmt.named().find(|n| n.kind_str() != "comment")?;
    Some(describe_return(m, stmt, value))
}

/// The first effect or `return` inside `stmt` that runs whenever `stmt`
/// does, in source order: not under an `if`, a `switch` or a `catch`, nor
/// inside a function defined there (unless it is a batch's thunk).
fn first_step_in<'t>(m: &JsModel<'t>, stmt: Node<'t>, func: Option<FnId>) -> Option<Next<'t>> {
    if is_function(stmt) || stmt.kind_str() == "function_declaration" {
        return None;
    }
    let mut stack = vec![stmt];
    let mut steps = 0;
    while let Some(n) = stack.pop() {
        steps += 1;
        if steps > 4000 {
            return None;
        }
        if n.kind_str() == "return_statement" {
            let value = n.named().find(|c| c.kind_str() != "comment");
            return Some(match value {
                Some(v) => describe_return(m, n, v),
                None => Next {
                    what: "returns".into(),
                    node: n,
                },
            });
        }
        if n.kind_str() == "call_expression" {
            if let Some(next) = m.call_of_node(n).and_then(|ci| describe_effect(m, ci)) {
                return Some(next);
            }
        }
        // What runs only on a condition is not where the process goes on.
        if matches!(
            n.kind_str(),
            "if_statement" | "switch_statement" | "catch_clause" | "ternary_expression"
        ) {
            continue;
        }
        if is_function(n) && n.id() != stmt.id() {
            // A thunk of a batch runs now; any other function later.
            let in_batch = m
                .function_of_node(n)
                .is_some_and(|f| m.functions[f].parent == func && is_thunk(m, n));
            if !in_batch {
                continue;
            }
        }
        let children: Vec<Node<'t>> = n.named().collect();
        stack.extend(children.into_iter().rev());
    }
    None
}

fn is_thunk(m: &JsModel, f: Node) -> bool {
    let mut n = f;
    for _ in 0..3 {
        let Some(p) = n.parent() else { return false };
        if p.kind_str() == "call_expression" {
            return m
                .call_of_node(p)
                .and_then(|ci| m.effect_of_call(ci))
                .is_some_and(|e| {
                    matches!(e.kind, EffectKind::ParallelAll | EffectKind::ParallelMap)
                });
        }
        n = p;
    }
    false
}

fn describe_effect<'t>(m: &JsModel<'t>, ci: CallId) -> Option<Next<'t>> {
    let e = m.effect_of_call(ci)?;
    let c = &m.calls[ci];
    let what = match e.kind {
        EffectKind::Task => format!(
            "goes on to `{}({}, …)`",
            m.text(c.callee),
            c.args.first().map(|a| m.text(*a)).unwrap_or("")
        ),
        EffectKind::Breakpoint => match breakpoint_text(m, c.args.first().copied()) {
            Some(q) => format!("asks “{q}” at a breakpoint"),
            None => "goes on to a breakpoint".into(),
        },
        EffectKind::ParallelAll | EffectKind::ParallelMap => {
            format!("goes on to `{}(…)`", m.text(c.callee))
        }
        _ => return None,
    };
    Some(Next { what, node: c.node })
}

/// A breakpoint's question (or title, or string payload), shortened.
fn breakpoint_text(m: &JsModel, arg: Option<Node>) -> Option<String> {
    let arg = unparen(arg?);
    let text = match m.object_of_expr(arg) {
        Some(o) => ["question", "title"]
            .iter()
            .filter_map(|k| objects::property(m, o, k))
            .find_map(|v| literal(m, v))?,
        None => literal(m, arg)?,
    };
    Some(shorten_code(text.trim(), 80))
}

fn literal(m: &JsModel, v: Node) -> Option<String> {
    let v = unparen(v);
    string_value(v, m.src()).or_else(|| {
        (v.kind_str() == "template_string").then(|| m.text(v).trim_matches('`').to_string())
    })
}

/// "returns `success: true`" when the returned object says so.
fn describe_return<'t>(m: &JsModel<'t>, stmt: Node<'t>, value: Node<'t>) -> Next<'t> {
    let claims = m.object_of_expr(value).and_then(|o| {
        objects::properties(m, o)
            .into_iter()
            .find(|(k, p)| is_verdict_field(k) && m.text(unparen(p.value)) == "true")
            .map(|(k, _)| k)
    });
    let what = match claims {
        Some(k) => format!("returns `{k}: true`"),
        None => "returns".into(),
    };
    Next { what, node: stmt }
}
