//! Where a value ends up: does it steer the process (a branch condition, an
//! effect's identity: its key or label, or the shape of its args), or does it
//! only reach effect args as a value, the process return value or `ctx.log`?
//!
//! The value is followed forward through every expression computed from it
//! (arithmetic, templates, member reads, calls it is an argument of — the
//! result of `String(x)` or `path.join(dir, x)` still depends on it), through
//! variables (flow-insensitively), containers it is pushed or assigned into,
//! and functions of the module it is returned from. It stops at the sinks
//! below, and at statements that drop it. Along the way it notes whether the
//! value decided a shape (a computed key, what `filter`/`slice` keep), since
//! the SDK hashes the shape of a task's args into its identity, not their
//! values.

use std::collections::HashSet;

use crate::js::syntax::tree::Node;

use crate::js::analysis::effects::effect_of_call;
use crate::js::analysis::results::enclosing_function;
use crate::js::model::{EffectKind, JsModel};
use crate::js::syntax::{key_name, text, unparen};

/// Bounds the walk per start value, so pathological code stays linear.
const MAX_STEPS: usize = 2000;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum SinkKind {
    /// The target of a `ctx.sleepUntil` given neither `label` nor `key`: the
    /// SDK labels the sleep `sleep:<target>`, and the label is its identity.
    SleepTarget,
    /// An effect's identity: `key`/`stableKey`/`label` of a task (or
    /// `label`/`breakpointId` of a breakpoint).
    Key,
    /// The shape (keys, types, array lengths) of the args of an effect
    /// whose identity hashes that shape: the value went through a computed
    /// key, an array filtered or sliced by it, or the like.
    ArgsShape,
    /// The test of an `if`, loop, ternary or `switch`.
    Branch,
    /// The args (or payload, or items) of an effect, as a value only: the
    /// SDK hashes the args' shape, not their values, so this does not change
    /// which recorded effect a replay finds.
    EffectArgs,
    /// Returned from an exported process function.
    ProcessReturn,
    /// `ctx.log(…)`.
    Log,
}

impl SinkKind {
    /// Sinks that make a replay differ from the iteration the journal
    /// recorded: another path, or another effect identity.
    pub fn steers(self) -> bool {
        matches!(
            self,
            SinkKind::SleepTarget | SinkKind::Key | SinkKind::ArgsShape | SinkKind::Branch
        )
    }

    pub fn describe(self) -> &'static str {
        match self {
            SinkKind::SleepTarget => "the target of a `ctx.sleepUntil` without `label` or `key`",
            SinkKind::Key => "an effect's key or label",
            SinkKind::ArgsShape => "the shape of an effect's args",
            SinkKind::Branch => "a branch condition",
            SinkKind::EffectArgs => "an effect's args",
            SinkKind::ProcessReturn => "the process return value",
            SinkKind::Log => "`ctx.log`",
        }
    }
}

#[derive(Debug, Clone, Copy)]
pub struct Sink<'t> {
    pub kind: SinkKind,
    /// The value got there as part of a difference (`end - start`).
    pub difference: bool,
    /// The condition, the effect call, the return statement.
    pub node: Node<'t>,
}

/// Option keys that name an effect.
const KEY_FIELDS: &[&str] = &["key", "stableKey", "breakpointId", "label"];
/// Calls that look at a container's structure, not at what it holds.
const STRUCTURAL: &[&str] = &[
    "isArray",
    "keys",
    "hasOwnProperty",
    "hasOwn",
    "push",
    "unshift",
];
/// Calls whose result's length or presence depends on their arguments (or on
/// what their callback returns): a value passed in can change the shape of
/// what comes out.
const SHAPE_METHODS: &[&str] = &[
    "slice",
    "splice",
    "filter",
    "find",
    "findLast",
    "reduce",
    "reduceRight",
    "from",
    "fromEntries",
    "Array",
];
/// Methods that store their argument into the receiver.
const STORES: &[&str] = &["push", "unshift", "set", "add", "splice", "fill"];

/// The sinks the value of `expr` reaches, sorted by kind then position.
pub fn sinks_of<'t>(m: &JsModel<'t>, expr: Node<'t>) -> Vec<Sink<'t>> {
    sinks(m, expr, false)
}

/// [`sinks_of`] for a clock reading: a type test of it (`Number.isFinite`,
/// `isNaN`, `typeof`, `instanceof`) gives the same answer whatever the time
/// is — a reading is always a finite number, a `Date` or a string made from
/// one — so the value stops there.
pub fn clock_sinks_of<'t>(m: &JsModel<'t>, expr: Node<'t>) -> Vec<Sink<'t>> {
    sinks(m, expr, true)
}

/// Calls whose answer depends on a clock reading's type, not its value.
const TYPE_TESTS: &[&str] = &[
    "Number.isFinite",
    "Number.isNaN",
    "Number.isInteger",
    "Number.isSafeInteger",
    "isFinite",
    "isNaN",
];

fn sinks<'t>(m: &JsModel<'t>, expr: Node<'t>, clock: bool) -> Vec<Sink<'t>> {
    let mut t = Walk {
        m,
        clock,
        out: Vec::new(),
        seen_nodes: HashSet::new(),
        seen_bindings: HashSet::new(),
        steps: 0,
    };
    t.value(expr, &Flow::default());
    t.out
        .sort_by_key(|s| (s.kind, s.node.start_byte(), s.node.end_byte()));
    let mut out: Vec<Sink> = Vec::with_capacity(t.out.len());
    for s in t.out {
        match out.last_mut() {
            Some(last) if last.kind == s.kind && last.node.id() == s.node.id() => {
                last.difference |= s.difference;
            }
            _ => out.push(s),
        }
    }
    out
}

/// How the value travels.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash)]
struct Flow {
    /// It went through a property named like an effect key.
    keyed: bool,
    /// It decided a shape: a computed key, what `filter`/`slice` keep.
    shape: bool,
    /// It went through a subtraction (a duration, an age).
    difference: bool,
    /// Where it sits in the object at hand: `["meta", "at"]` for
    /// `{ meta: { at: value } }`. Reading another property drops it, and a
    /// test of the object is not a test of the value.
    path: Vec<String>,
}

impl Flow {
    fn keyed(&self, keyed: bool) -> Flow {
        Flow {
            keyed: self.keyed || keyed,
            ..self.clone()
        }
    }
    fn shaped(&self, shape: bool) -> Flow {
        Flow {
            shape: self.shape || shape,
            ..self.clone()
        }
    }
    /// The whole value again (a call computed from it, a variable).
    fn whole(&self) -> Flow {
        Flow {
            keyed: false,
            shape: self.shape,
            difference: self.difference,
            path: Vec::new(),
        }
    }
    /// The value put into a list (as an element, or by `push`).
    fn element(&self) -> Flow {
        let mut next = self.clone();
        if next.path.len() < MAX_PATH {
            next.path.insert(0, ELEMENT.to_string());
        }
        next
    }
    /// One level in: an element of the list, a property of the object.
    fn inner(&self) -> Flow {
        let mut next = self.clone();
        if !next.path.is_empty() {
            next.path.remove(0);
        }
        next
    }
    fn unkeyed(&self) -> Flow {
        Flow {
            keyed: false,
            ..self.clone()
        }
    }
}

/// The path step for "an element of a list".
const ELEMENT: &str = "[]";

/// Bounds the tracked property path, so recursive structures stay finite.
const MAX_PATH: usize = 4;

struct Walk<'m, 't> {
    m: &'m JsModel<'t>,
    /// The value is a clock reading ([`clock_sinks_of`]).
    clock: bool,
    out: Vec<Sink<'t>>,
    /// A node reached once as a plain value may be reached again as
    /// something that decides a shape, or at another place in an object.
    seen_nodes: HashSet<(usize, Flow)>,
    seen_bindings: HashSet<(usize, Flow)>,
    steps: usize,
}

impl<'t> Walk<'_, 't> {
    /// Follows the value of `node` upwards.
    fn value(&mut self, node: Node<'t>, flow: &Flow) {
        self.steps += 1;
        if self.steps > MAX_STEPS || !self.seen_nodes.insert((node.id(), flow.clone())) {
            return;
        }
        let m = self.m;
        // `{ key }` shorthand names the property after the variable.
        let shorthand = node.kind_str() == "shorthand_property_identifier";
        let flow = &flow.keyed(shorthand && KEY_FIELDS.contains(&m.text(node)));
        let Some(parent) = node.parent() else { return };
        let is = |field: &str| parent.field(field) == Some(node);
        // A test of an object that holds the value is not a test of it.
        let tested = flow.path.is_empty();
        match parent.kind_str() {
            "if_statement" | "while_statement" | "do_statement" | "switch_statement"
                if tested && (is("condition") || is("value")) =>
            {
                self.branch(parent, node, flow)
            }
            "for_statement" if tested && is("condition") => self.branch(parent, node, flow),
            // `for (…; i < n; …)` wraps the test in an expression statement.
            "expression_statement"
                if tested
                    && parent.parent().is_some_and(|g| {
                        g.kind_str() == "for_statement" && g.field("condition") == Some(parent)
                    }) =>
            {
                if let Some(g) = parent.parent() {
                    self.branch(g, node, flow)
                }
            }
            "ternary_expression" if is("condition") => {
                if !tested {
                    return;
                }
                if path_changes(m, parent) {
                    self.sink(SinkKind::Branch, node, flow)
                } else {
                    // `x > 0.5 ? 'Yes' : 'No'` only picks a value; it decides
                    // a shape when the two arms differ in type.
                    let same =
                        same_type(m, parent.field("consequence"), parent.field("alternative"));
                    self.value(parent, &flow.whole().shaped(!same))
                }
            }
            "switch_case" if tested && is("value") => self.sink(SinkKind::Branch, node, flow),
            "arguments" => self.argument(parent, node, flow),
            "pair" => {
                if is("value") {
                    let k = parent.field("key").and_then(|k| key_name(k, m.src()));
                    let keyed = k.as_deref().is_some_and(|k| KEY_FIELDS.contains(&k));
                    let mut next = flow.keyed(keyed);
                    if let (Some(k), true) = (k, next.path.len() < MAX_PATH) {
                        next.path.insert(0, k);
                    }
                    self.value(parent, &next);
                } else {
                    // A computed key built from the value.
                    self.value(parent, &flow.whole().shaped(true));
                }
            }
            // `{ startedAt }` puts the value at `startedAt`.
            "object" if shorthand => {
                let mut next = flow.clone();
                if next.path.len() < MAX_PATH {
                    next.path.insert(0, m.text(node).to_string());
                }
                self.value(parent, &next)
            }
            // `{ [stamp]: … }`: the value names a key.
            "computed_property_name" => self.value(parent, &flow.whole().shaped(true)),
            "variable_declarator" if is("value") => {
                if let Some(name) = parent.field("name") {
                    self.pattern(name, &flow.unkeyed());
                }
            }
            "assignment_expression" | "augmented_assignment_expression" if is("right") => {
                if let Some(left) = parent.field("left") {
                    self.target(left, &flow.unkeyed());
                }
                // `a = b = value`: the assignment is itself a value.
                self.value(parent, flow);
            }
            // `obj[stamp] = …` adds a key named by the value.
            "subscript_expression"
                if is("index")
                    && parent.parent().is_some_and(|a| {
                        a.kind_str() == "assignment_expression" && a.field("left") == Some(parent)
                    }) =>
            {
                if let Some(o) = parent.field("object") {
                    self.target(o, &flow.whole().shaped(true));
                }
            }
            "member_expression" if is("object") => {
                // Reading a property of an object that holds the value.
                let prop = parent.field("property").map(|p| m.text(p));
                match flow.path.split_first() {
                    None => self.value(parent, &flow.whole()),
                    Some((first, rest)) if prop == Some(first.as_str()) => {
                        let next = Flow {
                            path: rest.to_vec(),
                            ..flow.unkeyed()
                        };
                        self.value(parent, &next)
                    }
                    // `result.success` is not `result.timestamp`; a method
                    // of the container depends on what it is.
                    Some(_) if is_method_call(parent) => {
                        let call = parent.parent().unwrap_or(parent);
                        match prop.unwrap_or("") {
                            // Adding to a list, or visiting it, yields nothing
                            // computed from what it holds.
                            "push" | "unshift" | "forEach" | "splice" => {}
                            // Still the list, or a part of it.
                            "slice" | "concat" | "filter" | "sort" | "reverse" | "toSorted"
                            | "flat" => self.value(call, flow),
                            "find" | "findLast" | "at" | "pop" | "shift" => {
                                self.value(call, &flow.inner())
                            }
                            _ => self.value(call, &flow.whole()),
                        }
                    }
                    Some(_) => {}
                }
            }
            "return_statement" => self.returned(parent, flow),
            "arrow_function" if is("body") => self.returned(parent, flow),
            "expression_statement" | "lexical_declaration" | "variable_declaration" => {}
            "for_in_statement" if is("right") => {
                if let Some(left) = parent.field("left") {
                    let each = if flow.path.first().is_some_and(|p| p == ELEMENT) {
                        flow.inner()
                    } else {
                        flow.whole()
                    };
                    self.pattern(left, &each);
                }
            }
            // `items[stamp]`: an element picked by the value.
            "subscript_expression" if is("index") => {
                self.value(parent, &flow.whole().keyed(flow.keyed))
            }
            // `items[i]` of a container that holds the value: the element
            // (the index is unknown, so any element may be the one).
            "subscript_expression" => self.value(parent, &flow.inner()),
            "array" => self.value(parent, &flow.element()),
            // Spreads and the like keep the value's place.
            "spread_element"
            | "object"
            | "parenthesized_expression"
            | "await_expression"
            | "as_expression" => self.value(parent, flow),
            // `typeof now`, `now instanceof Date`: the same on every replay.
            "unary_expression"
                if self.clock
                    && parent
                        .field("operator")
                        .is_some_and(|o| m.text(o) == "typeof") => {}
            "binary_expression"
                if self.clock
                    && is("left")
                    && parent
                        .field("operator")
                        .is_some_and(|o| m.text(o) == "instanceof") => {}
            // A container's truthiness, type or identity does not depend on
            // what it holds; `a || b` may be the container itself.
            "unary_expression" | "binary_expression" if !flow.path.is_empty() => {
                let logical = parent
                    .field("operator")
                    .is_some_and(|o| matches!(m.text(o), "&&" | "||" | "??"));
                if logical {
                    self.value(parent, flow)
                }
            }
            // `${list}` joins the elements; `${obj}` is `[object Object]`.
            "template_substitution" if !flow.path.is_empty() => {
                let list = flow.path.first().is_some_and(|p| p == ELEMENT);
                if list {
                    self.value(parent, &flow.whole().keyed(flow.keyed))
                }
            }
            "binary_expression" if parent.field("operator").is_some_and(|o| m.text(o) == "-") => {
                let mut next = flow.whole().keyed(flow.keyed);
                next.difference = true;
                self.value(parent, &next)
            }
            kind if is_expression(kind) => self.value(parent, &flow.whole().keyed(flow.keyed)),
            _ => {}
        }
    }

    fn sink(&mut self, kind: SinkKind, node: Node<'t>, flow: &Flow) {
        self.out.push(Sink {
            kind,
            difference: flow.difference,
            node,
        });
    }

    /// A test of a statement: it steers the process only when the statement
    /// can change which effects run (it holds one, a call that may, or a
    /// jump); an `if` that only sets a variable is not followed further.
    fn branch(&mut self, statement: Node<'t>, test: Node<'t>, flow: &Flow) {
        if path_changes(self.m, statement) {
            self.sink(SinkKind::Branch, test, flow)
        }
    }

    /// The value is an argument of a call.
    fn argument(&mut self, args: Node<'t>, node: Node<'t>, flow: &Flow) {
        let m = self.m;
        let Some(call) = args.parent() else { return };
        let index = {
            let i = args
                .named()
                .filter(|n| n.kind_str() != "comment")
                .position(|n| n.id() == node.id());
            i.unwrap_or(0)
        };
        let keyed = flow.keyed;
        let mut shape = flow.shape;
        if self.clock
            && call
                .field("function")
                .is_some_and(|f| TYPE_TESTS.contains(&m.text(unparen(f))))
        {
            return;
        }
        if call.kind_str() == "call_expression" {
            if let Some(ci) = m.call_of_node(call) {
                if let Some(e) = effect_of_call(m, ci) {
                    let kind = match e.kind {
                        EffectKind::Log => SinkKind::Log,
                        EffectKind::Now => return self.value(call, &flow.whole()),
                        // Only `key`/`stableKey`/`label` of the options are read.
                        EffectKind::Task if index >= 2 => {
                            if !keyed {
                                return;
                            }
                            SinkKind::Key
                        }
                        // The SDK overrides a breakpoint's `key`; only its
                        // label (or id) names it, and the payload is not hashed.
                        EffectKind::Breakpoint if keyed => SinkKind::Key,
                        EffectKind::Breakpoint => SinkKind::EffectArgs,
                        EffectKind::SleepUntil if index == 0 => {
                            if sleep_is_named(m, args) {
                                SinkKind::EffectArgs
                            } else {
                                SinkKind::SleepTarget
                            }
                        }
                        EffectKind::SleepUntil | EffectKind::Other if keyed => SinkKind::Key,
                        EffectKind::Halt => SinkKind::EffectArgs,
                        _ if shape => SinkKind::ArgsShape,
                        _ => SinkKind::EffectArgs,
                    };
                    return self.sink(kind, call, flow);
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
                        self.target(o, &flow.unkeyed().element());
                    }
                }
                // Whether a container has a key, or is a list, does not
                // depend on what it holds.
                if !flow.path.is_empty() && STRUCTURAL.contains(&method) {
                    return;
                }
                shape = shape || SHAPE_METHODS.contains(&method);
            }
            if callee.is_some_and(|c| c.kind_str() == "identifier" && m.text(c) == "Array") {
                shape = true;
            }
            // A local function: its parameter carries the value.
            if let Some(f) = callee.and_then(|c| m.function_of_expr(c)) {
                if let Some(Some(b)) = m.functions[f].param_bindings.get(index) {
                    self.binding(*b, &flow.unkeyed().shaped(shape));
                    // Its returns are followed from the parameter, so the
                    // call's result carries only what the function returns.
                    return;
                }
            }
        } else if call.kind_str() == "new_expression"
            && call
                .field("constructor")
                .is_some_and(|c| m.text(c) == "Array")
        {
            shape = true;
        }
        // Whatever the call computes may depend on the value; but a call
        // handed an object or list that merely holds it (a record with a
        // timestamp) is taken to compute from the rest.
        if !flow.path.is_empty() {
            return;
        }
        self.value(call, &flow.whole().keyed(keyed).shaped(shape));
    }

    /// The value is assigned to a target: a variable, or a member of one.
    fn target(&mut self, left: Node<'t>, flow: &Flow) {
        let m = self.m;
        let left = unparen(left);
        match left.kind_str() {
            "identifier" => {
                if let Some(b) = m.scopes.binding_of(left) {
                    self.binding(b, flow);
                }
            }
            "member_expression" => {
                if let Some(o) = left.field("object") {
                    let mut next = flow.clone();
                    if let Some(p) = left
                        .field("property")
                        .filter(|_| next.path.len() < MAX_PATH)
                    {
                        next.path.insert(0, m.text(p).to_string());
                    }
                    self.target(o, &next);
                }
            }
            "subscript_expression" => {
                if let Some(o) = left.field("object") {
                    self.target(o, flow);
                }
            }
            "object_pattern" | "array_pattern" => self.pattern(left, flow),
            _ => {}
        }
    }

    fn pattern(&mut self, pattern: Node<'t>, flow: &Flow) {
        let m = self.m;
        let mut stack = vec![(pattern, flow.clone())];
        while let Some((n, flow)) = stack.pop() {
            match n.kind_str() {
                "identifier" | "shorthand_property_identifier_pattern" => {
                    if let Some(b) = m.scopes.binding_of(n) {
                        self.binding(b, &flow);
                    }
                }
                "object_pattern" if !flow.path.is_empty() => {
                    // `const { success } = result` takes only `success`.
                    let Some((first, rest)) = flow.path.split_first() else {
                        continue;
                    };
                    let inner = Flow {
                        path: rest.to_vec(),
                        ..flow.clone()
                    };
                    for c in n.named() {
                        match c.kind_str() {
                            "shorthand_property_identifier_pattern" if m.text(c) == first => {
                                stack.push((c, inner.clone()))
                            }
                            "object_assignment_pattern"
                                if c.field("left").is_some_and(|l| m.text(l) == first) =>
                            {
                                stack.push((c, inner.clone()))
                            }
                            "pair_pattern"
                                if c.field("key")
                                    .and_then(|k| key_name(k, m.src()))
                                    .is_some_and(|k| &k == first) =>
                            {
                                stack.push((c, inner.clone()))
                            }
                            "rest_pattern" => stack.push((c, flow.clone())),
                            _ => {}
                        }
                    }
                }
                "pair_pattern" => {
                    if let Some(v) = n.field("value") {
                        stack.push((v, flow));
                    }
                }
                "assignment_pattern" | "object_assignment_pattern" => {
                    if let Some(l) = n.field("left") {
                        stack.push((l, flow));
                    }
                }
                _ => {
                    stack.extend(n.named().map(|c| (c, flow.clone())));
                }
            }
        }
    }

    fn binding(&mut self, b: usize, flow: &Flow) {
        if !self.seen_bindings.insert((b, flow.clone())) {
            return;
        }
        let m = self.m;
        for &r in &m.scopes.get(b).reads {
            self.value(r, &flow.unkeyed());
        }
    }

    /// Returned from a function: the process output, or the value of every
    /// call of that function in the module.
    fn returned(&mut self, at: Node<'t>, flow: &Flow) {
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
            return self.sink(SinkKind::ProcessReturn, at, flow);
        }
        let fnode = m.functions[f].node;
        let flow = flow.unkeyed();
        // A callback's result is the result of the call it is passed to
        // (a batch, `map`, `filter` …).
        if let Some(call) = fnode
            .parent()
            .filter(|p| p.kind_str() == "arguments" || p.kind_str() == "array")
            .and_then(|p| {
                if p.kind_str() == "array" {
                    p.parent().and_then(|a| a.parent())
                } else {
                    p.parent()
                }
            })
            .filter(|c| c.kind_str() == "call_expression")
        {
            // A `filter`/`find` predicate decides what is kept.
            let decides = call
                .field("function")
                .map(unparen)
                .filter(|c| c.kind_str() == "member_expression")
                .and_then(|c| c.field("property"))
                .is_some_and(|p| SHAPE_METHODS.contains(&m.text(p)));
            let next = if decides {
                flow.whole().shaped(true)
            } else {
                flow
            };
            return self.value(call, &next);
        }
        for &ci in m.call_sites_of(f) {
            self.value(m.calls[ci].node, &flow);
        }
    }
}

/// Whether `member` is the callee of a call (`obj.toString()`).
fn is_method_call(member: Node) -> bool {
    member
        .parent()
        .is_some_and(|c| c.kind_str() == "call_expression" && c.field("function") == Some(member))
}

/// Whether a statement (or ternary) can change which effects the process
/// requests after it: it holds a call (an effect, or a function that may
/// request one), or a jump out of the straight line.
fn path_changes(m: &JsModel, statement: Node) -> bool {
    let mut stack: Vec<Node> = statement.named().collect();
    while let Some(n) = stack.pop() {
        match n.kind_str() {
            "return_statement" | "break_statement" | "continue_statement" | "throw_statement"
            | "yield_expression" => return true,
            "call_expression" if may_request(m, n) => return true,
            // A function defined here runs only where it is called.
            "function_expression" | "arrow_function" | "function_declaration" => {}
            _ => stack.extend(n.named()),
        }
    }
    false
}

/// Whether a call may request an effect: it is one, calls a function of the
/// module, or is handed the process context.
fn may_request(m: &JsModel, call: Node) -> bool {
    let Some(ci) = m.call_of_node(call) else {
        return true;
    };
    if effect_of_call(m, ci).is_some_and(|e| e.kind.dispatches()) {
        return true;
    }
    if call
        .field("function")
        .is_some_and(|f| m.function_of_expr(f).is_some())
    {
        return true;
    }
    m.calls[ci].args.iter().any(|a| m.is_context_expr(*a))
}

/// Whether two expressions certainly have the same type (both strings, both
/// numbers, both booleans): then picking one does not change a shape.
fn same_type(m: &JsModel, a: Option<Node>, b: Option<Node>) -> bool {
    fn kind(m: &JsModel, n: Node) -> Option<&'static str> {
        let n = unparen(n);
        match n.kind_str() {
            "string" | "template_string" => Some("string"),
            "number" => Some("number"),
            "true" | "false" => Some("boolean"),
            "unary_expression" if m.text(n).starts_with('!') => Some("boolean"),
            "binary_expression" => {
                let op = n.field("operator").map(|o| m.text(o));
                match op {
                    Some("-" | "*" | "/" | "%" | "**") => Some("number"),
                    Some("<" | ">" | "<=" | ">=" | "===" | "!==" | "==" | "!=") => Some("boolean"),
                    _ => None,
                }
            }
            "call_expression" => {
                let f = n.field("function").map(|f| m.text(f)).unwrap_or("");
                if f.starts_with("Math.") || f == "Number" || f == "parseInt" || f == "parseFloat" {
                    Some("number")
                } else if f == "String" || f.ends_with(".toISOString") || f.ends_with(".toFixed") {
                    Some("string")
                } else {
                    None
                }
            }
            _ => None,
        }
    }
    match (a, b) {
        (Some(a), Some(b)) => kind(m, a).is_some_and(|k| Some(k) == kind(m, b)),
        _ => false,
    }
}

/// Whether a `ctx.sleepUntil` call names its sleep (`label` or `key` in its
/// options, or options the walk cannot see into).
fn sleep_is_named(m: &JsModel, args: Node) -> bool {
    let Some(opts) = args
        .named()
        .filter(|n| n.kind_str() != "comment")
        .nth(1)
        .map(unparen)
    else {
        return false;
    };
    if opts.kind_str() != "object" {
        return true;
    }
    opts.named().any(|p| match p.kind_str() {
        "pair" => p
            .field("key")
            .and_then(|k| key_name(k, m.src()))
            .is_some_and(|k| k == "label" || k == "key"),
        "shorthand_property_identifier" => matches!(m.text(p), "label" | "key"),
        "spread_element" => true,
        _ => false,
    })
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
    use crate::js::syntax::parse;
    use crate::js::ModelOptions;
    use crate::source::SourceFile;

    fn sinks(src: &str, needle: &str) -> Vec<SinkKind> {
        let file = SourceFile::new("t.js", src.to_string());
        let Some(tree) = parse::parse_tree(&file.text) else {
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
    fn clock_type_tests_stop_the_value() {
        let src = "export async function process(inputs, ctx) {\n  const now = ctx.now();\n  if (!Number.isFinite(now)) throw new Error('no clock');\n  if (typeof now === 'number') return 1;\n}\n";
        let file = SourceFile::new("t.js", src.to_string());
        let Some(tree) = parse::parse_tree(&file.text) else {
            panic!("parse failed");
        };
        let m = JsModel::build(&file, &tree, &ModelOptions::default());
        let start = src.find("ctx.now()").unwrap_or_default();
        let Some(node) = tree
            .root_node()
            .descendant_for_byte_range(start, start + "ctx.now()".len())
        else {
            panic!("no node");
        };
        assert!(clock_sinks_of(&m, node).is_empty());
        // The same tests of another value do steer.
        assert!(!sinks_of(&m, node).is_empty());
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
  if (stamp > '1') { await ctx.task(t, {}); }
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

    #[test]
    fn shape_and_sleep_target() {
        let src = r#"export async function process(inputs, ctx) {
  const now = Date.now();
  const due = inputs.items.filter((i) => i.at < now);
  await ctx.task(t, { due });
  await ctx.sleepUntil(new Date().getTime() + 1000);
  await ctx.sleepUntil(performance.now() + 1000, { label: 'wait' });
  return { [Math.random()]: 1 };
}
"#;
        assert_eq!(sinks(src, "Date.now()"), vec![SinkKind::ArgsShape]);
        assert_eq!(sinks(src, "new Date()"), vec![SinkKind::SleepTarget]);
        assert_eq!(sinks(src, "performance.now()"), vec![SinkKind::EffectArgs]);
        assert_eq!(sinks(src, "Math.random()"), vec![SinkKind::ProcessReturn]);
    }
}
