//! Loop and recursion queries shared by the convergence rules: which loops
//! dispatch effects (directly or through same-module helpers), what bounds
//! their iteration count, and which outer variables they accumulate into.
//!
//! Everything here is syntactic and flow-insensitive on purpose: a rule
//! asks "is there a counter this loop advances and compares", not "does it
//! terminate", so the answers stay explainable in a diagnostic.

use crate::js::syntax::ids::IdSet;

use crate::js::syntax::tree::Node;

use crate::js::model::scope::{BindingId, FnId};
use crate::js::model::{CallId, JsModel, LoopId};
use crate::js::syntax::{contains, unparen};

mod bounds;
mod shapes;

pub use shapes::{comparisons_in, conjuncts, member_root, mentions, never_iterates, walk};
use shapes::{in_comparison, is_accumulating_write, is_member_assignment_target, method_call_on};

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
                        || is_member_assignment_target(*r))
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

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used)]
mod tests {
    use super::*;
    use crate::js::syntax::parse;
    use crate::js::ModelOptions;
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
