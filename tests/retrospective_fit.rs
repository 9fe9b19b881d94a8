//! Issue 18: the retrospective fits where it goes (a pull-request comment,
//! 65,536 characters) and says only what the code shows: the project's
//! title from its root manifest, Labels graded Missing when no task has
//! any, praise only for what exists, a module two processes share reported
//! once.

mod common;

use common::*;

fn retro(dir: &std::path::Path, args: &[&str]) -> String {
    let mut all = vec!["check", "--format", "retrospective", "--date", "2026-01-01"];
    all.extend_from_slice(args);
    let o = proclint_in(dir, &all);
    assert_ne!(code(&o), 2, "{}", stderr(&o));
    stdout(&o)
}

const SDK_PACKAGE: &str = "{\n  \"name\": \"budget-tools\",\n  \"dependencies\": { \"@a5c-ai/babysitter-sdk\": \"0.0.170\" }\n}\n";

/// An agent task with no labels.
fn task(id: &str) -> String {
    format!(
        "export const {}Task = defineTask('{id}', () => ({{\n  kind: 'agent',\n  title: '{id}',\n  agent: {{ name: 'a', prompt: {{ role: 'r', task: 'Write the {id} section' }} }},\n}}));\n",
        id.replace('-', "_")
    )
}

#[test]
fn title_from_the_root_manifest_labels_missing_and_praise_only_for_what_exists() {
    let dir = tempdir();
    write(dir.path(), "package.json", SDK_PACKAGE);
    // A deeper manifest (an example's) must not name the project.
    write(
        dir.path(),
        "examples/demo/package.json",
        "{\n  \"name\": \"demo-example\",\n  \"dependencies\": { \"@a5c-ai/babysitter-sdk\": \"0.0.170\" }\n}\n",
    );
    let mut tasks = String::from("import { defineTask } from '@a5c-ai/babysitter-sdk';\n");
    tasks.push_str(&task("plan"));
    tasks.push_str(&task("write"));
    write(dir.path(), "tasks.js", &tasks);
    write(
        dir.path(),
        "process.js",
        "import { planTask, writeTask } from './tasks.js';\n\nexport async function process(inputs, ctx) {\n  const plan = await ctx.task(planTask, {});\n  return ctx.task(writeTask, { plan });\n}\n",
    );
    write(
        dir.path(),
        "examples/demo/process.js",
        "export async function process(inputs, ctx) {\n  return { ok: true };\n}\n",
    );
    let doc = retro(dir.path(), &["."]);
    let title = doc.lines().next().unwrap_or_default();
    assert!(
        title.starts_with("# Retrospective: budget-tools — "),
        "{title}"
    );
    // Neither task has labels: not "Partial".
    let labels: Vec<&str> = doc
        .lines()
        .filter(|l| l.starts_with("| Labels | **"))
        .collect();
    assert!(
        labels.iter().any(|l| l.contains("**Missing**")),
        "{labels:?}"
    );
    assert!(
        !labels.iter().any(|l| l.contains("**Partial**")),
        "{labels:?}"
    );
    // No shell task anywhere: nothing may claim checks run in shell tasks.
    assert!(!doc.contains("run in shell tasks"), "{doc}");
}

#[test]
fn the_title_falls_back_to_the_root_folders_name() {
    let dir = tempdir();
    let root = dir.path().join("my-processes");
    write(
        &root,
        "a/process.js",
        "export async function process(inputs, ctx) {\n  return { ok: true };\n}\n",
    );
    write(
        &root,
        "b/process.js",
        "export async function process(inputs, ctx) {\n  return { ok: true };\n}\n",
    );
    let doc = retro(&root, &["."]);
    assert!(
        doc.starts_with("# Retrospective: my-processes — "),
        "{}",
        doc.lines().next().unwrap_or_default()
    );
}

#[test]
fn a_module_two_processes_import_is_reported_once() {
    let dir = tempdir();
    write(dir.path(), "package.json", SDK_PACKAGE);
    let mut tasks = String::from("import { defineTask } from '@a5c-ai/babysitter-sdk';\n");
    tasks.push_str(&task("draft"));
    write(dir.path(), "shared.js", &tasks);
    for name in ["one", "two"] {
        write(
            dir.path(),
            &format!("{name}.js"),
            &format!(
                "/**\n * @process acme/{name}\n */\nimport {{ draftTask }} from './shared.js';\n\nexport async function process(inputs, ctx) {{\n  return ctx.task(draftTask, {{}});\n}}\n"
            ),
        );
    }
    let doc = retro(dir.path(), &["."]);
    // The missing-labels finding at shared.js is listed once, under the
    // shared modules' section, not under each process.
    let listed = doc
        .lines()
        .filter(|l| l.starts_with("- **") && l.contains("(`missing-labels`): `shared.js:"))
        .count();
    assert_eq!(listed, 1, "{doc}");
    assert!(doc.contains("Modules shared by several processes"), "{doc}");
}

#[test]
fn a_long_retrospective_is_cut_to_fit_a_github_comment() {
    let dir = tempdir();
    write(dir.path(), "package.json", SDK_PACKAGE);
    // 150 processes × 12 dropped breakpoint results: far over 65,536
    // characters in full.
    for m in 0..150 {
        let mut text = format!(
            "/**\n * @process acme/p{m}\n */\nexport async function process(inputs, ctx) {{\n"
        );
        for i in 0..12 {
            text.push_str(&format!(
                "  await ctx.breakpoint({{ question: 'Ship {i}?', label: 'ship-{m}-{i}' }});\n"
            ));
        }
        text.push_str("}\n");
        write(dir.path(), &format!("p{m:03}.js"), &text);
    }
    let doc = retro(dir.path(), &[".", "--no-cache"]);
    let chars = doc.chars().count();
    assert!(chars <= 65_536, "{chars} characters");
    // Says it was shortened and how to get the rest.
    assert!(doc.contains("65,536"), "{}", &doc[..doc.len().min(2000)]);
    assert!(doc.contains("--format json"));
    // The summary and the grades are whole.
    assert!(doc.contains("## Cross-process summary"));
    let summary = doc
        .split("## Cross-process summary")
        .nth(1)
        .unwrap_or_default();
    assert!(summary.contains("**Worst first:**"), "{summary}");
    // Whole sections only: every `<details>` that was opened is closed.
    assert_eq!(
        doc.matches("<details>").count(),
        doc.matches("</details>").count()
    );
    assert!(doc.contains("more sections left out"));
    // The header names ten processes, not 150.
    assert!(
        doc.contains("`p009.js`, and 140 more"),
        "{}",
        &doc[..2000.min(doc.len())]
    );
    // Every finding is still in the JSON.
    let o = proclint_in(dir.path(), &["check", ".", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap_or_default();
    assert_eq!(v["diagnostics"].as_array().map(Vec::len), Some(1800));
}

#[test]
fn patterns_worth_sharing_advise_a_helper_only_for_code_that_can_be_shared() {
    let dir = tempdir();
    write(dir.path(), "package.json", SDK_PACKAGE);
    for (name, id) in [("a", "plan"), ("b", "write")] {
        let mut text = String::from("import { defineTask } from '@a5c-ai/babysitter-sdk';\n");
        text.push_str(&task(id));
        write(dir.path(), &format!("{name}.js"), &text);
    }
    write(
        dir.path(),
        "process.js",
        "import { planTask } from './a.js';\nimport { writeTask } from './b.js';\n\nexport async function process(inputs, ctx) {\n  const plan = await ctx.task(planTask, {});\n  return ctx.task(writeTask, { plan });\n}\n",
    );
    let doc = retro(dir.path(), &["."]);
    // Labels are set on each task: no helper to extract, a convention.
    assert!(!doc.contains("- `missing-labels` fires in"), "{doc}");
    let line = doc
        .lines()
        .find(|l| l.starts_with("- Conventions to apply at every site"))
        .unwrap_or_else(|| panic!("no pattern line:\n{doc}"));
    assert!(line.contains("`missing-labels` (2 modules)"), "{line}");
}
