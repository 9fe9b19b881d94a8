//! `colliding-effect-key`: two `ctx.task` calls of one task that produce the
//! same explicit key in one run.
//!
//! With a key, the SDK names the invocation by the process, the key and the
//! task id (`hashInvocationKey` in `runtime/intrinsics/task.ts`) and, when
//! the journal has a record under that name, returns it
//! (`effectIndex.getByInvocation`): the later call never dispatches its own
//! effect.

use super::{Area, Category, JsContext, ReportMeta, Rule, RuleMeta, Sink, Sites};
use crate::diagnostic::Severity;
use crate::js::analysis::repeat::invocation_key;
use crate::js::analysis::repeat::{repetition, Repeat};
use crate::js::model::{CallId, JsModel};
use crate::js::summary::build::{describe_repeat, key_example};
use crate::js::syntax::tree::Node;
use crate::js::syntax::{contains, span, unparen};
use crate::js::EffectKind;

pub struct CollidingEffectKey;

static META: RuleMeta = RuleMeta {
    id: "colliding-effect-key",
    summary: "Two calls of one task get the same explicit key in a run, so the later ones receive the first one's recorded result.",
    severity: Severity::Error,
    area: Area::Idempotency,
    category: Category::Correctness,
    doc: include_str!("../../rules/colliding-effect-key.md"),
    builtin: false,
    options: &[],
    fix: crate::rules::FixAvailability::Never,
};

impl Rule for CollidingEffectKey {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn report(&self) -> ReportMeta {
        ReportMeta {
            sites: Sites::RepeatedInvocations,
            praise: "",
            sdk_hint: "Colliding keys fail silently: the SDK could reject a second request of one task under a key already used in the same iteration.",
        }
    }

    fn check_js(&self, cx: &JsContext, sink: &mut Sink) {
        let m = cx.model;
        let mut constant: Vec<(CallId, String)> = Vec::new();
        for e in m.effects_of(EffectKind::Task) {
            let call = &m.calls[e.call];
            let Some(key_node) = key_node(m, e.call) else {
                continue;
            };
            let task = call.args.first().map(|a| m.text(*a)).unwrap_or("task");
            let callee = m.text(call.callee);
            match invocation_key(m, e.call) {
                Some(Some(key)) => {
                    if let Some(r) = repetition(m, e.call).filter(|r| !once_per_list(m, e.call, r))
                    {
                        let mut info = describe_repeat(m, &r);
                        if !crate::js::analysis::repeat::one_layer(m, e.call) {
                            info.variable = None;
                        }
                        let d = sink
                            .diag(
                                span(key_node),
                                format!(
                                    "`{callee}({task}, …)` uses the constant key `'{key}'` in {}: every repetition asks for the same invocation, so each one after the first gets the first one's recorded result instead of running",
                                    info.what
                                ),
                            )
                            .with_related(info.location, "repeats here")
                            .with_help(format!(
                                "build the key from a string or number that differs per repetition, e.g. `` {} ``{}",
                                key_example(task, info.variable.as_deref()),
                                if info.variable.is_some() {
                                    ""
                                } else {
                                    ", with `…` replaced by what tells the repetitions apart"
                                }
                            ));
                        sink.push(d);
                    } else {
                        constant.push((e.call, key));
                    }
                }
                Some(None) => {
                    if let Some(d) = object_in_key(m, sink, e.call, key_node, task, callee) {
                        sink.push(d);
                    }
                }
                None => {}
            }
        }
        // The same constant key on two calls of one task, both reached in
        // one pass of the same function.
        for (i, (a, key)) in constant.iter().enumerate() {
            let Some((b, _)) = constant[..i]
                .iter()
                .find(|(b, k)| k == key && same_task(m, *a, *b) && both_run(m, *b, *a))
            else {
                continue;
            };
            let call = &m.calls[*a];
            let task = call.args.first().map(|n| m.text(*n)).unwrap_or("task");
            let Some(key_node) = key_node(m, *a) else {
                continue;
            };
            let d = sink
                .diag(
                    span(key_node),
                    format!(
                        "`{}({task}, …)` uses the key `'{key}'` that an earlier call of the same task uses: both ask for one invocation, so this call gets the earlier one's recorded result instead of running",
                        m.text(call.callee)
                    ),
                )
                .with_related(
                    m.file.location(span(m.calls[*b].node)),
                    "the earlier call with this key",
                )
                .with_help("give each call its own key (the key names the invocation together with the task id)");
            sink.push(d);
        }
    }
}

/// The `key` (or `stableKey`) value in the invocation options literal.
fn key_node<'t>(m: &JsModel<'t>, call: CallId) -> Option<Node<'t>> {
    let opts = m.object_of_expr(*m.calls[call].args.get(2)?)?;
    crate::js::model::objects::property(m, opts, "key")
        .or_else(|| crate::js::model::objects::property(m, opts, "stableKey"))
}

/// An element written out in a `ctx.parallel.all([...])` list runs once per
/// run of the list: its constant key names one effect.
fn once_per_list(m: &JsModel, call: CallId, r: &Repeat) -> bool {
    let Repeat::Callback(batch) = r.root() else {
        return false;
    };
    let node = m.calls[call].node;
    batch
        .field("arguments")
        .and_then(|a| a.named().find(|n| n.kind_str() != "comment"))
        .filter(|list| list.kind_str() == "array")
        .is_some_and(|list| contains(list, node))
}

fn same_task(m: &JsModel, a: CallId, b: CallId) -> bool {
    let (Some(x), Some(y)) = (m.calls[a].args.first(), m.calls[b].args.first()) else {
        return false;
    };
    match (m.binding_of_expr(*x), m.binding_of_expr(*y)) {
        (Some(p), Some(q)) => p == q,
        _ => m.text(*x) == m.text(*y),
    }
}

/// Whether `second` can run after `first` in one pass: the same function,
/// not in two branches of one `if`/`switch`/conditional, and `first` not in
/// a block that always leaves (`return`/`throw`) before `second`.
fn both_run(m: &JsModel, first: CallId, second: CallId) -> bool {
    let (f, s) = (&m.calls[first], &m.calls[second]);
    if f.func != s.func {
        return false;
    }
    let mut n = f.node;
    while let Some(p) = n.parent() {
        if contains(p, s.node) {
            // `p` holds both: exclusive when they sit in different branches.
            let branch_of = |x: Node| p.named().find(|c| contains(*c, x));
            let (bf, bs) = (branch_of(f.node), branch_of(s.node));
            let branching = matches!(
                p.kind_str(),
                "if_statement" | "ternary_expression" | "switch_body" | "else_clause"
            );
            if branching && bf.map(|x| x.id()) != bs.map(|x| x.id()) {
                return false;
            }
            return true;
        }
        // Leaving a block that ends by leaving the function: what follows
        // it never runs after `first`.
        if p.kind_str() == "statement_block" && block_exits(p) && p.id() != n.id() {
            return false;
        }
        n = p;
    }
    true
}

fn block_exits(block: Node) -> bool {
    block
        .named()
        .filter(|c| c.kind_str() != "comment")
        .last()
        .is_some_and(|last| matches!(last.kind_str(), "return_statement" | "throw_statement"))
}

/// A key template that interpolates an object, in a repeated call: every
/// repetition renders the same `[object Object]`.
fn object_in_key(
    m: &JsModel,
    sink: &Sink,
    call: CallId,
    key_node: Node,
    task: &str,
    callee: &str,
) -> Option<crate::diagnostic::Diagnostic> {
    let template = unparen(key_node);
    if template.kind_str() != "template_string" {
        return None;
    }
    let r = repetition(m, call)?;
    for sub in template
        .named()
        .filter(|c| c.kind_str() == "template_substitution")
    {
        let Some(expr) = sub.named().find(|c| c.kind_str() != "comment") else {
            continue;
        };
        let expr = unparen(expr);
        if expr.kind_str() != "identifier" {
            continue;
        }
        let Some(evidence) = object_evidence(m, expr) else {
            continue;
        };
        let name = m.text(expr);
        let info = describe_repeat(m, &r);
        let rendered = render(m, template, sub);
        return Some(
            sink.diag(
                span(key_node),
                format!(
                    "`{callee}({task}, …)` builds its key from `{name}`, an object ({evidence}): it renders as `[object Object]`, so every repetition in {} gets the key `{rendered}` and each one after the first gets the first one's recorded result instead of running",
                    info.what
                ),
            )
            .with_related(info.location, "repeats here")
            .with_help(format!(
                "build the key from a string or number field of `{name}` that differs per repetition (e.g. `{name}.id`), or from the loop's index"
            )),
        );
    }
    None
}

/// Why `ident` holds an object: it is initialised with an object literal,
/// or the code reads a field of it that strings and numbers do not have.
fn object_evidence(m: &JsModel, ident: Node) -> Option<String> {
    let b = m.binding_of_expr(ident)?;
    let binding = m.scopes.get(b);
    if binding
        .init
        .is_some_and(|i| unparen(i).kind_str() == "object")
    {
        return Some(format!(
            "`{}` is initialised with an object literal",
            binding.name
        ));
    }
    binding.reads.iter().find_map(|r| {
        let member = r.parent().filter(|p| {
            p.kind_str() == "member_expression"
                && p.field("object").is_some_and(|o| o.id() == r.id())
        })?;
        let prop = member.field("property")?;
        let field = m.text(prop);
        (prop.kind_str() == "property_identifier" && !PRIMITIVE_MEMBERS.contains(&field))
            .then(|| format!("the code reads `{}.{field}`", binding.name))
    })
}

/// Members a string or number has: reading them says nothing about objects.
const PRIMITIVE_MEMBERS: &[&str] = &[
    "length",
    "toString",
    "valueOf",
    "toFixed",
    "toPrecision",
    "toLowerCase",
    "toUpperCase",
    "trim",
    "trimStart",
    "trimEnd",
    "split",
    "slice",
    "substring",
    "substr",
    "startsWith",
    "endsWith",
    "includes",
    "indexOf",
    "lastIndexOf",
    "replace",
    "replaceAll",
    "match",
    "matchAll",
    "padStart",
    "padEnd",
    "repeat",
    "charAt",
    "charCodeAt",
    "codePointAt",
    "at",
    "concat",
    "localeCompare",
    "normalize",
    "search",
    "toLocaleString",
];

/// The template with `sub` rendered as `[object Object]` and other
/// substitutions kept as written.
fn render(m: &JsModel, template: Node, sub: Node) -> String {
    let text = m.text(template);
    let start = sub.start_byte() - template.start_byte();
    let end = sub.end_byte() - template.start_byte();
    let inner = format!("{}[object Object]{}", &text[..start], &text[end..]);
    inner.trim_matches('`').to_string()
}

#[cfg(test)]
mod tests {
    use crate::diagnostic::Diagnostic;

    fn lint(body: &str) -> Vec<Diagnostic> {
        super::super::testing::lint_process_body("colliding-effect-key", body)
    }

    #[test]
    fn a_constant_key_in_a_loop_collides() {
        let ds =
            lint("for (let i = 0; i < 3; i++) await ctx.task(fixTask, { i }, { key: 'fix' });");
        assert_eq!(ds.len(), 1, "{ds:#?}");
        assert!(
            ds[0].message.contains("constant key `'fix'`"),
            "{}",
            ds[0].message
        );
        assert!(ds[0].help.as_deref().unwrap_or("").contains("`fix-${i}`"));
    }

    #[test]
    fn the_same_key_twice_on_one_task_collides_but_not_across_tasks_or_branches() {
        let ds = lint("await ctx.task(reviewTask, {}, { key: 'r' });\nawait ctx.task(reviewTask, { again: 1 }, { key: 'r' });");
        assert_eq!(ds.len(), 1, "{ds:#?}");
        assert_eq!(ds[0].location.start.line, 6);
        for fine in [
            // The key names the invocation with the task id.
            "await ctx.task(reviewTask, {}, { key: 'r' });\nawait ctx.task(fixTask, {}, { key: 'r' });",
            "if (inputs.a) { await ctx.task(reviewTask, {}, { key: 'r' }); } else { await ctx.task(reviewTask, {}, { key: 'r' }); }",
            "if (inputs.a) { await ctx.task(reviewTask, {}, { key: 'r' }); return 1; }\nawait ctx.task(reviewTask, {}, { key: 'r' });",
            "const x = inputs.a ? await ctx.task(reviewTask, {}, { key: 'r' }) : await ctx.task(reviewTask, {}, { key: 'r' });",
            "await ctx.task(reviewTask, {}, { key: 'r1' });\nawait ctx.task(reviewTask, {}, { key: 'r2' });",
        ] {
            assert!(lint(fine).is_empty(), "{fine}");
        }
    }

    #[test]
    fn an_object_in_a_key_template_collides() {
        let ds = lint("for (const scenario of inputs.scenarios) {\n  await ctx.task(reviewTask, { name: scenario.name }, { key: `review-${scenario}` });\n}");
        assert_eq!(ds.len(), 1, "{ds:#?}");
        assert!(
            ds[0].message.contains("`review-[object Object]`")
                && ds[0].message.contains("`scenario.name`"),
            "{}",
            ds[0].message
        );
        for fine in [
            "for (const s of inputs.names) await ctx.task(reviewTask, { n: s.length }, { key: `review-${s}` });",
            "for (const s of inputs.scenarios) await ctx.task(reviewTask, { s }, { key: `review-${s.name}` });",
            "const s = { a: 1 };\nawait ctx.task(reviewTask, { s }, { key: `review-${s}` });",
        ] {
            assert!(lint(fine).is_empty(), "{fine}");
        }
    }

    #[test]
    fn a_literal_list_element_runs_once() {
        assert!(lint("await ctx.parallel.all([() => ctx.task(reviewTask, {}, { key: 'a' }), () => ctx.task(fixTask, {}, { key: 'b' })]);").is_empty());
    }
}
