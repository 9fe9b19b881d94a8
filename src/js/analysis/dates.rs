//! Misuses of the `Date` that `ctx.now()` returns: the SDK's `now` is
//! `() => Date` (`runtime/processContext.ts`), not epoch milliseconds, so a
//! `Number` test of it is always false and `+` joins its text. Shared by
//! `unknown-context-method` (which reports the misuse) and
//! `nondeterministic-process` (which leaves alone a clock every use of
//! which is rejected as not a number).

use crate::js::model::JsModel;
use crate::js::syntax::tree::Node;

/// `Number` predicates that are false for every non-number.
const NUMBER_TESTS: &[&str] = &[
    "Number.isFinite",
    "Number.isInteger",
    "Number.isSafeInteger",
];

/// What a use of the `Date` gets wrong.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Misuse {
    /// `Number.isFinite(d)`: always false (the predicate named).
    NumberTest(&'static str),
    /// `typeof d === 'number'`: always false.
    TypeofNumber,
    /// `d + 1000`: joins the date's text with the other operand.
    Concat,
}

/// A use of the `Date` a value evaluates to that gets it wrong.
#[derive(Debug, Clone)]
pub struct DateMisuse<'t> {
    /// The expression that misuses it (the test, the comparison, the sum).
    pub at: Node<'t>,
    pub what: Misuse,
    /// The function and parameter it was passed to, if it was.
    pub via: Option<(String, String)>,
}

/// The misuses of the `Date` that `value` (`ctx.now()`) evaluates to: a
/// `Number` predicate (always false), `typeof … === 'number'` (always
/// false), `+` (string concatenation of the date's text) — on the value,
/// on a `const` bound to it, or on a parameter of a function of the module
/// it is passed to. Subtraction and comparison convert a `Date` to its
/// milliseconds and are fine.
pub fn misuses<'t>(m: &JsModel<'t>, value: Node<'t>) -> Vec<DateMisuse<'t>> {
    let mut out = Vec::new();
    date_uses(m, value, None, 0, &mut out);
    out
}

/// [`misuses`], with `via` the function and parameter the value was
/// passed as. Follows `const` bindings and parameters two steps deep.
fn date_uses<'t>(
    m: &JsModel<'t>,
    value: Node<'t>,
    via: Option<(String, String)>,
    depth: usize,
    out: &mut Vec<DateMisuse<'t>>,
) {
    let mut node = value;
    let mut parent = node.parent();
    while let Some(p) = parent.filter(|p| p.kind() == "parenthesized_expression") {
        node = p;
        parent = p.parent();
    }
    let Some(parent) = parent else {
        return;
    };
    match parent.kind() {
        "arguments" => {
            let Some(call) = parent.parent().filter(|c| c.kind() == "call_expression") else {
                return;
            };
            let Some(callee) = call.field("function") else {
                return;
            };
            let name = m.text(callee);
            if let Some(test) = NUMBER_TESTS.iter().find(|t| **t == name) {
                out.push(DateMisuse {
                    at: call,
                    what: Misuse::NumberTest(test),
                    via,
                });
                return;
            }
            if depth >= 2 {
                return;
            }
            let Some((f, index)) = passed_to(m, node) else {
                return;
            };
            let param = m
                .scopes
                .bindings
                .iter()
                .find(|b| b.param == Some((f, index)) && b.writes.is_empty());
            if let Some(param) = param {
                let via = Some((name.to_string(), param.name.clone()));
                for r in &param.reads {
                    date_uses(m, *r, via.clone(), depth + 1, out);
                }
            }
        }
        "unary_expression" if parent.child(0).is_some_and(|o| m.text(o) == "typeof") => {
            let Some(cmp) = parent.parent().filter(|b| b.kind() == "binary_expression") else {
                return;
            };
            let op = cmp.field("operator").map(|o| m.text(o));
            if !matches!(op, Some("===" | "==" | "!==" | "!=")) {
                return;
            }
            let other = [cmp.field("left"), cmp.field("right")]
                .into_iter()
                .flatten()
                .find(|n| n.id() != parent.id());
            let names_number = other.is_some_and(|o| {
                o.kind() == "string"
                    && o.cooked_name()
                        .unwrap_or(m.text(o).trim_matches(['\'', '"']))
                        == "number"
            });
            if names_number {
                out.push(DateMisuse {
                    at: cmp,
                    what: Misuse::TypeofNumber,
                    via,
                });
            }
        }
        "binary_expression" if parent.field("operator").is_some_and(|o| m.text(o) == "+") => {
            let other = [parent.field("left"), parent.field("right")]
                .into_iter()
                .flatten()
                .find(|n| n.id() != node.id());
            // `'at ' + ctx.now()` means the text.
            if other.is_some_and(|o| matches!(o.kind(), "string" | "template_string")) {
                return;
            }
            out.push(DateMisuse {
                at: parent,
                what: Misuse::Concat,
                via,
            });
        }
        "variable_declarator" if parent.field("value").is_some_and(|v| v.id() == node.id()) => {
            let Some(name) = parent.field("name").filter(|n| n.kind() == "identifier") else {
                return;
            };
            let Some(b) = m.scopes.binding_of(name) else {
                return;
            };
            let b = m.scopes.get(b);
            if b.kind != crate::js::model::scope::BindingKind::Const || depth >= 2 {
                return;
            }
            for r in &b.reads {
                date_uses(m, *r, via.clone(), depth + 1, out);
            }
        }
        _ => {}
    }
}

/// Whether the call that `value` is an argument of always leaves at its
/// first statement because of `value`: the called function of the module
/// starts with an `if` that throws or returns when the parameter fails a
/// `Number` test (`if (!Number.isFinite(nowMs)) throw …`), that test alone
/// or among `||`s. A `Date` always fails it, so the function always leaves
/// there, whatever the time is, and nothing after it sees the clock.
pub fn always_rejected(m: &JsModel, value: Node) -> bool {
    let Some((f, _)) = passed_to(m, value) else {
        return false;
    };
    let Some(first) = m.functions[f]
        .node
        .field("body")
        .filter(|b| b.kind_str() == "statement_block")
        .and_then(|b| b.named().find(|s| s.kind_str() != "comment"))
        .filter(|s| s.kind_str() == "if_statement")
    else {
        return false;
    };
    let leaves = first.field("consequence").is_some_and(|c| {
        let c = if c.kind_str() == "statement_block" {
            c.named().find(|s| s.kind_str() != "comment")
        } else {
            Some(c)
        };
        c.is_some_and(|s| matches!(s.kind_str(), "throw_statement" | "return_statement"))
    });
    let Some(cond) = first.field("condition") else {
        return false;
    };
    leaves
        && misuses(m, value).iter().any(|u| {
            matches!(u.what, Misuse::NumberTest(_))
                && u.via.is_some()
                && negated_test_leaves(m, u.at, cond)
        })
}

/// The module function a call hands `arg` to, by name (`check(now)` with
/// `function check(nowMs)`), and `arg`'s position among the arguments
/// (comments do not count).
fn passed_to(m: &JsModel, arg: Node) -> Option<(usize, usize)> {
    let args = arg.parent().filter(|a| a.kind_str() == "arguments")?;
    let callee = args
        .parent()
        .filter(|c| c.kind_str() == "call_expression")
        .and_then(|c| c.field("function"))
        .filter(|f| f.kind_str() == "identifier")?;
    let f = m
        .scopes
        .binding_of(callee)
        .and_then(|b| m.scopes.get(b).function)?;
    let index = args
        .named()
        .filter(|a| a.kind_str() != "comment")
        .position(|a| a.id() == arg.id())?;
    Some((f, index))
}

/// Whether `test` (`Number.isFinite(x)`), negated, is `cond` or one of the
/// `||` terms of it: when it fails, the whole condition holds.
fn negated_test_leaves(m: &JsModel, test: Node, cond: Node) -> bool {
    let mut n = test;
    let mut negated = false;
    while let Some(p) = n.parent() {
        match p.kind_str() {
            "parenthesized_expression" => {}
            "unary_expression" if !negated && p.child(0).is_some_and(|o| m.text(o) == "!") => {
                negated = true;
            }
            "binary_expression"
                if negated && p.field("operator").is_some_and(|o| m.text(o) == "||") => {}
            _ => return false,
        }
        if p.id() == cond.id() {
            return negated;
        }
        n = p;
    }
    false
}
