//! Error handlers and the SDK's intrinsic signals: does a `catch` clause (or
//! a `.catch(e => …)` callback) let "effect pending / requested / halted"
//! errors through?
//!
//! The analysis follows the path an intrinsic signal takes through the
//! handler body. A condition that tests the error with the SDK's guard
//! (`isIntrinsicError(e)`), its `name` or `instanceof` decides which branch
//! such a signal takes; any other condition may go either way. The handler
//! is safe when every path ends in rethrowing the caught error (`throw e`,
//! `return Promise.reject(e)`, or a same-module helper that does so).

use std::collections::HashSet;

use crate::js::syntax::tree::Node;

use crate::js::model::context_api::{INTRINSIC_ERROR_NAMES, INTRINSIC_GUARDS};
use crate::js::model::scope::{BindingId, BindingKind, FnId};
use crate::js::model::JsModel;
use crate::js::syntax::{string_value, unparen};

/// Path outcomes, as a bit set.
type Outcomes = u8;
const FALL: Outcomes = 1;
const RETHROW: Outcomes = 2;
const EXIT: Outcomes = 4;
const BREAK: Outcomes = 8;
const CONTINUE: Outcomes = 16;

/// Statement nesting beyond this is assumed to rethrow (never flagged), so
/// pathological input cannot exhaust the stack.
const MAX_NESTING: usize = 200;
/// How deep to follow same-module rethrow helpers.
const MAX_HELPER_DEPTH: usize = 3;

/// What a handler does with an intrinsic signal.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Every path rethrows it.
    Rethrows,
    /// Some path completes or returns without rethrowing; `partial` when
    /// other paths do rethrow.
    Swallows { partial: bool },
}

/// Every `try` statement in the module with a `catch` clause, in source
/// order: `(try, catch_clause)`.
pub fn try_catches<'t>(m: &JsModel<'t>) -> Vec<(Node<'t>, Node<'t>)> {
    let mut out = Vec::new();
    // A cheap byte check first: most modules have no `catch` at all.
    if !m.src().contains("catch") {
        return out;
    }
    out.extend(
        m.tree
            .nodes()
            .filter(|n| n.kind_str() == "try_statement")
            .filter_map(|n| Some((n, n.field("handler")?))),
    );
    out
}

/// The verdict of a `catch_clause`.
pub fn catch_clause(m: &JsModel, clause: Node) -> Verdict {
    let err = clause
        .field("parameter")
        .filter(|p| p.kind_str() == "identifier")
        .and_then(|p| m.scopes.binding_of(p));
    let Some(body) = clause.field("body") else {
        return Verdict::Swallows { partial: false };
    };
    let cx = Cx::new(m, err, 0);
    verdict(cx.stmt(body, 0))
}

/// The verdict of a handler function (a `.catch()` callback) whose
/// parameter `param` receives the error.
pub fn handler_function(m: &JsModel, f: FnId, param: usize) -> Verdict {
    verdict(function_outcomes(m, f, param, 0))
}

fn verdict(o: Outcomes) -> Verdict {
    if o & !RETHROW == 0 {
        Verdict::Rethrows
    } else {
        Verdict::Swallows {
            partial: o & RETHROW != 0,
        }
    }
}

/// Outcomes of running function `f` with the error as parameter `param`:
/// `RETHROW` on paths that rethrow it, `FALL` on paths that return.
fn function_outcomes(m: &JsModel, f: FnId, param: usize, depth: usize) -> Outcomes {
    let Some(func) = m.functions.get(f) else {
        return FALL;
    };
    let err = func.param_bindings.get(param).copied().flatten();
    let Some(body) = func.node.field("body") else {
        return FALL;
    };
    let cx = Cx::new(m, err, depth);
    let o = if body.kind_str() == "statement_block" {
        cx.stmt(body, 0)
    } else {
        cx.returned(body, 0)
    };
    // For the caller, returning from the handler is completing normally.
    if o & !RETHROW != 0 {
        (o & RETHROW) | FALL
    } else {
        o
    }
}

struct Cx<'m, 't> {
    m: &'m JsModel<'t>,
    /// The caught error and its aliases (`const error = e`).
    err: HashSet<BindingId>,
    helper_depth: usize,
}

impl<'m, 't> Cx<'m, 't> {
    fn new(m: &'m JsModel<'t>, err: Option<BindingId>, helper_depth: usize) -> Self {
        let mut set: HashSet<BindingId> = err.into_iter().collect();
        // Aliases: `const error = e;`, found from the error's reads (one
        // level is what real code does; a few more cost nothing).
        let mut frontier: Vec<BindingId> = set.iter().copied().collect();
        for _ in 0..3 {
            let mut next = Vec::new();
            for b in frontier {
                for read in &m.scopes.get(b).reads {
                    let Some(decl) = read
                        .parent()
                        .filter(|p| p.kind_str() == "variable_declarator")
                    else {
                        continue;
                    };
                    if decl.field("value").map(|v| v.id()) != Some(read.id()) {
                        continue;
                    }
                    let Some(alias) = decl.field("name").and_then(|n| m.binding_of_expr(n)) else {
                        continue;
                    };
                    let a = m.scopes.get(alias);
                    if matches!(a.kind, BindingKind::Const | BindingKind::Let)
                        && a.writes.is_empty()
                        && set.insert(alias)
                    {
                        next.push(alias);
                    }
                }
            }
            if next.is_empty() {
                break;
            }
            frontier = next;
        }
        Cx {
            m,
            err: set,
            helper_depth,
        }
    }

    fn is_err(&self, node: Node) -> bool {
        self.m
            .binding_of_expr(node)
            .is_some_and(|b| self.err.contains(&b))
    }

    fn seq<'a>(&self, stmts: impl Iterator<Item = Node<'a>>, depth: usize) -> Outcomes {
        let mut state = FALL;
        for s in stmts {
            if state & FALL == 0 {
                break;
            }
            state = (state & !FALL) | self.stmt(s, depth + 1);
        }
        state
    }

    fn stmt(&self, node: Node, depth: usize) -> Outcomes {
        if depth > MAX_NESTING {
            return RETHROW;
        }
        match node.kind_str() {
            "statement_block" => {
                let stmts: Vec<Node> = node.named().collect();
                self.seq(stmts.into_iter(), depth)
            }
            "expression_statement" => match node.named_child(0) {
                Some(e) => self.helper_call(e),
                None => FALL,
            },
            "throw_statement" => match node.named_child(0) {
                Some(arg) if self.is_err(arg) => RETHROW,
                _ => EXIT,
            },
            "return_statement" => match node.named_child(0) {
                Some(v) => self.returned(v, depth),
                None => EXIT,
            },
            "break_statement" | "continue_statement" => {
                if node.field("label").is_some() {
                    EXIT
                } else if node.kind_str() == "break_statement" {
                    BREAK
                } else {
                    CONTINUE
                }
            }
            "if_statement" => {
                let cond = node.field("condition");
                let then = node
                    .field("consequence")
                    .map_or(FALL, |c| self.stmt(c, depth + 1));
                let otherwise = node
                    .field("alternative")
                    .and_then(|a| a.named_child(0))
                    .map_or(FALL, |a| self.stmt(a, depth + 1));
                match cond.and_then(|c| self.guard(c, 0)) {
                    Some(true) => then,
                    Some(false) => otherwise,
                    None => then | otherwise,
                }
            }
            "for_statement" | "for_in_statement" | "while_statement" => {
                // The body may run zero times.
                let body = node.field("body").map_or(FALL, |b| self.stmt(b, depth + 1));
                FALL | (body & (RETHROW | EXIT))
            }
            "do_statement" => {
                let body = node.field("body").map_or(FALL, |b| self.stmt(b, depth + 1));
                let looped = if body & (BREAK | CONTINUE | FALL) != 0 {
                    FALL
                } else {
                    0
                };
                looped | (body & (RETHROW | EXIT))
            }
            "labeled_statement" => node.field("body").map_or(FALL, |b| self.stmt(b, depth + 1)),
            "switch_statement" => {
                let Some(body) = node.field("body") else {
                    return FALL;
                };
                let cases: Vec<Node> = body.named().collect();
                let has_default = cases.iter().any(|c| c.kind_str() == "switch_default");
                let mut out = if has_default { 0 } else { FALL };
                for case in cases {
                    let stmts: Vec<Node> = case.fields("body").collect();
                    let o = self.seq(stmts.into_iter(), depth);
                    out |= if o & (BREAK | FALL) != 0 { FALL } else { 0 } | (o & !(BREAK | FALL));
                }
                out
            }
            "try_statement" => {
                let body = node.field("body").map_or(FALL, |b| self.stmt(b, depth + 1));
                let mut out = match node.field("handler") {
                    Some(h) => {
                        // Anything in the block (the rethrow included) may
                        // land in the nested handler.
                        let handled = h.field("body").map_or(FALL, |b| self.stmt(b, depth + 1));
                        (body & !RETHROW) | handled
                    }
                    None => body,
                };
                if let Some(fin) = node.field("finalizer").and_then(|f| f.field("body")) {
                    let f = self.stmt(fin, depth + 1);
                    out = if f & FALL == 0 { f } else { out | (f & !FALL) };
                }
                out
            }
            _ => FALL,
        }
    }

    /// `return <value>` / an arrow's expression body: `Promise.reject(e)`
    /// rethrows; a conditional picks its branch by the guard.
    fn returned(&self, value: Node, depth: usize) -> Outcomes {
        if depth > MAX_NESTING {
            return RETHROW;
        }
        let value = strip_await(value);
        match value.kind_str() {
            "call_expression" if self.is_reject_of_err(value) => RETHROW,
            "ternary_expression" => {
                let pick = |f: &str| value.field(f).map_or(EXIT, |v| self.returned(v, depth + 1));
                match value.field("condition").and_then(|c| self.guard(c, 0)) {
                    Some(true) => pick("consequence"),
                    Some(false) => pick("alternative"),
                    None => pick("consequence") | pick("alternative"),
                }
            }
            _ => EXIT,
        }
    }

    /// `Promise.reject(e)`.
    fn is_reject_of_err(&self, call: Node) -> bool {
        let callee = call.field("function").map(unparen);
        let first = call.field("arguments").and_then(|a| a.named_child(0));
        callee.is_some_and(|c| self.m.text(c) == "Promise.reject")
            && first.is_some_and(|a| self.is_err(a))
    }

    /// An expression statement: a call to a same-module helper that is given
    /// the error and rethrows it (`rethrowIfIntrinsic(e)`).
    fn helper_call(&self, expr: Node) -> Outcomes {
        let expr = strip_await(expr);
        if expr.kind_str() != "call_expression" || self.helper_depth >= MAX_HELPER_DEPTH {
            return FALL;
        }
        let Some(call) = self.m.call_of_node(expr) else {
            return FALL;
        };
        let call = &self.m.calls[call];
        let Some(param) = call.args.iter().position(|a| self.is_err(*a)) else {
            return FALL;
        };
        let Some(f) = self.m.function_of_expr(call.callee) else {
            return FALL;
        };
        function_outcomes(self.m, f, param, self.helper_depth + 1)
    }

    /// Whether a condition holds for every intrinsic signal (`Some(true)`),
    /// for none (`Some(false)`), or cannot be told (`None`).
    fn guard(&self, cond: Node, depth: usize) -> Option<bool> {
        if depth > MAX_NESTING {
            return None;
        }
        let cond = unparen(cond);
        let m = self.m;
        match cond.kind_str() {
            "unary_expression" if op(m, cond) == "!" => {
                self.guard(cond.field("argument")?, depth + 1).map(|g| !g)
            }
            "call_expression" => self.guard_call(cond),
            // `e.isIntrinsic`: the flag the SDK's own guard reads.
            "member_expression" => (self.is_err(cond.field("object")?)
                && m.text(cond.field("property")?) == "isIntrinsic")
                .then_some(true),
            "binary_expression" => {
                let left = cond.field("left")?;
                let right = cond.field("right")?;
                match op(m, cond) {
                    "&&" => match (self.guard(left, depth + 1), self.guard(right, depth + 1)) {
                        (Some(false), _) | (_, Some(false)) => Some(false),
                        (Some(true), Some(true)) => Some(true),
                        _ => None,
                    },
                    "||" => match (self.guard(left, depth + 1), self.guard(right, depth + 1)) {
                        (Some(true), _) | (_, Some(true)) => Some(true),
                        (Some(false), Some(false)) => Some(false),
                        _ => None,
                    },
                    o @ ("===" | "==" | "!==" | "!=") => {
                        let positive = o.starts_with('=');
                        let name = if self.is_err_name(left) {
                            string_value(right, m.src())
                        } else if self.is_err_name(right) {
                            string_value(left, m.src())
                        } else {
                            // `e.isIntrinsic === true`
                            let (flag, lit) = if unparen(right).kind_str() == "true" {
                                (left, true)
                            } else if unparen(left).kind_str() == "true" {
                                (right, true)
                            } else {
                                return None;
                            };
                            return self.guard(flag, depth + 1).map(|g| (g == lit) == positive);
                        }?;
                        let intrinsic = INTRINSIC_ERROR_NAMES.contains(&name.as_str());
                        Some(intrinsic == positive)
                    }
                    "instanceof" => {
                        if !self.is_err(left) {
                            return None;
                        }
                        let class = unparen(right);
                        let name = match class.kind_str() {
                            "identifier" => m.text(class),
                            // `sdk.EffectPendingError`
                            "member_expression" => m.text(class.field("property")?),
                            _ => return None,
                        };
                        // Every intrinsic signal is an `Error`; a class that is
                        // not one of the SDK's never matches them.
                        Some(
                            INTRINSIC_ERROR_NAMES.contains(&name)
                                || matches!(name, "Error" | "BabysitterRuntimeError" | "Object"),
                        )
                    }
                    _ => None,
                }
            }
            _ => None,
        }
    }

    /// `isIntrinsicError(e)` (imported from the SDK) and
    /// `['EffectPendingError', …].includes(e.name)`.
    fn guard_call(&self, call: Node) -> Option<bool> {
        let m = self.m;
        let callee = unparen(call.field("function")?);
        let args = call.field("arguments")?;
        let first = args.named_child(0)?;
        match callee.kind_str() {
            "identifier" => {
                let b = m.scopes.binding_of(callee)?;
                let is_guard = INTRINSIC_GUARDS.iter().any(|g| m.is_sdk_import(b, g));
                (is_guard && self.is_err(first)).then_some(true)
            }
            "member_expression" => {
                let object = unparen(callee.field("object")?);
                let method = m.text(callee.field("property")?);
                if INTRINSIC_GUARDS.contains(&method) && self.is_err(first) {
                    // `sdk.isIntrinsicError(e)` on a namespace import.
                    let b = m.binding_of_expr(object)?;
                    let from_sdk = m.import_of(b).is_some_and(|i| {
                        crate::js::model::SDK_PACKAGES
                            .iter()
                            .any(|p| i.source.starts_with(p))
                    });
                    return from_sdk.then_some(true);
                }
                if matches!(method, "includes" | "has") && self.is_err_name(first) {
                    let names = self.string_list(object)?;
                    return names
                        .iter()
                        .any(|n| INTRINSIC_ERROR_NAMES.contains(&n.as_str()))
                        .then_some(true);
                }
                None
            }
            _ => None,
        }
    }

    /// `e.name`, `e?.name`, `e['name']`.
    fn is_err_name(&self, node: Node) -> bool {
        let node = unparen(node);
        match node.kind_str() {
            "member_expression" => {
                node.field("object").is_some_and(|o| self.is_err(o))
                    && node
                        .field("property")
                        .is_some_and(|p| self.m.text(p) == "name")
            }
            "subscript_expression" => {
                node.field("object").is_some_and(|o| self.is_err(o))
                    && node
                        .field("index")
                        .and_then(|i| string_value(i, self.m.src()))
                        .is_some_and(|s| s == "name")
            }
            _ => false,
        }
    }

    /// The strings of an array literal, `new Set([...])`, or a const bound
    /// to either.
    fn string_list(&self, node: Node) -> Option<Vec<String>> {
        let mut node = unparen(node);
        if node.kind_str() == "identifier" {
            let b = self.m.scopes.get(self.m.scopes.binding_of(node)?);
            if b.kind != BindingKind::Const {
                return None;
            }
            node = unparen(b.init?);
        }
        if node.kind_str() == "new_expression" {
            node = unparen(node.field("arguments")?.named_child(0)?);
        }
        if node.kind_str() != "array" {
            return None;
        }
        let names = node
            .named()
            .filter_map(|e| string_value(e, self.m.src()))
            .collect();
        Some(names)
    }
}

fn strip_await(node: Node) -> Node {
    let mut node = unparen(node);
    while node.kind_str() == "await_expression" {
        match node.named_child(0) {
            Some(inner) => node = unparen(inner),
            None => break,
        }
    }
    node
}

fn op<'a>(m: &JsModel<'a>, node: Node<'a>) -> &'a str {
    node.field("operator").map(|o| m.text(o)).unwrap_or("")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::js::model::testing::with_model;

    fn verdict_of(body: &str) -> Verdict {
        let src = format!(
            "import {{ isIntrinsicError }} from '@a5c-ai/babysitter-sdk';\n\
             async function f(ctx) {{\n  try {{ await ctx.task(t, {{}}); }} catch (e) {body}\n}}\n\
             function rethrowSignals(err) {{ if (isIntrinsicError(err)) throw err; }}\n\
             function logOnly(err) {{ console.log(err); }}\n"
        );
        with_model(&src, |m| {
            let tc = try_catches(m);
            assert_eq!(tc.len(), 1, "{src}");
            catch_clause(m, tc[0].1)
        })
    }

    const OK: Verdict = Verdict::Rethrows;
    const NO: Verdict = Verdict::Swallows { partial: false };
    const PARTIAL: Verdict = Verdict::Swallows { partial: true };

    #[test]
    fn unconditional() {
        assert_eq!(verdict_of("{ throw e; }"), OK);
        assert_eq!(verdict_of("{ console.log(e); throw e; }"), OK);
        assert_eq!(verdict_of("{ const err = e; throw err; }"), OK);
        assert_eq!(verdict_of("{ return Promise.reject(e); }"), OK);
        assert_eq!(verdict_of("{ if (x) { throw e; } else { throw e; } }"), OK);
        assert_eq!(verdict_of("{ }"), NO);
        assert_eq!(verdict_of("{ return null; }"), NO);
        assert_eq!(
            verdict_of("{ throw new Error('wrapped', { cause: e }); }"),
            NO
        );
    }

    #[test]
    fn one_branch() {
        assert_eq!(verdict_of("{ if (x) throw e; }"), PARTIAL);
        assert_eq!(verdict_of("{ if (x) return null; throw e; }"), PARTIAL);
        assert_eq!(verdict_of("{ for (const a of b) { throw e; } }"), PARTIAL);
    }

    #[test]
    fn guards() {
        assert_eq!(
            verdict_of("{ if (isIntrinsicError(e)) throw e; return null; }"),
            OK
        );
        assert_eq!(
            verdict_of("{ if (!isIntrinsicError(e)) { return null; } throw e; }"),
            OK
        );
        assert_eq!(verdict_of("{ if (e.name === 'EffectPendingError' || e.name === 'EffectRequestedError') throw e; return 1; }"), OK);
        assert_eq!(verdict_of("{ if (['EffectRequestedError', 'EffectPendingError'].includes(e?.name)) throw e; return 1; }"), OK);
        assert_eq!(
            verdict_of("{ if (e instanceof EffectPendingError) throw e; return 1; }"),
            OK
        );
        assert_eq!(verdict_of("{ if (e.isIntrinsic) throw e; return 1; }"), OK);
        // A check that intrinsic signals never pass lets them fall through.
        assert_eq!(
            verdict_of("{ if (e.name === 'AbortError') return null; throw e; }"),
            OK
        );
        assert_eq!(
            verdict_of("{ if (e instanceof ValidationError) return null; throw e; }"),
            OK
        );
        assert_eq!(
            verdict_of("{ if (e.code === 'X') throw e; return null; }"),
            PARTIAL
        );
        assert_eq!(
            verdict_of("{ if (isIntrinsicError(e) && retries > 3) throw e; return null; }"),
            PARTIAL
        );
        assert_eq!(
            verdict_of("{ log(e); if (isIntrinsicError(e)) { throw e; } }"),
            OK
        );
    }

    #[test]
    fn helpers() {
        assert_eq!(verdict_of("{ rethrowSignals(e); return null; }"), OK);
        assert_eq!(verdict_of("{ logOnly(e); return null; }"), NO);
    }

    #[test]
    fn local_guard_is_not_the_sdk() {
        let src = "function isIntrinsicError() { return true; }\n\
                   async function f(ctx) { try { await ctx.task(t); } catch (e) { if (isIntrinsicError(e)) throw e; } }\n";
        with_model(src, |m| {
            let tc = try_catches(m);
            assert_eq!(catch_clause(m, tc[0].1), PARTIAL);
        });
    }

    #[test]
    fn callbacks() {
        let src = "const a = (e) => { throw e; };\nconst b = () => null;\nconst c = (e) => Promise.reject(e);\n";
        with_model(src, |m| {
            assert_eq!(handler_function(m, 0, 0), OK);
            assert_eq!(handler_function(m, 1, 0), NO);
            assert_eq!(handler_function(m, 2, 0), OK);
        });
    }
}
