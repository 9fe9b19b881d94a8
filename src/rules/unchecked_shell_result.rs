//! `unchecked-shell-result`: a shell task's result is never tested for
//! `success`/`exitCode` before the process goes on as if it passed.

use super::{Area, Category, ProjectSink, ReportMeta, Rule, RuleMeta, Sites};
use crate::diagnostic::Severity;
use crate::js::analysis::gates::{is_assertion, is_verdict_field};
use crate::project::config::Config;
use crate::project::{result_uses, ForwardKind, Project};

pub struct UncheckedShellResult;

static META: RuleMeta = RuleMeta {
    id: "unchecked-shell-result",
    summary: "A shell task's result is never tested for `success` or `exitCode`: a failed command does not stop the process.",
    severity: Severity::Error,
    area: Area::ErrorSurfacing,
    category: Category::Correctness,
    doc: include_str!("../../rules/unchecked-shell-result.md"),
    builtin: false,
    options: &[],
    fix: crate::rules::FixAvailability::Never,
};

/// Where a whole result may go without anyone judging it: printed.
const PRINTED: &[&str] = &["template string", "JSON.stringify", "String"];

/// Whether a place the whole result escapes to may judge it: another task
/// (an agent reading the output), a human at a breakpoint, an assertion,
/// or code proclint does not follow. Returning it as the process output
/// hands it to no one who acts on it in this run.
fn may_judge(kind: &ForwardKind) -> bool {
    match kind {
        ForwardKind::Task(_) | ForwardKind::Breakpoint => true,
        ForwardKind::ProcessOutput => false,
        ForwardKind::Unknown(u) => is_assertion(u) || !PRINTED.contains(&u.as_str()),
    }
}

impl Rule for UncheckedShellResult {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn report(&self) -> ReportMeta {
        ReportMeta {
            sites: Sites::ShellTasks,
            praise: "Every shell task's result is tested before the process goes on",
            sdk_hint: "A failed shell task resolves `ctx.task` to `{ success: false, exitCode, … }` instead of throwing, so a verification step whose result nobody tests never stops a run. An opt-in that throws on a non-zero exit (the `shell.expectedExitCode` the SDK's guidelines recommend is not read by the runtime) would make such a gate fail loudly.",
        }
    }

    fn check_project(&self, p: &Project, _config: &Config, sink: &mut ProjectSink) {
        for (mi, module) in p.modules.iter().enumerate() {
            if !module.report {
                continue;
            }
            for (ii, inv) in module.invocations.iter().enumerate() {
                let Some(untested) = inv.untested.as_deref() else {
                    continue;
                };
                if untested.judged_by_task {
                    continue;
                }
                let Some((tm, ti)) = p.task_of(mi, &inv.target) else {
                    continue;
                };
                let task = &p.modules[tm].tasks[ti];
                if task.kind.as_deref() != Some("shell") || task.shell_never_fails {
                    continue;
                }
                // Reads in other modules (a helper, a caller of an export).
                let uses = result_uses::of_invocation(p, mi, ii);
                if uses.fields.keys().any(|f| is_verdict_field(f)) {
                    continue;
                }
                if uses.forwards.iter().any(may_judge) {
                    continue;
                }
                let id = task
                    .static_id
                    .as_deref()
                    .or(task.id.as_deref())
                    .unwrap_or("the command");
                let returned = uses
                    .forwards
                    .iter()
                    .any(|f| matches!(f, ForwardKind::ProcessOutput));
                // `.then`/`.catch` on the call's promise are not fields.
                let read: Vec<String> = uses
                    .fields
                    .keys()
                    .filter(|f| !matches!(f.as_str(), "then" | "catch" | "finally"))
                    .map(|f| format!("`{f}`"))
                    .collect();
                let how = if returned {
                    "it is returned as process output without a test of `success` or `exitCode`"
                        .to_string()
                } else if read.is_empty() {
                    "nothing reads the result".to_string()
                } else {
                    format!(
                        "only {} {} read, never `success` or `exitCode`",
                        super::prose_list(&read, 3),
                        if read.len() == 1 { "is" } else { "are" }
                    )
                };
                let goes_on = match &untested.next {
                    Some((what, _)) => format!("so the process {what} as if `{id}` passed"),
                    None => format!("so the run goes on as if `{id}` passed"),
                };
                let mut message = format!(
                    "`{}` resolves to `{{ success: false, … }}` when the command fails: {how}, {goes_on}",
                    inv.call_text
                );
                if untested.catch.is_some() {
                    message.push_str(
                        "; its `catch` never runs for a failed command (a failed shell task resolves, it does not throw)",
                    );
                }
                let mut d = sink.diag(inv.location.clone(), message).with_help(
                    "test the result before going on — `if (!result.success) { … }` (or `result.exitCode !== 0`) — and stop the run or hand `result.stderr` to a fix task; if a failure is acceptable here, say so in the command (`… || true`)",
                );
                if let Some((what, at)) = &untested.next {
                    d = d.with_related(at.clone(), format!("the process {what} here"));
                }
                if let Some(at) = &untested.catch {
                    d = d.with_related(at.clone(), "this `catch` never sees a failed command");
                }
                if tm != mi {
                    d = d.with_related(task.definition.clone(), format!("`{id}` is a shell task"));
                }
                sink.push(d);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use crate::engine::discover::FileKind;
    use crate::engine::lint_text;
    use crate::project::config::Config;

    fn findings(src: &str) -> Vec<String> {
        lint_text(
            "p.js",
            FileKind::Process,
            src.to_string(),
            &Config::default(),
        )
        .into_iter()
        .filter(|d| d.rule == "unchecked-shell-result")
        .map(|d| d.message)
        .collect()
    }

    const TASKS: &str = "import { defineTask } from '@a5c-ai/babysitter-sdk';\n\
        export const buildTask = defineTask('build', () => ({ kind: 'shell', shell: { command: 'npm run build' } }));\n\
        export const fixTask = defineTask('fix', () => ({ kind: 'agent', agent: { name: 'a', prompt: { task: 'fix' } } }));\n";

    fn with(body: &str) -> String {
        format!("{TASKS}export async function process(inputs, ctx) {{\n{body}\n}}\n")
    }

    #[test]
    fn discarded_result_before_a_deploy_question() {
        let f = findings(&with(
            "await ctx.task(buildTask, {});\nawait ctx.breakpoint({ question: 'Build passes — deploy?' });\nreturn {};",
        ));
        assert_eq!(f.len(), 1, "{f:?}");
        assert!(f[0].contains("nothing reads the result"), "{}", f[0]);
        assert!(
            f[0].contains("asks “Build passes — deploy?” at a breakpoint"),
            "{}",
            f[0]
        );
    }

    #[test]
    fn returned_next_to_success_true() {
        let f = findings(&with(
            "const verify = await ctx.task(buildTask, {});\nreturn { success: true, verify };",
        ));
        assert_eq!(f.len(), 1, "{f:?}");
        assert!(f[0].contains("returned as process output"), "{}", f[0]);
        assert!(f[0].contains("returns `success: true`"), "{}", f[0]);
    }

    #[test]
    fn what_runs_on_a_condition_is_not_what_follows() {
        let f = findings(&with(
            "await ctx.task(buildTask, {});\nif (inputs.dry) { return { success: false }; }\nawait ctx.task(fixTask, {});\nreturn {};",
        ));
        assert_eq!(f.len(), 1, "{f:?}");
        assert!(
            f[0].contains("goes on to `ctx.task(fixTask, …)`"),
            "{}",
            f[0]
        );
    }

    #[test]
    fn try_catch_is_named() {
        let f = findings(&with(
            "try { await ctx.task(buildTask, {}); } catch (e) { await ctx.task(fixTask, {}); }\nreturn {};",
        ));
        assert_eq!(f.len(), 1, "{f:?}");
        assert!(f[0].contains("its `catch` never runs"), "{}", f[0]);
        let f = findings(&with(
            "const r = await ctx.task(buildTask, {}).catch(() => null);\nreturn {};",
        ));
        assert_eq!(f.len(), 1, "{f:?}");
        assert!(f[0].contains("nothing reads the result"), "{}", f[0]);
        assert!(f[0].contains("its `catch` never runs"), "{}", f[0]);
    }

    #[test]
    fn tests_of_any_kind_are_enough() {
        for body in [
            "const r = await ctx.task(buildTask, {}); if (!r.success) throw new Error('x');",
            "const r = await ctx.task(buildTask, {}); if (r.exitCode !== 0) return { ok: false };",
            "const { success } = await ctx.task(buildTask, {}); return { success };",
            "const r = await ctx.task(buildTask, {}); if (r.stdout.includes('FAIL')) return {};",
            "const r = await ctx.task(buildTask, {}); assertOk(r);",
            "const r = await ctx.task(buildTask, {}); await ctx.task(fixTask, { output: r.stderr });",
            "const r = await ctx.task(buildTask, {}); await ctx.breakpoint({ question: 'ok?', context: { r } });",
            "const r = await ctx.task(buildTask, {}); const d = r.result || r; if (!d.allPassed) return {};",
        ] {
            assert!(findings(&with(body)).is_empty(), "{body}");
        }
    }

    #[test]
    fn commands_that_cannot_fail_need_no_test() {
        let src = "import { defineTask } from '@a5c-ai/babysitter-sdk';\n\
            export const t = defineTask('t', () => ({ kind: 'shell', shell: { command: 'npm test || true' } }));\n\
            export async function process(inputs, ctx) { await ctx.task(t, {}); return { success: true }; }\n";
        assert!(findings(src).is_empty());
    }

    #[test]
    fn agent_results_are_not_this_rules() {
        assert!(findings(&with(
            "await ctx.task(fixTask, {}); return { success: true };"
        ))
        .is_empty());
    }
}
