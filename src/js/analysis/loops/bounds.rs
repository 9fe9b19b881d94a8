//! What bounds a loop: counters it advances and compares, exits guarded
//! by them, work lists it drains, bodies that run once.

use crate::js::model::{LoopId, LoopKind};
use crate::js::syntax::tree::Node;
use crate::js::syntax::{contains, holds_statements, text, unparen};

use super::shapes::*;
use super::{Bound, LoopAnalysis, Unbounded, COMPARISONS, DRAINING_METHODS};

impl<'t> LoopAnalysis<'_, 't> {
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
        walk(body, |n| {
            match n.kind_str() {
                "return_statement" | "throw_statement" => out.push(n),
                "break_statement" => {
                    let leaves = match n.field("label") {
                        Some(label) => !inner_labels
                            .get_or_insert_with(|| labels_inside(self.m, body))
                            .contains(text(label, self.m.src())),
                        None => !inside_breakable(n, lp),
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
        while let Some(p) = n.parent() {
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
                    crate::js::model::scope::BindingKind::Let
                        | crate::js::model::scope::BindingKind::Var
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
        let Some(last) = last_statement(body) else {
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
        walk(body, |n| {
            if !continues_ok {
                return false;
            }
            if n.kind_str() == "continue_statement" {
                let ours = n.field("label").is_none() && !inside_loop(n, lp.node);
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
            "statement_block" => last_statement(s).is_some_and(|l| self.always_exits(lp, body, l)),
            "if_statement" => {
                let alt = s
                    .field("alternative")
                    .and_then(|a| a.named().find(|c| c.kind_str() != "comment"));
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
        walk(lp, |n| {
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
}

enum CounterCheck<'t> {
    None,
    Advanced(Node<'t>),
    NotAdvanced(Node<'t>, Node<'t>),
}
