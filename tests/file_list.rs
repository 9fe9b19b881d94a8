//! File-list mode (pre-commit, editors): given files keep their project
//! context; only they are reported on.

mod common;

use common::*;

fn project(d: &std::path::Path) {
    write(d, "package.json", "{ \"name\": \"p\" }\n");
    write(
        d,
        "tasks.js",
        "import { defineTask } from '@a5c-ai/babysitter-sdk';\n\
         export const reviewTask = defineTask('review', () => ({\n\
         \x20 kind: 'agent',\n\
         \x20 labels: ['review'],\n\
         \x20 agent: { prompt: { task: 'Review' }, outputSchema: { type: 'object', properties: { passed: { type: 'boolean' }, notes: { type: 'string' } } } },\n\
         }));\n",
    );
    write(
        d,
        "phase.js",
        "import { reviewTask } from './tasks.js';\n\
         export async function reviewPhase(inputs, ctx) {\n\
         \x20 const r = await ctx.task(reviewTask, {});\n\
         \x20 return r.passed;\n\
         }\n",
    );
    write(
        d,
        "other.js",
        "export async function process(inputs, ctx) {\n  await ctx.breakpoint({});\n}\n",
    );
}

#[test]
fn cross_module_findings_survive_and_only_given_files_are_reported() {
    let dir = tempdir();
    let d = dir.path();
    project(d);
    // Linting only tasks.js: the read of `passed` lives in phase.js, which
    // is loaded as context, so only `notes` is unused.
    let o = proclint_in(d, &["check", "tasks.js", "--format", "concise", "-q"]);
    assert_eq!(
        stdout(&o),
        "tasks.js:5:115: warning[unused-output-field] task `review` declares output field `notes` that nothing reads: the agent produces it, the run stores it with the task's result, and no code uses it\n"
    );
    // other.js's finding is not shown: it was not given.
    assert!(!stdout(&o).contains("other.js"));
    let o = proclint_in(d, &["check", "phase.js", "--format", "concise", "-q"]);
    assert_eq!(stdout(&o), "");
    assert_eq!(code(&o), 0);
}

#[test]
fn stdin_filename_lints_the_buffer_in_context() {
    let dir = tempdir();
    let d = dir.path();
    project(d);
    // The buffer replaces phase.js: now `notes` is read too, and the buffer
    // has an unchecked breakpoint.
    let buffer = "import { reviewTask } from './tasks.js';\n\
                  export async function reviewPhase(inputs, ctx) {\n\
                  \x20 const r = await ctx.task(reviewTask, {});\n\
                  \x20 await ctx.breakpoint({ question: 'ok?', label: 'ok?' });\n\
                  \x20 return r.passed && r.notes;\n\
                  }\n";
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_proclint"))
        .args([
            "check",
            "--stdin-filename",
            "phase.js",
            "--format",
            "concise",
            "-q",
        ])
        .current_dir(d)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{e}"));
    if let Some(mut stdin) = child.stdin.take() {
        use std::io::Write;
        stdin
            .write_all(buffer.as_bytes())
            .unwrap_or_else(|e| panic!("{e}"));
    }
    let o = child.wait_with_output().unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        stdout(&o),
        "phase.js:4:9: error[unchecked-breakpoint] the result of `ctx.breakpoint` (\"ok?\") is discarded: a rejection is treated as an approval\n"
    );
}

#[test]
fn only_process_code_skips_named_plain_javascript() {
    let dir = tempdir();
    let d = dir.path();
    project(d);
    // An ordinary handler whose `context` parameter is not a process context.
    write(
        d,
        "handler.js",
        "export function handle(event, context) {\n  context.succeed(event);\n  return context.fail;\n}\n",
    );
    let o = proclint_in(
        d,
        &[
            "check",
            "handler.js",
            "phase.js",
            "--only-process-code",
            "--format",
            "json",
        ],
    );
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap_or_default();
    // handler.js is skipped; phase.js is still linted with its context.
    assert_eq!(v["summary"]["files"], 1, "{}", stdout(&o));
    let o = proclint_in(d, &["check", "handler.js", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap_or_default();
    assert_eq!(
        v["summary"]["files"], 1,
        "named files are linted by default"
    );
}

#[test]
fn duplicate_task_ids_are_reported_at_the_import_of_a_given_workflow() {
    let dir = tempdir();
    let d = dir.path();
    write(d, "package.json", "{ \"name\": \"p\" }\n");
    for (file, title) in [("a.js", "A"), ("b.js", "B")] {
        write(
            d,
            file,
            &format!(
                "import {{ defineTask }} from '@a5c-ai/babysitter-sdk';\n\
                 export const t = defineTask('review', () => ({{ kind: 'agent', title: '{title}', labels: ['r'] }}));\n"
            ),
        );
    }
    write(
        d,
        "workflow.js",
        "import { t as a } from './a.js';\n\
         import { t as b } from './b.js';\n\
         export async function process(inputs, ctx) {\n\
         \x20 await ctx.task(a, {});\n\
         \x20 await ctx.task(b, {});\n\
         }\n",
    );
    // Pre-commit passes only the changed workflow: the definitions are
    // context, and the workflow is where loading throws.
    let o = proclint_in(
        d,
        &[
            "check",
            "workflow.js",
            "--select",
            "invalid-task-definition",
            "--format",
            "concise",
            "-q",
        ],
    );
    let out = stdout(&o);
    assert!(out.starts_with("workflow.js:1:"), "{out}");
    assert!(out.contains("task id `review`"), "{out}");
    // The definitions themselves are context: not reported.
    assert_eq!(out.lines().count(), 1, "{out}");
}
