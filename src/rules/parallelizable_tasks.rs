//! `parallelizable-tasks` (pedantic): consecutive awaited `ctx.task` calls
//! where no later one uses an earlier one's result (babysitter #114).

use crate::js::syntax::tree::Node;

use super::{Area, Category, JsContext, ReportMeta, Rule, RuleMeta, Sink, Sites};
use crate::diagnostic::Severity;
use crate::js::model::scope::BindingId;
use crate::js::syntax::{contains, span, unparen};
use crate::js::{EffectKind, JsModel};

pub struct ParallelizableTasks;

static META: RuleMeta = RuleMeta {
    id: "parallelizable-tasks",
    summary: "Consecutive independent `ctx.task` calls that could be dispatched as one batch.",
    severity: Severity::Info,
    area: Area::EffectGranularity,
    category: Category::Pedantic,
    doc: include_str!("../../rules/parallelizable-tasks.md"),
    builtin: false,
    options: &[],
    fix: crate::rules::FixAvailability::Never,
};

impl Rule for ParallelizableTasks {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn report(&self) -> ReportMeta {
        ReportMeta {
            sites: Sites::Invocations,
            praise: "",
            sdk_hint: "",
        }
    }

    fn check_js(&self, cx: &JsContext, sink: &mut Sink) {
        let m = cx.model;
        let mut blocks: Vec<Node> = m
            .effects_of(EffectKind::Task)
            .filter_map(|e| statement_of(m.calls[e.call].node))
            .filter_map(|s| s.parent())
            .collect();
        blocks.sort_by_key(|b| b.start_byte());
        blocks.dedup_by_key(|b| b.id());
        for block in blocks {
            let statements: Vec<Node> = block.named().collect();
            let mut run: Vec<(Node, Option<BindingId>)> = Vec::new();
            for s in statements.into_iter().chain(std::iter::once(block)) {
                let task = (s.id() != block.id()).then(|| awaited_task(m, s)).flatten();
                let independent = task.is_some_and(|_| {
                    run.iter()
                        .filter_map(|(_, b)| *b)
                        .all(|b| !m.scopes.get(b).reads.iter().any(|r| contains(s, *r)))
                });
                match task {
                    Some(b) if independent => run.push((s, b)),
                    _ => {
                        report(&run, sink);
                        run.clear();
                        if let Some(b) = task {
                            run.push((s, b));
                        }
                    }
                }
            }
        }
    }
}

fn report(run: &[(Node, Option<BindingId>)], sink: &mut Sink) {
    if run.len() < 2 {
        return;
    }
    let (first, _) = run[0];
    let (last, _) = run[run.len() - 1];
    let n = run.len();
    sink.push(
        sink.diag(
            span(first),
            format!(
                "these {n} awaited `ctx.task` calls do not use each other's results, yet each \
                 waits for the one before: dispatched together they are requested in one \
                 iteration and can run at the same time"
            ),
        )
        .with_help(
            "unless a later task depends on what an earlier one did (files it wrote, state it \
             changed), dispatch them as one batch: `const [a, b] = await ctx.parallel.all([() => \
             ctx.task(…), () => ctx.task(…)])`",
        )
        .with_related(sink.location(span(last)), "the last call of the run"),
    );
}

/// The statement directly holding a call (`const x = await ctx.task(…)` or
/// `await ctx.task(…);`).
fn statement_of<'t>(call: Node<'t>) -> Option<Node<'t>> {
    let mut n = call;
    loop {
        let p = n.parent()?;
        match p.kind_str() {
            "await_expression" | "parenthesized_expression" | "variable_declarator" => n = p,
            "lexical_declaration" | "variable_declaration" | "expression_statement" => {
                return Some(p)
            }
            _ => return None,
        }
    }
}

/// For `const x = await ctx.task(…)` / `await ctx.task(…);`: `Some(x's
/// binding, if any)`; `None` for any other statement.
fn awaited_task(m: &JsModel, s: Node) -> Option<Option<BindingId>> {
    let (value, name) = match s.kind_str() {
        "expression_statement" => (unparen(s.named_child(0)?), None),
        "lexical_declaration" | "variable_declaration" => {
            let mut decls = s.named().filter(|d| d.kind_str() == "variable_declarator");
            let d = decls.next()?;
            if decls.next().is_some() {
                return None;
            }
            (unparen(d.field("value")?), Some(d.field("name")?))
        }
        _ => return None,
    };
    if value.kind_str() != "await_expression" {
        return None;
    }
    let call = unparen(value.named_child(0)?);
    let c = m.call_of_node(call)?;
    if m.effect_of_call(c)?.kind != EffectKind::Task {
        return None;
    }
    let binding = match name {
        Some(n) if n.kind_str() == "identifier" => m.scopes.binding_of(n),
        // Destructuring: bindings we cannot follow cheaply; treat the
        // statement as a barrier.
        Some(_) => return None,
        None => None,
    };
    Some(binding)
}
