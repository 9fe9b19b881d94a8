//! `invalid-task-invocation`: `ctx.task(X, …)` where `X` is provably not a
//! task definition.

use super::{Area, Category, JsContext, ProjectSink, ReportMeta, Rule, RuleMeta, Sink, Sites};
use crate::diagnostic::{Edit, Fix, Severity};
use crate::js::analysis::tasks::{value_of, Value};
use crate::js::model::globals::is_known_global;
use crate::js::syntax::{span, string_value, unparen};
use crate::js::{EffectKind, JsModel};
use crate::project::config::Config;
use crate::project::{ExportKind, Project, TaskRef};
use crate::source::names::edit_distance;

pub struct InvalidTaskInvocation;

static META: RuleMeta = RuleMeta {
    id: "invalid-task-invocation",
    summary: "ctx.task is called with something that is not a task definition.",
    severity: Severity::Error,
    area: Area::RuntimeCorrectness,
    category: Category::Correctness,
    doc: include_str!("../../rules/invalid-task-invocation.md"),
    builtin: false,
    options: &[],
    fix: crate::rules::FixAvailability::Sometimes,
};

const HELP: &str = "pass the value `defineTask` returned: `const reviewTask = defineTask('review', (args, taskCtx) => ({ kind: 'agent', … }));` then `await ctx.task(reviewTask, args)`";

impl Rule for InvalidTaskInvocation {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn report(&self) -> ReportMeta {
        ReportMeta {
            sites: Sites::Invocations,
            praise: "Every `ctx.task` call receives a task definition",
            sdk_hint: "",
        }
    }

    fn check_js(&self, cx: &JsContext, sink: &mut Sink) {
        let m = cx.model;
        for e in m.effects_of(EffectKind::Task) {
            let call = &m.calls[e.call];
            let callee = m.text(call.callee);
            let Some(&first) = call.args.first() else {
                sink.push(
                    sink.diag(
                        span(call.node),
                        format!("`{callee}()` is called without a task: the SDK rejects it"),
                    )
                    .with_help(HELP),
                );
                continue;
            };
            let shown = m.text(unparen(first));
            let mut fix = None;
            let (message, help) = match value_of(m, first) {
                Value::TaskDef(_) | Value::Unknown => continue,
                Value::Literal(what) => {
                    let mut help = HELP.to_string();
                    // `ctx.task('review', …)` naming a task defined here.
                    if let Some(id) = string_of(m, first) {
                        if let Some(name) = m
                            .task_defs
                            .iter()
                            .find(|t| t.id.as_deref() == Some(id.as_str()))
                            .and_then(|t| t.binding)
                            .map(|b| m.scopes.get(b).name.as_str())
                        {
                            help = format!(
                                "pass the definition, not its id: `{callee}({name}, …)`"
                            );
                        }
                        fix = definition_fix(m, call, first, &id);
                    }
                    let what = if unparen(first).kind_str() == "identifier" {
                        format!("`{shown}`, {what}")
                    } else {
                        format!("{what} ({})", code(&short(shown)))
                    };
                    (
                        format!(
                            "the first argument of `{callee}` is {what}, not a task \
                             definition: the SDK rejects it when the process runs"
                        ),
                        help,
                    )
                }
                Value::Function(_) if unparen(first).kind_str() == "call_expression" => {
                    let maker = unparen(first)
                        .field("function")
                        .map_or("the helper", |f| m.text(f));
                    (
                        format!(
                            "`{}` passed to `{callee}` returns a function, not a task definition \
                             (the factory goes inside `defineTask`): the SDK rejects it when the \
                             process runs",
                            short(shown)
                        ),
                        format!(
                            "have `{maker}` return `defineTask('…', (args, taskCtx) => …)` instead \
                             of the bare factory"
                        ),
                    )
                }
                Value::Function(_) => (
                    format!(
                        "`{shown}` passed to `{callee}` is a function, not a task definition \
                         (the factory goes inside `defineTask`): the SDK rejects it when the process runs"
                    ),
                    format!("wrap it: `const {shown}Task = defineTask('…', {shown});` and pass that"),
                ),
                Value::Class => (
                    format!(
                        "`{shown}` passed to `{callee}` is a class, not a task definition: \
                         the SDK rejects it when the process runs"
                    ),
                    HELP.to_string(),
                ),
                // A name declared nowhere throws a ReferenceError before
                // `ctx.task` is called: `undefined-reference` reports it
                // (with the same "did you mean"), and only where it really
                // throws (not a configured or `typeof`-guarded global).
                Value::Unbound if is_known_global(shown) => (
                    format!(
                        "`{shown}` passed to `{callee}` is the JavaScript or Node.js global of \
                         that name, not a task definition: the SDK rejects it when the process runs"
                    ),
                    format!(
                        "import or define the task (`const {shown}Task = defineTask('…', …)`) and \
                         pass that"
                    ),
                ),
                Value::Unbound => continue,
            };
            let d = sink.diag(span(first), message).with_help(help);
            sink.push(match fix {
                Some(fix) => d.with_fix(fix),
                None => d,
            });
        }
    }

    /// A task imported from a linted module that does not export that name.
    fn check_project(&self, project: &Project, _config: &Config, sink: &mut ProjectSink) {
        for (mi, module) in project.modules.iter().enumerate() {
            for inv in &module.invocations {
                let TaskRef::Imported(t) = &inv.target else {
                    continue;
                };
                let (source, name) = (&t.source, &t.name);
                let Some(target) = project.resolve(mi, source) else {
                    continue;
                };
                let exporter = &project.modules[target];
                if exporter.opaque_exports || exporter.exports.iter().any(|e| &e.name == name) {
                    continue;
                }
                // `import tasks from './tasks.js'; ctx.task(tasks.review)`: a
                // property of a default-exported object this index does not list.
                let via_default = module
                    .imports
                    .iter()
                    .any(|i| &i.source == source && i.name == "default");
                if via_default && exporter.exports.iter().any(|e| e.name == "default") {
                    continue;
                }
                let mut d = sink.diag(
                    inv.location.clone(),
                    format!(
                        "`{}` dispatches `{name}`, but `{source}` ({}) does not export `{name}`, \
                         so the task is `undefined` and the SDK rejects the call",
                        inv.call_text, exporter.path
                    ),
                );
                if let Some(imp) = module
                    .imports
                    .iter()
                    .find(|i| &i.source == source && (&i.name == name || i.name == "*"))
                {
                    d = d.with_related(imp.location.clone(), "imported here");
                }
                let tasks: Vec<&str> = exporter
                    .exports
                    .iter()
                    .filter(|e| matches!(e.kind, ExportKind::Task(_)))
                    .map(|e| e.name.as_str())
                    .collect();
                let help = match closest(name, &tasks) {
                    Some(c) => format!("did you mean `{c}`? `{source}` exports the tasks {}", list(&tasks)),
                    None if tasks.is_empty() => {
                        format!("`{source}` exports no task definitions; export `{name}` there (`export const {name} = defineTask(…)`)")
                    }
                    None => format!("`{source}` exports the tasks {}; export `{name}` there or import one of those", list(&tasks)),
                };
                sink.push(d.with_help(help));
            }
        }
    }
}

fn list(names: &[&str]) -> String {
    let shown: Vec<String> = names.iter().take(8).map(|n| format!("`{n}`")).collect();
    let more = if names.len() > 8 { ", …" } else { "" };
    format!("{}{more}", shown.join(", "))
}

/// The closest of `names` to `name`, if it is a plausible typo.
fn closest<'a>(name: &str, names: &[&'a str]) -> Option<&'a str> {
    let limit = (name.chars().count() / 3).clamp(1, 3);
    names
        .iter()
        .map(|n| (edit_distance(name, n), *n))
        .filter(|(d, _)| *d <= limit)
        .min()
        .map(|(_, n)| n)
}

/// `ctx.task('review', …)` → `ctx.task(reviewTask, …)`: offered only when
/// exactly one `defineTask` of this module has the id, it is bound to a
/// name never reassigned, and that name means the same binding where the
/// call is (not shadowed, and not read before its declaration at the top
/// level). Unsafe: the call throws today, and after the fix the task runs.
fn definition_fix(
    m: &JsModel,
    call: &crate::js::model::Call,
    first: crate::js::syntax::tree::Node,
    id: &str,
) -> Option<Fix> {
    let mut same = m.task_defs.iter().filter(|t| t.id.as_deref() == Some(id));
    let (def, None) = (same.next()?, same.next()) else {
        return None;
    };
    let b = def.binding?;
    let binding = m.scopes.get(b);
    if !binding.writes.is_empty() || m.scopes.lookup(call.scope, &binding.name) != Some(b) {
        return None;
    }
    // At the top level the call runs while the module loads: a `const`
    // declared after it is still in its temporal dead zone.
    if call.func.is_none() && binding.node.start_byte() > call.node.start_byte() {
        return None;
    }
    let name = binding.name.clone();
    Some(Fix {
        description: format!("pass the task definition `{name}` instead of its id"),
        edits: vec![Edit {
            span: span(unparen(first)),
            replacement: name,
        }],
        safe: false,
    })
}

/// A string literal, directly or through a `const`.
fn string_of(m: &JsModel, node: crate::js::syntax::tree::Node) -> Option<String> {
    let node = unparen(node);
    if let Some(s) = string_value(node, m.src()) {
        return Some(s);
    }
    let b = m.scopes.get(m.binding_of_expr(node)?);
    string_value(b.init?, m.src())
}

/// Inline code, unless the snippet brings its own backticks (a template).
fn code(s: &str) -> String {
    if s.contains('`') {
        s.to_string()
    } else {
        format!("`{s}`")
    }
}

fn short(s: &str) -> String {
    let line = s.lines().next().unwrap_or("");
    let cut: String = line.chars().take(40).collect();
    if cut.len() < s.len() {
        format!("{cut}…")
    } else {
        cut
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
        config.select = Some(vec!["invalid-task-invocation".into()]);
        lint_text("p.js", FileKind::Process, src.to_string(), &config)
    }

    fn fixed(src: &str) -> String {
        let ds = lint(src);
        let edits: Vec<&[crate::diagnostic::Edit]> = ds
            .iter()
            .filter_map(|d| d.fix.as_ref().map(|f| f.edits.as_slice()))
            .collect();
        crate::engine::fix::apply(src, &edits).0
    }

    const HEAD: &str = "import { defineTask } from '@a5c-ai/babysitter-sdk';\n";

    #[test]
    fn a_task_id_becomes_the_definition_bound_to_it() {
        let src = format!("{HEAD}export async function process(inputs, ctx) {{\n  const r = await ctx.task('review', {{}});\n  await ctx.task(`review`, {{}}, {{ key: 'b' }});\n  return r;\n}}\nexport const reviewTask = defineTask('review', () => ({{ kind: 'agent' }}));\n");
        let ds = lint(&src);
        assert_eq!(ds.len(), 2, "{ds:#?}");
        assert!(ds.iter().all(|d| d.fix.as_ref().is_some_and(|f| !f.safe)));
        let out = fixed(&src);
        assert_eq!(
            out,
            src.replace("ctx.task('review'", "ctx.task(reviewTask")
                .replace("ctx.task(`review`", "ctx.task(reviewTask")
        );
        assert!(lint(&out).is_empty(), "{out}");
    }

    /// Two definitions with the id, none bound, a shadowed name, a
    /// reassigned one, a top-level call before the declaration: no fix.
    #[test]
    fn no_fix_unless_exactly_one_definition_is_reachable() {
        for src in [
            format!("{HEAD}const a = defineTask('x', () => ({{ kind: 'agent' }}));\nconst b = defineTask('x', () => ({{ kind: 'shell' }}));\nexport async function process(i, ctx) {{ await ctx.task(a, {{}}); await ctx.task(b, {{}}); return ctx.task('x', {{}}); }}\n"),
            format!("{HEAD}defineTask('x', () => ({{ kind: 'agent' }}));\nexport async function process(i, ctx) {{ return ctx.task('x', {{}}); }}\n"),
            format!("{HEAD}const t = defineTask('x', () => ({{ kind: 'agent' }}));\nexport async function process(i, ctx) {{ const t = 1; return ctx.task('x', {{ t }}); }}\nexport {{ t }};\n"),
            format!("{HEAD}let t = defineTask('x', () => ({{ kind: 'agent' }}));\nt = null;\nexport async function process(i, ctx) {{ return ctx.task('x', {{}}); }}\n"),
            format!("{HEAD}ctx.task('x', {{}});\nexport const t = defineTask('x', () => ({{ kind: 'agent' }}));\n"),
            format!("{HEAD}export const t = defineTask('x', () => ({{ kind: 'agent' }}));\nexport async function process(i, ctx) {{ return ctx.task('y', {{}}); }}\n"),
        ] {
            let ds = lint(&src);
            assert!(!ds.is_empty(), "{src}");
            assert!(ds.iter().all(|d| d.fix.is_none()), "{src}\n{ds:#?}");
        }
    }
}
