//! Fixes converge (issue 34, point 3): after `check --fix` (and `--fix
//! --unsafe-fixes`), a second run changes nothing, over every fixture.
//! Each fixture folder is its own project (a `package.json`), so the
//! verification's re-lint sees the same context the lint did.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use common::*;

fn snapshot(dir: &Path) -> BTreeMap<PathBuf, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap_or_else(|e| panic!("{e}")) {
            let p = e.unwrap_or_else(|e| panic!("{e}")).path();
            if p.is_dir() {
                if !p.ends_with(".proclint_cache") {
                    stack.push(p);
                }
            } else {
                let bytes = std::fs::read(&p).unwrap_or_else(|e| panic!("{e}"));
                out.insert(p, bytes);
            }
        }
    }
    out
}

fn converges(extra: &[&str]) {
    let work = tempdir();
    let corpus = work.path().join("fixtures");
    copy_tree(&root().join("fixtures"), &corpus);
    write(
        &corpus,
        "package.json",
        "{\"name\": \"fixtures\", \"private\": true}\n",
    );
    let original = snapshot(&corpus);
    let mut args = vec!["check", ".", "--fix", "--no-cache", "--select", "all"];
    args.extend_from_slice(extra);
    let first = proclint_in(&corpus, &args);
    assert!(code(&first) <= 1, "{}", stderr(&first));
    let once = snapshot(&corpus);
    let changed = once
        .iter()
        .filter(|(p, b)| original.get(*p) != Some(*b))
        .count();
    assert!(
        changed > 0,
        "the first --fix changed nothing: {}",
        stderr(&first)
    );
    let second = proclint_in(&corpus, &args);
    assert!(code(&second) <= 1, "{}", stderr(&second));
    let twice = snapshot(&corpus);
    let moved: Vec<String> = twice
        .iter()
        .filter(|(p, b)| once.get(*p) != Some(*b))
        .map(|(p, _)| p.display().to_string())
        .collect();
    assert!(
        moved.is_empty(),
        "a second --fix {} changed {} files:\n{}\n{}",
        extra.join(" "),
        moved.len(),
        moved.join("\n"),
        stderr(&second)
    );
}

#[test]
fn a_second_fix_changes_nothing() {
    converges(&[]);
}

#[test]
fn a_second_unsafe_fix_changes_nothing() {
    converges(&["--unsafe-fixes"]);
}

/// A fix that inserts a whole line (a skill's missing `name`) writes that
/// line only: the finding on the line it pushes down (an unknown field) is
/// the one that was there, not one the fix introduced.
#[test]
fn an_inserted_line_does_not_claim_the_line_below() {
    let work = tempdir();
    let skill = write(
        work.path(),
        "skills/agent-dispatch/SKILL.md",
        "---\ngraph:\n  domains: [x]\ndescription: Dispatch agents in batches.\n---\n\n# Agent Dispatch\n",
    );
    // A second skill with the same unknown field: the finding's message
    // counts the other files, which a re-lint of the fixed file alone does
    // not see.
    write(
        work.path(),
        "skills/review/SKILL.md",
        "---\nname: review\ngraph:\n  domains: [x]\ndescription: Review a change.\n---\n\n# Review\n",
    );
    let out = proclint_in(
        work.path(),
        &["check", ".", "--fix", "--unsafe-fixes", "--no-cache"],
    );
    let err = stderr(&out);
    assert!(!err.contains("fix skipped"), "{err}");
    let text = std::fs::read_to_string(&skill).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        text.starts_with("---\nname: agent-dispatch\ngraph:\n"),
        "{text}\n{err}"
    );
}

/// A fix that removes some unread fields changes the note about the
/// others (optional fields kept as a record of the work beside the `ok`
/// the process reads, the only field it reads): a note of the fix's own
/// rule is no breakage, so the fix is not skipped for it.
#[test]
fn a_note_of_the_fix_rule_does_not_block_the_fix() {
    let work = tempdir();
    let module = write(
        work.path(),
        "setup.js",
        "import { defineTask } from '@a5c-ai/babysitter-sdk';\n\nexport const setupTask = defineTask('setup', (args, taskCtx) => ({\n  kind: 'agent',\n  title: 'Set up the system',\n  agent: {\n    name: 'installer',\n    prompt: { role: 'Installer', task: 'Set up the system', outputFormat: 'JSON' },\n    outputSchema: {\n      type: 'object',\n      required: ['ok', 'templates', 'plan', 'artifacts'],\n      properties: {\n        ok: { type: 'boolean' },\n        templates: { type: 'array' },\n        plan: { type: 'object' },\n        forms: { type: 'array' },\n        config: { type: 'object' },\n        artifacts: { type: 'array' }\n      }\n    }\n  },\n  labels: ['setup']\n}));\n\nexport async function process(inputs, ctx) {\n  const artifacts = [];\n  const setup = await ctx.task(setupTask, {});\n  if (!setup.ok) {\n    throw new Error('setup failed');\n  }\n  return { artifacts };\n}\n",
    );
    let out = proclint_in(
        work.path(),
        &[
            "check",
            ".",
            "--select",
            "unused-output-field",
            "--fix",
            "--unsafe-fixes",
            "--no-cache",
        ],
    );
    let err = stderr(&out);
    assert!(!err.contains("fix skipped"), "{err}");
    let text = std::fs::read_to_string(&module).unwrap_or_else(|e| panic!("{e}"));
    // With the rule selected its notes are shown, and their removal fix
    // is applied in the same run: both went, neither skipped.
    assert!(
        !text.contains("templates") && !text.contains("forms"),
        "{text}\n{err}"
    );
    assert!(err.contains("fixed 2 findings"), "{err}");
}

/// A fix that deletes whole lines writes none: a finding already on the
/// line that moves up into their place is not the fix's. (`issues`, advice
/// the agent owes beside the `plan` the process reads, stays a warning.)
#[test]
fn a_deleted_line_does_not_claim_the_line_that_moves_up() {
    let work = tempdir();
    let module = write(
        work.path(),
        "setup.js",
        "import { defineTask } from '@a5c-ai/babysitter-sdk';\n\nexport const setupTask = defineTask('setup', (args, taskCtx) => ({\n  kind: 'agent',\n  title: 'Set up the system',\n  agent: {\n    name: 'installer',\n    prompt: { role: 'Installer', task: 'Set up the system', outputFormat: 'JSON' },\n    outputSchema: {\n      type: 'object',\n      required: ['issues', 'plan', 'artifacts'],\n      properties: {\n        issues: { type: 'array' },\n        plan: { type: 'object', description: PLAN_DOC },\n        artifacts: { type: 'array' }\n      }\n    }\n  },\n  labels: ['setup']\n}));\n\nexport async function process(inputs, ctx) {\n  const artifacts = [];\n  const setup = await ctx.task(setupTask, {});\n  artifacts.push(...setup.artifacts);\n  ctx.log(setup.plan);\n  return { artifacts };\n}\n",
    );
    let out = proclint_in(
        work.path(),
        &["check", ".", "--fix", "--unsafe-fixes", "--no-cache"],
    );
    let err = stderr(&out);
    assert!(!err.contains("fix skipped"), "{err}");
    let text = std::fs::read_to_string(&module).unwrap_or_else(|e| panic!("{e}"));
    assert!(!text.contains("issues"), "{text}\n{err}");
}
