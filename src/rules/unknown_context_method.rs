//! `unknown-context-method`: a method the process context does not have,
//! or an effect method called on the task-build context.

use super::{Area, Category, JsContext, ReportMeta, Rule, RuleMeta, Sink, Sites};
use crate::diagnostic::Severity;
use crate::js::analysis::dates::{misuses, DateMisuse, Misuse};
use crate::js::analysis::effects::method_path;
use crate::js::model::context_api::{
    closest_method, member_shape, shape_has, MemberShape, CONTEXT_METHODS, CONTEXT_PROPERTIES,
    EFFECT_METHODS_NOT_ON_TASK_CONTEXT, OBJECT_MEMBERS,
};
use crate::js::syntax::span;
use crate::js::EffectKind;
use crate::project::config::Config;

pub struct UnknownContextMethod;

const ID: &str = "unknown-context-method";

/// `[rules.unknown-context-method] extra-methods = ["race", "parallel.race"]`
/// for SDK forks that add methods.
const EXTRA_METHODS: &str = "extra-methods";

static META: RuleMeta = RuleMeta {
    id: ID,
    summary: "A call to a method the process context does not have.",
    severity: Severity::Error,
    area: Area::RuntimeCorrectness,
    category: Category::Correctness,
    doc: include_str!("../../rules/unknown-context-method.md"),
    builtin: false,
    options: &[EXTRA_METHODS],
    fix: crate::rules::FixAvailability::Never,
};

/// The known methods: the SDK's plus the configured extras.
fn known_methods(config: &Config) -> Vec<String> {
    let mut known: Vec<String> = CONTEXT_METHODS.iter().map(|s| s.to_string()).collect();
    known.extend(crate::rules::string_list(config, ID, EXTRA_METHODS));
    known
}

impl Rule for UnknownContextMethod {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn report(&self) -> ReportMeta {
        ReportMeta {
            sites: Sites::ProcessModules,
            praise: "Only methods the process context has are called",
            sdk_hint: "Calling an unknown context method fails only when the process reaches it. Shipping TypeScript types for the process context (or JSDoc types `checkJs` can use) would catch these at edit time.",
        }
    }

    fn validate_options(&self, options: &toml::Table) -> Result<(), String> {
        crate::rules::validate_string_list(options, EXTRA_METHODS, "[\"race\", \"parallel.race\"]")
    }

    fn check_js(&self, cx: &JsContext, sink: &mut Sink) {
        let m = cx.model;
        let known = known_methods(cx.config);
        let known_refs: Vec<&str> = known.iter().map(String::as_str).collect();
        for e in m.effects_of(EffectKind::Other) {
            let method = e.method.as_str();
            if known_refs.contains(&method) {
                continue;
            }
            let call = &m.calls[e.call];
            let callee = m.text(call.callee);
            let root = callee.split('.').next().unwrap_or("ctx");
            let (head, rest) = match method.split_once('.') {
                Some((h, r)) => (h, Some(r)),
                None => (method, None),
            };
            // `ctx.log.info(…)`, `ctx.parallel.race(…)`: a member of a value
            // the SDK puts on the context, which that value must have.
            if let (Some(member), Some(shape)) = (rest, member_shape(head)) {
                if !has_member(shape, head, member, &known_refs) && !optional_call(call.node) {
                    report_member(cx, sink, call.callee, shape, head, member, &known_refs);
                }
                continue;
            }
            // `ctx.logger.info(…)` where a fork adds `logger`: its shape is
            // not known.
            if rest.is_some() && known_refs.contains(&head) {
                continue;
            }
            if rest.is_none() && CONTEXT_PROPERTIES.contains(&head) {
                sink.push(
                    sink.diag(
                        span(call.callee),
                        format!(
                            "`{root}.{head}` is a property of the process context, not a method: \
                             calling it throws a TypeError when the process runs"
                        ),
                    )
                    .with_help(format!("read it without calling it: `{root}.{head}`")),
                );
                continue;
            }
            let help = match closest_method(method, &known_refs) {
                // `checkpoint` calls are as often progress notes as gates:
                // a breakpoint at each would stop the run for a human.
                Some("breakpoint") if method == "checkpoint" && known_refs.contains(&"log") => {
                    format!(
                    "did you mean `{root}.breakpoint(…)` (the run waits for a human's decision) \
                     or `{root}.log('…')` (a line in the run's process log, given a string; the run goes on)?"
                )
                }
                Some(s) => format!("did you mean `{root}.{s}(…)`?"),
                None => format!("the context's methods are: {}", list(&known_refs)),
            };
            let agentish = matches!(method, "agent" | "skill" | "shell");
            let extra = if agentish {
                format!(
                    " (agent, skill and shell work is a task: define it with `kind: '{method}'` and dispatch it with `{root}.task`)"
                )
            } else {
                String::new()
            };
            let caught = if caught_here(call.node) {
                "; the `try` around the call catches it, so the step is skipped every time and the `catch` runs in its place"
            } else {
                ""
            };
            sink.push(
                sink.diag(
                    span(call.callee),
                    format!(
                        "the process context has no method `{method}`: `{callee}(…)` throws a \
                         TypeError when the process runs{caught}{extra}"
                    ),
                )
                .with_help(help),
            );
        }
        check_properties(cx, &known_refs, sink);
        check_now(cx, sink);
        for &c in &m.task_context_calls {
            let call = &m.calls[c];
            let Some((root, method)) = method_path(m, call.callee) else {
                continue;
            };
            if !EFFECT_METHODS_NOT_ON_TASK_CONTEXT.contains(&method.as_str()) {
                continue;
            }
            let name = m.text(root);
            let mut d = sink.diag(
                span(call.callee),
                format!(
                    "`{name}` here is the task-build context (the second parameter of the \
                     `defineTask` factory), not the process context: it has no `{method}`, and \
                     effects cannot be dispatched while a task definition is built"
                ),
            );
            if let Some(b) = m.scopes.binding_of(root) {
                d = d.with_related(
                    sink.location(span(m.scopes.get(b).node)),
                    "the task-build context is declared here",
                );
            }
            let help = if method == "agent" {
                // `return ctx.agent({ title, prompt })`: the author meant
                // the definition the factory returns.
                "return the agent task's definition instead of calling it: \
                 `({ kind: 'agent', title: …, agent: { prompt: … } })`; the SDK dispatches it \
                 when the process calls `ctx.task` with this task"
            } else {
                "dispatch the effect from the process function (`await ctx.task(…)` there) and \
                 pass its result to this task through its args"
            };
            sink.push(d.with_help(help));
        }
    }
}

/// Whether `node` sits in the block of a `try` with a `catch`, in the same
/// function: the TypeError it throws is caught there.
fn caught_here(node: crate::js::syntax::tree::Node) -> bool {
    let mut n = node;
    while let Some(p) = n.parent() {
        if crate::js::syntax::is_function(p) {
            return false;
        }
        if p.kind() == "try_statement"
            && p.field("body").is_some_and(|b| b.id() == n.id())
            && p.field("handler").is_some()
        {
            return true;
        }
        n = p;
    }
    false
}

/// Whether the context's `head` (of `shape`) has `member`: by its nature
/// (`ctx.log.bind`, `ctx.runId.slice`) or, for a namespace, as a known
/// method (`parallel.all`, or a fork's `parallel.race` from `extra-methods`).
fn has_member(shape: MemberShape, head: &str, member: &str, known: &[&str]) -> bool {
    shape_has(shape, member) || namespace_members(head, known).contains(&member)
}

/// `all`, `map`: the known methods under `head.`.
fn namespace_members<'k>(head: &str, known: &[&'k str]) -> Vec<&'k str> {
    known
        .iter()
        .filter_map(|k| k.strip_prefix(head)?.strip_prefix('.'))
        .collect()
}

/// `ctx.now()` returns a `Date` (`runtime/processContext.ts`: `now: () =>
/// Date`), not epoch milliseconds: the uses whose result is then constant
/// or wrong — a `Number` predicate (always false), `typeof … === 'number'`
/// (always false), `+` (string concatenation of the date's text) — on the
/// call, on a `const` bound to it, or on a parameter of a function of the
/// module it is passed to. Subtraction and comparison convert a `Date` to
/// its milliseconds and are fine.
fn check_now(cx: &JsContext, sink: &mut Sink) {
    let m = cx.model;
    for e in m.effects_of(EffectKind::Now) {
        let call = &m.calls[e.call];
        let shown = m.text(call.node).to_string();
        for DateMisuse { at, what, via } in misuses(m, call.node) {
            let how = via.map_or(String::new(), |(f, p)| {
                format!(" (passed to `{f}` as `{p}`)")
            });
            let (message, help) = match what {
                Misuse::NumberTest(test) => (
                    format!(
                        "`{shown}` returns a `Date`, not a number{how}: `{}` is always false",
                        m.text(at)
                    ),
                    format!("for epoch milliseconds use `{shown}.getTime()`; `{test}` of that is true"),
                ),
                Misuse::TypeofNumber => (
                    format!(
                        "`{shown}` returns a `Date`, not a number{how}: `{}` is always false",
                        m.text(at)
                    ),
                    format!("for epoch milliseconds use `{shown}.getTime()`"),
                ),
                Misuse::Concat => (
                    format!(
                        "`{shown}` returns a `Date`{how}: `{}` joins the date's text (`Wed Dec 02 2026 …`) with the other operand instead of adding milliseconds",
                        m.text(at)
                    ),
                    format!("add to `{shown}.getTime()` (epoch milliseconds)"),
                ),
            };
            sink.push(sink.diag(span(at), message).with_help(help));
        }
    }
}

/// `f?.(…)`: calling an undefined member this way gives `undefined`
/// instead of throwing.
fn optional_call(call: crate::js::syntax::tree::Node) -> bool {
    call.field("optional_chain").is_some()
}

/// `ctx.log.info(…)`: a call of a member that a context value does not have.
fn report_member(
    cx: &JsContext,
    sink: &mut Sink,
    callee: crate::js::syntax::tree::Node,
    shape: MemberShape,
    head: &str,
    member: &str,
    known: &[&str],
) {
    let m = cx.model;
    let root = method_path(m, callee).map_or("ctx", |(r, _)| m.text(r));
    let value = format!("{root}.{head}");
    let what = match shape {
        MemberShape::Function => format!("`{value}` is a function"),
        MemberShape::String => format!("`{value}` is a string"),
        MemberShape::Namespace => {
            let own = namespace_members(head, known);
            let names: Vec<String> = own.iter().map(|n| format!("`{n}`")).collect();
            match names.split_last() {
                Some((last, [])) => format!("`{value}` has only {last}"),
                Some((last, rest)) => format!("`{value}` has only {} and {last}", rest.join(", ")),
                None => format!("`{value}` is an object"),
            }
        }
    };
    let help = match (shape, head) {
        (MemberShape::Function, "log") => format!(
            "call `{value}('…')`: it takes a message, or a label and a message \
             (`{value}('{member}', '…')`); it has no levels"
        ),
        (MemberShape::Function, "now") => {
            format!("call it first: `{value}()` returns a `Date` (`{value}().{member}(…)`)")
        }
        (MemberShape::Function, _) => format!("call `{value}(…)` itself"),
        (MemberShape::Namespace, _) => {
            let own = namespace_members(head, known);
            match closest_method(member, &own) {
                Some(s) => format!("did you mean `{value}.{s}(…)`?"),
                None => {
                    let calls: Vec<String> =
                        own.iter().map(|n| format!("`{value}.{n}(…)`")).collect();
                    let mut help = format!("use {}", calls.join(" or "));
                    if head == "parallel" {
                        help.push_str(
                            ": `all` runs every thunk and resolves with all their results, `map` \
                             does the same over a list; the SDK has no race",
                        );
                    }
                    help
                }
            }
        }
        (MemberShape::String, "runDir" | "artifactsDir") => {
            format!("`{value}` is a path: build paths from it with `path.join({value}, …)`")
        }
        (MemberShape::String, _) => format!("use `{value}` as the string it is"),
    };
    sink.push(
        sink.diag(
            span(callee),
            format!(
                "{what}: `{value}.{member}` is undefined, so the call throws a TypeError when \
                 the process reaches it"
            ),
        )
        .with_help(help),
    );
}

/// `ctx.workspaceDir`, `ctx.cwd`, …: a read of a member the process context
/// does not have (calls are reported as unknown methods above).
fn check_properties(cx: &JsContext, known: &[&str], sink: &mut Sink) {
    let m = cx.model;
    // Only bindings the module really uses as the process context (an
    // effect is dispatched through them): a helper's `ctx => ctx.effectId`
    // may well receive the task-build context.
    let mut contexts: Vec<_> = m
        .effects
        .iter()
        .filter_map(|e| method_path(m, m.calls[e.call].callee))
        .filter_map(|(root, _)| m.scopes.binding_of(root))
        .filter(|b| m.contexts.contains(b))
        .collect();
    contexts.sort_unstable();
    contexts.dedup();
    let written = assigned_members(m, &contexts);
    // (root, member name) → its reads, with the help: reading one missing
    // member in several places is one mistake.
    let mut missing: Vec<((String, String), Vec<crate::js::syntax::tree::Node>, String)> =
        Vec::new();
    for b in contexts {
        let binding = m.scopes.get(b);
        for &read in &binding.reads {
            let Some(member) = m.member_of_object(read) else {
                continue;
            };
            let Some(prop) = member.field("property") else {
                continue;
            };
            let name = m.text(prop);
            let is_known = known.iter().any(|k| k.split('.').next() == Some(name))
                || CONTEXT_PROPERTIES.contains(&name)
                || OBJECT_MEMBERS.contains(&name)
                || written.contains(name);
            if is_known {
                continue;
            }
            let parent = member.parent();
            let called = parent.is_some_and(|p| {
                p.kind_str() == "call_expression"
                    && p.field("function").map(|f| f.id()) == Some(member.id())
            });
            if called {
                continue;
            }
            let root = m.text(read);
            let help = match name {
                "workspaceDir" | "cwd" | "workspace" | "workingDir" | "workDir" | "projectDir" => {
                    format!(
                        "the context does not carry a working directory: take it from the process \
                         inputs (e.g. `inputs.{name}`), and write run files under `{root}.runDir` or \
                         `{root}.artifactsDir`"
                    )
                }
                _ => {
                    let members: Vec<&str> = CONTEXT_PROPERTIES.to_vec();
                    match closest_method(name, &members) {
                        Some(s) => format!("did you mean `{root}.{s}`?"),
                        None => format!(
                            "the context's properties are {}; inputs arrive as the process \
                             function's first parameter",
                            list(CONTEXT_PROPERTIES)
                        ),
                    }
                }
            };
            let key = (root.to_string(), name.to_string());
            match missing.iter_mut().find(|(k, _, _)| *k == key) {
                Some((_, reads, _)) => reads.push(member),
                None => missing.push((key, vec![member], help)),
            }
        }
    }
    for ((root, name), mut reads, help) in missing {
        reads.sort_by_key(|r| r.start_byte());
        let mut d = sink
            .diag(
                span(reads[0]),
                format!("the process context has no `{name}`: `{root}.{name}` is always undefined"),
            )
            .with_help(help);
        d.occurrences = reads.len();
        for r in &reads[1..] {
            d = d.with_related(sink.location(span(*r)), "read here too");
        }
        sink.push(d);
    }
}

/// Members the process assigns on its context itself (`ctx.cache = …`):
/// reading them back is fine.
fn assigned_members<'t>(
    m: &crate::js::JsModel<'t>,
    contexts: &[crate::js::model::scope::BindingId],
) -> std::collections::HashSet<&'t str> {
    let mut out = std::collections::HashSet::new();
    for &b in contexts {
        for &read in &m.scopes.get(b).reads {
            let Some(member) = read
                .parent()
                .filter(|p| p.kind_str() == "member_expression")
            else {
                continue;
            };
            let assigned = member.parent().is_some_and(|p| {
                matches!(
                    p.kind_str(),
                    "assignment_expression" | "augmented_assignment_expression"
                ) && p.field("left").map(|l| l.id()) == Some(member.id())
            });
            if let (true, Some(prop)) = (assigned, member.field("property")) {
                out.insert(m.text(prop));
            }
        }
    }
    out
}

fn list(names: &[&str]) -> String {
    names
        .iter()
        .map(|n| format!("`{n}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::engine::discover::FileKind;
    use crate::engine::lint_text;
    use std::path::Path;

    const HEADER: &str = "import { defineTask } from '@a5c-ai/babysitter-sdk';\n\
        export const t = defineTask('t', () => ({ kind: 'shell', title: 'T', labels: ['t'] }));\n";

    fn check_with(body: &str, config: &Config) -> Vec<String> {
        let text = format!("{HEADER}{body}");
        lint_text("process.js", FileKind::Process, text, config)
            .into_iter()
            .filter(|d| d.rule == ID)
            .map(|d| format!("{} | {}", d.message, d.help.unwrap_or_default()))
            .collect()
    }

    fn check(body: &str) -> Vec<String> {
        check_with(body, &Config::default())
    }

    fn process(lines: &str) -> String {
        format!(
            "export async function process(inputs, ctx) {{\n  await ctx.task(t, {{}}, {{ key: 'a' }});\n{lines}\n  return {{}};\n}}\n"
        )
    }

    /// A `try` around the call turns the TypeError into the `catch`'s path
    /// on every run: the message says the step is skipped.
    #[test]
    fn a_caught_call_says_the_step_is_skipped() {
        let found = check(&process(
            "  try {\n    await ctx.shell('npm test');\n  } catch (e) {\n    ctx.log('tests failed');\n  }\n  await ctx.shell('npm run build');",
        ));
        assert_eq!(found.len(), 2, "{found:#?}");
        assert!(
            found[0].contains("the step is skipped every time"),
            "{found:#?}"
        );
        assert!(!found[1].contains("skipped"), "{found:#?}");
    }

    /// One missing member read in several places is one finding, the other
    /// reads related.
    #[test]
    fn a_missing_member_read_twice_is_one_finding() {
        let text = format!(
            "{HEADER}{}",
            process(
                "  const a = `tasks/${ctx.effectId}/a.json`;\n  const b = `tasks/${ctx.effectId}/b.json`;\n  ctx.log(a + b);",
            )
        );
        let found: Vec<_> = lint_text("process.js", FileKind::Process, text, &Config::default())
            .into_iter()
            .filter(|d| d.rule == ID)
            .collect();
        assert_eq!(found.len(), 1, "{found:#?}");
        assert_eq!(found[0].occurrences, 2);
        assert_eq!(found[0].related.len(), 1);
    }

    #[test]
    fn now_is_a_date_not_a_number() {
        let body = "function zone(nowMs) {\n  if (!Number.isFinite(nowMs)) throw new Error('x');\n  return nowMs;\n}\n"
            .to_string()
            + &process(
                "  const startMs = ctx.now();\n  const due = new Date(startMs + 1000).toISOString();\n  if (typeof ctx.now() === 'number') {}\n  zone(ctx.now());\n  ctx.log(`${due} ${ctx.now() - startMs} ${'at ' + ctx.now()} ${ctx.now().getTime() + 1}`);",
            );
        let found = check(&body);
        assert_eq!(found.len(), 3, "{found:#?}");
        assert!(
            found.iter().any(|f| f.contains(
                "(passed to `zone` as `nowMs`): `Number.isFinite(nowMs)` is always false"
            )),
            "{found:#?}"
        );
        assert!(
            found
                .iter()
                .any(|f| f.contains("`startMs + 1000` joins the date's text")),
            "{found:#?}"
        );
        assert!(
            found
                .iter()
                .any(|f| f.contains("`typeof ctx.now() === 'number'` is always false")),
            "{found:#?}"
        );
        assert!(found.iter().all(|f| f.contains("getTime()")), "{found:#?}");
    }

    #[test]
    fn log_is_a_function_without_levels() {
        let found = check(&process(
            "  ctx.log.info('start');\n  ctx.log?.warn('careful');",
        ));
        assert_eq!(found.len(), 2, "{found:#?}");
        assert!(found[0].starts_with(
            "`ctx.log` is a function: `ctx.log.info` is undefined, so the call throws a TypeError"
        ));
        assert!(found[0].contains("call `ctx.log('…')`"), "{}", found[0]);
        assert!(
            found[1].contains("`ctx.log.warn` is undefined"),
            "{}",
            found[1]
        );
    }

    #[test]
    fn parallel_has_only_all_and_map() {
        let found = check(&process(
            "  await ctx.parallel.race([() => ctx.task(t, {}, { key: 'r' })]);\n  await ctx.parallel.any([]);",
        ));
        assert_eq!(found.len(), 2, "{found:#?}");
        assert!(found[0].starts_with(
            "`ctx.parallel` has only `all` and `map`: `ctx.parallel.race` is undefined"
        ));
        assert!(
            found[1].contains("`ctx.parallel.any` is undefined"),
            "{}",
            found[1]
        );
    }

    #[test]
    fn strings_and_functions_keep_their_own_members() {
        let found = check(&process(
            "  const f = ctx.log.bind(ctx);\n  ctx.task.call(null, t, {});\n  ctx.runId.slice(0, 8);\n  ctx.runDir.split('/');\n  ctx.now().toISOString();\n  ctx.parallel.hasOwnProperty('all');\n  ctx.log.info?.('x');",
        ));
        assert!(found.is_empty(), "{found:#?}");
        let found = check(&process(
            "  ctx.runDir.join('x');\n  ctx.now.toISOString();",
        ));
        assert_eq!(found.len(), 2, "{found:#?}");
        assert!(
            found[0].starts_with("`ctx.runDir` is a string"),
            "{}",
            found[0]
        );
        assert!(
            found[1].contains("`ctx.now()` returns a `Date`"),
            "{}",
            found[1]
        );
    }

    #[test]
    fn extra_methods_are_members_too() {
        let config = Config::parse(
            "[rules.unknown-context-method]\nextra-methods = [\"log.info\", \"parallel.race\", \"logger\"]\n",
            Path::new("proclint.toml"),
            ".".into(),
            &crate::rules::Registry,
        )
        .unwrap();
        let body = process(
            "  ctx.log.info('x');\n  await ctx.parallel.race([]);\n  ctx.logger.info('y');\n  await ctx.parallel.any([]);",
        );
        let found = check_with(&body, &config);
        assert_eq!(found.len(), 1, "{found:#?}");
        assert!(
            found[0].starts_with("`ctx.parallel` has only `all`, `map` and `race`"),
            "{}",
            found[0]
        );
    }

    #[test]
    fn a_factory_context_is_not_the_process_context() {
        let body = "export const u = defineTask('u', (args, ctx) => {\n  ctx.log.info('building');\n  return { kind: 'shell', title: 'U', labels: ['u'] };\n});\n"
            .to_string()
            + &process("  ctx.log('ok');");
        assert!(check(&body).is_empty());
    }
}
