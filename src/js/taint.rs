//! Where a value ends up: does it steer the process (a branch condition, a
//! task's args, an effect key, the process return value) or does it only
//! reach `ctx.log`?
//!
//! The value is followed forward through every expression computed from it
//! (arithmetic, templates, member reads, calls it is an argument of — the
//! result of `String(x)` or `path.join(dir, x)` still depends on it), through
//! variables (flow-insensitively), containers it is pushed or assigned into,
//! and functions of the module it is returned from. It stops at the sinks
//! below, and at statements that drop it.

use std::collections::HashSet;

use tree_sitter::Node;

use super::effects::effect_of_call;
use super::model::{EffectKind, JsModel};
use super::results::enclosing_function;
use super::syntax::{key_name, text, unparen, NodeExt};

/// Bounds the walk per start value, so pathological code stays linear.
const MAX_STEPS: usize = 2000;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum SinkKind {
    /// The test of an `if`, loop, ternary or `switch`.
    Branch,
    /// The args (or payload, or items) of an effect.
    EffectArgs,
    /// An effect's identity: `key`/`stableKey`/`breakpointId`/`label`.
    Key,
    /// Returned from an exported process function.
    ProcessReturn,
    /// `ctx.log(…)`.
    Log,
}

impl SinkKind {
    /// Sinks that make the process behave differently on replay.
    pub fn steers(self) -> bool {
        !matches!(self, SinkKind::Log)
    }

    pub fn describe(self) -> &'static str {
        match self {
            SinkKind::Branch => "a branch condition",
            SinkKind::EffectArgs => "an effect's args",
            SinkKind::Key => "an effect key",
            SinkKind::ProcessReturn => "the process return value",
            SinkKind::Log => "`ctx.log`",
        }
    }
}

#[derive(Debug, Clone, Copy)]
pub struct Sink<'t> {
    pub kind: SinkKind,
    /// The condition, the effect call, the return statement.
    pub node: Node<'t>,
}

/// Option keys that name an effect.
const KEY_FIELDS: &[&str] = &["key", "stableKey", "breakpointId", "label"];
/// Methods that store their argument into the receiver.
const STORES: &[&str] = &["push", "unshift", "set", "add", "splice", "fill"];

/// The sinks the value of `expr` reaches, sorted by kind then position.
pub fn sinks_of<'t>(m: &JsModel<'t>, expr: Node<'t>) -> Vec<Sink<'t>> {
    let mut t = Walk {
        m,
        out: Vec::new(),
        seen_nodes: HashSet::new(),
        seen_bindings: HashSet::new(),
        steps: 0,
    };
    t.value(expr, false);
    t.out
        .sort_by_key(|s| (s.kind, s.node.start_byte(), s.node.end_byte()));
    t.out.dedup_by_key(|s| (s.kind, s.node.id()));
    t.out
}

struct Walk<'m, 't> {
    m: &'m JsModel<'t>,
    out: Vec<Sink<'t>>,
    seen_nodes: HashSet<usize>,
    seen_bindings: HashSet<usize>,
    steps: usize,
}

impl<'t> Walk<'_, 't> {
    /// Follows the value of `node` upwards. `keyed` is set once the value
    /// went through a property named like an effect key.
    fn value(&mut self, node: Node<'t>, keyed: bool) {
        self.steps += 1;
        if self.steps > MAX_STEPS || !self.seen_nodes.insert(node.id()) {
            return;
        }
        let m = self.m;
        // `{ key }` shorthand names the property after the variable.
        let keyed = keyed
            || (node.kind_str() == "shorthand_property_identifier"
                && KEY_FIELDS.contains(&m.text(node)));
        let Some(parent) = m.parent(node) else { return };
        let is = |field: &str| parent.field(field) == Some(node);
        match parent.kind_str() {
            "if_statement" | "while_statement" | "do_statement" | "switch_statement"
                if is("condition") || is("value") =>
            {
                self.sink(SinkKind::Branch, node)
            }
            "for_statement" if is("condition") => self.sink(SinkKind::Branch, node),
            // `for (…; i < n; …)` wraps the test in an expression statement.
            "expression_statement"
                if m.parent(parent).is_some_and(|g| {
                    g.kind_str() == "for_statement" && g.field("condition") == Some(parent)
                }) =>
            {
                self.sink(SinkKind::Branch, node)
            }
            "ternary_expression" if is("condition") => self.sink(SinkKind::Branch, node),
            "switch_case" if is("value") => self.sink(SinkKind::Branch, node),
            "arguments" => self.argument(parent, node, keyed),
            "pair" => {
                if is("value") {
                    let k = parent.field("key").and_then(|k| key_name(k, m.src()));
                    let keyed = keyed || k.is_some_and(|k| KEY_FIELDS.contains(&k.as_str()));
                    self.value(parent, keyed);
                } else {
                    // A computed key built from the value.
                    self.value(parent, keyed);
                }
            }
            "variable_declarator" if is("value") => {
                if let Some(name) = parent.field("name") {
                    self.pattern(name);
                }
            }
            "assignment_expression" | "augmented_assignment_expression" if is("right") => {
                if let Some(left) = parent.field("left") {
                    self.target(left);
                }
                // `a = b = value`: the assignment is itself a value.
                self.value(parent, keyed);
            }
            "return_statement" => self.returned(parent),
            "arrow_function" if is("body") => self.returned(parent),
            "expression_statement" | "lexical_declaration" | "variable_declaration" => {}
            "for_in_statement" if is("right") => {
                if let Some(left) = parent.field("left") {
                    self.pattern(left);
                }
            }
            kind if is_expression(kind) => self.value(parent, keyed),
            _ => {}
        }
    }

    fn sink(&mut self, kind: SinkKind, node: Node<'t>) {
        self.out.push(Sink { kind, node });
    }

    /// The value is an argument of a call.
    fn argument(&mut self, args: Node<'t>, node: Node<'t>, keyed: bool) {
        let m = self.m;
        let Some(call) = m.parent(args) else { return };
        let index = {
            let i = m
                .named_children(args)
                .filter(|n| n.kind_str() != "comment")
                .position(|n| n.id() == node.id());
            i.unwrap_or(0)
        };
        if call.kind_str() == "call_expression" {
            if let Some(ci) = m.call_of_node(call) {
                if let Some(e) = effect_of_call(m, ci) {
                    let kind = match e.kind {
                        EffectKind::Log => SinkKind::Log,
                        EffectKind::Task if index == 2 && keyed => SinkKind::Key,
                        EffectKind::Breakpoint if keyed => SinkKind::Key,
                        // Values computed from `ctx.now()` and the like.
                        EffectKind::Now => return self.value(call, keyed),
                        _ => SinkKind::EffectArgs,
                    };
                    return self.sink(kind, call);
                }
            }
            let callee = call.field("function").map(unparen);
            if let Some(callee) = callee.filter(|c| c.kind_str() == "member_expression") {
                let obj = callee.field("object").map(unparen);
                let method = callee
                    .field("property")
                    .map(|p| text(p, m.src()))
                    .unwrap_or("");
                if obj.is_some_and(|o| m.text(o) == "console") {
                    return;
                }
                if STORES.contains(&method) {
                    if let Some(o) = obj {
                        self.target(o);
                    }
                }
            }
            // A local function: its parameter carries the value.
            if let Some(f) = callee.and_then(|c| m.function_of_expr(c)) {
                if let Some(Some(b)) = m.functions[f].param_bindings.get(index) {
                    self.binding(*b);
                }
            }
        }
        // Whatever the call computes may depend on the value.
        self.value(call, keyed);
    }

    /// The value is assigned to a target: a variable, or a member of one.
    fn target(&mut self, left: Node<'t>) {
        let left = unparen(left);
        match left.kind_str() {
            "identifier" => {
                if let Some(b) = self.m.scopes.binding_of(left) {
                    self.binding(b);
                }
            }
            "member_expression" | "subscript_expression" => {
                if let Some(o) = left.field("object") {
                    self.target(o);
                }
            }
            "object_pattern" | "array_pattern" => self.pattern(left),
            _ => {}
        }
    }

    fn pattern(&mut self, pattern: Node<'t>) {
        let m = self.m;
        let mut stack = vec![pattern];
        while let Some(n) = stack.pop() {
            match n.kind_str() {
                "identifier" | "shorthand_property_identifier_pattern" => {
                    if let Some(b) = m.scopes.binding_of(n) {
                        self.binding(b);
                    }
                }
                "pair_pattern" => {
                    if let Some(v) = n.field("value") {
                        stack.push(v);
                    }
                }
                "assignment_pattern" | "object_assignment_pattern" => {
                    if let Some(l) = n.field("left") {
                        stack.push(l);
                    }
                }
                _ => {
                    stack.extend(m.named_children(n));
                }
            }
        }
    }

    fn binding(&mut self, b: usize) {
        if !self.seen_bindings.insert(b) {
            return;
        }
        let m = self.m;
        for &r in &m.scopes.get(b).reads {
            self.value(r, false);
        }
    }

    /// Returned from a function: the process output, or the value of every
    /// call of that function in the module.
    fn returned(&mut self, at: Node<'t>) {
        let m = self.m;
        let f = if at.kind_str() == "arrow_function" {
            m.function_of_node(at)
        } else {
            enclosing_function(m, at)
        };
        let Some(f) = f else { return };
        let exported_process = m.exports.iter().any(|e| {
            m.is_process_export(&e.name) && e.value.and_then(|v| m.function_of_expr(v)) == Some(f)
        });
        if exported_process {
            return self.sink(SinkKind::ProcessReturn, at);
        }
        let fnode = m.functions[f].node;
        // A batch callback's result is the batch's result.
        if let Some(call) = m
            .parent(fnode)
            .filter(|p| p.kind_str() == "arguments" || p.kind_str() == "array")
            .and_then(|p| {
                if p.kind_str() == "array" {
                    m.parent(p).and_then(|a| m.parent(a))
                } else {
                    m.parent(p)
                }
            })
            .filter(|c| c.kind_str() == "call_expression")
        {
            return self.value(call, false);
        }
        for &ci in m.call_sites_of(f) {
            self.value(m.calls[ci].node, false);
        }
    }
}

/// Expression kinds whose value is computed from their children.
fn is_expression(kind: &str) -> bool {
    matches!(
        kind,
        "parenthesized_expression"
            | "await_expression"
            | "binary_expression"
            | "unary_expression"
            | "update_expression"
            | "ternary_expression"
            | "sequence_expression"
            | "template_substitution"
            | "template_string"
            | "member_expression"
            | "subscript_expression"
            | "call_expression"
            | "new_expression"
            | "array"
            | "object"
            | "spread_element"
            | "computed_property_name"
            | "as_expression"
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::js::{parse, ModelOptions};
    use crate::source::SourceFile;

    fn sinks(src: &str, needle: &str) -> Vec<SinkKind> {
        let file = SourceFile::new("t.js", src.to_string());
        let Some(tree) = parse::parse(&file.text) else {
            panic!("parse failed");
        };
        let m = JsModel::build(&file, &tree, &ModelOptions::default());
        let Some(start) = src.find(needle) else {
            panic!("{needle} not in source");
        };
        let Some(node) = tree
            .root_node()
            .descendant_for_byte_range(start, start + needle.len())
        else {
            panic!("no node");
        };
        sinks_of(&m, node).into_iter().map(|s| s.kind).collect()
    }

    #[test]
    fn log_only() {
        let src = "export async function process(inputs, ctx) {\n  const t = Date.now();\n  ctx.log(`started at ${t}`);\n}\n";
        assert_eq!(sinks(src, "Date.now()"), vec![SinkKind::Log]);
    }

    #[test]
    fn branch_args_key_return() {
        let src = r#"export async function process(inputs, ctx) {
  const stamp = String(Date.now());
  if (stamp > '1') {}
  const dir = `runs/${stamp}`;
  await ctx.task(t, { dir }, { key: `k-${stamp}` });
  return { stamp };
}
"#;
        let got = sinks(src, "Date.now()");
        for want in [
            SinkKind::Branch,
            SinkKind::EffectArgs,
            SinkKind::Key,
            SinkKind::ProcessReturn,
        ] {
            assert!(got.contains(&want), "{want:?} not in {got:?}");
        }
    }

    #[test]
    fn through_helper_return_and_push() {
        let src = r#"function id() { return Math.random(); }
export async function process(inputs, ctx) {
  const ids = [];
  ids.push(id());
  await ctx.task(t, { ids });
}
"#;
        assert_eq!(sinks(src, "Math.random()"), vec![SinkKind::EffectArgs]);
    }
}
