//! Result flow: which fields of a value (typically a task's result) are
//! read downstream, following it through variables, objects and arrays it
//! is stored in, functions it is passed to or returned from, and batches
//! (`ctx.parallel.map`). What leaves the module is recorded as [`Pending`]
//! for the cross-module pass; what leaves for good (a task's args, the
//! process output, an unknown function) is recorded as a [`Forward`].

use serde::{Deserialize, Serialize};

use crate::js::syntax::tree::Node;

use crate::js::model::scope::BindingId;
use crate::js::model::{EffectKind, Imported, JsModel};
use crate::js::syntax::ids::IdSet;
use crate::js::syntax::{key_name, string_value, text, unparen};

/// How deep a read path is recorded (`review.issues.length` → 3).
pub const MAX_PATH: usize = 3;
/// Bounds the walk per start value, so pathological code stays linear.
const MAX_STEPS: usize = 4000;
const MAX_DEPTH: usize = 24;

/// A layer around the tracked value: it sits in field `k` of an object, or
/// is an element of an array.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Seg {
    Field(String),
    /// Any element of an array.
    Elem,
    /// The element at this position of a batch's results
    /// (`const [a, b] = await ctx.parallel.all([…])`).
    Index(usize),
    /// The value's fields, except these, which code provides: own
    /// properties next to a spread (`{ format: 'snap', ...snap }`), or the
    /// keys of a literal the value alternates with
    /// (`c ? ctx.task(…) : Promise.resolve({ skipped: true })`).
    Provided(Vec<String>),
}

/// Puts `seg` around the layers of `wrap`. Adjacent [`Seg::Provided`]
/// layers are one layer with the keys of both (`{ ...{ ...r, a }, b }`
/// reads every field of `r` but `a` and `b`): a value reassigned as
/// `report = { ...report, note }` round a loop or across phases would
/// otherwise gain a layer, and a walk state, per pass.
pub fn push_layer(wrap: &mut Vec<Seg>, seg: Seg) {
    match (wrap.last_mut(), seg) {
        (Some(Seg::Provided(keys)), Seg::Provided(more)) => {
            keys.extend(more);
            keys.sort();
            keys.dedup();
        }
        (_, Seg::Provided(mut keys)) => {
            keys.sort();
            keys.dedup();
            wrap.push(Seg::Provided(keys));
        }
        (_, seg) => wrap.push(seg),
    }
}

impl Seg {
    /// Any element, or one at a position.
    pub fn is_element(&self) -> bool {
        matches!(self, Seg::Elem | Seg::Index(_))
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum PendingKind {
    /// Passed as the n-th argument of an imported function.
    Param(usize),
    /// Returned from this module's export of that name.
    ReturnOf,
}

/// Where a value goes when it leaves what the analysis follows.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum ForwardKind {
    /// Passed inside the args of another task (handed to another agent).
    Task(String),
    /// Returned from the exported process function.
    ProcessOutput,
    /// Given to a human in a breakpoint payload.
    Breakpoint,
    /// Anything this analysis does not follow (named by its callee).
    Unknown(String),
}

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
    /// Reading nodes among `paths` that may get what code put there rather
    /// than what the task produced (see [`Seg::Provided`], and fields code
    /// assigns): a read still, but not one a schema must declare.
    pub provided: Vec<Node<'t>>,
    /// Reading nodes among `paths` that are a later link of a `||`/`??`
    /// chain, with the fields the earlier links read on the same object,
    /// nearest first (`v.gaps` in `v.remainingGaps || v.gaps || []`, with
    /// `remainingGaps`): read only when those are missing.
    pub fallbacks: Vec<(Node<'t>, Vec<String>)>,
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
    t.finish()
}

/// Reads of what a binding holds (a parameter, for function summaries).
pub fn reads_of_binding<'t>(m: &JsModel<'t>, b: BindingId) -> Reads<'t> {
    let mut t = Tracker::new(m);
    t.binding(b, Vec::new(), Vec::new(), 0);
    t.finish()
}

/// Reads through a parameter pattern (`function f({ passed })`).
pub fn reads_of_pattern<'t>(m: &JsModel<'t>, pattern: Node<'t>) -> Reads<'t> {
    let mut t = Tracker::new(m);
    t.pattern(pattern, Vec::new(), Vec::new(), 0);
    t.finish()
}

struct Tracker<'m, 't> {
    m: &'m JsModel<'t>,
    out: Reads<'t>,
    seen: IdSet<(usize, Vec<Seg>, Vec<String>)>,
    steps: usize,
    /// Fields of the value that code assigns (`result.notes = …`): reading
    /// them back reads what code wrote, not what the task produced.
    written: Vec<String>,
}

impl<'m, 't> Tracker<'m, 't> {
    fn new(m: &'m JsModel<'t>) -> Self {
        Tracker {
            m,
            out: Reads::default(),
            seen: IdSet::default(),
            steps: 0,
            written: Vec::new(),
        }
    }

    fn finish(mut self) -> Reads<'t> {
        let written = std::mem::take(&mut self.written);
        if !written.is_empty() {
            let out = &mut self.out;
            for (p, node) in &out.paths {
                if p.len() == 1 && written.contains(&p[0]) {
                    out.provided.push(*node);
                }
            }
        }
        self.out
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
        // `let r = { skipped: true }; if (…) r = await ctx.task(…)`: the
        // keys of an object literal the variable also holds are provided by
        // code.
        let mut wrap = wrap;
        if wrap.is_empty() {
            let assigned = binding.writes.iter().filter_map(|w| {
                w.parent()
                    .filter(|a| {
                        a.kind_str() == "assignment_expression" && a.field("left") == Some(*w)
                    })
                    .and_then(|a| a.field("right"))
            });
            let keys: Vec<String> = binding
                .init
                .into_iter()
                .chain(assigned)
                .flat_map(|v| literal_keys(m, v))
                .collect();
            if !keys.is_empty() {
                push_layer(&mut wrap, Seg::Provided(keys));
            }
        }
        if !self
            .seen
            .insert((binding.node.id(), wrap.clone(), acc.clone()))
        {
            return;
        }
        let in_list = matches!(wrap.last(), Some(Seg::Elem | Seg::Index(_)));
        if !in_list {
            for &r in &binding.reads {
                self.expr(r, wrap.clone(), acc.clone(), depth + 1);
            }
            return;
        }
        // `list.push(…)` on a list holding the value reads no element (see
        // `array_method`): only the other reads are visited (the model
        // lists them), since visiting every push of a list each of
        // thousands of pushed results reaches was quadratic. Each skipped
        // push still counts a step, where it stood, so the budget cuts the
        // walk where it did.
        let mut done = 0;
        for &i in &binding.other_reads {
            let i = i as usize;
            let Some(&r) = binding.reads.get(i) else {
                break;
            };
            self.steps += i.saturating_sub(done);
            done = i + 1;
            self.expr(r, wrap.clone(), acc.clone(), depth + 1);
        }
        self.steps += binding.reads.len().saturating_sub(done);
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
        let mut wrap = wrap;
        // Climb through expressions that pass the value on unchanged.
        loop {
            let Some(parent) = node.parent() else { return };
            let carries = match parent.kind_str() {
                "parenthesized_expression" | "await_expression" => true,
                "ternary_expression" => parent.field("condition") != Some(node),
                "binary_expression" => match op(m, parent) {
                    "??" | "||" => true,
                    // `a && a.b` is `a.b` (or a falsy `a`), not `a`.
                    "&&" => parent.field("right") == Some(node),
                    _ => false,
                },
                "sequence_expression" => parent.field("right") == Some(node),
                _ => false,
            };
            if !carries {
                break;
            }
            // The other branch may be a literal whose keys code provides.
            if matches!(
                parent.kind_str(),
                "ternary_expression" | "binary_expression"
            ) {
                let keys: Vec<String> = parent
                    .named()
                    .filter(|c| c.id() != node.id() && parent.field("condition") != Some(*c))
                    .flat_map(|c| literal_keys(m, c))
                    .collect();
                if !keys.is_empty() && wrap.is_empty() {
                    push_layer(&mut wrap, Seg::Provided(keys));
                }
            }
            node = parent;
        }
        let Some(parent) = node.parent() else { return };
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
                if let Some(call) = parent.parent() {
                    self.passed(call, index, wrap, acc, depth);
                }
            }
            "pair" if parent.field("value") == Some(node) => {
                let key = parent.field("key").and_then(|k| key_name(k, m.src()));
                if let (Some(k), Some(obj)) = (key, parent.parent()) {
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
                // A promise written into a `ctx.parallel.all([...])` list:
                // its result is the batch's result at that position.
                if let Some(batch) = batch_of_list(m, parent) {
                    let at = m.element_position(parent, node);
                    w.push(Seg::Index(at));
                    self.expr(batch, w, acc, depth + 1);
                    return;
                }
                w.push(Seg::Elem);
                self.expr(parent, w, acc, depth + 1);
            }
            "spread_element" => {
                let Some(outer) = parent.parent() else {
                    return;
                };
                match outer.kind_str() {
                    // `{ ...value }` keeps its fields but those the literal
                    // sets itself; `[...value]` its elements.
                    // `{ ...a, ...b }`: a field may come from either.
                    "object"
                        if outer
                            .named()
                            .filter(|c| c.kind_str() == "spread_element")
                            .nth(1)
                            .is_some() =>
                    {
                        self.forward(&acc, ForwardKind::Unknown("a merged object".into()), outer)
                    }
                    "object" => {
                        let own = literal_keys(m, outer);
                        let mut w = wrap;
                        if !own.is_empty() {
                            push_layer(&mut w, Seg::Provided(own));
                        }
                        self.expr(outer, w, acc, depth + 1)
                    }
                    "array" => self.expr(outer, wrap, acc, depth + 1),
                    // `files.push(...r.artifacts)` into a list a breakpoint
                    // shows (`files: files.map(…)`): a person is shown the
                    // field. Only that is followed: what else the list
                    // does says nothing about this field.
                    "arguments"
                        if !acc.is_empty()
                            && wrap.is_empty()
                            && outer
                                .parent()
                                .and_then(|call| pushed_onto(m, call))
                                .is_some_and(|list| {
                                    shown_at_breakpoint(m, list, parent.start_byte())
                                }) =>
                    {
                        self.forward(&acc, ForwardKind::Breakpoint, parent)
                    }
                    _ => self.forward(&acc, ForwardKind::Unknown("spread".into()), parent),
                }
            }
            "for_in_statement" if parent.field("right") == Some(node) => {
                let of = parent
                    .field("operator")
                    .is_some_and(|o| text(o, m.src()) == "of");
                if let (true, Some(true), Some(left)) =
                    (of, wrap.last().map(Seg::is_element), parent.field("left"))
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
            Some(Seg::Elem | Seg::Index(_)) => self.array_method(name, member, wrap, acc, depth),
            Some(Seg::Provided(keys)) => {
                if keys.iter().any(|k| k == name) {
                    self.out.provided.push(member);
                }
                wrap.pop();
                self.property(name, member, wrap, acc, depth);
            }
            None => {
                // `result.k = …` writes the field; it is not a read.
                if is_assigned(self.m, member) {
                    if acc.is_empty() {
                        self.written.push(name.to_string());
                    }
                    return;
                }
                let called = member
                    .parent()
                    .is_some_and(|p| p.kind_str() == "call_expression");
                // `ctx.task(…).then(r => list.push(r))`: the callback's
                // parameter is the value (a promise's `then` is no field).
                if called && acc.is_empty() && name == "then" {
                    let param = member
                        .parent()
                        .and_then(|call| call.field("arguments"))
                        .and_then(|args| args.named_child(0))
                        .and_then(|cb| self.m.function_of_expr(cb))
                        .and_then(|f| self.m.functions[f].params.first().copied());
                    if let Some(p) = param {
                        self.pattern(p, wrap, acc, depth + 1);
                        return;
                    }
                }
                if called && !acc.is_empty() {
                    // `review.issues.map(…)`: a method of a field, not a
                    // field — whose elements a breakpoint may show
                    // (`files: r.artifacts.map(…)`; not a count of them,
                    // `.filter(…).length`, nor a yes/no, `.some(…)`).
                    if matches!(name, "map" | "flatMap") && in_breakpoint_args(self.m, member) {
                        self.forward(&acc, ForwardKind::Breakpoint, member);
                    }
                    return;
                }
                // `r.result || r.value || r`: a defensive read that falls
                // back to the value itself reads no field the value must
                // have.
                if acc.is_empty() && falls_back_to_object(self.m, member) {
                    self.out.provided.push(member);
                }
                if acc.is_empty() {
                    let earlier = earlier_links(self.m, member);
                    if !earlier.is_empty() {
                        self.out.fallbacks.push((member, earlier));
                    }
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
        let index = node
            .field("index")
            .filter(|i| i.kind_str() == "number")
            .and_then(|i| self.m.text(i).parse::<usize>().ok());
        let hit = match (wrap.last(), index) {
            (Some(Seg::Elem), _) | (Some(Seg::Index(_)), None) => true,
            (Some(Seg::Index(at)), Some(i)) => *at == i,
            _ => false,
        };
        if hit {
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
        let Some(call) = member
            .parent()
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
        if let Some(args) = fnode.parent().filter(|p| p.kind_str() == "arguments") {
            if let Some(call) = args.parent() {
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
        if let Some(array) = fnode.parent().filter(|p| p.kind_str() == "array") {
            let batch = array
                .parent()
                .filter(|p| p.kind_str() == "arguments")
                .and_then(|a| a.parent())
                .and_then(|c| m.call_of_node(c))
                .and_then(|ci| m.effect_of_call(ci))
                .filter(|e| e.kind == EffectKind::ParallelAll);
            if let Some(e) = batch {
                let at = m.element_position(array, fnode);
                let mut w = wrap;
                w.push(Seg::Index(at));
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
            // `{ context }` binds `context` at the shorthand itself.
            "identifier" | "shorthand_property_identifier_pattern" => {
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
                let children: Vec<Node<'t>> = pattern.named().collect();
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
                    let provided = match wrap.last() {
                        Some(Seg::Provided(keys)) => Some(keys.contains(&key)),
                        _ => None,
                    };
                    let mut wrap = wrap.clone();
                    if provided.is_some() {
                        wrap.pop();
                    }
                    if provided == Some(true) {
                        // Possibly set by code rather than read on the value.
                        self.out.provided.push(child);
                    }
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
            "array_pattern" if wrap.last().is_some_and(Seg::is_element) => {
                let only = match wrap.pop() {
                    Some(Seg::Index(i)) => Some(i),
                    _ => None,
                };
                // Positions count the commas before each element (holes too).
                let mut position = 0;
                let children: Vec<Node<'t>> = pattern.all_children().collect();
                for child in children {
                    if child.kind_str() == "," {
                        position += 1;
                        continue;
                    }
                    if !child.is_named() || child.kind_str() == "comment" {
                        continue;
                    }
                    // `...rest` holds the elements from here on.
                    let rest = child.kind_str() == "rest_pattern";
                    if only.is_some_and(|i| i != position && !(rest && i >= position)) {
                        continue;
                    }
                    self.pattern(child, wrap.clone(), acc.clone(), depth + 1);
                }
            }
            _ => {}
        }
    }
}

/// `node.push` or `node.unshift`.
fn is_push(m: &JsModel, node: Node) -> bool {
    crate::js::model::pushes_onto(node, m.src())
}

/// The list `call` pushes onto: `list` of `list.push(…)`.
fn pushed_onto(m: &JsModel, call: Node) -> Option<BindingId> {
    let callee = call.field("function").map(unparen)?;
    let list = callee.field("object")?;
    if callee.kind_str() != "member_expression" || !is_push(m, list) {
        return None;
    }
    m.binding_of_expr(unparen(list))
}

/// Whether a breakpoint's arguments read the list (`files: list.map(…)`)
/// after byte `after` (where the value was pushed: a breakpoint before the
/// push showed the list without it).
fn shown_at_breakpoint(m: &JsModel, list: BindingId, after: usize) -> bool {
    // The reads are in source order, and the breakpoint that shows a list
    // comes after the pushes into it: the last few reads are enough, and
    // a list pushed into from thousands of places is not scanned whole for
    // each push.
    m.scopes
        .get(list)
        .reads
        .iter()
        .rev()
        .take(SHOWN_LIST_READS)
        .take_while(|r| r.start_byte() >= after)
        .any(|&r| shows_elements(m, r) && in_breakpoint_args(m, r))
}

/// Whether the read `r` of a list hands on its elements: the list itself
/// (`files: list`, `[...list]`) or mapped (`list.map(…)`) — not a count
/// (`list.length`), a yes/no (`list.some(…)`), a filter or the first few
/// (`list.slice(0, 10)`: a value pushed late may not be among them).
fn shows_elements(m: &JsModel, r: Node) -> bool {
    match r.parent() {
        Some(p) if p.kind_str() == "member_expression" => p
            .field("property")
            .is_some_and(|k| matches!(m.text(k), "map" | "flatMap")),
        Some(p) => !matches!(
            p.kind_str(),
            "binary_expression" | "unary_expression" | "template_substitution"
        ),
        None => false,
    }
}

/// How many of a list's last reads [`shown_at_breakpoint`] looks at.
const SHOWN_LIST_READS: usize = 64;

/// Whether `node` sits in the arguments of a `ctx.breakpoint(…)` call.
/// Only the expression it sits in is climbed, so a value copied into a
/// variable first is not seen.
fn in_breakpoint_args(m: &JsModel, node: Node) -> bool {
    let mut node = node;
    while let Some(parent) = node.parent() {
        let kind = parent.kind_str();
        if kind.ends_with("_statement") || kind.ends_with("declaration") {
            return false;
        }
        if kind == "call_expression"
            && m.call_of_node(parent)
                .and_then(|ci| m.effect_of_call(ci))
                .is_some_and(|e| e.kind == EffectKind::Breakpoint)
        {
            return true;
        }
        node = parent;
    }
    false
}

/// Whether a member expression is written rather than read: the target of
/// an assignment, or of `delete`.
fn is_assigned(m: &JsModel, member: Node) -> bool {
    member.parent().is_some_and(|p| match p.kind_str() {
        "assignment_expression" | "augmented_assignment_expression" => {
            p.field("left") == Some(member) && p.kind_str() == "assignment_expression"
        }
        "unary_expression" => op(m, p) == "delete",
        _ => false,
    })
}

/// The keys of an object literal, also behind `Promise.resolve(…)`,
/// `await` and parentheses; empty for anything else.
fn literal_keys(m: &JsModel, node: Node) -> Vec<String> {
    let mut n = unparen(node);
    loop {
        match n.kind_str() {
            "await_expression" => match n.named_child(0) {
                Some(inner) => n = unparen(inner),
                None => return Vec::new(),
            },
            "call_expression"
                if n.field("function")
                    .is_some_and(|f| m.text(f) == "Promise.resolve") =>
            {
                match n
                    .field("arguments")
                    .and_then(|a| a.named().find(|c| c.kind_str() != "comment"))
                {
                    Some(inner) => n = unparen(inner),
                    None => return Vec::new(),
                }
            }
            _ => break,
        }
    }
    if n.kind_str() != "object" {
        return Vec::new();
    }
    n.named()
        .filter_map(|c| match c.kind_str() {
            "pair" => c.field("key").and_then(|k| key_name(k, m.src())),
            "shorthand_property_identifier" => Some(m.text(c).to_string()),
            "method_definition" => c.field("name").map(|k| m.text(k).to_string()),
            _ => None,
        })
        .collect()
}

/// The `ctx.parallel.all` call whose first argument is this array literal.
fn batch_of_list<'t>(m: &JsModel<'t>, array: Node<'t>) -> Option<Node<'t>> {
    let args = array.parent().filter(|a| a.kind_str() == "arguments")?;
    let first = args.named().find(|c| c.kind_str() != "comment")?;
    if first.id() != array.id() {
        return None;
    }
    let call = args.parent()?;
    let ci = m.call_of_node(call)?;
    m.effect_of_call(ci)
        .is_some_and(|e| e.kind == EffectKind::ParallelAll)
        .then_some(call)
}

fn op<'a>(m: &JsModel<'a>, node: Node<'a>) -> &'a str {
    node.field("operator")
        .map(|o| text(o, m.src()))
        .unwrap_or("")
}

/// The innermost function containing a node.
pub fn enclosing_function(m: &JsModel, node: Node) -> Option<usize> {
    let mut n = node.parent();
    while let Some(p) = n {
        if let Some(f) = m.function_of_node(p) {
            return Some(f);
        }
        n = p.parent();
    }
    None
}

/// The fields the earlier links of the `||`/`??` chain `member` is a later
/// link of read on the same object, nearest first: `remainingGaps` for
/// `v.gaps` in `v.remainingGaps || v.gaps || []`.
fn earlier_links(m: &JsModel, member: Node) -> Vec<String> {
    earlier_links_of(m, member).unwrap_or_default()
}

fn earlier_links_of(m: &JsModel, member: Node) -> Option<Vec<String>> {
    let object = m.text(unparen(member.field("object")?));
    let is_chain = |n: Node| {
        n.kind_str() == "binary_expression"
            && n.field("operator")
                .is_some_and(|o| matches!(m.text(o), "||" | "??"))
    };
    // Up to the chain link whose right operand holds the member.
    let mut n = member;
    let left = loop {
        let p = n.parent()?;
        if p.kind_str() == "parenthesized_expression" {
            n = p;
            continue;
        }
        if !is_chain(p) {
            return None;
        }
        if p.field("right").is_some_and(|r| r.id() == n.id()) {
            break p.field("left")?;
        }
        n = p;
    };
    // The earlier links, nearest first.
    let mut links = Vec::new();
    let mut stack = vec![left];
    while let Some(n) = stack.pop() {
        let n = unparen(n);
        if is_chain(n) {
            stack.extend(n.field("left"));
            stack.extend(n.field("right"));
        } else {
            links.push(n);
        }
    }
    Some(
        links
            .into_iter()
            .filter_map(|l| {
                (l.kind_str() == "member_expression"
                    && l.field("object")
                        .is_some_and(|o| m.text(unparen(o)) == object))
                .then(|| l.field("property").map(|p| m.text(p).to_string()))
                .flatten()
            })
            .collect(),
    )
}

/// Whether `member` (`r.result`) is an operand of a `||`/`??` chain whose
/// last operand is the object it is read on (`r.result || r.value || r`).
fn falls_back_to_object(m: &JsModel, member: Node) -> bool {
    let Some(object) = member.field("object") else {
        return false;
    };
    let mut top = None;
    let mut n = member;
    while let Some(p) = n.parent() {
        let chained = match p.kind_str() {
            "parenthesized_expression" => true,
            "binary_expression" => p
                .field("operator")
                .is_some_and(|o| matches!(m.text(o), "||" | "??")),
            _ => false,
        };
        if !chained {
            break;
        }
        if p.kind_str() == "binary_expression" {
            top = Some(p);
        }
        n = p;
    }
    top.and_then(|t| t.field("right"))
        .is_some_and(|last| m.text(unparen(last)) == m.text(unparen(object)))
}
