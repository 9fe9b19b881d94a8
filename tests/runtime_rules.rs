//! The runtime-correctness rules across modules and with options: what the
//! per-file fixture snapshots cannot show.

mod common;

use common::*;

fn concise(args: &[&str]) -> String {
    let o = proclint(args);
    assert_ne!(code(&o), 2, "{}", stderr(&o));
    stdout(&o)
}

/// Two modules defining the same task id (the whole folder is snapshotted
/// by `per_rule_fixtures`).
#[test]
fn duplicate_task_ids_across_modules() {
    // Linting one module alone still finds the clash when the other is
    // loaded for context (it is imported).
    let alone = concise(&[
        "check",
        "fixtures/invalid-task-definition/duplicate-ids/phase-tasks.js",
        "--select",
        "invalid-task-definition",
        "--format",
        "concise",
        "-q",
    ]);
    assert_eq!(alone.lines().count(), 1, "{alone}");
    assert!(alone.contains("phase-tasks.js:5:"), "{alone}");
}

/// A task imported under a name the exporting module does not export: the
/// help names the closest exported task.
#[test]
fn imported_task_name_not_exported() {
    let out = concise(&[
        "check",
        "fixtures/invalid-task-invocation/imported-name/process.js",
        "--select",
        "invalid-task-invocation",
        "--format",
        "json",
    ]);
    let json: serde_json::Value =
        serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}"));
    let diags = json["diagnostics"].as_array().cloned().unwrap_or_default();
    assert_eq!(diags.len(), 3, "{out}");
    assert_eq!(diags[0]["line"], 6);
    let help = diags[0]["help"].as_str().unwrap_or("");
    assert!(help.contains("did you mean `reviewTask`?"), "{help}");
}

/// Modules whose export list is open (`export *`, `module.exports = obj`)
/// are not judged; a missing name in a closed one is.
#[test]
fn open_export_lists_are_not_judged() {
    let dir = tempdir();
    write(dir.path(), "all.js", "export * from './tasks.js';\n");
    write(
        dir.path(),
        "cjs.js",
        "const tasks = require('./tasks.js');\nmodule.exports = tasks;\n",
    );
    write(
        dir.path(),
        "tasks.js",
        "import { defineTask } from '@a5c-ai/babysitter-sdk';\nexport const reviewTask = defineTask('r', () => ({ kind: 'agent', labels: ['r'] }));\n",
    );
    write(
        dir.path(),
        "process.js",
        "import { reviewTask, fixTask } from './all.js';\nimport { verifyTask } from './cjs.js';\nimport { shipTask } from './tasks.js';\n\
         export async function process(inputs, ctx) {\n  await ctx.task(reviewTask, {}, { key: 'a' });\n  await ctx.task(fixTask, {}, { key: 'b' });\n  await ctx.task(verifyTask, {}, { key: 'c' });\n  await ctx.task(shipTask, {}, { key: 'd' });\n}\n",
    );
    let o = proclint_in(
        dir.path(),
        &[
            "check",
            ".",
            "--select",
            "invalid-task-invocation",
            "--format",
            "concise",
            "-q",
            "--no-config",
        ],
    );
    let out = stdout(&o);
    assert_eq!(out.lines().count(), 1, "{out}{}", stderr(&o));
    assert!(
        out.contains("process.js:8:") && out.contains("`shipTask`"),
        "{out}"
    );
}

/// `extra-methods` teaches the rule an SDK fork's methods; a value of the
/// wrong type is a config error (exit 2).
#[test]
fn extra_context_methods_from_config() {
    let dir = tempdir();
    let src = "export async function process(inputs, ctx) {\n  await ctx.race([]);\n  await ctx.parallel.race([]);\n  await ctx.checkpoint({});\n}\n";
    write(dir.path(), "p.js", src);
    let run = |toml: &str| {
        write(dir.path(), "proclint.toml", toml);
        let o = proclint_in(
            dir.path(),
            &[
                "check",
                "p.js",
                "--select",
                "unknown-context-method",
                "--format",
                "concise",
                "-q",
            ],
        );
        assert_ne!(code(&o), 2, "{}", stderr(&o));
        stdout(&o)
    };
    let without = run("");
    assert_eq!(without.lines().count(), 3, "{without}");
    let with =
        run("[rules.unknown-context-method]\nextra-methods = [\"race\", \"parallel.race\"]\n");
    assert_eq!(with.lines().count(), 1, "{with}");
    assert!(with.contains("`checkpoint`"), "{with}");
    for bad in [
        "[rules.unknown-context-method]\nextra-methods = [1, \"race\"]\n",
        "[rules.unknown-context-method]\nextra-methods = \"race\"\n",
        "[rules.unknown-context-method]\nextra-method = [\"race\"]\n",
    ] {
        write(dir.path(), "proclint.toml", bad);
        let o = proclint_in(dir.path(), &["check", "p.js", "--format", "concise"]);
        assert_eq!(code(&o), 2, "{bad}: must be a config error: {}", stdout(&o));
    }
}

/// Every new rule is listed by `proclint rules` with its area.
#[test]
fn rules_are_listed() {
    let o = proclint(&["rules"]);
    let out = stdout(&o);
    for id in [
        "invalid-task-definition",
        "invalid-task-invocation",
        "misplaced-breakpoint-option",
        "parallel-thunk",
        "swallowed-effect-signal",
        "unknown-context-method",
    ] {
        assert!(out.contains(id), "{id} missing from:\n{out}");
    }
    assert!(out.contains("Runtime correctness"), "{out}");
}

/// Duplicate ids only clash in modules loaded together: two processes that
/// never import each other's modules each have their own registry.
#[test]
fn duplicate_ids_only_within_a_load_set() {
    let dir = tempdir();
    let task = |id: &str| {
        format!(
            "import {{ defineTask }} from '@a5c-ai/babysitter-sdk';\nexport const t = defineTask('{id}', () => ({{ kind: 'agent', labels: ['x'] }}));\n"
        )
    };
    write(dir.path(), "a/process.js", "import { t } from './tasks.js';\nimport { u } from '../shared/more.js';\nexport async function process(inputs, ctx) { return ctx.task(t, {}); }\n");
    write(dir.path(), "a/tasks.js", &task("plan"));
    write(dir.path(), "b/process.js", "import { t } from './tasks.js';\nexport async function process(inputs, ctx) { return ctx.task(t, {}); }\n");
    write(dir.path(), "b/tasks.js", &task("plan"));
    // Shared by `a` only, and clashing with `a/tasks.js` (trimmed ids).
    write(
        dir.path(),
        "shared/more.js",
        &task(" plan ").replace("const t", "const u"),
    );
    let o = proclint_in(
        dir.path(),
        &[
            "check",
            ".",
            "--select",
            "invalid-task-definition",
            "--format",
            "concise",
            "-q",
            "--no-config",
        ],
    );
    let out = stdout(&o);
    // Both definitions, and the module whose imports load them both.
    assert_eq!(out.lines().count(), 3, "{out}{}", stderr(&o));
    assert!(
        out.contains("a/tasks.js:2:")
            && out.contains("shared/more.js:2:")
            && out.contains("a/process.js:1:"),
        "{out}"
    );
    assert!(!out.contains("b/tasks.js:2:"), "{out}");
    assert!(!out.contains("b/process.js"), "{out}");
}
