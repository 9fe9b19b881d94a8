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
    // The root package.json governs every process beside and below it: the
    // summary names the SDK they all run on once (not every section's
    // Context), and each Dependencies grade reads its finding.
    assert_eq!(
        out.matches("- **SDK** (every process): `@a5c-ai/babysitter-sdk` `~0.3.1`, which admits any 0.3.x ≥ 0.3.1")
            .count(),
        1,
        "{out}"
    );
    assert!(!out.contains("- **SDK**: "), "{out}");
    assert!(!out.contains("no package.json pinning the SDK"), "{out}");
    assert!(!out.contains("| Dependencies | **Not assessed**"), "{out}");
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

/// "What went well" names practices present, with their lines, never a
/// rule that found nothing; a shape repeated twice gets a shared helper.
#[test]
fn praise_names_practices_present_with_their_lines() {
    let dir = tempdir();
    let review_loop = |n: &str| {
        format!(
            "  let passed{n} = false;\n  let tries{n} = 0;\n  while (!passed{n} && tries{n} < 3) {{\n    tries{n}++;\n    const r = await ctx.task(reviewTask, {{}});\n    if (r.passed) {{ passed{n} = true; }}\n    else if (tries{n} >= 3) {{ await ctx.breakpoint({{ question: 'Accept?' }}); passed{n} = true; }}\n    else {{ await ctx.task(fixTask, {{ issues: r.issues }}); }}\n  }}\n"
        )
    };
    let text = format!(
        "import {{ defineTask }} from '@a5c-ai/babysitter-sdk';\n\
         export const reviewTask = defineTask('review', () => ({{ kind: 'agent', title: 'Review', labels: ['review'], agent: {{ prompt: {{ role: 'reviewer who does not trust the implementer report' }}, outputSchema: {{ type: 'object' }} }} }}));\n\
         export const fixTask = defineTask('fix', () => ({{ kind: 'agent', title: 'Fix', labels: ['fix'], agent: {{ prompt: {{ role: 'fixer' }}, outputSchema: {{ type: 'object' }} }} }}));\n\
         export async function process(inputs, ctx) {{\n{}{}}}\n",
        review_loop("A"),
        review_loop("B")
    );
    write(dir.path(), "loop/p.js", &text);
    let (_, out) = retro_in(dir.path(), "loop", &[]);
    assert!(!out.contains("finds nothing"), "{out}");
    assert!(
        out.contains(
            "**Every agent task declares an output schema** (2/2: `loop/p.js:2`, `loop/p.js:3`)"
        ),
        "{out}"
    );
    assert!(
        out.contains("**A dedicated fixer task in the review loop** (2 loops)"),
        "{out}"
    );
    assert!(
        out.contains("`loop/p.js:7` (`reviewTask` → `fixTask`)"),
        "{out}"
    );
    assert!(
        out.contains("(cap at line 7, breakpoint at line 11)"),
        "{out}"
    );
    assert!(out.contains("`loop/p.js:2` (`reviewTask`)"), "{out}");
    assert!(out.contains("**Review gates in sequence**"), "{out}");
    assert!(
        out.contains("**The review → fix loop with a cap and an escalation appears 2 times**: `loop/p.js:7`, `loop/p.js:16`"),
        "{out}"
    );
}

/// Proportion (issue 36): repeated findings are counted, not repeated. Four
/// unchecked breakpoints in one module make one "went poorly" entry naming
/// the four lines and one suggestion with one before/after, and a rule that
/// fires in several modules is summarised once, not under every process.
#[test]
fn repeated_findings_are_counted_not_repeated() {
    let dir = tempdir();
    let mut text = String::from("export async function process(inputs, ctx) {\n");
    for n in 0..4 {
        text.push_str(&format!(
            "  await ctx.breakpoint({{ question: 'Step {n}?', title: 'Step {n}' }});\n"
        ));
    }
    text.push_str("  return { ok: true };\n}\n");
    write(dir.path(), "gates/p.js", &text);
    let (_, out) = retro_in(dir.path(), "gates", &[]);
    let poorly = out
        .split("## What went poorly")
        .nth(1)
        .and_then(|s| s.split("\n## ").next())
        .unwrap_or_default();
    assert_eq!(
        poorly.matches("(`unchecked-breakpoint`").count(),
        1,
        "{out}"
    );
    for line in 2..=5 {
        assert!(poorly.contains(&format!("`gates/p.js:{line}`")), "{out}");
    }
    let suggestions = out.split("## Suggestions").nth(1).unwrap_or_default();
    assert_eq!(suggestions.matches("Before:").count(), 1, "{out}");
    assert_eq!(suggestions.matches("After:").count(), 1, "{out}");
    assert!(
        suggestions.contains("4 findings"),
        "the suggestion counts the findings it stands for:\n{out}"
    );
    for line in 2..=5 {
        assert!(
            suggestions.contains(&format!("`gates/p.js:{line}`")),
            "{out}"
        );
    }
}

/// The module every process builds on is the document's subject (issue 36):
/// the title names it and its section comes first, even when a helper of
/// string builders is imported more often; a file with neither a process
/// nor a finding (the manifest) gets a line in the summary, not a section.
#[test]
fn the_flagship_module_is_the_subject() {
    let dir = tempdir();
    let task = "import { defineTask } from '@a5c-ai/babysitter-sdk';\nimport { note } from './text.js';\nexport const buildTask = defineTask('build', () => ({ kind: 'agent', title: note('Build'), labels: ['build'], agent: { prompt: { role: 'builder' }, outputSchema: { type: 'object' } } }));\nexport async function core(inputs, ctx) {\n  return ctx.task(buildTask, {});\n}\n";
    write(dir.path(), "repo/core.js", task);
    write(
        dir.path(),
        "repo/text.js",
        "export function note(s) {\n  return `${s}.`;\n}\n",
    );
    for name in ["alpha", "beta"] {
        write(
            dir.path(),
            &format!("repo/{name}.js"),
            &format!(
                "import {{ core }} from './core.js';\nimport {{ note }} from './text.js';\n/**\n * @process repo/{name}\n */\nexport async function process(inputs, ctx) {{\n  await core(inputs, ctx);\n  return {{ done: note('{name}') }};\n}}\n"
            ),
        );
    }
    write(
        dir.path(),
        "repo/package.json",
        "{\n  \"name\": \"repo\",\n  \"dependencies\": { \"@a5c-ai/babysitter-sdk\": \"0.0.170\" }\n}\n",
    );
    let (_, out) = retro_in(dir.path(), "repo", &[]);
    assert!(
        out.contains("**Also checked, without findings:** `repo/package.json`."),
        "{out}"
    );
    assert!(!out.contains("<b>Other files</b>"), "{out}");
    let title = out.lines().next().unwrap_or_default();
    assert!(
        title.contains("repo/core.js and the 2 processes built on it"),
        "{out}"
    );
    let first = out
        .lines()
        .find(|l| l.starts_with("<summary>"))
        .unwrap_or_default();
    assert!(
        first.contains("<b>repo/core.js and 1 other module shared by several processes</b>"),
        "{out}"
    );
}
