//! Which string literals an expression can evaluate to: through consts,
//! arrays and spreads, concatenation, object values, helper functions that
//! return strings, and (as pending references) imports from other modules.
//! Used to read what an agent is told.

use std::collections::HashSet;

use crate::js::syntax::tree::Node;

use crate::js::model::scope::{BindingId, BindingKind};
use crate::js::model::{Imported, JsModel};
use crate::js::syntax::{key_name, string_value, unparen};

const MAX_DEPTH: usize = 8;

#[derive(Debug, Clone, Default)]
pub struct Strings<'t> {
    /// String and template literals (their nodes carry the location).
    pub literals: Vec<Node<'t>>,
    /// Imported names whose strings live in another module: (source, name).
    pub pending: Vec<(String, String)>,
    /// Fields of the factory's `args` read (`args.instructions`): filled in
    /// at each call site.
    pub arg_fields: Vec<String>,
}

/// A task factory's first parameter, whose fields come from the call
/// sites: `args` as a whole, or destructured (`({ instructions }) => …`).
#[derive(Debug, Clone, Default)]
pub struct ArgsParam {
    pub whole: Option<BindingId>,
    /// Bindings destructured from it, with the field each one holds.
    pub fields: Vec<(BindingId, String)>,
}

impl ArgsParam {
    /// The first parameter of function `f`.
    pub fn of(m: &JsModel, f: usize) -> ArgsParam {
        let mut out = ArgsParam::default();
        let Some(p) = m.functions[f].params.first().copied() else {
            return out;
        };
        let p = if p.kind_str() == "assignment_pattern" {
            p.field("left").unwrap_or(p)
        } else {
            p
        };
        match p.kind_str() {
            "identifier" => out.whole = m.scopes.binding_of(p),
            "object_pattern" => {
                for child in p.named() {
                    let (key, value) = match child.kind_str() {
                        "shorthand_property_identifier_pattern" => {
                            (Some(m.text(child).to_string()), Some(child))
                        }
                        "object_assignment_pattern" => {
                            let l = child.field("left");
                            (l.map(|l| m.text(l).to_string()), l)
                        }
                        "pair_pattern" => (
                            child.field("key").and_then(|k| key_name(k, m.src())),
                            child
                                .field("value")
                                .filter(|v| v.kind_str() == "identifier"),
                        ),
                        _ => (None, None),
                    };
                    if let (Some(k), Some(b)) = (key, value.and_then(|v| m.scopes.binding_of(v))) {
                        out.fields.push((b, k));
                    }
                }
            }
            _ => {}
        }
        out
    }
}

/// Strings `expr` may evaluate to. `args` is the task factory's first
/// parameter, whose fields come from the call sites.
pub fn strings_of<'t>(m: &JsModel<'t>, expr: Node<'t>, args: &ArgsParam) -> Strings<'t> {
    let mut r = Resolver {
        m,
        args,
        out: Strings::default(),
        seen: HashSet::new(),
    };
    r.expr(expr, 0);
    r.out.literals.sort_by_key(|n| n.start_byte());
    r.out.literals.dedup_by_key(|n| n.id());
    r.out.pending.sort();
    r.out.pending.dedup();
    r.out.arg_fields.sort();
    r.out.arg_fields.dedup();
    r.out
}

/// Whether `text` names `word` as a word of its own: `summary` in "JSON
/// with summary, artifacts", not in "summaryText" or "$summary".
pub fn names_word(text: &str, word: &str) -> bool {
    word_matches(text, word).next().is_some()
}

/// Where `text` names `word` as a word of its own (see [`names_word`]):
/// the byte offset of each such match.
pub fn word_matches<'a>(text: &'a str, word: &'a str) -> impl Iterator<Item = usize> + 'a {
    let ident = |c: char| c.is_alphanumeric() || c == '_' || c == '$';
    // An empty word matches everywhere, and names nothing.
    let limit = if word.is_empty() { 0 } else { usize::MAX };
    text.match_indices(word)
        .take(limit)
        .map(|(i, _)| i)
        .filter(move |&i| {
            !text[..i].chars().next_back().is_some_and(ident)
                && !text[i + word.len()..].chars().next().is_some_and(ident)
        })
}

/// The literal text of a string node (templates keep `${…}` as written).
pub fn literal_text(m: &JsModel, node: Node) -> String {
    string_value(node, m.src()).unwrap_or_else(|| m.text(node).trim_matches('`').to_string())
}

struct Resolver<'m, 't> {
    m: &'m JsModel<'t>,
    args: &'m ArgsParam,
    out: Strings<'t>,
    seen: HashSet<usize>,
}

impl<'t> Resolver<'_, 't> {
    fn expr(&mut self, node: Node<'t>, depth: usize) {
        if depth > MAX_DEPTH || !self.seen.insert(node.id()) {
            return;
        }
        let node = unparen(node);
        match node.kind_str() {
            "string" => self.out.literals.push(node),
            "template_string" => {
                self.out.literals.push(node);
                let subs: Vec<Node<'t>> = node
                    .named()
                    .filter(|n| n.kind_str() == "template_substitution")
                    .collect();
                for s in subs {
                    if let Some(e) = s.named_child(0) {
                        self.expr(e, depth + 1);
                    }
                }
            }
            "array" | "object" => {
                let items: Vec<Node<'t>> = node.named().collect();
                for item in items {
                    match item.kind_str() {
                        "spread_element" => {
                            if let Some(e) = item.named_child(0) {
                                self.expr(e, depth + 1);
                            }
                        }
                        "pair" => {
                            if let Some(v) = item.field("value") {
                                self.expr(v, depth + 1);
                            }
                        }
                        "comment" => {}
                        _ => self.expr(item, depth + 1),
                    }
                }
            }
            "binary_expression" => {
                for f in ["left", "right"] {
                    if let Some(side) = node.field(f) {
                        self.expr(side, depth + 1);
                    }
                }
            }
            "ternary_expression" => {
                for f in ["consequence", "alternative"] {
                    if let Some(side) = node.field(f) {
                        self.expr(side, depth + 1);
                    }
                }
            }
            "await_expression" => {
                if let Some(e) = node.named_child(0) {
                    self.expr(e, depth + 1);
                }
            }
            "identifier" => self.identifier(node, depth),
            "member_expression" => self.member(node, depth),
            "call_expression" => self.call(node, depth),
            _ => {}
        }
    }

    fn identifier(&mut self, node: Node<'t>, depth: usize) {
        let m = self.m;
        let Some(b) = m.scopes.binding_of(node) else {
            return;
        };
        if let Some((_, field)) = self.args.fields.iter().find(|(fb, _)| *fb == b) {
            self.out.arg_fields.push(field.clone());
            return;
        }
        if let Some(imp) = m.import_of(b) {
            if let Imported::Named(name) = &imp.imported {
                self.out.pending.push((imp.source.clone(), name.clone()));
            }
            return;
        }
        let binding = m.scopes.get(b);
        if matches!(
            binding.kind,
            BindingKind::Const | BindingKind::Let | BindingKind::Var
        ) {
            if let Some(init) = binding.init {
                self.expr(init, depth + 1);
            }
        }
    }

    fn member(&mut self, node: Node<'t>, depth: usize) {
        let m = self.m;
        let (Some(obj), Some(prop)) = (node.field("object").map(unparen), node.field("property"))
        else {
            return;
        };
        let Some(b) = m.binding_of_expr(obj) else {
            return;
        };
        if Some(b) == self.args.whole {
            self.out.arg_fields.push(m.text(prop).to_string());
            return;
        }
        if let Some(imp) = m.import_of(b) {
            if imp.imported == Imported::Namespace {
                self.out
                    .pending
                    .push((imp.source.clone(), m.text(prop).to_string()));
            }
            return;
        }
        // `shared.implementer` on a local const object.
        if let Some(o) = m.object_of_expr(obj) {
            if let Some(v) = crate::js::model::objects::property(m, o, m.text(prop)) {
                self.expr(v, depth + 1);
            }
        }
    }

    fn call(&mut self, node: Node<'t>, depth: usize) {
        let m = self.m;
        let Some(callee) = node.field("function").map(unparen) else {
            return;
        };
        if callee.kind_str() == "member_expression" {
            // `[...a, ...b].join('\n')`, `a.concat(b)`, `s.trim()`.
            if let Some(obj) = callee.field("object") {
                self.expr(obj, depth + 1);
            }
            let method = callee.field("property").map(|p| m.text(p));
            if method == Some("concat") {
                if let Some(args) = node.field("arguments") {
                    self.expr_list(args, depth);
                }
            }
            return;
        }
        if let Some(f) = m.function_of_expr(callee) {
            for ret in returned_exprs(m, f) {
                self.expr(ret, depth + 1);
            }
            return;
        }
        if let Some(imp) = m.binding_of_expr(callee).and_then(|b| m.import_of(b)) {
            if let Imported::Named(name) = &imp.imported {
                self.out.pending.push((imp.source.clone(), name.clone()));
            }
        }
    }

    fn expr_list(&mut self, args: Node<'t>, depth: usize) {
        let items: Vec<Node<'t>> = args.named().collect();
        for a in items {
            self.expr(a, depth + 1);
        }
    }
}

/// Expressions a function returns (its own `return`s, or an arrow body).
pub fn returned_exprs<'t>(m: &JsModel<'t>, f: usize) -> Vec<Node<'t>> {
    let node = m.functions[f].node;
    let Some(body) = node.field("body") else {
        return Vec::new();
    };
    if body.kind_str() != "statement_block" {
        return vec![body];
    }
    let mut out = Vec::new();
    let mut stack = vec![body];
    while let Some(n) = stack.pop() {
        match n.kind_str() {
            "return_statement" => {
                if let Some(v) = n.named_child(0) {
                    out.push(v);
                }
                continue;
            }
            _ if crate::js::syntax::holds_statements(n) => {}
            _ => continue,
        }
        for child in n.named() {
            if !crate::js::syntax::is_function(child) {
                stack.push(child);
            }
        }
    }
    out
}

/// The key of a pair node, for callers that walk args objects.
pub fn pair_key(m: &JsModel, pair: Node) -> Option<String> {
    pair.field("key").and_then(|k| key_name(k, m.src()))
}
