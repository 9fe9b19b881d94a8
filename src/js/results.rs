//! Result flow: which fields of a value (typically a task's result) are
//! read downstream, following it through variables, objects and arrays it
//! is stored in, functions it is passed to or returned from, and batches
//! (`ctx.parallel.map`). What leaves the module is recorded as [`Pending`]
//! for the cross-module pass; what leaves for good (a task's args, the
//! process output, an unknown function) is recorded as a [`Forward`].

use tree_sitter::Node;

use super::ids::IdSet;
use super::model::{EffectKind, Imported, JsModel};
use super::scope::BindingId;
use super::syntax::{key_name, string_value, text, unparen, NodeExt};

/// How deep a read path is recorded (`review.issues.length` → 3).
pub const MAX_PATH: usize = 3;
/// Bounds the walk per start value, so pathological code stays linear.
const MAX_STEPS: usize = 4000;
const MAX_DEPTH: usize = 24;

// The summary vocabulary these flows are recorded in, named here too.
pub use super::module_summary::{ForwardKind, PendingKind, Seg};

#[derive(Debug, Clone)]
pub struct Forward<'t> {
    pub kind: ForwardKind,
    pub node: Node<'t>,
    /// What had been read on the tracked value when it escaped: empty when
    /// the value itself (or something holding it) escapes, a path when only
    /// a field of it does. Kept so a caller that passed its result inside a
    /// wrapper can tell which.
    pub acc: Vec<String>,
}

/// A flow that leaves the module: resolved over summaries later.
#[derive(Debug, Clone)]
pub struct Pending<'t> {
    /// Import specifier (`./phases.js`); empty for this module's exports.
    pub source: String,
    pub name: String,
    pub kind: PendingKind,
    pub wrap: Vec<Seg>,
    pub acc: Vec<String>,
    pub node: Node<'t>,
}

#[derive(Debug, Default, Clone)]
pub struct Reads<'t> {
    /// Paths read on the value (first segment: a field of the value), with
    /// the reading node.
    pub paths: Vec<(Vec<String>, Node<'t>)>,
    pub forwards: Vec<Forward<'t>>,
    pub pending: Vec<Pending<'t>>,
}

impl Reads<'_> {
    /// Fields of the value itself that are read.
    pub fn fields(&self) -> impl Iterator<Item = &str> {
        self.paths
            .iter()
            .filter_map(|(p, _)| p.first().map(String::as_str))
    }
}

const ELEMENT_CALLBACKS: &[&str] = &[
    "map", "forEach", "filter", "find", "findLast", "some", "every", "flatMap",
];

/// Reads of the value `expr` evaluates to.
pub fn reads_of<'t>(m: &JsModel<'t>, expr: Node<'t>) -> Reads<'t> {
    let mut t = Tracker::new(m);
    t.expr(expr, Vec::new(), Vec::new(), 0);
    t.out
}

/// Reads of what a binding holds (a parameter, for function summaries).
pub fn reads_of_binding<'t>(m: &JsModel<'t>, b: BindingId) -> Reads<'t> {
    let mut t = Tracker::new(m);
    t.binding(b, Vec::new(), Vec::new(), 0);
    t.out
}

/// Reads through a parameter pattern (`function f({ passed })`).
pub fn reads_of_pattern<'t>(m: &JsModel<'t>, pattern: Node<'t>) -> Reads<'t> {
    let mut t = Tracker::new(m);
    t.pattern(pattern, Vec::new(), Vec::new(), 0);
    t.out
}

struct Tracker<'m, 't> {
    m: &'m JsModel<'t>,
    out: Reads<'t>,
    seen: IdSet<(usize, Vec<Seg>, Vec<String>)>,
    steps: usize,
}

impl<'m, 't> Tracker<'m, 't> {
    fn new(m: &'m JsModel<'t>) -> Self {
        Tracker {
            m,
            out: Reads::default(),
            seen: IdSet::default(),
            steps: 0,
        }
    }

    fn budget(&mut self, depth: usize) -> bool {
        self.steps += 1;
        self.steps <= MAX_STEPS && depth <= MAX_DEPTH
    }

    fn binding(&mut self, b: BindingId, wrap: Vec<Seg>, acc: Vec<String>, depth: usize) {
        if !self.budget(depth) {
            return;
        }
        let m = self.m;
        let binding = m.scopes.get(b);
        if !self
            .seen
            .insert((binding.node.id(), wrap.clone(), acc.clone()))
        {
            return;
        }
        for &r in &binding.reads {
            self.expr(r, wrap.clone(), acc.clone(), depth + 1);
        }
    }

    /// Records that the value escapes, with what had been read on it: a
    /// field escaping (`acc` non-empty) is a read of that field, already
    /// recorded, unless a caller's result sits at exactly that path.
    fn forward(&mut self, acc: &[String], kind: ForwardKind, node: Node<'t>) {
        self.out.forwards.push(Forward {
            kind,
            node,
            acc: acc.to_vec(),
        });
    }

    fn expr(&mut self, expr: Node<'t>, wrap: Vec<Seg>, acc: Vec<String>, depth: usize) {
        if !self.budget(depth) {
            return;
        }
        let m = self.m;
        let mut node = expr;
        // Climb through expressions that pass the value on unchanged.
        loop {
            let Some(parent) = m.parent(node) else { return };
            let carries = match parent.kind_str() {
                "parenthesized_expression" | "await_expression" => true,
                "ternary_expression" => parent.field("condition") != Some(node),
                "binary_expression" => matches!(op(m, parent), "??" | "||" | "&&"),
                "sequence_expression" => parent.field("right") == Some(node),
                _ => false,
            };
            if !carries {
                break;
            }
            node = parent;
        }
        let Some(parent) = m.parent(node) else { return };
        match parent.kind_str() {
            "return_statement" => self.returned(parent, wrap, acc, depth),
            "arrow_function" => self.returned(parent, wrap, acc, depth),
            "variable_declarator" if parent.field("value") == Some(node) => {
                if let Some(name) = parent.field("name") {
                    self.pattern(name, wrap, acc, depth + 1);
                }
            }
            "assignment_expression" if parent.field("right") == Some(node) => {
                let Some(left) = parent.field("left") else {
                    return;
                };
                match left.kind_str() {
                    "identifier" => {
                        if let Some(b) = m.scopes.binding_of(left) {
                            self.binding(b, wrap, acc, depth + 1);
                        }
                    }
                    "object_pattern" | "array_pattern" => self.pattern(left, wrap, acc, depth + 1),
                    "member_expression" => {
                        // `holder.k = value`: the value now sits in holder.k.
                        let obj = left.field("object").map(unparen);
                        let prop = left.field("property");
                        match (obj.and_then(|o| m.binding_of_expr(o)), prop) {
                            (Some(b), Some(p)) => {
                                let mut w = wrap;
                                w.push(Seg::Field(text(p, m.src()).to_string()));
                                self.binding(b, w, acc, depth + 1);
                            }
                            _ => {
                                self.forward(&acc, ForwardKind::Unknown(m.text(left).into()), left)
                            }
                        }
                    }
                    _ => self.forward(&acc, ForwardKind::Unknown(m.text(left).into()), left),
                }
            }
            "member_expression" if parent.field("object") == Some(node) => {
                if let Some(p) = parent.field("property") {
                    let name = text(p, m.src()).to_string();
                    self.property(&name, parent, wrap, acc, depth);
                }
            }
            "subscript_expression" if parent.field("object") == Some(node) => {
                let index = parent.field("index");
                match index.and_then(|i| string_value(i, m.src())) {
                    Some(name) => self.property(&name, parent, wrap, acc, depth),
                    None => self.element(parent, wrap, acc, depth),
                }
            }
            "arguments" => {
                let index = m.arg_position(parent, node);
                if let Some(call) = m.parent(parent) {
                    self.passed(call, index, wrap, acc, depth);
                }
            }
            "pair" if parent.field("value") == Some(node) => {
                let key = parent.field("key").and_then(|k| key_name(k, m.src()));
                if let (Some(k), Some(obj)) = (key, m.parent(parent)) {
                    let mut w = wrap;
                    w.push(Seg::Field(k));
                    self.expr(obj, w, acc, depth + 1);
                }
            }
            "object" if node.kind_str() == "shorthand_property_identifier" => {
                let mut w = wrap;
                w.push(Seg::Field(m.text(node).to_string()));
                self.expr(parent, w, acc, depth + 1);
            }
            "array" => {
                let mut w = wrap;
                w.push(Seg::Elem);
                self.expr(parent, w, acc, depth + 1);
            }
            "spread_element" => {
                let Some(outer) = m.parent(parent) else {
                    return;
                };
                match outer.kind_str() {
                    // `{ ...value }` keeps its fields; `[...value]` its elements.
                    "object" | "array" => self.expr(outer, wrap, acc, depth + 1),
                    _ => self.forward(&acc, ForwardKind::Unknown("spread".into()), parent),
                }
            }
            "for_in_statement" if parent.field("right") == Some(node) => {
                let of = parent
                    .field("operator")
                    .is_some_and(|o| text(o, m.src()) == "of");
                if let (true, Some(Seg::Elem), Some(left)) = (of, wrap.last(), parent.field("left"))
                {
                    let mut w = wrap.clone();
                    w.pop();
                    self.pattern(left, w, acc, depth + 1);
                }
            }
            "template_substitution" => {
                self.forward(&acc, ForwardKind::Unknown("template string".into()), parent)
            }
            // Tests, comparisons, statements: no field is read.
            _ => {}
        }
    }

    /// A property read on the tracked value (or on something around it).
    fn property(
        &mut self,
        name: &str,
        member: Node<'t>,
        mut wrap: Vec<Seg>,
        mut acc: Vec<String>,
        depth: usize,
    ) {
        match wrap.last() {
            Some(Seg::Field(k)) => {
                if k == name {
                    wrap.pop();
                    self.expr(member, wrap, acc, depth + 1);
                }
            }
            Some(Seg::Elem) => self.array_method(name, member, wrap, acc, depth),
            None => {
                let called = self
                    .m
                    .parent(member)
                    .is_some_and(|p| p.kind_str() == "call_expression");
                if called && !acc.is_empty() {
                    // `review.issues.map(…)`: a method of a field, not a field.
                    return;
                }
                acc.push(name.to_string());
                self.out.paths.push((acc.clone(), member));
                if acc.len() < MAX_PATH {
                    self.expr(member, wrap, acc, depth + 1);
                }
            }
        }
    }

    fn element(&mut self, node: Node<'t>, mut wrap: Vec<Seg>, acc: Vec<String>, depth: usize) {
        if wrap.last() == Some(&Seg::Elem) {
            wrap.pop();
            self.expr(node, wrap, acc, depth + 1);
        }
    }

    /// `results.map(r => r.passed)` on an array holding the value.
    fn array_method(
        &mut self,
        name: &str,
        member: Node<'t>,
        wrap: Vec<Seg>,
        acc: Vec<String>,
        depth: usize,
    ) {
        let Some(call) = self
            .m
            .parent(member)
            .filter(|p| p.kind_str() == "call_expression")
        else {
            return;
        };
        let mut inner = wrap.clone();
        inner.pop();
        let callback_param = |i: usize| {
            let args = call.field("arguments")?;
            let f = self.m.function_of_expr(args.named_child(0)?)?;
            self.m.functions[f].params.get(i).copied()
        };
        if ELEMENT_CALLBACKS.contains(&name) || name == "reduce" {
            let index = usize::from(name == "reduce");
            if let Some(p) = callback_param(index) {
                self.pattern(p, inner.clone(), acc.clone(), depth + 1);
            }
        }
        match name {
            "find" | "findLast" | "at" | "pop" | "shift" => self.expr(call, inner, acc, depth + 1),
            "filter" | "slice" | "concat" | "reverse" | "sort" | "toSorted" => {
                self.expr(call, wrap, acc, depth + 1)
            }
            _ => {}
        }
    }

    /// The value is the `index`-th argument of `call`.
    fn passed(
        &mut self,
        call: Node<'t>,
        index: usize,
        wrap: Vec<Seg>,
        acc: Vec<String>,
        depth: usize,
    ) {
        let m = self.m;
        if let Some(ci) = m.call_of_node(call) {
            if let Some(effect) = m.effect_of_call(ci) {
                match effect.kind {
                    EffectKind::Task if index >= 1 => {
                        let target = m.calls[ci]
                            .args
                            .first()
                            .map(|a| m.text(*a).to_string())
                            .unwrap_or_default();
                        self.forward(&acc, ForwardKind::Task(target), call);
                    }
                    EffectKind::Breakpoint => self.forward(&acc, ForwardKind::Breakpoint, call),
                    EffectKind::Log => {}
                    _ => self.forward(&acc, ForwardKind::Unknown(effect.method.clone()), call),
                }
                return;
            }
        }
        let Some(callee) = call.field("function").map(unparen) else {
            return;
        };
        if callee.kind_str() == "member_expression" {
            let obj = callee.field("object").map(unparen);
            let method = callee.field("property").map(|p| m.text(p)).unwrap_or("");
            if matches!(method, "push" | "unshift") {
                if let Some(b) = obj.and_then(|o| m.binding_of_expr(o)) {
                    let mut w = wrap;
                    w.push(Seg::Elem);
                    self.binding(b, w, acc, depth + 1);
                    return;
                }
            }
            if obj.is_some_and(|o| m.text(o) == "console") {
                return;
            }
            // `phases.review(value)` with `import * as phases from …`.
            if let Some(imp) = obj
                .and_then(|o| m.binding_of_expr(o))
                .and_then(|b| m.import_of(b))
                .filter(|i| i.imported == Imported::Namespace)
            {
                self.out.pending.push(Pending {
                    source: imp.source.clone(),
                    name: method.to_string(),
                    kind: PendingKind::Param(index),
                    wrap,
                    acc,
                    node: call,
                });
                return;
            }
        }
        if let Some(f) = m.function_of_expr(callee) {
            if let Some(p) = m.functions[f].params.get(index).copied() {
                self.pattern(p, wrap, acc, depth + 1);
            }
            return;
        }
        if let Some(imp) = m.binding_of_expr(callee).and_then(|b| m.import_of(b)) {
            if let Imported::Named(name) = &imp.imported {
                self.out.pending.push(Pending {
                    source: imp.source.clone(),
                    name: name.clone(),
                    kind: PendingKind::Param(index),
                    wrap,
                    acc,
                    node: call,
                });
                return;
            }
        }
        self.forward(&acc, ForwardKind::Unknown(m.text(callee).to_string()), call);
    }

    /// The value is returned from the function `at` belongs to.
    fn returned(&mut self, at: Node<'t>, wrap: Vec<Seg>, acc: Vec<String>, depth: usize) {
        let m = self.m;
        let func = if at.kind_str() == "arrow_function" {
            m.function_of_node(at)
        } else {
            enclosing_function(m, at)
        };
        let Some(f) = func else { return };
        let fnode = m.functions[f].node;
        // A callback whose results become an array: batches and `.map`.
        if let Some(args) = m.parent(fnode).filter(|p| p.kind_str() == "arguments") {
            if let Some(call) = m.parent(args) {
                let batch = m
                    .call_of_node(call)
                    .and_then(|ci| m.effect_of_call(ci))
                    .is_some_and(|e| e.kind == EffectKind::ParallelMap);
                let array_map = call
                    .field("function")
                    .and_then(|c| c.field("property"))
                    .is_some_and(|p| matches!(m.text(p), "map" | "flatMap"));
                if batch || array_map {
                    let mut w = wrap;
                    w.push(Seg::Elem);
                    self.expr(call, w, acc, depth + 1);
                    return;
                }
            }
        }
        // `ctx.parallel.all([() => …, () => …])`
        if let Some(array) = m.parent(fnode).filter(|p| p.kind_str() == "array") {
            let batch = m
                .parent(array)
                .filter(|p| p.kind_str() == "arguments")
                .and_then(|a| m.parent(a))
                .and_then(|c| m.call_of_node(c))
                .and_then(|ci| m.effect_of_call(ci))
                .filter(|e| e.kind == EffectKind::ParallelAll);
            if let Some(e) = batch {
                let mut w = wrap;
                w.push(Seg::Elem);
                self.expr(m.calls[e.call].node, w, acc, depth + 1);
                return;
            }
        }
        let mut followed = false;
        for export in m.exports_of_fn(f) {
            followed = true;
            if m.is_process_export(&export.name) {
                self.forward(&acc, ForwardKind::ProcessOutput, at);
            } else {
                self.out.pending.push(Pending {
                    source: String::new(),
                    name: export.name.clone(),
                    kind: PendingKind::ReturnOf,
                    wrap: wrap.clone(),
                    acc: acc.clone(),
                    node: at,
                });
            }
        }
        for &ci in m.call_sites_of(f) {
            followed = true;
            self.expr(m.calls[ci].node, wrap.clone(), acc.clone(), depth + 1);
        }
        if !followed {
            self.forward(&acc, ForwardKind::Unknown("a callback".into()), at);
        }
    }

    /// The value flows into a binding pattern.
    fn pattern(&mut self, pattern: Node<'t>, mut wrap: Vec<Seg>, acc: Vec<String>, depth: usize) {
        if !self.budget(depth) {
            return;
        }
        let m = self.m;
        match pattern.kind_str() {
            "identifier" => {
                if let Some(b) = m.scopes.binding_of(pattern) {
                    self.binding(b, wrap, acc, depth + 1);
                }
            }
            "assignment_pattern" => {
                if let Some(l) = pattern.field("left") {
                    self.pattern(l, wrap, acc, depth + 1);
                }
            }
            "object_pattern" => {
                let children: Vec<Node<'t>> = m.named_children(pattern).collect();
                for child in children {
                    let (key, value) = match child.kind_str() {
                        "shorthand_property_identifier_pattern" => {
                            (Some(m.text(child).to_string()), Some(child))
                        }
                        "pair_pattern" => (
                            child.field("key").and_then(|k| key_name(k, m.src())),
                            child.field("value"),
                        ),
                        "object_assignment_pattern" => {
                            let l = child.field("left");
                            (l.map(|l| m.text(l).to_string()), l)
                        }
                        _ => (None, None),
                    };
                    let (Some(key), Some(value)) = (key, value) else {
                        continue;
                    };
                    match wrap.last() {
                        Some(Seg::Field(k)) if *k == key => {
                            let mut w = wrap.clone();
                            w.pop();
                            self.pattern(value, w, acc.clone(), depth + 1);
                        }
                        None => {
                            let mut a = acc.clone();
                            a.push(key);
                            self.out.paths.push((a.clone(), child));
                            if a.len() < MAX_PATH {
                                self.pattern(value, Vec::new(), a, depth + 1);
                            }
                        }
                        _ => {}
                    }
                }
            }
            "array_pattern" if wrap.last() == Some(&Seg::Elem) => {
                wrap.pop();
                let children: Vec<Node<'t>> = m.named_children(pattern).collect();
                for child in children {
                    self.pattern(child, wrap.clone(), acc.clone(), depth + 1);
                }
            }
            _ => {}
        }
    }
}

fn op<'a>(m: &JsModel<'a>, node: Node) -> &'a str {
    node.field("operator")
        .map(|o| text(o, m.src()))
        .unwrap_or("")
}

/// The innermost function containing a node.
pub fn enclosing_function(m: &JsModel, node: Node) -> Option<usize> {
    let mut n = m.parent(node);
    while let Some(p) = n {
        if let Some(f) = m.function_of_node(p) {
            return Some(f);
        }
        n = m.parent(p);
    }
    None
}
