//! `promise-combinator-effect`: `Promise.all` / `allSettled` / `race` /
//! `any` over promises that dispatch effects. The SDK's batching lives in
//! `ctx.parallel.*`; a bare combinator hands the orchestrator one effect at
//! most, the first pending signal (babysitter #879).

use crate::js::syntax::tree::Node;

use super::{Area, Category, JsContext, ReportMeta, Rule, RuleMeta, Sink, Sites};
use crate::diagnostic::{Edit, Fix, Severity};
use crate::js::analysis::effects::Reach;
use crate::js::syntax::{span, unparen};
use crate::js::JsModel;

pub struct PromiseCombinatorEffect;

static META: RuleMeta = RuleMeta {
    id: "promise-combinator-effect",
    summary: "`Promise.all`/`allSettled`/`race`/`any` over effects instead of `ctx.parallel`.",
    severity: Severity::Error,
    area: Area::RuntimeCorrectness,
    category: Category::Correctness,
    doc: include_str!("../../rules/promise-combinator-effect.md"),
    builtin: false,
    options: &[],
    fix: crate::rules::FixAvailability::Sometimes,
};

const COMBINATORS: &[&str] = &["all", "allSettled", "race", "any"];

/// Where the effects in the combinator's argument come from.
enum Source<'t> {
    /// `[ctx.task(a), ctx.task(b)]`: the elements that dispatch.
    Literal(Node<'t>),
    /// `items.map(cb)`: the receiver and the callback.
    Map {
        receiver: Node<'t>,
        callback: Node<'t>,
    },
    /// An array variable filled with `.push(…)` or built by `.map(…)`.
    Variable(Node<'t>),
    Other,
}

impl Rule for PromiseCombinatorEffect {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn report(&self) -> ReportMeta {
        ReportMeta {
            sites: Sites::ProcessModules,
            praise: "Effects are batched with `ctx.parallel`, never with a bare `Promise` combinator",
            sdk_hint: "A process can hand effect promises to `Promise.all` without any error at dispatch time. Detecting concurrent, unbatched effect requests in the runtime (and failing with a pointer to `ctx.parallel.all`) would turn a silently lost batch into a clear error.",
        }
    }

    fn check_js(&self, cx: &JsContext, sink: &mut Sink) {
        let m = cx.model;
        if m.effects.is_empty() {
            return;
        }
        let reach = Reach::new(m);
        for call in &m.calls {
            let callee = m.text(call.callee);
            let Some(method) = callee.strip_prefix("Promise.") else {
                continue;
            };
            if !COMBINATORS.contains(&method) {
                continue;
            }
            let Some(&arg) = call.args.first() else {
                continue;
            };
            let arg = unparen(arg);
            let source = source_of(m, &reach, arg);
            let dispatching = match &source {
                Source::Literal(array) => array
                    .named()
                    .filter(|e| e.kind_str() != "await_expression" && !is_function(*e))
                    .find_map(|e| reach.in_node(e).map(|_| e)),
                Source::Map { callback, .. } => reach.in_node(*callback).map(|_| *callback),
                Source::Variable(site) => Some(*site),
                Source::Other => None,
            };
            let Some(at) = dispatching else {
                continue;
            };
            let what = effect_name(m, &reach, at);
            let mut d = sink
                .diag(
                    span(call.callee),
                    format!(
                        "`{callee}` over {what}: {}. Only `ctx.parallel` batches effects",
                        consequence(method)
                    ),
                )
                .with_help(help(method))
                .with_related(sink.location(span(at)), "dispatches an effect");
            if method == "all" {
                if let Some(fix) = rewrite(m, call.callee, &source, &reach) {
                    d = d.with_fix(fix);
                }
            }
            sink.push(d);
        }
    }
}

/// What the SDK does with the effects' pending signals. Each `ctx.task` /
/// `ctx.breakpoint` without a result rejects with its own signal
/// (`EffectRequestedError`, intrinsics/task.ts), and the iteration waits on
/// exactly the signal that ends the process function (`asWaitingResult` in
/// orchestrateIteration's catch): one effect, or a `ctx.parallel` batch.
fn consequence(method: &str) -> &'static str {
    match method {
        // The siblings' requests are still being written when the first
        // signal ends the iteration (babysitter #879).
        "all" | "race" => {
            "each effect without a result rejects on its own and the first rejection ends the \
             iteration, so the orchestrator is handed that one effect instead of the batch; the \
             others race the iteration's end and may write their requests to the journal after \
             the iteration has returned (babysitter #879)"
        }
        "allSettled" => {
            "each effect without a result settles as `rejected` with the SDK's pending signal \
             instead of ending the iteration, so the code after it runs without their results"
        }
        // `asWaitingResult` knows the SDK's own signals, not the
        // `AggregateError` that wraps them.
        _ => {
            "each effect without a result rejects with the SDK's pending signal, and when all \
             have, `Promise.any` rejects with an `AggregateError` the SDK does not take for one: \
             the iteration ends as a process error instead of waiting for the effects"
        }
    }
}

fn help(method: &str) -> String {
    match method {
        "all" => "dispatch them with `ctx.parallel.all([() => ctx.task(…), …])` (thunks) or \
                  `ctx.parallel.map(items, (item) => ctx.task(…))`"
            .to_string(),
        "allSettled" => "use `ctx.parallel.all` with thunks that catch their own errors \
                         (`() => ctx.task(…).catch((error) => ({ error }))`) to get every outcome"
            .to_string(),
        _ => format!(
            "the SDK has no `{method}` over effects: dispatch them with `ctx.parallel.all` and \
             decide on the results, or dispatch them one after the other"
        ),
    }
}

fn is_function(node: Node) -> bool {
    matches!(
        node.kind_str(),
        "arrow_function" | "function_expression" | "function"
    )
}

fn source_of<'t>(m: &JsModel<'t>, reach: &Reach, arg: Node<'t>) -> Source<'t> {
    match arg.kind_str() {
        "array" => Source::Literal(arg),
        "call_expression" => match map_call(m, arg) {
            Some((receiver, callback)) => Source::Map { receiver, callback },
            None => Source::Other,
        },
        "identifier" => array_variable(m, reach, arg).map_or(Source::Other, Source::Variable),
        _ => Source::Other,
    }
}

/// `receiver.map(callback)`.
fn map_call<'t>(m: &JsModel<'t>, call: Node<'t>) -> Option<(Node<'t>, Node<'t>)> {
    let f = call.field("function")?;
    if f.kind_str() != "member_expression" {
        return None;
    }
    let prop = f.field("property")?;
    if !matches!(m.text(prop), "map" | "flatMap") {
        return None;
    }
    let receiver = f.field("object")?;
    let callback = call.field("arguments")?.named_child(0)?;
    Some((receiver, callback))
}

/// For an array variable: where an effect is put into it (`pending.push(
/// ctx.task(…))`, or its initializer `items.map((i) => ctx.task(…))`).
fn array_variable<'t>(m: &JsModel<'t>, reach: &Reach, ident: Node<'t>) -> Option<Node<'t>> {
    let b = m.scopes.binding_of(ident)?;
    let binding = m.scopes.get(b);
    if let Some(init) = binding.init.map(unparen) {
        match init.kind_str() {
            "call_expression" => {
                if let Some((_, cb)) = map_call(m, init) {
                    if reach.in_node(cb).is_some() {
                        return Some(cb);
                    }
                }
            }
            "array" => {
                if let Some(e) = init
                    .named()
                    .filter(|e| e.kind_str() != "await_expression" && !is_function(*e))
                    .find(|e| reach.in_node(*e).is_some())
                {
                    return Some(e);
                }
            }
            _ => {}
        }
    }
    for read in &binding.reads {
        // `pending.push(ctx.task(…))`
        let Some(member) = read
            .parent()
            .filter(|p| p.kind_str() == "member_expression")
        else {
            continue;
        };
        if member.field("property").map(|p| m.text(p)) != Some("push") {
            continue;
        }
        let Some(call) = member
            .parent()
            .filter(|p| p.kind_str() == "call_expression")
        else {
            continue;
        };
        let Some(args) = call.field("arguments") else {
            continue;
        };
        if let Some(e) = args
            .named()
            .filter(|e| e.kind_str() != "await_expression" && !is_function(*e))
            .find(|e| reach.in_node(*e).is_some())
        {
            return Some(e);
        }
    }
    None
}

/// "`ctx.task` calls", "`ctx.breakpoint` calls", or "calls that dispatch
/// effects" for a helper.
fn effect_name(m: &JsModel, reach: &Reach, at: Node) -> String {
    let probe = if is_function(at) {
        at.field("body").map_or(at, unparen)
    } else {
        unparen(at)
    };
    let direct = m
        .call_of_node(probe)
        .and_then(|c| m.effect_of_call(c))
        .map(|e| e.method.clone());
    match direct {
        Some(method) => format!("`ctx.{method}` calls"),
        None => match reach.in_node(at) {
            Some(_) => "calls that dispatch effects".to_string(),
            None => "effects".to_string(),
        },
    }
}

/// `Promise.all([ctx.task(a), ctx.task(b)])` →
/// `ctx.parallel.all([() => ctx.task(a), () => ctx.task(b)])`, and
/// `Promise.all(xs.map(cb))` → `ctx.parallel.map(xs, cb)`, when every element
/// is a direct effect call on the same context. Not applied by `--fix`:
/// error handling differs in edge cases, so it is offered, not forced.
fn rewrite(m: &JsModel, callee: Node, source: &Source, reach: &Reach) -> Option<Fix> {
    match source {
        Source::Literal(array) => {
            let elements: Vec<Node> = array.named().collect();
            let mut ctx_name: Option<&str> = None;
            let mut edits = Vec::new();
            for e in &elements {
                let c = m.call_of_node(*e)?;
                let effect = m.effect_of_call(c)?;
                if !effect.kind.dispatches() {
                    return None;
                }
                let root = m.text(m.calls[c].callee).split('.').next()?;
                if ctx_name.is_some_and(|n| n != root) {
                    return None;
                }
                ctx_name = Some(root);
                let s = span(*e);
                edits.push(Edit {
                    span: crate::source::Span::new(s.start, s.start),
                    replacement: "() => ".to_string(),
                });
            }
            let ctx_name = ctx_name?;
            edits.insert(
                0,
                Edit {
                    span: span(callee),
                    replacement: format!("{ctx_name}.parallel.all"),
                },
            );
            Some(Fix {
                description: format!("dispatch them with `{ctx_name}.parallel.all` and thunks"),
                edits,
                safe: false,
            })
        }
        Source::Map { receiver, callback } => {
            let c = m.call_of_node(*callback).or_else(|| {
                // `(x) => ctx.task(…)`: the arrow's body.
                callback.field("body").and_then(|b| m.call_of_node(b))
            })?;
            let effect = m.effect_of_call(c)?;
            if !effect.kind.dispatches() || reach.in_node(*callback).is_none() {
                return None;
            }
            let ctx_name = m.text(m.calls[c].callee).split('.').next()?;
            let call = (unparen(*receiver).parent()?).parent()?;
            // Replace `Promise.all(receiver.map(callback))` with
            // `ctx.parallel.map(receiver, callback)`.
            let outer_args = call.parent().filter(|a| a.kind_str() == "arguments")?;
            let outer = outer_args.parent()?;
            let text = format!(
                "{ctx_name}.parallel.map({}, {})",
                m.text(*receiver),
                m.text(*callback)
            );
            Some(Fix {
                description: format!("dispatch them with `{ctx_name}.parallel.map`"),
                edits: vec![Edit {
                    span: span(outer),
                    replacement: text,
                }],
                safe: false,
            })
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use crate::diagnostic::Diagnostic;
    use crate::engine::discover::FileKind;
    use crate::engine::lint_text;
    use crate::project::config::Config;

    fn lint(src: &str) -> Vec<Diagnostic> {
        let mut config = Config::default();
        config.select = Some(vec!["promise-combinator-effect".into()]);
        lint_text("p.js", FileKind::Process, src.to_string(), &config)
            .into_iter()
            .filter(|d| d.rule == "promise-combinator-effect")
            .collect()
    }

    fn message(method: &str) -> String {
        let src = format!(
            "export async function process(inputs, ctx) {{\n  return Promise.{method}([ctx.task(a, {{}}), ctx.task(b, {{}})]);\n}}\n"
        );
        let ds = lint(&src);
        assert_eq!(ds.len(), 1, "{ds:#?}");
        ds[0].message.clone()
    }

    /// The first pending signal ends the iteration (`asWaitingResult` in
    /// orchestrateIteration's catch): one effect reaches the orchestrator,
    /// the others land in the journal afterwards. Nothing is "missed".
    #[test]
    fn all_and_race_hand_over_one_effect() {
        for method in ["all", "race"] {
            let msg = message(method);
            assert!(
                msg.contains("the first rejection ends the iteration")
                    && msg.contains("that one effect instead of the batch")
                    && msg.contains("after the iteration has returned"),
                "{msg}"
            );
            assert!(!msg.contains("missed"), "{msg}");
        }
    }

    /// `allSettled` never rejects: the signals become `rejected` entries.
    #[test]
    fn all_settled_runs_on_without_results() {
        let msg = message("allSettled");
        assert!(
            msg.contains("settles as `rejected`") && msg.contains("without their results"),
            "{msg}"
        );
    }

    /// `any` rejects with an `AggregateError`, which `asWaitingResult` does
    /// not recognise: the iteration fails instead of waiting.
    #[test]
    fn any_fails_the_iteration() {
        let msg = message("any");
        assert!(
            msg.contains("`AggregateError`") && msg.contains("process error"),
            "{msg}"
        );
    }
}
