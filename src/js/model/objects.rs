//! Object-literal queries with spread resolution (`{ ...base, kind: 'agent' }`).

use crate::js::syntax::tree::Node;

use crate::js::model::JsModel;
use crate::js::syntax::{key_name, unparen};

/// Bounds spread chains (`...a` where `a` spreads `b` …).
const MAX_SPREAD_DEPTH: usize = 4;

#[derive(Debug, Clone, Copy)]
pub struct Prop<'t> {
    pub key: Node<'t>,
    /// The value; for shorthand `{ labels }` the identifier itself.
    pub value: Node<'t>,
}

/// Own and spread-in properties of an object literal, in source order;
/// later properties override earlier ones, as in JavaScript.
pub fn properties<'t>(m: &JsModel<'t>, obj: Node<'t>) -> Vec<(String, Prop<'t>)> {
    let mut out = Vec::new();
    collect(m, obj, 0, &mut out);
    out
}

fn collect<'t>(m: &JsModel<'t>, obj: Node<'t>, depth: usize, out: &mut Vec<(String, Prop<'t>)>) {
    if depth > MAX_SPREAD_DEPTH {
        return;
    }
    for child in obj.named() {
        match child.kind_str() {
            "pair" => {
                let (Some(k), Some(v)) = (child.field("key"), child.field("value")) else {
                    continue;
                };
                if let Some(name) = key_name(k, m.src()) {
                    push(out, name, Prop { key: k, value: v });
                }
            }
            "shorthand_property_identifier" => {
                push(
                    out,
                    m.text(child).to_string(),
                    Prop {
                        key: child,
                        value: child,
                    },
                );
            }
            "method_definition" => {
                if let Some(k) = child.field("name") {
                    if let Some(name) = key_name(k, m.src()) {
                        push(
                            out,
                            name,
                            Prop {
                                key: k,
                                value: child,
                            },
                        );
                    }
                }
            }
            "spread_element" => {
                if let Some(inner) = child.named_child(0).and_then(|e| m.object_of_expr(e)) {
                    collect(m, inner, depth + 1, out);
                }
            }
            _ => {}
        }
    }
}

fn push<'t>(out: &mut Vec<(String, Prop<'t>)>, name: String, prop: Prop<'t>) {
    out.retain(|(n, _)| n != &name);
    out.push((name, prop));
}

/// The value of one property (after spreads), if present: the last
/// definition in source order wins, a spread contributing its own last one.
pub fn property<'t>(m: &JsModel<'t>, obj: Node<'t>, name: &str) -> Option<Node<'t>> {
    find_last(m, obj, name, 0)
}

fn find_last<'t>(m: &JsModel<'t>, obj: Node<'t>, name: &str, depth: usize) -> Option<Node<'t>> {
    if depth > MAX_SPREAD_DEPTH {
        return None;
    }
    let named = |k: Node| {
        // Cheap rejection before decoding the key; an escaped key is decoded.
        let t = m.text(k);
        (t.contains(name) || t.contains('\\')) && key_name(k, m.src()).as_deref() == Some(name)
    };
    let children: Vec<Node<'t>> = obj.named().collect();
    for child in children.into_iter().rev() {
        match child.kind_str() {
            "pair" => {
                if let (Some(k), Some(v)) = (child.field("key"), child.field("value")) {
                    if named(k) {
                        return Some(v);
                    }
                }
            }
            "shorthand_property_identifier" if m.text(child) == name => return Some(child),
            "method_definition" if child.field("name").is_some_and(named) => {
                return Some(child);
            }
            "spread_element" => {
                let found = child
                    .named_child(0)
                    .and_then(|e| m.object_of_expr(e))
                    .and_then(|inner| find_last(m, inner, name, depth + 1));
                if found.is_some() {
                    return found;
                }
            }
            _ => {}
        }
    }
    None
}

/// Follows a dotted path through nested object literals
/// (`agent.outputSchema.properties`), resolving const objects on the way.
pub fn path<'t>(m: &JsModel<'t>, obj: Node<'t>, dotted: &[&str]) -> Option<Node<'t>> {
    let mut cur = obj;
    for (i, seg) in dotted.iter().enumerate() {
        let v = property(m, cur, seg)?;
        if i + 1 == dotted.len() {
            return Some(v);
        }
        cur = m.object_of_expr(unparen(v))?;
    }
    None
}

/// Whether a spread in the object could not be resolved (so a missing
/// property may in fact be present).
pub fn has_opaque_spread(m: &JsModel, obj: Node) -> bool {
    let found = obj.named().any(|c| {
        c.kind_str() == "spread_element"
            && c.named_child(0).and_then(|e| m.object_of_expr(e)).is_none()
    });
    found
}
