//! Where a value goes: the uses of an expression's result, followed through
//! variables (flow-insensitively) within the module.

use std::collections::HashSet;

use crate::js::syntax::tree::Node;

use crate::js::model::scope::BindingId;
use crate::js::model::JsModel;
use crate::js::syntax::{key_name, string_value, text};

/// Bounds alias chains (`const a = r; const b = a; …`).
const MAX_ALIAS_DEPTH: usize = 8;

#[derive(Debug, Clone)]
pub enum Use<'t> {
    /// The value is dropped: `expr;` or `void expr`.
    Discarded { stmt: Node<'t> },
    /// A variable holds the value but is never read.
    Unread { binding: BindingId },
    /// A property is read by name (`x.a`, `x?.a`, `x['a']`, `{ a } = x`).
    Property { name: String, node: Node<'t> },
    /// The whole value is passed as the `index`-th argument of a call.
    Passed { call: Node<'t>, index: usize },
    /// The whole value is returned from a function.
    Returned { node: Node<'t> },
    /// Only its truthiness is tested (`if (x)`, `!x`, `x && …`).
    Tested { node: Node<'t> },
    /// Stored or combined somewhere this analysis does not follow.
    Escaped { node: Node<'t> },
}

/// The uses of the value produced by `expr`.
pub fn uses_of<'t>(m: &JsModel<'t>, expr: Node<'t>) -> Vec<Use<'t>> {
    let mut out = Vec::new();
    let mut seen = HashSet::new();
    uses_into(m, expr, &mut out, &mut seen, 0);
    out
}

/// The uses of the value held by a binding (all its reads).
pub fn uses_of_binding<'t>(m: &JsModel<'t>, b: BindingId) -> Vec<Use<'t>> {
    let mut out = Vec::new();
    let mut seen = HashSet::new();
    binding_uses(m, b, &mut out, &mut seen, 0);
    out
}

fn binding_uses<'t>(
    m: &JsModel<'t>,
    b: BindingId,
    out: &mut Vec<Use<'t>>,
    seen: &mut HashSet<BindingId>,
    depth: usize,
) {
    if !seen.insert(b) || depth > MAX_ALIAS_DEPTH {
        return;
    }
    let reads = &m.scopes.get(b).reads;
    if reads.is_empty() {
        out.push(Use::Unread { binding: b });
    }
    for r in reads {
        uses_into(m, *r, out, seen, depth + 1);
    }
}

fn uses_into<'t>(
    m: &JsModel<'t>,
    expr: Node<'t>,
    out: &mut Vec<Use<'t>>,
    seen: &mut HashSet<BindingId>,
    depth: usize,
) {
    let mut node = expr;
    loop {
        let Some(parent) = node.parent() else {
            out.push(Use::Escaped { node });
            return;
        };
        match parent.kind_str() {
            "parenthesized_expression" | "await_expression" => node = parent,
            // `a ?? b`, `c ? a : b`: the value flows on unless it is the test.
            "ternary_expression" if parent.field("condition") != Some(node) => node = parent,
            "binary_expression" if op(m, parent) == "??" => node = parent,
            "sequence_expression" if parent.field("right") == Some(node) => node = parent,
            _ => break,
        }
    }
    let Some(parent) = node.parent() else {
        return;
    };
    let use_ = match parent.kind_str() {
        "expression_statement" => Use::Discarded { stmt: parent },
        "unary_expression" if op(m, parent) == "void" => Use::Discarded { stmt: parent },
        "unary_expression" if op(m, parent) == "!" => Use::Tested { node: parent },
        "return_statement" => Use::Returned { node: parent },
        "arrow_function" => Use::Returned { node: parent },
        "variable_declarator" if parent.field("value") == Some(node) => {
            let Some(name) = parent.field("name") else {
                return;
            };
            return pattern_uses(m, name, out, seen, depth);
        }
        "assignment_expression" if parent.field("right") == Some(node) => {
            let Some(left) = parent.field("left") else {
                return;
            };
            if left.kind_str() == "identifier" {
                if let Some(b) = m.scopes.binding_of(left) {
                    return binding_uses(m, b, out, seen, depth);
                }
            }
            if left.kind_str() == "object_pattern" {
                return pattern_uses(m, left, out, seen, depth);
            }
            Use::Escaped { node: parent }
        }
        "member_expression" if parent.field("object") == Some(node) => {
            match parent.field("property") {
                Some(p) => Use::Property {
                    name: text(p, m.src()).to_string(),
                    node: parent,
                },
                None => Use::Escaped { node: parent },
            }
        }
        "subscript_expression" if parent.field("object") == Some(node) => {
            match parent.field("index").and_then(|i| string_value(i, m.src())) {
                Some(name) => Use::Property { name, node: parent },
                None => Use::Escaped { node: parent },
            }
        }
        "arguments" => {
            let index = m.arg_position(parent, node);
            match parent.parent() {
                Some(call) => Use::Passed { call, index },
                None => Use::Escaped { node: parent },
            }
        }
        "if_statement" | "while_statement" | "do_statement" | "for_statement" => {
            Use::Tested { node: parent }
        }
        "ternary_expression" => Use::Tested { node: parent },
        "binary_expression" if matches!(op(m, parent), "&&" | "||") => Use::Tested { node: parent },
        _ => Use::Escaped { node: parent },
    };
    out.push(use_);
}

/// Uses through a declaration/assignment target: an identifier carries the
/// whole value on; an object pattern reads the named properties.
fn pattern_uses<'t>(
    m: &JsModel<'t>,
    pattern: Node<'t>,
    out: &mut Vec<Use<'t>>,
    seen: &mut HashSet<BindingId>,
    depth: usize,
) {
    match pattern.kind_str() {
        "identifier" => {
            if let Some(b) = m.scopes.binding_of(pattern) {
                binding_uses(m, b, out, seen, depth);
            }
        }
        "object_pattern" => {
            for child in pattern.named() {
                let key = match child.kind_str() {
                    "shorthand_property_identifier_pattern" => Some(child),
                    "pair_pattern" => child.field("key"),
                    "object_assignment_pattern" => child.field("left"),
                    "rest_pattern" => {
                        out.push(Use::Escaped { node: child });
                        None
                    }
                    _ => None,
                };
                if let Some(k) = key {
                    if let Some(name) = key_name(k, m.src()).or_else(|| {
                        (k.kind_str() == "shorthand_property_identifier_pattern")
                            .then(|| text(k, m.src()).to_string())
                    }) {
                        out.push(Use::Property { name, node: child });
                    }
                }
            }
        }
        _ => out.push(Use::Escaped { node: pattern }),
    }
}

fn op<'a>(m: &JsModel<'a>, node: Node<'a>) -> &'a str {
    node.field("operator")
        .map(|o| text(o, m.src()))
        .unwrap_or("")
}
