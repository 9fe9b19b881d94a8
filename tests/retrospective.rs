//! `--format retrospective`: whole-report snapshots, exit codes like the
//! other formats, and docs/retrospective.md kept in sync with the generator.

mod common;

use common::*;

/// Runs the retrospective on a copy of a fixture tree (outside any git
/// checkout, so the header is stable).
fn retro(fixture: &str, name: &str, extra: &[&str]) -> (i32, String) {
    let dir = tempdir();
    copy_tree(&root().join(fixture), &dir.path().join(name));
    retro_in(dir.path(), name, extra)
}

/// Runs the retrospective on `dir/name`.
fn retro_in(dir: &std::path::Path, name: &str, extra: &[&str]) -> (i32, String) {
    let mut args = vec![
        "check",
        name,
        "--format",
        "retrospective",
        "--date",
        "2026-11-30",
    ];
    args.extend_from_slice(extra);
    let o = proclint_in(dir, &args);
    (
        code(&o),
        stdout(&o).replace(env!("CARGO_PKG_VERSION"), "[VERSION]"),
    )
}

#[test]
fn realistic_tree() {
    let (code, out) = retro("fixtures/realistic", "realistic", &[]);
    assert_eq!(code, 1);
    insta::assert_snapshot!(out);
}

#[test]
fn clean_process() {
    let (code, out) = retro("fixtures/retrospective/clean", "clean", &[]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("| Breakpoint discipline | **Good** |"),
        "{out}"
    );
    insta::assert_snapshot!(out);
}

#[test]
fn skills_only() {
    let (code, out) = retro("fixtures/retrospective/skills-only", "skills-only", &[]);
    assert_eq!(code, 1);
    insta::assert_snapshot!(out);
}

#[test]
fn several_entry_processes() {
    let (code, out) = retro("fixtures/retrospective/multi", "multi", &[]);
    assert_eq!(code, 1);
    assert!(out.contains("## Cross-process summary"), "{out}");
    // Two processes, the module both import (reported once), other files.
    assert_eq!(out.matches("<details>").count(), 4, "{out}");
    assert!(out.contains("<summary><b>Modules shared by several processes</b> — 1 file"));
    insta::assert_snapshot!(out);
}

#[test]
fn respects_fail_on_and_config_like_other_formats() {
    let (code, _) = retro(
        "fixtures/retrospective/multi",
        "multi",
        // `deliver.js` also discards its shell checks before "Ship?".
        &[
            "--fail-on",
            "error",
            "--ignore",
            "unchecked-breakpoint,unchecked-shell-result",
        ],
    );
    assert_eq!(code, 0);
    let (_, out) = retro(
        "fixtures/retrospective/multi",
        "multi",
        &["--ignore", "unchecked-breakpoint"],
    );
    assert!(!out.contains("unchecked-breakpoint`,"), "{out}");
}

#[test]
fn date_from_source_date_epoch() {
    let dir = tempdir();
    write(dir.path(), "p.js", GOOD_BREAKPOINT);
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_proclint"))
        .args(["check", "p.js", "--format", "retrospective"])
        .env("SOURCE_DATE_EPOCH", "1764460800")
        .current_dir(dir.path())
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(stdout(&o).contains("Date: 2025-11-30 ·"), "{}", stdout(&o));
    let o = proclint_in(
        dir.path(),
        &[
            "check",
            "p.js",
            "--format",
            "retrospective",
            "--date",
            "2026-13-01",
        ],
    );
    assert_eq!(code(&o), 2);
}

/// docs/retrospective.md shows the generator's output for the realistic
/// tree; regenerate with `PROCLINT_UPDATE_DOCS=1 cargo test --test retrospective`.
#[test]
fn docs_page_is_in_sync() {
    let (_, out) = retro("fixtures/realistic", "realistic", &[]);
    let out = out.replace("[VERSION]", env!("CARGO_PKG_VERSION"));
    let path = root().join("docs/retrospective.md");
    let page = std::fs::read_to_string(&path).unwrap_or_default();
    let (begin, end) = (
        "<!-- BEGIN GENERATED EXAMPLE -->\n",
        "<!-- END GENERATED EXAMPLE -->",
    );
    let (Some(b), Some(e)) = (page.find(begin), page.find(end)) else {
        panic!("docs/retrospective.md lacks the generated-example markers");
    };
    let block = format!("~~~~markdown\n{out}~~~~\n");
    let current = &page[b + begin.len()..e];
    if current != block {
        if std::env::var_os("PROCLINT_UPDATE_DOCS").is_some() {
            let updated = format!("{}{}{}", &page[..b + begin.len()], block, &page[e..]);
            std::fs::write(&path, updated).unwrap_or_else(|e| panic!("{e}"));
        } else {
            panic!("docs/retrospective.md is out of date: run PROCLINT_UPDATE_DOCS=1 cargo test --test retrospective");
        }
    }
}

/// A module that reads an undefined name (or does not parse) cannot run: the
/// runtime-correctness criterion fails whatever else the process gets right.
#[test]
fn load_failures_fail_runtime_correctness() {
    for (name, text) in [
        (
            "undefined",
            "export async function process(inputs, ctx) {\n  return { total: totl };\n}\n",
        ),
        (
            "syntax",
            "export async function process(inputs, ctx) {\n  return { total: 1 ;\n}\n",
        ),
    ] {
        let dir = tempdir();
        write(dir.path(), &format!("{name}/p.js"), text);
        let (_, out) = retro_in(dir.path(), name, &[]);
        assert!(
            out.contains("| Runtime correctness | **Fails** | the process cannot run as written"),
            "{name}:\n{out}"
        );
    }
}

/// A task name declared nowhere is `undefined-reference`'s finding, not
/// `invalid-task-invocation`'s: the call still does not receive a task
/// definition, so that rule's praise must not be claimed.
#[test]
fn no_praise_for_a_call_another_rule_reports() {
    let dir = tempdir();
    write(
        dir.path(),
        "typo/p.js",
        "import { defineTask } from '@a5c-ai/babysitter-sdk';\n\
         export const reviewTask = defineTask('review', () => ({ kind: 'agent', title: 'Review', labels: ['review'] }));\n\
         export async function process(inputs, ctx) {\n  await ctx.task(reviewTsk, {});\n  await ctx.task(reviewTask, {});\n}\n",
    );
    let (_, out) = retro_in(dir.path(), "typo", &[]);
    assert!(out.contains("undefined-reference"), "{out}");
    assert!(
        !out.contains("Every `ctx.task` call receives a task definition"),
        "{out}"
    );
}
