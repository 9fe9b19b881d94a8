//! `parallel-thunk`: `ctx.parallel.all([...])` elements that are neither
//! functions nor promises (awaited results, literals), on which the batch
//! throws; started calls only where a concurrency limit cannot apply.

use crate::js::syntax::tree::Node;

use super::{Area, Category, JsContext, ReportMeta, Rule, RuleMeta, Sink, Sites};
use crate::diagnostic::{Edit, Fix, Severity};
use crate::js::analysis::tasks::{value_of, Value};
use crate::js::model::scope::BindingKind;
use crate::js::syntax::{is_function, span, unparen};
use crate::js::{EffectKind, JsModel};
use crate::source::Span;

pub struct ParallelThunk;

static META: RuleMeta = RuleMeta {
    id: "parallel-thunk",
    summary: "A ctx.parallel.all element is an awaited result or a plain value, on which the batch throws a TypeError.",
    severity: Severity::Warning,
    area: Area::RuntimeCorrectness,
    category: Category::Suspicious,
    doc: include_str!("../../rules/parallel-thunk.md"),
    builtin: false,
    options: &[],
    fix: crate::rules::FixAvailability::Sometimes,
};

impl Rule for ParallelThunk {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn report(&self) -> ReportMeta {
        ReportMeta {
            sites: Sites::ParallelSites,
            praise: "Parallel batches are given thunks",
            sdk_hint: "`ctx.parallel.all([await ctx.task(…)])` requests its effects one per iteration and only then throws a TypeError on the plain results: naming the element in the error from the first iteration on would surface the mistake before every effect has run.",
        }
    }

    fn check_js(&self, cx: &JsContext, sink: &mut Sink) {
        let m = cx.model;
        for e in m.effects_of(EffectKind::ParallelAll) {
            let call = &m.calls[e.call];
            let Some(&arg) = call.args.first() else {
                continue;
            };
            let batch = Batch {
                text: m.text(call.callee),
                limited: has_max_concurrency(m, call.args.get(1).copied()),
            };
            if let Some(array) = array_of(m, arg) {
                let elements: Vec<Node> = array.named().collect();
                for el in elements {
                    if let Some(started) = started_call(m, el) {
                        push_finding(m, sink, &batch, el, started, Member::Element);
                    }
                }
                continue;
            }
            // `ctx.parallel.all(items.map(item => ctx.task(…)))`: the
            // callback starts each call instead of returning a thunk.
            if let Some(body) = map_callback_result(m, arg) {
                if let Some(started) = started_call(m, body) {
                    push_finding(m, sink, &batch, body, started, Member::MapResult);
                }
            }
        }
    }
}

/// The batch call, for messages.
struct Batch<'a> {
    /// `ctx.parallel.all`, as written.
    text: &'a str,
    /// Its options set `maxConcurrency`.
    limited: bool,
}

/// Whether the options argument sets `maxConcurrency` (or cannot be read).
fn has_max_concurrency(m: &JsModel, options: Option<Node>) -> bool {
    let Some(o) = options.map(unparen) else {
        return false;
    };
    if o.kind_str() != "object" {
        return true;
    }
    o.named().any(|p| match p.kind_str() {
        "pair" => p
            .field("key")
            .is_some_and(|k| m.text(k) == "maxConcurrency"),
        "shorthand_property_identifier" => m.text(p) == "maxConcurrency",
        "spread_element" => true,
        _ => false,
    })
}

/// The array literal an argument is, directly or through a `const`.
fn array_of<'t>(m: &JsModel<'t>, arg: Node<'t>) -> Option<Node<'t>> {
    let arg = unparen(arg);
    match arg.kind_str() {
        "array" => Some(arg),
        "identifier" => {
            let b = m.scopes.get(m.scopes.binding_of(arg)?);
            if b.kind != BindingKind::Const {
                return None;
            }
            let init = unparen(b.init?);
            (init.kind_str() == "array").then_some(init)
        }
        _ => None,
    }
}

/// For `xs.map(cb)`: what `cb` returns, when it is an arrow with an
/// expression body.
fn map_callback_result<'t>(m: &JsModel<'t>, arg: Node<'t>) -> Option<Node<'t>> {
    let arg = unparen(arg);
    if arg.kind_str() != "call_expression" {
        return None;
    }
    let callee = unparen(arg.field("function")?);
    if callee.kind_str() != "member_expression" || m.text(callee.field("property")?) != "map" {
        return None;
    }
    let cb = unparen(arg.field("arguments")?.named_child(0)?);
    if cb.kind_str() != "arrow_function" {
        return None;
    }
    let body = cb.field("body")?;
    (body.kind_str() != "statement_block").then_some(body)
}

/// Where the started call sits.
#[derive(Clone, Copy)]
enum Member {
    /// An element of the array literal.
    Element,
    /// The result of the `items.map(…)` callback.
    MapResult,
}

/// What a batch member starts instead of deferring: a call, an awaited
/// call, or a `new Promise(…)`.
#[derive(Clone, Copy)]
enum Started<'t> {
    /// A started call: a promise (or a value, for a synchronous call).
    Call(Node<'t>),
    /// An awaited call: its resolved value.
    Awaited { call: Node<'t> },
    /// A literal: neither a function nor a promise.
    Plain(&'static str),
}

fn started_call<'t>(m: &JsModel<'t>, el: Node<'t>) -> Option<Started<'t>> {
    let node = unparen(el);
    match node.kind_str() {
        "call_expression" => {
            // `makeThunk(a)` returning `() => …` is a thunk after all.
            let callee = node.field("function")?;
            if let Value::Function(f) = value_of(m, callee) {
                if returns_functions(m, f) {
                    return None;
                }
            }
            Some(Started::Call(node))
        }
        "new_expression" => Some(Started::Call(node)),
        "await_expression" => {
            let inner = unparen(node.named_child(0)?);
            matches!(inner.kind_str(), "call_expression" | "new_expression")
                .then_some(Started::Awaited { call: inner })
        }
        "object" => Some(Started::Plain("an object")),
        "array" => Some(Started::Plain("an array")),
        "string" | "template_string" => Some(Started::Plain("a string")),
        "number" => Some(Started::Plain("a number")),
        "true" | "false" => Some(Started::Plain("a boolean")),
        "null" => Some(Started::Plain("`null`")),
        "undefined" => Some(Started::Plain("`undefined`")),
        _ => None,
    }
}

/// Whether every value a same-module function returns is a function.
fn returns_functions(m: &JsModel, f: usize) -> bool {
    let Some(body) = m.functions[f].node.field("body") else {
        return false;
    };
    if body.kind_str() != "statement_block" {
        return m.function_of_node(unparen(body)).is_some();
    }
    // Block bodies: look at the `return` statements.
    let mut stack = vec![body];
    let mut saw = false;
    while let Some(n) = stack.pop() {
        if n.kind_str() == "return_statement" {
            match n.named_child(0) {
                Some(v) if m.function_of_node(unparen(v)).is_some() => saw = true,
                _ => return false,
            }
            continue;
        }
        for child in n.named() {
            if !crate::js::syntax::is_function(child) {
                stack.push(child);
            }
        }
    }
    saw
}

fn push_finding(
    m: &JsModel,
    sink: &mut Sink,
    batch: &Batch,
    el: Node,
    started: Started,
    what: Member,
) {
    let b = batch.text;
    let where_ = match what {
        Member::Element => format!("this element of the `{b}` batch"),
        Member::MapResult => format!("the `map` callback building the `{b}` batch"),
    };
    let call = match started {
        Started::Plain(kind) => {
            // `runParallelAll` throws on anything that is neither a function
            // nor a thenable.
            sink.push(
                sink.diag_at(
                    Severity::Error,
                    span(el),
                    format!(
                        "{where_} {} {kind}, neither a function nor a promise: `{b}` throws a TypeError on it, and the run stops with a process error",
                        match what {
                            Member::Element => "is",
                            Member::MapResult => "returns",
                        }
                    ),
                )
                .with_help("pass a function that returns the value: `() => …`"),
            );
            return;
        }
        Started::Call(call) | Started::Awaited { call } => call,
    };
    let started_text = match call.field("function") {
        Some(f) => format!("`{}(…)`", m.text(f)),
        None => match call.field("constructor") {
            Some(c) => format!("`new {}(…)`", m.text(c)),
            None => "`new …`".to_string(),
        },
    };
    let shown = m.text(call);
    let shown = if shown.len() > 40 || shown.contains('\n') {
        format!("{}(…)", call.field("function").map_or("…", |f| m.text(f)))
    } else {
        shown.to_string()
    };
    let d = match started {
        Started::Awaited { call } => {
            // An effect resolves to its result (a plain value); another call
            // may resolve to anything, a function or a promise included.
            let effect = m
                .call_of_node(call)
                .and_then(|ci| m.effect_of_call(ci))
                .is_some_and(|e| e.kind.dispatches());
            let (severity, tail) = if effect {
                (
                    Severity::Error,
                    "the effects are requested one per iteration, before the batch exists, and once they have resolved the elements are plain values, on which the batch throws a TypeError: the run stops with a process error",
                )
            } else {
                (
                    Severity::Warning,
                    "it runs before the batch exists, and unless the awaited value is a function or a promise the batch throws a TypeError on it",
                )
            };
            sink.diag_at(
                severity,
                span(el),
                format!("{where_} awaits {started_text} while the array is built: {tail}"),
            )
            .with_fix(Fix {
                description: format!(
                    "replace `await` with `{}` so the batch starts it",
                    thunk(call)
                ),
                edits: vec![Edit {
                    span: Span::new(el.start_byte(), call.start_byte()),
                    replacement: thunk(call).into(),
                }],
                // The awaited value may have been meant as a sequential
                // step; dropping the `await` changes when it runs.
                safe: false,
            })
        }
        _ => {
            // The SDK wraps a started promise as `() => promise` and still
            // collects its pending effect; only a concurrency limit cannot
            // apply to what is already running.
            if !batch.limited {
                return;
            }
            sink.diag_at(
                Severity::Info,
                span(el),
                format!(
                    "{where_} {} {started_text} instead of a function: the SDK wraps the started promise and still collects its effect, but it is already running, so `maxConcurrency` does not limit it",
                    match what {
                        Member::Element => "starts",
                        Member::MapResult => "returns the started call",
                    }
                ),
            )
            .with_fix(Fix {
                description: format!("wrap it in `{}` so the batch starts it", thunk(el)),
                edits: vec![Edit {
                    span: Span::new(el.start_byte(), el.start_byte()),
                    replacement: thunk(el).into(),
                }],
                // An `await` inside moves into the thunk: it then runs when
                // the batch starts the element, not while the array is built.
                safe: !awaits(el),
            })
        }
    };
    sink.push(d.with_help(format!("pass a thunk: `() => {shown}`")));
}

/// The thunk that defers `expr`: `async` when it awaits (an `await` in a
/// plain arrow function is a syntax error).
fn thunk(expr: Node) -> &'static str {
    if awaits(expr) {
        "async () => "
    } else {
        "() => "
    }
}

/// Whether `expr` awaits outside the functions nested in it.
fn awaits(expr: Node) -> bool {
    let mut stack = vec![expr];
    while let Some(n) = stack.pop() {
        if n.kind_str() == "await_expression" {
            return true;
        }
        if n == expr || !is_function(n) {
            stack.extend(n.named());
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use crate::diagnostic::Diagnostic;
    use crate::engine::discover::FileKind;
    use crate::engine::lint_text;
    use crate::project::config::Config;

    /// Applies a fix's edits (non-overlapping) to `text`, last first.
    fn apply(text: &str, d: &Diagnostic) -> String {
        let mut out = text.to_string();
        let fix = d.fix.as_ref().unwrap_or_else(|| panic!("no fix on {d:?}"));
        let mut edits = fix.edits.clone();
        edits.sort_by_key(|e| std::cmp::Reverse(e.span.start));
        for e in edits {
            out.replace_range(e.span.start..e.span.end, &e.replacement);
        }
        out
    }

    fn lint(src: &str) -> Vec<Diagnostic> {
        let mut config = Config::default();
        config.select = Some(vec!["parallel-thunk".into()]);
        lint_text("p.js", FileKind::Process, src.to_string(), &config)
            .into_iter()
            .filter(|d| d.rule == "parallel-thunk")
            .collect()
    }

    #[test]
    fn bare_promises_are_wrapped_by_the_sdk() {
        let src = "export async function process(inputs, ctx) {\n  await ctx.parallel.all([ctx.task(b, {}), run(ctx)]);\n  await ctx.parallel.all(inputs.items.map((i) => ctx.task(b, { i })));\n}\nasync function run(ctx) { return ctx.task(c, {}); }\n";
        assert!(lint(src).is_empty());
    }

    #[test]
    fn plain_values_throw() {
        let src = "async function p(ctx) { await ctx.parallel.all([{ a: 1 }, 'x', () => ctx.task(a)]); }\n";
        let ds = lint(src);
        assert_eq!(ds.len(), 2, "{ds:#?}");
        assert!(ds
            .iter()
            .all(|d| d.severity == crate::diagnostic::Severity::Error));
    }

    #[test]
    fn wraps_call_elements_under_a_concurrency_limit() {
        let src = "export async function process(inputs, ctx) {\n  await ctx.parallel.all([() => ctx.task(a, {}), ctx.task(b, {}), run(ctx)], { maxConcurrency: 2 });\n}\nasync function run(ctx) { return ctx.task(c, {}); }\n";
        let ds = lint(src);
        assert_eq!(ds.len(), 2, "{ds:#?}");
        assert!(ds.iter().all(|d| d.fix.as_ref().is_some_and(|f| f.safe)));
        let once = apply(src, &ds[0]);
        assert!(
            once.contains("[() => ctx.task(a, {}), () => ctx.task(b, {}), run(ctx)]"),
            "{once}"
        );
        let twice = apply(&once, &{
            // Re-lint: spans moved.
            let again = lint(&once);
            assert_eq!(again.len(), 1);
            again.into_iter().next().unwrap_or_else(|| panic!("none"))
        });
        assert!(
            twice.contains("[() => ctx.task(a, {}), () => ctx.task(b, {}), () => run(ctx)], {"),
            "{twice}"
        );
        assert!(lint(&twice).is_empty());
    }

    #[test]
    fn awaited_elements_get_an_unsafe_fix() {
        let src = "async function p(ctx) { await ctx.parallel.all([await ctx.task(a), x]); }\n";
        let ds = lint(src);
        assert_eq!(ds.len(), 1);
        assert_eq!(ds[0].severity, crate::diagnostic::Severity::Error);
        assert!(ds[0].fix.as_ref().is_some_and(|f| !f.safe));
        assert_eq!(
            apply(src, &ds[0]),
            "async function p(ctx) { await ctx.parallel.all([() => ctx.task(a), x]); }\n"
        );
    }

    #[test]
    fn map_callbacks() {
        let src = "async function p(ctx, items) {\n  await ctx.parallel.all(items.map((item) => ctx.task(t, { item })), { maxConcurrency: 4 });\n  await ctx.parallel.all(items.map((item) => () => ctx.task(t, { item })), { maxConcurrency: 4 });\n}\n";
        let ds = lint(src);
        assert_eq!(ds.len(), 1, "{ds:#?}");
        assert!(apply(src, &ds[0]).contains("items.map((item) => () => ctx.task(t, { item }))"));
    }

    #[test]
    fn thunk_factories_are_fine() {
        let src = "const thunk = (t) => () => ctx.task(t);\nfunction make(t) { return () => ctx.task(t); }\nasync function p(ctx) { await ctx.parallel.all([thunk(a), make(b), f]); }\n";
        assert!(lint(src).is_empty());
    }
}
