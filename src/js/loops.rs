//! Loop and recursion queries shared by the convergence rules: which loops
//! dispatch effects (directly or through same-module helpers), what bounds
//! their iteration count, and which outer variables they accumulate into.
//!
//! Everything here is syntactic and flow-insensitive on purpose: a rule
//! asks "is there a counter this loop advances and compares", not "does it
//! terminate", so the answers stay explainable in a diagnostic.

use std::collections::HashSet;

use super::ids::IdSet;

use crate::js::tree::Node;

use super::model::{CallId, JsModel, LoopId, LoopKind};
use super::scope::{BindingId, FnId};
use super::syntax::{contains, holds_statements, is_function, is_loop, text, unparen};

/// How many same-module calls deep "this function dispatches effects" is
/// followed (`loop → helper → phase → ctx.task` is depth 2).
pub const MAX_CALL_DEPTH: usize = 4;

/// Bounds the explicit-stack walks below on pathological input.
const MAX_WALK_NODES: usize = 200_000;

/// Operators that compare a counter with a limit.
const COMPARISONS: &[&str] = &["<", "<=", ">", ">=", "!=", "!==", "==", "==="];

/// Methods that consume a work list, making `list.length` (or a set's
/// `size`) a counter.
const DRAINING_METHODS: &[&str] = &["shift", "pop", "splice", "delete", "clear"];

/// Methods that append to an accumulator in place.
const APPENDING_METHODS: &[&str] = &["push", "unshift", "splice", "set", "add", "append"];

/// What limits how many times a loop runs.
#[derive(Debug, Clone, Copy)]
pub enum Bound<'t> {
    /// `for…of` / `for…in`: finite by construction; or a body that never
    /// starts a second pass ([`LoopAnalysis::single_pass`]).
    Finite,
    /// The condition compares a counter the loop advances.
    Counter {
        comparison: Node<'t>,
    },
    /// A `break`/`return`/`throw` in the body is guarded by such a
    /// comparison.
    GuardedExit {
        exit: Node<'t>,
        comparison: Node<'t>,
    },
    Unbounded(Unbounded<'t>),
}

impl Bound<'_> {
    pub fn is_bounded(&self) -> bool {
        !matches!(self, Bound::Unbounded(_))
    }
}

#[derive(Debug, Clone, Copy)]
pub enum Unbounded<'t> {
    /// `while (true)`, `for (;;)`: nothing in the header can end it.
    Always,
    /// A counter is compared (in the condition or a guard) but the loop
    /// never advances it.
    NotAdvanced {
        counter: Node<'t>,
        comparison: Node<'t>,
    },
    /// The condition changes only with values computed in the body
    /// (`!approved`, `!review.passed`, `status !== 'done'`).
    ResultDependent { condition: Node<'t> },
}

/// An unbounded self-call of a function that dispatches effects.
#[derive(Debug, Clone, Copy)]
pub struct Recursion {
    pub function: FnId,
    pub call: CallId,
}

/// Per-file loop facts, computed once and queried by several rules.
pub struct LoopAnalysis<'a, 't> {
    m: &'a JsModel<'t>,
    /// Per function: how many calls deep it reaches a dispatching effect.
    fn_depth: Vec<Option<usize>>,
    /// Calls that are dispatching effects.
    effect_calls: IdSet<CallId>,
    /// Per loop: the calls lexically inside it, in source order.
    loop_calls: Vec<Vec<CallId>>,
    /// Every write reference, by start byte, with its binding: loops ask
    /// "who is written in here" by range instead of scanning all bindings.
    writes: Vec<(usize, BindingId)>,
}

impl<'a, 't> LoopAnalysis<'a, 't> {
    pub fn new(m: &'a JsModel<'t>) -> Self {
        let effect_calls: IdSet<CallId> = m
            .effects
            .iter()
            .filter(|e| e.kind.dispatches())
            .map(|e| e.call)
            .collect();
        let mut fn_depth = vec![None; m.functions.len()];
        // A function dispatches when a dispatching call sits in it or in a
        // closure it defines (`items.map(x => ctx.task(…))`).
        for &c in &effect_calls {
            let mut f = m.calls[c].func;
            while let Some(fi) = f {
                if fn_depth[fi].is_some() {
                    break;
                }
                fn_depth[fi] = Some(0);
                f = m.functions[fi].parent;
            }
        }
        for depth in 1..=MAX_CALL_DEPTH {
            let mut found = Vec::new();
            for call in &m.calls {
                let Some(f) = call.func else { continue };
                if fn_depth[f].is_some() {
                    continue;
                }
                let reaches = m
                    .function_of_expr(call.callee)
                    .is_some_and(|g| fn_depth[g].is_some_and(|d| d < depth));
                if reaches {
                    found.push(f);
                }
            }
            if found.is_empty() {
                break;
            }
            for mut f in found {
                // Enclosing functions reach it one level further at most;
                // recording the same depth keeps the bound conservative.
                loop {
                    if fn_depth[f].is_some() {
                        break;
                    }
                    fn_depth[f] = Some(depth);
                    match m.functions[f].parent {
                        Some(p) => f = p,
                        None => break,
                    }
                }
            }
        }
        let mut loop_calls = vec![Vec::new(); m.loops.len()];
        for (ci, call) in m.calls.iter().enumerate() {
            for &l in &call.loops {
                if let Some(v) = loop_calls.get_mut(l) {
                    v.push(ci);
                }
            }
        }
        for v in &mut loop_calls {
            v.sort_by_key(|&c| m.calls[c].node.start_byte());
        }
        let mut writes: Vec<(usize, BindingId)> = m
            .scopes
            .bindings
            .iter()
            .enumerate()
            .flat_map(|(bi, b)| b.writes.iter().map(move |w| (w.start_byte(), bi)))
            .collect();
        writes.sort_unstable();
        LoopAnalysis {
            m,
            fn_depth,
            effect_calls,
            loop_calls,
            writes,
        }
    }

    pub fn model(&self) -> &'a JsModel<'t> {
        self.m
    }

    /// Whether a function dispatches effects, itself or through
    /// same-module calls up to [`MAX_CALL_DEPTH`].
    pub fn function_dispatches(&self, f: FnId) -> bool {
        self.fn_depth.get(f).is_some_and(Option::is_some)
    }

    /// Whether a call is an effect dispatch (`ctx.task`, `ctx.breakpoint`,
    /// `ctx.parallel.*`, `ctx.sleepUntil`).
    pub fn is_effect(&self, c: CallId) -> bool {
        self.effect_calls.contains(&c)
    }

    /// Whether a call dispatches: an effect, or a call to a same-module
    /// function that does.
    pub fn call_dispatches(&self, c: CallId) -> bool {
        self.is_effect(c)
            || self
                .m
                .function_of_expr(self.m.calls[c].callee)
                .is_some_and(|f| self.function_dispatches(f))
    }

    /// Calls lexically inside a loop (condition and body), in source order.
    pub fn calls_in(&self, l: LoopId) -> &[CallId] {
        self.loop_calls.get(l).map(Vec::as_slice).unwrap_or(&[])
    }

    /// Dispatching calls inside a loop, in source order.
    pub fn dispatches_in(&self, l: LoopId) -> Vec<CallId> {
        self.calls_in(l)
            .iter()
            .copied()
            .filter(|&c| self.call_dispatches(c))
            .collect()
    }

    /// What bounds a loop's iteration count.
    pub fn bound(&self, l: LoopId) -> Bound<'t> {
        let lp = &self.m.loops[l];
        if matches!(lp.kind, LoopKind::ForIn | LoopKind::ForOf) {
            return Bound::Finite;
        }
        let mut not_advanced = None;
        let condition = lp.condition.map(unparen);
        if let Some(cond) = condition {
            for conjunct in conjuncts(self.m, cond) {
                match self.counter_comparison(lp.node, conjunct) {
                    CounterCheck::Advanced(cmp) => return Bound::Counter { comparison: cmp },
                    CounterCheck::NotAdvanced(counter, cmp) => {
                        not_advanced.get_or_insert((counter, cmp));
                    }
                    CounterCheck::None => {}
                }
            }
        }
        if let Some(body) = lp.body {
            for exit in self.exits(lp.node, body) {
                match self.exit_guard(lp.node, body, exit) {
                    CounterCheck::Advanced(cmp) => {
                        return Bound::GuardedExit {
                            exit,
                            comparison: cmp,
                        }
                    }
                    CounterCheck::NotAdvanced(counter, cmp) => {
                        not_advanced.get_or_insert((counter, cmp));
                    }
                    CounterCheck::None => {}
                }
            }
        }
        if self.single_pass(l) {
            return Bound::Finite;
        }
        if let Some((counter, comparison)) = not_advanced {
            return Bound::Unbounded(Unbounded::NotAdvanced {
                counter,
                comparison,
            });
        }
        match condition {
            Some(c) if !is_always_true(self.m, c) => {
                Bound::Unbounded(Unbounded::ResultDependent { condition: c })
            }
            _ => Bound::Unbounded(Unbounded::Always),
        }
    }

    /// `break`/`return`/`throw` statements that leave the loop `lp` from
    /// inside `body` (nested functions excluded; an unlabelled `break` in a
    /// nested loop or `switch` leaves only that).
    pub fn exits(&self, lp: Node<'t>, body: Node<'t>) -> Vec<Node<'t>> {
        // Labelled breaks are rare: find the labels only for one.
        let mut inner_labels = None;
        let mut out = Vec::new();
        walk(self.m, body, |n| {
            match n.kind_str() {
                "return_statement" | "throw_statement" => out.push(n),
                "break_statement" => {
                    let leaves = match n.field("label") {
                        Some(label) => !inner_labels
                            .get_or_insert_with(|| labels_inside(self.m, body))
                            .contains(text(label, self.m.src())),
                        None => !inside_breakable(self.m, n, lp),
                    };
                    if leaves {
                        out.push(n);
                    }
                }
                // Exits are statements: only statements that hold
                // statements are searched (not expressions, not nested
                // functions).
                _ => return n.id() == body.id() || holds_statements(n),
            }
            true
        });
        out
    }

    /// The `if` conditions between an exit statement and the loop body.
    pub fn guards(&self, body: Node<'t>, exit: Node<'t>) -> Vec<Node<'t>> {
        let mut out = Vec::new();
        let mut n = exit;
        while let Some(p) = self.m.parent(n) {
            if p.id() == body.id() || !contains(body, p) {
                break;
            }
            if p.kind_str() == "if_statement" && p.field("condition") != Some(n) {
                if let Some(c) = p.field("condition") {
                    out.push(unparen(c));
                }
            }
            n = p;
        }
        out
    }

    /// Exits of the loop guarded by a comparison of a counter it advances
    /// (the cap exits).
    pub fn counter_exits(&self, l: LoopId) -> Vec<Node<'t>> {
        let lp = &self.m.loops[l];
        let Some(body) = lp.body else {
            return Vec::new();
        };
        self.exits(lp.node, body)
            .into_iter()
            .filter(|e| {
                matches!(
                    self.exit_guard(lp.node, body, *e),
                    CounterCheck::Advanced(_)
                )
            })
            .collect()
    }

    fn exit_guard(&self, lp: Node<'t>, body: Node<'t>, exit: Node<'t>) -> CounterCheck<'t> {
        let mut result = CounterCheck::None;
        for guard in self.guards(body, exit) {
            for cmp in comparisons_in(self.m, guard) {
                match self.counter_comparison(lp, cmp) {
                    CounterCheck::Advanced(c) => return CounterCheck::Advanced(c),
                    CounterCheck::NotAdvanced(a, b) => {
                        if matches!(result, CounterCheck::None) {
                            result = CounterCheck::NotAdvanced(a, b);
                        }
                    }
                    CounterCheck::None => {}
                }
            }
        }
        result
    }

    /// Whether an expression (a top-level conjunct or a comparison in a
    /// guard) compares a counter, and whether `lp` advances it.
    fn counter_comparison(&self, lp: Node<'t>, expr: Node<'t>) -> CounterCheck<'t> {
        let expr = unparen(expr);
        if expr.kind_str() != "binary_expression" || !COMPARISONS.contains(&op(self.m, expr)) {
            return CounterCheck::None;
        }
        let operands: Vec<Node<'t>> = ["left", "right"]
            .iter()
            .filter_map(|f| expr.field(f))
            .map(unparen)
            .collect();
        if operands.iter().any(|&o| self.is_advanced_counter(lp, o)) {
            return CounterCheck::Advanced(expr);
        }
        // A relational comparison of something the loop never writes is a
        // counter that was meant to be advanced; an equality with values
        // the loop does write (`status !== 'done'`) is result-dependent.
        let relational = matches!(op(self.m, expr), "<" | "<=" | ">" | ">=");
        if !relational {
            return CounterCheck::None;
        }
        let unwritten: Vec<Node<'t>> = operands
            .iter()
            .copied()
            .filter(|&o| self.counter_like(o) && !self.written_in(lp, o))
            .collect();
        if unwritten.len() < operands.len() {
            // Some operand changes in the loop without being advanced
            // (`score < 8` with `score = review.score`): result-dependent.
            return CounterCheck::None;
        }
        // Report the mutable one (`attempts`, not `MAX_ATTEMPTS`).
        let counter = unwritten
            .iter()
            .copied()
            .find(|&o| self.is_mutable(o))
            .or_else(|| unwritten.first().copied());
        match counter {
            Some(c) => CounterCheck::NotAdvanced(c, expr),
            None => CounterCheck::None,
        }
    }

    /// Identifiers and member paths can be counters; literals cannot.
    fn counter_like(&self, n: Node<'t>) -> bool {
        matches!(
            n.kind_str(),
            "identifier" | "member_expression" | "update_expression"
        )
    }

    fn is_mutable(&self, n: Node<'t>) -> bool {
        match n.kind_str() {
            "identifier" => self.m.binding_of_expr(n).is_some_and(|b| {
                matches!(
                    self.m.scopes.get(b).kind,
                    super::scope::BindingKind::Let | super::scope::BindingKind::Var
                )
            }),
            "member_expression" => true,
            _ => false,
        }
    }

    /// Whether `n` is a counter that the loop `lp` advances: `++`/`--`,
    /// `+= k`/`-= k`, `x = x ± k`, or `list.length` of a list the loop
    /// drains with `shift`/`pop`/`splice`.
    ///
    /// One advancing write suffices, since the question is whether a
    /// comparison of `n` can end the loop. retry-without-history's
    /// `is_counter` asks something else (is carried state only a tally?):
    /// it needs every write in the loop to be arithmetic with a number
    /// literal, ignores closures the loop calls, and accepts `*=` but not
    /// `+= step`. The two stay separate because their answers differ.
    pub fn is_advanced_counter(&self, lp: Node<'t>, n: Node<'t>) -> bool {
        let n = unparen(n);
        match n.kind_str() {
            "update_expression" => true,
            "identifier" => {
                let Some(b) = self.m.binding_of_expr(n) else {
                    return false;
                };
                self.m.scopes.get(b).writes.iter().any(|w| {
                    is_advancing_write(self.m, *w, b)
                        && (contains(lp, *w) || self.advanced_by_call_in(lp, *w))
                })
            }
            "member_expression" => {
                let prop = n.field("property").map(|p| text(p, self.m.src()));
                if matches!(prop, Some("length" | "size")) {
                    if let Some(obj) = n.field("object") {
                        if self.is_drained(lp, unparen(obj)) {
                            return true;
                        }
                    }
                }
                self.member_advanced(lp, text(n, self.m.src()))
            }
            _ => false,
        }
    }

    /// Whether the write `w` sits on every path of a function (a closure
    /// such as `const transition = async (to) => { …; count++; }`) that
    /// the loop `lp` calls: each call then advances the counter.
    fn advanced_by_call_in(&self, lp: Node<'t>, w: Node<'t>) -> bool {
        let Some(f) = unconditional_in(self.m, w) else {
            return false;
        };
        self.m
            .call_sites_of(f)
            .iter()
            .any(|&c| contains(lp, self.m.calls[c].node))
    }

    /// Whether no pass through the loop's body starts another: the body
    /// ends in an exit (or in `if (<the loop's condition>) <exit>`), and
    /// every `continue` follows an assignment that falsifies the condition
    /// (`done = true; continue;` under `while (!done)`). Such a loop runs
    /// its body at most once.
    pub fn single_pass(&self, l: LoopId) -> bool {
        let lp = &self.m.loops[l];
        let Some(body) = lp.body else { return false };
        if !matches!(lp.kind, LoopKind::While | LoopKind::For) {
            return false;
        }
        let cond = lp.condition.map(unparen);
        let Some(last) = last_statement(self.m, body) else {
            return false;
        };
        let ends = self.always_exits(lp.node, body, last)
            || (last.kind_str() == "if_statement"
                && last.field("alternative").is_none()
                && cond.is_some_and(|c| {
                    last.field("condition")
                        .is_some_and(|lc| same_text(self.m, unparen(lc), c))
                })
                && last
                    .field("consequence")
                    .is_some_and(|cons| self.always_exits(lp.node, body, cons)));
        if !ends {
            return false;
        }
        let mut continues_ok = true;
        walk(self.m, body, |n| {
            if !continues_ok {
                return false;
            }
            if n.kind_str() == "continue_statement" {
                let ours = n.field("label").is_none() && !inside_loop(self.m, n, lp.node);
                if ours && !cond.is_some_and(|c| self.falsified_before(n, c)) {
                    continues_ok = false;
                }
                // A labelled `continue` may target this loop: not judged.
                if n.field("label").is_some() {
                    continues_ok = false;
                }
            }
            n.id() == body.id() || holds_statements(n)
        });
        continues_ok
    }

    /// Whether the statement `s` (in the loop `lp`'s body) ends every path
    /// with a `break`/`return`/`throw` that leaves the loop.
    fn always_exits(&self, lp: Node<'t>, body: Node<'t>, s: Node<'t>) -> bool {
        match s.kind_str() {
            "return_statement" | "throw_statement" => true,
            "break_statement" => self.exits(lp, body).iter().any(|e| e.id() == s.id()),
            "statement_block" => {
                last_statement(self.m, s).is_some_and(|l| self.always_exits(lp, body, l))
            }
            "if_statement" => {
                let alt = s
                    .field("alternative")
                    .and_then(|a| self.m.named_children(a).find(|c| c.kind_str() != "comment"));
                s.field("consequence")
                    .is_some_and(|c| self.always_exits(lp, body, c))
                    && alt.is_some_and(|a| self.always_exits(lp, body, a))
            }
            _ => false,
        }
    }

    /// Whether the statement before `cont` assigns a literal that makes a
    /// conjunct of `cond` false.
    fn falsified_before(&self, cont: Node<'t>, cond: Node<'t>) -> bool {
        let Some(prev) = cont.prev_named_sibling() else {
            return false;
        };
        if prev.kind_str() != "expression_statement" {
            return false;
        }
        let Some(assign) = prev
            .named_child(0)
            .filter(|a| a.kind_str() == "assignment_expression")
        else {
            return false;
        };
        let (Some(left), Some(right)) = (assign.field("left"), assign.field("right").map(unparen))
        else {
            return false;
        };
        conjuncts(self.m, cond).into_iter().any(|c| {
            let c = unparen(c);
            let negated = c.kind_str() == "unary_expression" && op(self.m, c) == "!";
            let target = if negated {
                c.field("argument").map(unparen)
            } else {
                Some(c)
            };
            target.is_some_and(|t| same_text(self.m, t, left))
                && right.kind_str() == if negated { "true" } else { "false" }
        })
    }

    /// `state.round++` / `state.round += 1` somewhere in the loop.
    fn member_advanced(&self, lp: Node<'t>, path: &str) -> bool {
        self.member_written_by(lp, path, |n| match n.kind_str() {
            "update_expression" => n.field("argument"),
            "augmented_assignment_expression" if matches!(op(self.m, n), "+=" | "-=") => {
                n.field("left")
            }
            _ => None,
        })
    }

    /// `queue.shift()` (or `pop`/`splice`) inside the loop.
    fn is_drained(&self, lp: Node<'t>, list: Node<'t>) -> bool {
        let Some(b) = self.m.binding_of_expr(list) else {
            return false;
        };
        self.m.scopes.get(b).reads.iter().any(|r| {
            contains(lp, *r)
                && method_call_on(self.m, *r).is_some_and(|m| DRAINING_METHODS.contains(&m))
        })
    }

    /// Whether the loop writes the operand at all.
    fn written_in(&self, lp: Node<'t>, n: Node<'t>) -> bool {
        match n.kind_str() {
            "update_expression" => true,
            "identifier" => self
                .m
                .binding_of_expr(n)
                .is_some_and(|b| self.m.scopes.get(b).writes.iter().any(|w| contains(lp, *w))),
            "member_expression" => {
                // Any write to the object or the path counts.
                let root = member_root(n);
                let root_written = root.is_some_and(|r| self.written_in(lp, r));
                root_written || self.member_assigned(lp, text(n, self.m.src()))
            }
            _ => false,
        }
    }

    fn member_assigned(&self, lp: Node<'t>, path: &str) -> bool {
        self.member_written_by(lp, path, |n| match n.kind_str() {
            "update_expression" => n.field("argument"),
            "assignment_expression" | "augmented_assignment_expression" => n.field("left"),
            _ => None,
        })
    }

    /// Whether some node in the loop writes `path`, where `target` gives the
    /// operand a node writes (if it writes one).
    fn member_written_by(
        &self,
        lp: Node<'t>,
        path: &str,
        target: impl Fn(Node<'t>) -> Option<Node<'t>>,
    ) -> bool {
        let src = self.m.src();
        let mut found = false;
        walk(self.m, lp, |n| {
            if found {
                return false;
            }
            if target(n).is_some_and(|t| text(unparen(t), src) == path) {
                found = true;
            }
            true
        });
        found
    }

    /// Self-calls of dispatching functions that no depth argument bounds.
    pub fn unbounded_recursion(&self) -> Vec<Recursion> {
        let mut out = Vec::new();
        for (ci, call) in self.m.calls.iter().enumerate() {
            let Some(f) = self.m.function_of_expr(call.callee) else {
                continue;
            };
            let fnode = self.m.functions[f].node;
            if !contains(fnode, call.node) || !self.function_dispatches(f) {
                continue;
            }
            if !self.depth_bounded(f, ci) {
                out.push(Recursion {
                    function: f,
                    call: ci,
                });
            }
        }
        out
    }

    /// A parameter compared against something in the function, and passed
    /// changed (`depth + 1`, `{ ...opts, attempt: attempt + 1 }`) to the
    /// self-call.
    fn depth_bounded(&self, f: FnId, call: CallId) -> bool {
        let args = &self.m.calls[call].args;
        self.m
            .scopes
            .bindings
            .iter()
            .enumerate()
            .filter_map(|(bi, b)| match b.param {
                Some((pf, i)) if pf == f => Some((bi, i)),
                _ => None,
            })
            .any(|(b, i)| {
                let compared = self
                    .m
                    .scopes
                    .get(b)
                    .reads
                    .iter()
                    .any(|r| in_comparison(self.m, *r));
                let changed = args.get(i).is_some_and(|a| {
                    let a = unparen(*a);
                    self.m.binding_of_expr(a) != Some(b) && mentions(self.m, a, b)
                });
                compared && changed
            })
    }

    /// Outer variables (declared outside the loop) that the loop
    /// accumulates into: `list.push(x)`, `ledger[k] = v`, `notes += s`,
    /// `history = [...history, x]`. Counters (`i++`, `n += 1`) are not
    /// accumulators.
    pub fn accumulators(&self, l: LoopId) -> Vec<BindingId> {
        let lp = self.m.loops[l].node;
        let mut out = Vec::new();
        for (bi, b) in self.m.scopes.bindings.iter().enumerate() {
            if contains(lp, b.node) {
                continue;
            }
            let appended = b.reads.iter().any(|r| {
                contains(lp, *r)
                    && (method_call_on(self.m, *r).is_some_and(|m| APPENDING_METHODS.contains(&m))
                        || is_member_assignment_target(self.m, *r))
            });
            let rebuilt = b
                .writes
                .iter()
                .any(|w| contains(lp, *w) && is_accumulating_write(self.m, *w, bi));
            if appended || rebuilt {
                out.push(bi);
            }
        }
        out
    }

    /// Bindings declared outside the loop that it writes (assignments,
    /// not in-place mutation).
    pub fn outer_writes(&self, l: LoopId) -> Vec<BindingId> {
        let lp = self.m.loops[l].node;
        let from = self.writes.partition_point(|(at, _)| *at < lp.start_byte());
        let to = self.writes.partition_point(|(at, _)| *at < lp.end_byte());
        let mut out: Vec<BindingId> = self.writes[from..to]
            .iter()
            .map(|(_, b)| *b)
            .filter(|b| !contains(lp, self.m.scopes.get(*b).node))
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }
}

enum CounterCheck<'t> {
    None,
    Advanced(Node<'t>),
    NotAdvanced(Node<'t>, Node<'t>),
}

/// Top-level `&&` operands: each must hold for the loop to go on, so any
/// one of them can bound it. `||` operands cannot.
pub fn conjuncts<'t>(m: &JsModel<'t>, cond: Node<'t>) -> Vec<Node<'t>> {
    let mut out = Vec::new();
    let mut stack = vec![unparen(cond)];
    while let Some(n) = stack.pop() {
        if n.kind_str() == "binary_expression" && op(m, n) == "&&" {
            for f in ["right", "left"] {
                if let Some(c) = n.field(f) {
                    stack.push(unparen(c));
                }
            }
        } else {
            out.push(n);
        }
    }
    out
}

/// Comparisons anywhere in an expression (nested functions excluded).
pub fn comparisons_in<'t>(m: &JsModel<'t>, expr: Node<'t>) -> Vec<Node<'t>> {
    let mut out = Vec::new();
    walk(m, expr, |n| {
        if is_function(n) {
            return false;
        }
        if n.kind_str() == "binary_expression" && COMPARISONS.contains(&op(m, n)) {
            out.push(n);
        }
        true
    });
    out
}

/// `true`, `1`, `!0`, `!false`.
fn is_always_true(m: &JsModel, n: Node) -> bool {
    let n = unparen(n);
    match n.kind_str() {
        "true" => true,
        "number" => text(n, m.src()).trim() != "0",
        "unary_expression" if op(m, n) == "!" => {
            n.field("argument").map(unparen).is_some_and(|a| {
                a.kind_str() == "false"
                    || (a.kind_str() == "number" && text(a, m.src()).trim() == "0")
            })
        }
        _ => false,
    }
}

/// `x++`, `x -= 1`, `x = x + 1`, `x = x - step`.
fn is_advancing_write(m: &JsModel, w: Node, b: BindingId) -> bool {
    let Some(p) = m.parent(w) else { return false };
    match p.kind_str() {
        "update_expression" => true,
        // `n += 1`, `n -= step`; not `notes += text`.
        "augmented_assignment_expression" => {
            matches!(op(m, p), "+=" | "-=")
                && p.field("right").map(unparen).is_some_and(|r| {
                    matches!(r.kind_str(), "number" | "identifier" | "member_expression")
                })
        }
        "assignment_expression" => p.field("right").map(unparen).is_some_and(|r| {
            r.kind_str() == "binary_expression"
                && matches!(op(m, r), "+" | "-")
                && ["left", "right"]
                    .iter()
                    .any(|f| r.field(f).is_some_and(|o| m.binding_of_expr(o) == Some(b)))
        }),
        _ => false,
    }
}

/// `notes += text` (not `n += 1`), `history = [...history, x]`,
/// `all = all.concat(batch)`.
fn is_accumulating_write(m: &JsModel, w: Node, b: BindingId) -> bool {
    let Some(p) = m.parent(w) else { return false };
    match p.kind_str() {
        "augmented_assignment_expression" => p
            .field("right")
            .map(unparen)
            .is_some_and(|r| r.kind_str() != "number"),
        "assignment_expression" => p.field("right").is_some_and(|r| rebuilds(m, unparen(r), b)),
        _ => false,
    }
}

/// Whether a value extends the old value of `b`: `[...b, x]`,
/// `{ ...b, k: v }`, `b.concat(x)`, `b + x`. Passing `b` to a task that
/// returns its replacement (`report = await ctx.task(fix, { report })`)
/// keeps only the latest value, so it does not count.
fn rebuilds(m: &JsModel, value: Node, b: BindingId) -> bool {
    let is_b = |n: Option<Node>| n.is_some_and(|n| m.binding_of_expr(n) == Some(b));
    match value.kind_str() {
        "array" | "object" => {
            let found = m
                .named_children(value)
                .any(|e| e.kind_str() == "spread_element" && is_b(e.named_child(0)));
            found
        }
        "call_expression" => value
            .field("function")
            .map(unparen)
            .is_some_and(|f| f.kind_str() == "member_expression" && is_b(f.field("object"))),
        "binary_expression" => {
            op(m, value) == "+" && (is_b(value.field("left")) || is_b(value.field("right")))
        }
        _ => false,
    }
}

/// The method name when `r` is the object of a method call (`r.push(…)`).
fn method_call_on<'t>(m: &JsModel<'t>, r: Node<'t>) -> Option<&'t str> {
    let member = m.parent(r)?;
    if member.kind_str() != "member_expression" || member.field("object") != Some(r) {
        return None;
    }
    let call = m.parent(member)?;
    if call.kind_str() != "call_expression" || call.field("function") != Some(member) {
        return None;
    }
    member.field("property").map(|p| text(p, m.src()))
}

/// `r[k] = v` / `r.k = v`.
fn is_member_assignment_target(m: &JsModel, r: Node) -> bool {
    let Some(member) = m.parent(r) else {
        return false;
    };
    if !matches!(
        member.kind_str(),
        "member_expression" | "subscript_expression"
    ) || member.field("object") != Some(r)
    {
        return false;
    }
    m.parent(member).is_some_and(|a| {
        matches!(
            a.kind_str(),
            "assignment_expression" | "augmented_assignment_expression"
        ) && a.field("left") == Some(member)
    })
}

/// Whether a read sits in a comparison (`depth < MAX`, `opts.depth >= 3`).
fn in_comparison(m: &JsModel, r: Node) -> bool {
    let mut n = r;
    while let Some(p) = m.parent(n) {
        match p.kind_str() {
            "member_expression" | "parenthesized_expression" if !is_function(p) => n = p,
            "binary_expression" => return COMPARISONS.contains(&op(m, p)),
            "unary_expression" => return op(m, p) == "!",
            _ => return false,
        }
    }
    false
}

/// Whether any identifier under `n` resolves to `b`.
pub fn mentions(m: &JsModel, n: Node, b: BindingId) -> bool {
    let mut found = false;
    walk(m, n, |c| {
        if found {
            return false;
        }
        if matches!(c.kind_str(), "identifier" | "shorthand_property_identifier")
            && m.scopes.binding_of(c) == Some(b)
        {
            found = true;
        }
        true
    });
    found
}

fn member_root(n: Node) -> Option<Node> {
    let mut n = unparen(n);
    while n.kind_str() == "member_expression" || n.kind_str() == "subscript_expression" {
        n = unparen(n.field("object")?);
    }
    (n.kind_str() == "identifier").then_some(n)
}

/// The function in whose body `n` runs on every path that reaches its
/// end: no branch, loop, `catch`, conditional or short-circuit lies
/// between them (an early `return`/`throw` before it leaves the function,
/// which the callers' loops then see as an exception or an exit).
fn unconditional_in(m: &JsModel, n: Node) -> Option<FnId> {
    let mut cur = n;
    while let Some(p) = m.parent(cur) {
        if is_function(p) {
            return m.function_of_node(p);
        }
        match p.kind_str() {
            "if_statement" | "switch_statement" | "catch_clause" | "ternary_expression" => {
                return None
            }
            "binary_expression" if matches!(op(m, p), "&&" | "||" | "??") => return None,
            k if is_loop(p) || k == "for_statement" => return None,
            _ => {}
        }
        cur = p;
    }
    None
}

/// The last statement of a block (comments skipped).
fn last_statement<'t>(m: &JsModel<'t>, block: Node<'t>) -> Option<Node<'t>> {
    if block.kind_str() != "statement_block" {
        return Some(block);
    }
    m.named_children(block)
        .filter(|c| c.kind_str() != "comment")
        .last()
}

fn same_text(m: &JsModel, a: Node, b: Node) -> bool {
    let norm = |n: Node| -> String { text(n, m.src()).split_whitespace().collect() };
    norm(a) == norm(b)
}

/// Whether `n` is inside a loop nested in `lp` (a `continue` there
/// continues that loop).
fn inside_loop(m: &JsModel, n: Node, lp: Node) -> bool {
    let mut cur = n;
    while let Some(p) = m.parent(cur) {
        if p.id() == lp.id() {
            return false;
        }
        if is_loop(p) || is_function(p) {
            return true;
        }
        cur = p;
    }
    false
}

/// Whether an unlabelled `break` at `n` leaves a loop or `switch` nested
/// inside `lp` rather than `lp` itself.
fn inside_breakable(m: &JsModel, n: Node, lp: Node) -> bool {
    let mut cur = n;
    while let Some(p) = m.parent(cur) {
        if p.id() == lp.id() {
            return false;
        }
        if is_loop(p) || p.kind_str() == "switch_statement" {
            return true;
        }
        cur = p;
    }
    false
}

/// Labels declared inside a node (a labelled `break` to one of them stays
/// inside).
fn labels_inside<'t>(m: &JsModel<'t>, node: Node<'t>) -> HashSet<&'t str> {
    let mut out = HashSet::new();
    walk(m, node, |n| {
        if n.kind_str() == "labeled_statement" {
            if let Some(l) = n.field("label") {
                out.insert(text(l, m.src()));
            }
        }
        true
    });
    out
}

fn op<'a>(m: &JsModel<'a>, node: Node) -> &'a str {
    node.field("operator")
        .map(|o| text(o, m.src()))
        .unwrap_or("")
}

/// Pre-order walk with an explicit stack; `visit` returns whether to
/// descend into the node's children. Bounded by [`MAX_WALK_NODES`].
pub fn walk<'t>(m: &JsModel<'t>, root: Node<'t>, mut visit: impl FnMut(Node<'t>) -> bool) {
    let mut stack = vec![root];
    let mut seen = 0;
    while let Some(n) = stack.pop() {
        seen += 1;
        if seen > MAX_WALK_NODES {
            return;
        }
        if !visit(n) {
            continue;
        }
        let children: Vec<Node<'t>> = m.named_children(n).collect();
        stack.extend(children.into_iter().rev());
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use crate::js::{parse, ModelOptions};
    use crate::source::SourceFile;

    fn with_model(src: &str, f: impl FnOnce(&LoopAnalysis)) {
        let file = SourceFile::new("t.js", src.to_string());
        let tree = parse::parse_tree(&file.text).unwrap();
        let m = JsModel::build(&file, &tree, &ModelOptions::default());
        let a = LoopAnalysis::new(&m);
        f(&a);
    }

    fn bound_kinds(src: &str) -> Vec<&'static str> {
        let mut out = Vec::new();
        with_model(src, |a| {
            for l in 0..a.model().loops.len() {
                out.push(match a.bound(l) {
                    Bound::Finite => "finite",
                    Bound::Counter { .. } => "counter",
                    Bound::GuardedExit { .. } => "guarded",
                    Bound::Unbounded(Unbounded::Always) => "always",
                    Bound::Unbounded(Unbounded::NotAdvanced { .. }) => "not-advanced",
                    Bound::Unbounded(Unbounded::ResultDependent { .. }) => "result",
                });
            }
        });
        out
    }

    #[test]
    fn loop_bounds() {
        let src = r#"
async function p(ctx, n, MAX, list) {
  for (let i = 0; i < n; i++) {}
  for (;;) {}
  while (true) {}
  let approved = false;
  while (!approved) { approved = (await ctx.task(t)).ok; }
  let attempts = 0;
  while (attempts < MAX) {}
  while (!approved && attempts < MAX) { attempts++; }
  while (true) { attempts += 1; if (attempts >= MAX) break; }
  while (true) { if (attempts >= MAX) throw new Error('x'); }
  do { } while (--attempts > 0);
  for (const x of list) {}
  let status = 'new';
  while (status !== 'done') { status = 'done'; }
  while (list.length > 0) { list.shift(); }
  const seen = new Set(list);
  while (seen.size > 0) { seen.delete(1); }
  while (true) { for (;;) { if (attempts++ > MAX) break; } }
  while (true) { attempts = attempts + 1; if (attempts > MAX) return; }
}"#;
        assert_eq!(
            bound_kinds(src),
            vec![
                "counter",
                "always",
                "always",
                "result",
                "not-advanced",
                "counter",
                "guarded",
                "not-advanced",
                "counter",
                "finite",
                "result",
                "counter",
                "counter",
                // The break leaves only the inner loop.
                "always",
                "guarded",
                "guarded",
            ]
        );
    }

    #[test]
    fn closures_that_advance_and_single_pass_bodies() {
        let src = r#"
async function p(ctx, MAX) {
  let n = 0;
  const step = () => { n++; };
  const maybe = () => { if (ctx.x) n++; };
  while (n < MAX) { step(); }
  let m = 0;
  const maybeM = () => { if (ctx.x) m++; };
  while (m < MAX) { maybeM(); }
  let done = false;
  while (!done) { if (ctx.a) { done = true; continue; } if (!done) break; }
  while (!done) { if (ctx.a) { continue; } if (!done) break; }
  while (true) { await ctx.task(t); break; }
  while (true) { if (ctx.a) { return 1; } else { throw new Error('x'); } }
  while (true) { if (ctx.a) { return 1; } }
}"#;
        assert_eq!(
            bound_kinds(src),
            vec![
                "counter",
                "not-advanced",
                "finite",
                "result",
                "finite",
                "finite",
                "always"
            ]
        );
    }

    #[test]
    fn dispatch_through_helpers() {
        let src = r#"
async function leaf(ctx) { await ctx.task(t, {}); }
async function mid(ctx) { await leaf(ctx); }
function pure() { return 1; }
export async function process(inputs, ctx) {
  while (true) { await mid(ctx); }
  while (true) { pure(); }
}"#;
        with_model(src, |a| {
            assert!(!a.dispatches_in(0).is_empty());
            assert!(a.dispatches_in(1).is_empty());
        });
    }

    #[test]
    fn recursion_with_and_without_depth() {
        let src = r#"
async function bad(ctx, x) { await ctx.task(t, x); return bad(ctx, x); }
async function good(ctx, x, depth) {
  if (depth >= 3) return null;
  await ctx.task(t, x);
  return good(ctx, x, depth + 1);
}"#;
        with_model(src, |a| {
            let r = a.unbounded_recursion();
            assert_eq!(r.len(), 1);
            assert_eq!(
                a.model().functions[r[0].function].name.as_deref(),
                Some("bad")
            );
        });
    }

    #[test]
    fn accumulators_exclude_counters() {
        let src = r#"
async function p(ctx) {
  const attempts = []; let notes = ''; let n = 0; let history = []; let last;
  for (let r = 0; r < 3; r++) {
    attempts.push(r); notes += 'x'; n += 1; history = [...history, r]; last = r;
  }
}"#;
        with_model(src, |a| {
            let names: Vec<&str> = a
                .accumulators(0)
                .iter()
                .map(|b| a.model().scopes.get(*b).name.as_str())
                .collect();
            assert_eq!(names, vec!["attempts", "notes", "history"]);
        });
    }
}
