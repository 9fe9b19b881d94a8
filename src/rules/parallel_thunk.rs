//! `parallel-thunk`: `ctx.parallel.all([...])` given started calls instead
//! of functions that start them.

use tree_sitter::Node;

use super::{Area, Category, JsContext, ReportMeta, Rule, RuleMeta, Sink, Sites};
use crate::diagnostic::{Edit, Fix, Severity};
use crate::js::scope::BindingKind;
use crate::js::syntax::{span, unparen, NodeExt};
use crate::js::tasks::{value_of, Value};
use crate::js::{EffectKind, JsModel};
use crate::source::Span;

pub struct ParallelThunk;

static META: RuleMeta = RuleMeta {
    id: "parallel-thunk",
    summary: "ctx.parallel.all is given started calls instead of thunks.",
    severity: Severity::Warning,
    area: Area::RuntimeCorrectness,
    category: Category::Suspicious,
    doc: include_str!("../../rules/parallel-thunk.md"),
    builtin: false,
    options: &[],
};

impl Rule for ParallelThunk {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn report(&self) -> ReportMeta {
        ReportMeta {
            sites: Sites::ParallelSites,
            praise: "Parallel batches are given thunks",
            sdk_hint: "`ctx.parallel.all` silently accepts started promises. Rejecting non-function elements (or warning once) would surface the mistake instead of losing batching.",
        }
    }

    fn check_js(&self, cx: &JsContext, sink: &mut Sink) {
        let m = cx.model;
        for e in m.effects_of(EffectKind::ParallelAll) {
            let call = &m.calls[e.call];
            let Some(&arg) = call.args.first() else {
                continue;
            };
            let batch = m.text(call.callee);
            if let Some(array) = array_of(m, arg) {
                let elements: Vec<Node> = m.named_children(array).collect();
                for el in elements {
                    if let Some(started) = started_call(m, el) {
                        push_finding(m, sink, batch, el, started, Member::Element);
                    }
                }
                continue;
            }
            // `ctx.parallel.all(items.map(item => ctx.task(…)))`: the
            // callback starts each call instead of returning a thunk.
            if let Some(body) = map_callback_result(m, arg) {
                if let Some(started) = started_call(m, body) {
                    push_finding(m, sink, batch, body, started, Member::MapResult);
                }
            }
        }
    }
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
    Call(Node<'t>),
    Awaited { call: Node<'t> },
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
        for child in m.named_children(n) {
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
    batch: &str,
    el: Node,
    started: Started,
    what: Member,
) {
    let (call, fix) = match started {
        Started::Call(call) => (
            call,
            Fix {
                description: "wrap it in `() => ` so the batch starts it".into(),
                edits: vec![Edit {
                    span: Span::new(el.start_byte(), el.start_byte()),
                    replacement: "() => ".into(),
                }],
                safe: true,
            },
        ),
        Started::Awaited { call } => (
            call,
            Fix {
                description: "replace `await` with `() => ` so the batch starts it".into(),
                edits: vec![Edit {
                    span: Span::new(el.start_byte(), call.start_byte()),
                    replacement: "() => ".into(),
                }],
                // The awaited value may have been meant as a sequential
                // step; dropping the `await` changes when it runs.
                safe: false,
            },
        ),
    };
    let started_text = match call.field("function") {
        Some(f) => format!("`{}(…)`", m.text(f)),
        None => match call.field("constructor") {
            Some(c) => format!("`new {}(…)`", m.text(c)),
            None => "`new …`".to_string(),
        },
    };
    let awaited = matches!(started, Started::Awaited { .. });
    let message = match (what, awaited) {
        (_, true) => format!(
            "this element of the `{batch}` batch awaits {started_text} while the array is built: \
             the calls run one after another before the batch exists, so nothing is batched"
        ),
        (Member::Element, false) => format!(
            "this element of the `{batch}` batch calls {started_text} instead of passing a function: \
             its effect starts before the batch is assembled, so batching and ordering are lost"
        ),
        (Member::MapResult, false) => format!(
            "the `map` callback building the `{batch}` batch returns the started call {started_text} \
             instead of a function: each effect starts before the batch is assembled, so batching \
             and ordering are lost"
        ),
    };
    let shown = m.text(call);
    let shown = if shown.len() > 40 || shown.contains('\n') {
        format!("{}(…)", call.field("function").map_or("…", |f| m.text(f)))
    } else {
        shown.to_string()
    };
    sink.push(
        sink.diag(span(el), message)
            .with_help(format!("pass a thunk: `() => {shown}`"))
            .with_fix(fix),
    );
}

#[cfg(test)]
mod tests {
    use crate::config::Config;
    use crate::diagnostic::Diagnostic;
    use crate::discover::FileKind;
    use crate::engine::lint_text;

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
    fn wraps_call_elements() {
        let src = "export async function process(inputs, ctx) {\n  await ctx.parallel.all([() => ctx.task(a, {}), ctx.task(b, {}), run(ctx)]);\n}\nasync function run(ctx) { return ctx.task(c, {}); }\n";
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
            twice.contains("[() => ctx.task(a, {}), () => ctx.task(b, {}), () => run(ctx)]"),
            "{twice}"
        );
        assert!(lint(&twice).is_empty());
    }

    #[test]
    fn awaited_elements_get_an_unsafe_fix() {
        let src = "async function p(ctx) { await ctx.parallel.all([await ctx.task(a), x]); }\n";
        let ds = lint(src);
        assert_eq!(ds.len(), 1);
        assert!(ds[0].fix.as_ref().is_some_and(|f| !f.safe));
        assert_eq!(
            apply(src, &ds[0]),
            "async function p(ctx) { await ctx.parallel.all([() => ctx.task(a), x]); }\n"
        );
    }

    #[test]
    fn map_callbacks() {
        let src = "async function p(ctx, items) {\n  await ctx.parallel.all(items.map((item) => ctx.task(t, { item })));\n  await ctx.parallel.all(items.map((item) => () => ctx.task(t, { item })));\n}\n";
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
