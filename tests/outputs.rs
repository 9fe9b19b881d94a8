//! Issue 18: every output well-formed and sized for where it goes —
//! `--statistics`, `--quiet`, `--min-severity`, a closed pipe, and the notes
//! that say when nothing was checked. End to end through the binary; JSON
//! and SARIF are parsed, never matched as text.

mod common;

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

use common::*;

/// Three breakpoint results dropped (warnings by the config below).
const THREE_DROPPED: &str = "export async function process(inputs, ctx) {\n  await ctx.breakpoint({ question: 'Ship?', label: 'ship' });\n  await ctx.breakpoint({ question: 'Merge?', label: 'merge' });\n  await ctx.breakpoint({ question: 'Tag?', label: 'tag' });\n}\n";
/// A parse error (always an error).
const BROKEN: &str = "export async function process(inputs, ctx) {\n  await ctx.breakpoint(\n";

/// A project with three warnings (one rule) and one error (another rule).
fn mixed() -> tempfile::TempDir {
    let dir = tempdir();
    write(dir.path(), "a.js", THREE_DROPPED);
    write(dir.path(), "broken.js", BROKEN);
    write(
        dir.path(),
        "proclint.toml",
        "[rules]\nunchecked-breakpoint = \"warning\"\n",
    );
    dir
}

fn json(text: &str) -> serde_json::Value {
    serde_json::from_str(text).unwrap_or_else(|e| panic!("not JSON ({e}):\n{text}"))
}

#[test]
fn statistics_never_enter_a_json_or_sarif_document() {
    let dir = mixed();
    for format in ["json", "sarif"] {
        let o = proclint_in(
            dir.path(),
            &[
                "check",
                "a.js",
                "broken.js",
                "--format",
                format,
                "--statistics",
            ],
        );
        assert_eq!(code(&o), 1, "{}", stderr(&o));
        json(&stdout(&o));
        assert!(
            stderr(&o).contains("    3  unchecked-breakpoint"),
            "{}",
            stderr(&o)
        );
        // The same through `--output`: the file parses, the counts are on stderr.
        let out = dir.path().join(format!("report.{format}"));
        let o = proclint_in(
            dir.path(),
            &[
                "check",
                "a.js",
                "broken.js",
                "--format",
                format,
                "--statistics",
                "-o",
                out.to_str().unwrap_or_default(),
            ],
        );
        assert_eq!(code(&o), 1, "{}", stderr(&o));
        json(&std::fs::read_to_string(&out).unwrap_or_default());
        assert!(stderr(&o).contains("total: 1 error, 3 warnings"));
    }
    // GitHub workflow commands stay alone on stdout too.
    let o = proclint_in(
        dir.path(),
        &[
            "check",
            "a.js",
            "broken.js",
            "--format",
            "github",
            "--statistics",
        ],
    );
    assert!(
        stdout(&o).lines().all(|l| l.starts_with("::")),
        "{}",
        stdout(&o)
    );
}

#[test]
fn statistics_alone_print_only_the_counts_most_frequent_first_with_the_total() {
    let dir = mixed();
    let o = proclint_in(dir.path(), &["check", "a.js", "broken.js", "--statistics"]);
    assert_eq!(code(&o), 1);
    let lines: Vec<String> = stdout(&o).lines().map(str::to_string).collect();
    assert_eq!(
        lines,
        [
            "    3  unchecked-breakpoint  warning",
            "    1  parse-error           error",
            "    4  total: 1 error, 3 warnings and 0 infos in 2 files",
        ],
        "{}",
        stdout(&o)
    );
    // After a text report they follow it.
    let o = proclint_in(
        dir.path(),
        &[
            "check",
            "a.js",
            "broken.js",
            "--format",
            "concise",
            "--statistics",
        ],
    );
    let out = stdout(&o);
    assert!(out.starts_with("a.js:2:"), "{out}");
    assert!(out.ends_with("    4  total: 1 error, 3 warnings and 0 infos in 2 files\n"));
}

#[test]
fn min_severity_filters_every_format_and_the_exit_code_follows_what_is_shown() {
    let dir = mixed();
    let o = proclint_in(
        dir.path(),
        &[
            "check",
            "a.js",
            "--format",
            "json",
            "--min-severity",
            "error",
        ],
    );
    // Only warnings, all hidden: nothing reported, nothing fails.
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let v = json(&stdout(&o));
    assert_eq!(v["diagnostics"].as_array().map(Vec::len), Some(0));
    assert_eq!(v["summary"]["warnings"], 0);
    for format in ["json", "sarif", "github", "concise", "pretty"] {
        let o = proclint_in(
            dir.path(),
            &[
                "check",
                "a.js",
                "broken.js",
                "--format",
                format,
                "--min-severity",
                "error",
            ],
        );
        assert_eq!(code(&o), 1, "{format}: {}", stderr(&o));
        let out = stdout(&o);
        if format == "sarif" {
            // The rule table lists every rule; the results are filtered.
            let v = json(&out);
            let results = v["runs"][0]["results"]
                .as_array()
                .cloned()
                .unwrap_or_default();
            assert_eq!(results.len(), 1, "{out}");
            assert_eq!(results[0]["ruleId"], "parse-error");
        } else {
            assert!(!out.contains("unchecked-breakpoint"), "{format}: {out}");
            assert!(out.contains("parse-error"), "{format}: {out}");
        }
    }
    // `info` keeps everything.
    let o = proclint_in(
        dir.path(),
        &[
            "check",
            "a.js",
            "--format",
            "json",
            "--min-severity",
            "info",
        ],
    );
    assert_eq!(
        json(&stdout(&o))["diagnostics"].as_array().map(Vec::len),
        Some(3)
    );
}

#[test]
fn quiet_prints_only_findings() {
    let dir = mixed();
    let o = proclint_in(
        dir.path(),
        &["check", "a.js", "--format", "concise", "--quiet"],
    );
    assert_eq!(stdout(&o).lines().count(), 3, "{}", stdout(&o));
    assert!(stdout(&o).lines().all(|l| l.starts_with("a.js:")));
    assert_eq!(stderr(&o), "");
    // Not even the note that nothing was checked.
    std::fs::create_dir_all(dir.path().join("empty")).unwrap_or_default();
    let o = proclint_in(dir.path(), &["check", "empty", "--quiet"]);
    assert_eq!((stdout(&o).as_str(), stderr(&o).as_str()), ("", ""));
}

#[test]
fn a_closed_pipe_ends_the_run_quietly() {
    let dir = tempdir();
    // Far more output than a pipe buffer holds, so proclint is still writing
    // when the reader goes away.
    let mut text = String::from("export async function process(inputs, ctx) {\n");
    for i in 0..4000 {
        text.push_str(&format!(
            "  await ctx.breakpoint({{ question: 'Ship {i}?', label: 'ship-{i}' }});\n"
        ));
    }
    text.push_str("}\n");
    write(dir.path(), "many.js", &text);
    for args in [
        &["check", "many.js", "--format", "concise", "--no-cache"][..],
        &["check", "many.js", "--format", "json", "--no-cache"][..],
    ] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_proclint"))
            .args(args)
            .current_dir(dir.path())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("spawn: {e}"));
        let stdout = child.stdout.take().unwrap_or_else(|| panic!("no stdout"));
        let mut first = String::new();
        BufReader::new(stdout)
            .read_line(&mut first)
            .unwrap_or_default();
        // `head -1`: one line read, then the pipe is closed.
        let o = child
            .wait_with_output()
            .unwrap_or_else(|e| panic!("wait: {e}"));
        assert!(!first.is_empty());
        assert_eq!(stderr(&o), "", "{args:?}");
        // The findings' status, not 2 (an error in proclint) or a panic.
        assert_eq!(o.status.code(), Some(1), "{args:?}");
    }
}

#[test]
fn a_check_that_checks_nothing_says_so() {
    let dir = tempdir();
    std::fs::create_dir_all(dir.path().join("empty")).unwrap_or_default();
    let o = proclint_in(dir.path(), &["check", "empty"]);
    assert_eq!(code(&o), 0);
    assert!(
        stderr(&o).contains("no process module, SKILL.md or package.json found under `empty`"),
        "{}",
        stderr(&o)
    );
    write(dir.path(), "a.js", THREE_DROPPED);
    let o = proclint_in(
        dir.path(),
        &["check", "a.js", "--select", "journal-integrity"],
    );
    assert_eq!(code(&o), 0);
    assert!(
        stderr(&o).contains(
            "`journal-integrity` only checks a recorded run and reports nothing without `--run`"
        ),
        "{}",
        stderr(&o)
    );
    // A normal check says neither.
    let o = proclint_in(dir.path(), &["check", "a.js"]);
    assert_eq!(stderr(&o), "");
}

#[test]
fn an_output_error_names_the_path() {
    let dir = tempdir();
    write(dir.path(), "a.js", THREE_DROPPED);
    let o = proclint_in(
        dir.path(),
        &["check", "a.js", "-o", "no/such/dir/report.json"],
    );
    assert_eq!(code(&o), 2);
    assert!(
        stderr(&o).contains("no/such/dir/report.json"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn github_annotations_put_errors_first_one_per_rule_before_repeats_and_the_step_summary_has_them_all(
) {
    let dir = tempdir();
    write(
        dir.path(),
        "a.js",
        "export async function process(inputs, ctx) {\n  // proclint-disable-next-line missing-labels -- nothing here\n  const x = 1;\n  await ctx.breakpoint({ question: 'A?', label: 'a' });\n  await ctx.breakpoint({ question: 'B?', label: 'b' });\n  await ctx.breakpoint({ question: 'C?', label: 'c' });\n}\n",
    );
    write(dir.path(), "y.js", BROKEN);
    write(dir.path(), "z.js", BROKEN);
    let summary = dir.path().join("summary.md");
    std::fs::write(&summary, "earlier step\n").unwrap_or_default();
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_proclint"))
        .args(["check", ".", "--format", "github"])
        .current_dir(dir.path())
        .env("GITHUB_STEP_SUMMARY", &summary)
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    // (level, title, file:line) of each annotation, in order.
    let annotations: Vec<(String, String, String)> = stdout(&o)
        .lines()
        .map(|l| {
            let (head, _) = l
                .split_once("::")
                .map(|(_, r)| r)
                .and_then(|r| r.split_once("::"))
                .unwrap_or_default();
            let (level, props) = head.split_once(' ').unwrap_or_default();
            let prop = |k: &str| {
                props
                    .split(',')
                    .find_map(|p| p.strip_prefix(&format!("{k}=")))
                    .unwrap_or_default()
                    .to_string()
            };
            (
                level.to_string(),
                prop("title"),
                format!("{}:{}", prop("file"), prop("line")),
            )
        })
        .collect();
    let expected = [
        ("error", "unchecked-breakpoint", "a.js:4"),
        ("error", "parse-error", "y.js:3"),
        ("error", "unchecked-breakpoint", "a.js:5"),
        ("error", "parse-error", "z.js:3"),
        ("error", "unchecked-breakpoint", "a.js:6"),
        ("warning", "unused-suppression", "a.js:2"),
    ];
    assert_eq!(
        annotations,
        expected
            .iter()
            .map(|(a, b, c)| (a.to_string(), b.to_string(), c.to_string()))
            .collect::<Vec<_>>()
    );
    // The summary is appended to (earlier steps' text stays) and is a
    // Markdown table with one row per finding.
    let text = std::fs::read_to_string(&summary).unwrap_or_default();
    assert!(text.starts_with("earlier step\n## proclint\n"), "{text}");
    let rows: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("| ") && !l.starts_with("| Severity"))
        .collect();
    assert_eq!(rows.len(), 6, "{text}");
    assert!(rows[0].starts_with("| error |"));
    assert!(rows[5].starts_with("| warning | `unused-suppression` | `a.js:2` |"));
    // Without the variable nothing is written anywhere else.
    let o = proclint_in(dir.path(), &["check", ".", "--format", "github"]);
    assert_eq!(stderr(&o), "");
}

#[test]
fn loops_are_named_as_a_reader_would_and_code_is_cut_between_tokens() {
    let dir = tempdir();
    write(
        dir.path(),
        "p.js",
        "import { defineTask } from '@a5c-ai/babysitter-sdk';\nexport const checkTask = defineTask('check', () => ({ kind: 'shell', title: 'check', labels: ['c'], shell: { command: 'npm test' } }));\nexport async function process(inputs, ctx) {\n  for (let attempt = 1; attempt <= inputs.maximumNumberOfAttemptsAllowed; attempt++) {\n    await ctx.task(checkTask, {});\n  }\n  do {\n    await ctx.task(checkTask, {});\n  } while (inputs.again);\n}\n",
    );
    let o = proclint_in(dir.path(), &["check", "p.js", "--format", "json"]);
    let v = json(&stdout(&o));
    let messages: Vec<String> = v["diagnostics"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .iter()
        .map(|d| d["message"].as_str().unwrap_or_default().to_string())
        .collect();
    let all = messages.join("\n");
    // The long header keeps its keyword and parentheses, cut between tokens.
    assert!(
        all.contains("the `for (let attempt = 1; attempt <=…)` loop"),
        "{all}"
    );
    // A `do` loop is named by its condition, not as `do`.
    assert!(
        all.contains("the `do … while (inputs.again)` loop)"),
        "{all}"
    );
    assert!(
        all.contains("`do … while (inputs.again)` dispatches effects"),
        "{all}"
    );
    assert!(!all.contains("`do` loop"), "{all}");
}

#[test]
fn a_pretty_snippet_shows_a_few_lines_of_a_long_span() {
    let dir = tempdir();
    let mut text = String::from(
        "import { defineTask } from '@a5c-ai/babysitter-sdk';\n\nexport const big = defineTask('big', {\n",
    );
    for i in 0..40 {
        text.push_str(&format!("  field{i}: {i},\n"));
    }
    text.push_str("});\n");
    write(dir.path(), "big.js", &text);
    let o = proclint_in(
        dir.path(),
        &["check", "big.js", "--format", "pretty", "--color", "never"],
    );
    let out = stdout(&o);
    assert!(out.contains("invalid-task-definition"), "{out}");
    // Source lines are drawn as `NN │ …`: the span starts on line 3, so at
    // most its first three lines and one line of context either side.
    let shown: Vec<u32> = out
        .lines()
        .filter_map(|l| l.trim_start().split_once(" │")?.0.trim().parse().ok())
        .collect();
    assert!(!shown.is_empty(), "{out}");
    assert!(
        shown.iter().all(|&n| (2..=6).contains(&n)),
        "{shown:?}\n{out}"
    );
}

#[test]
fn same_line_suppressions() {
    let dir = tempdir();
    write(
        dir.path(),
        "a.js",
        "export async function process(inputs, ctx) {\n  await ctx.breakpoint({ question: 'Ship?', label: 'ship' }); // proclint-disable-line unchecked-breakpoint -- recorded by the gate\n  await ctx.breakpoint({ question: 'Tag?', label: 'tag' });\n  const x = 1; // proclint-disable-line missing-labels -- nothing here\n}\n",
    );
    let o = proclint_in(dir.path(), &["check", "a.js", "--format", "json"]);
    let v = json(&stdout(&o));
    let found: Vec<(String, u64)> = v["diagnostics"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .iter()
        .map(|d| {
            (
                d["rule"].as_str().unwrap_or_default().to_string(),
                d["line"].as_u64().unwrap_or_default(),
            )
        })
        .collect();
    // Line 2 is suppressed, line 3 is not, and the directive on line 4
    // suppresses nothing.
    assert_eq!(
        found,
        [
            ("unchecked-breakpoint".to_string(), 3),
            ("unused-suppression".to_string(), 4)
        ],
        "{v}"
    );
}

#[test]
fn check_dash_reads_stdin() {
    let dir = tempdir();
    let run = |args: &[&str]| {
        let mut child = Command::new(env!("CARGO_BIN_EXE_proclint"))
            .args(args)
            .current_dir(dir.path())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap_or_else(|e| panic!("{e}"));
        if let Some(mut stdin) = child.stdin.take() {
            std::io::Write::write_all(&mut stdin, THREE_DROPPED.as_bytes()).unwrap_or_default();
        }
        child.wait_with_output().unwrap_or_else(|e| panic!("{e}"))
    };
    let o = run(&["check", "-", "--format", "json"]);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    let v = json(&stdout(&o));
    let paths: Vec<&str> = v["diagnostics"]
        .as_array()
        .map(|a| a.iter().filter_map(|d| d["path"].as_str()).collect())
        .unwrap_or_default();
    assert_eq!(paths, ["stdin.js", "stdin.js", "stdin.js"]);
    let o = run(&[
        "check",
        "-",
        "--stdin-filename",
        "src/flow.js",
        "--format",
        "json",
    ]);
    let v = json(&stdout(&o));
    assert_eq!(v["diagnostics"][0]["path"], "src/flow.js");
}

#[test]
fn run_never_swallows_a_following_path() {
    // `--run fixtures/runs/retro` is a path to check (not a run folder):
    // it is checked, with the default run (the most recent failed one).
    let o = proclint(&["check", "--run", "fixtures/runs/retro", "--format", "json"]);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    let v = json(&stdout(&o));
    let rules: Vec<&str> = v["diagnostics"]
        .as_array()
        .map(|a| a.iter().filter_map(|d| d["rule"].as_str()).collect())
        .unwrap_or_default();
    assert!(rules.contains(&"non-convergent-loop"), "{v}");
    assert!(
        v["summary"]["files"].as_u64().unwrap_or_default() >= 3,
        "{v}"
    );
    // A run folder after `--run` is still the run.
    let o = proclint(&[
        "check",
        "--run",
        "fixtures/runs/retro/.a5c/runs/retro-shipped",
        "fixtures/runs/retro",
        "--format",
        "json",
    ]);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert!(!stdout(&o).contains("non-convergent-loop"));
}

#[test]
fn every_config_error_is_reported_in_one_run() {
    let dir = tempdir();
    write(dir.path(), "a.js", THREE_DROPPED);
    write(
        dir.path(),
        "proclint.toml",
        "extend-select = [\"pedantc\"]\ncache-dir = \"\"\n[rules]\nunchecked-breakpont = \"error\"\nmissing-labels = \"loud\"\n",
    );
    let o = proclint_in(dir.path(), &["check", "a.js"]);
    assert_eq!(code(&o), 2);
    let err = stderr(&o);
    for part in [
        "`pedantc`",
        "`cache-dir` must not be empty",
        "unknown rule `unchecked-breakpont`",
        "loud",
    ] {
        assert!(err.contains(part), "missing {part}:\n{err}");
    }
    // The command line too.
    let o = proclint_in(
        dir.path(),
        &["check", "a.js", "--no-config", "--select", "nope1,nope2"],
    );
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("`nope1`") && stderr(&o).contains("`nope2`"));
}

#[test]
fn quiet_fix_prints_no_notes() {
    let dir = tempdir();
    write(dir.path(), "t.js", FIXABLE_TASK);
    let o = proclint_in(
        dir.path(),
        &["check", "t.js", "--fix", "--quiet", "--format", "concise"],
    );
    assert!(!stderr(&o).contains("proclint: fixed"), "{}", stderr(&o));
    let o = proclint_in(
        dir.path(),
        &["check", "t.js", "--fix", "--format", "concise"],
    );
    assert!(stderr(&o).contains("proclint: fixed"), "{}", stderr(&o));
}

/// Issue 35: a task defined in one file and used in another — the finding's
/// related location in the other file is a one-line note, not a snippet.
const TASKS_JS: &str = "import { defineTask } from '@a5c-ai/babysitter-sdk';\n\nexport const buildTask = defineTask('build', (args, taskCtx) => ({\n  kind: 'agent',\n  title: 'Build',\n  agent: {\n    name: 'builder',\n    prompt: { role: 'engineer', task: 'Build it', instructions: ['build'], outputFormat: 'JSON' },\n    outputSchema: {\n      type: 'object',\n      properties: {\n        ok: { type: 'boolean' },\n        size: { type: 'number' },\n        attempts: { type: 'number' }\n      }\n    }\n  },\n  io: { inputJsonPath: `tasks/${taskCtx.effectId}/input.json`, outputJsonPath: `tasks/${taskCtx.effectId}/result.json` }\n}));\n";
const MAIN_JS: &str = "import { buildTask } from './tasks.js';\n\nexport async function process(inputs, ctx) {\n  const result = await ctx.task(buildTask, { dir: inputs.dir });\n  if (!result.ok) {\n    throw new Error('build failed');\n  }\n  await ctx.breakpoint({ question: 'Ship?', title: 'ship' });\n  return { ok: true };\n}\n";

/// `check .` in `dir`, pretty and uncoloured, without the cache.
fn pretty_in(dir: &std::path::Path) -> std::process::Output {
    proclint_in(
        dir,
        &[
            "check",
            ".",
            "--format",
            "pretty",
            "--color",
            "never",
            "--no-cache",
        ],
    )
}

#[test]
fn pretty_output_is_a_few_lines_per_finding_with_related_locations_as_notes() {
    let dir = tempdir();
    write(dir.path(), "tasks.js", TASKS_JS);
    write(dir.path(), "main.js", MAIN_JS);
    let o = pretty_in(dir.path());
    let out = stdout(&o);
    let findings = out.matches("unused-output-field").count()
        + out.matches("unchecked-breakpoint").count()
        + out.matches("missing-labels").count();
    assert!(findings >= 3, "{out}");
    let lines = out.lines().count();
    // Three findings and the summary.
    assert!(lines <= 3 * 8 + 1, "{lines} lines:\n{out}");
    // The result bound in main.js is named on one line under the finding
    // in tasks.js, with no snippet of main.js.
    assert!(
        out.lines()
            .any(|l| l.trim_start() == "= note: the result is bound here at main.js:4"),
        "{out}"
    );
    assert!(!out.contains("[main.js:4"), "{out}");
}

#[test]
fn the_pretty_summary_names_what_is_fixable_and_when_many_how_to_narrow() {
    let dir = tempdir();
    write(dir.path(), "main.js", MAIN_JS);
    let o = pretty_in(dir.path());
    let out = stdout(&o);
    let tail: Vec<&str> = out.lines().rev().take(1).collect();
    assert!(
        tail[0].starts_with("proclint: 1 error, 0 warnings and 0 infos in 1 file")
            && tail[0].ends_with("1 fixable with `--fix --unsafe-fixes`"),
        "{out}"
    );
    assert!(!out.contains("--statistics"), "{out}");

    // Sixty dropped breakpoints: the summary ends with where to go next.
    let mut many = String::from("export async function process(inputs, ctx) {\n");
    for i in 0..60 {
        many.push_str(&format!(
            "  await ctx.breakpoint({{ question: 'Ship {i}?', title: 'ship-{i}' }});\n"
        ));
    }
    many.push_str("}\n");
    write(dir.path(), "many.js", &many);
    let o = pretty_in(dir.path());
    let out = stdout(&o);
    let last = out.lines().last().unwrap_or_default();
    for flag in ["--statistics", "--select", "--ignore", "--write-baseline"] {
        assert!(last.contains(flag), "{flag} not in {last:?}\n{out}");
    }
    let summary = out.lines().rev().nth(1).unwrap_or_default();
    assert!(summary.starts_with("proclint: 61 errors"), "{summary}");
    assert!(summary.contains("61 fixable"), "{summary}");
}

/// Issue 35: a rule whose findings differ in severity is counted by each.
#[test]
fn statistics_count_a_rule_by_each_severity_it_reported() {
    let dir = tempdir();
    write(
        dir.path(),
        "m.js",
        "import { defineTask } from '@a5c-ai/babysitter-sdk';\n\n\
export const dup = defineTask('dup', () => ({ kind: 'shell', title: 'a', shell: { command: 'true' }, labels: ['a'] }));\n\
export const dup2 = defineTask('dup', () => ({ kind: 'shell', title: 'b', shell: { command: 'true' }, labels: ['a'] }));\n\n\
export async function process(inputs, ctx) {\n  const t = defineTask('inner', () => ({ kind: 'shell', title: 'x', shell: { command: 'true' }, labels: ['a'] }));\n\
  const r = await ctx.task(t, {});\n  const s = await ctx.task(dup, {});\n  return { r, s };\n}\n",
    );
    let o = proclint_in(dir.path(), &["check", ".", "--statistics", "--no-cache"]);
    let out = stdout(&o);
    assert!(
        out.lines()
            .any(|l| l.trim_start().starts_with("3  invalid-task-definition")
                && l.trim_end().ends_with("2 errors, 1 warning")),
        "{out}"
    );
}

/// Issue 35: `--select unused-suppression` runs the rules the suppressions
/// name (else none could be judged) and reports only unused suppressions.
#[test]
fn select_unused_suppression_judges_suppressions_of_the_configured_rules() {
    let dir = tempdir();
    write(
        dir.path(),
        "a.js",
        "export async function process(inputs, ctx) {\n  // proclint-disable-next-line missing-labels\n\
  await ctx.breakpoint({ question: 'Ship?', title: 'ship' });\n  return {};\n}\n",
    );
    let o = proclint_in(
        dir.path(),
        &[
            "check",
            "a.js",
            "--select",
            "unused-suppression",
            "--format",
            "concise",
            "--no-cache",
        ],
    );
    let out = stdout(&o);
    let rules: Vec<&str> = out
        .lines()
        .filter_map(|l| l.split_once('[')?.1.split_once(']').map(|(r, _)| r))
        .collect();
    assert_eq!(rules, ["unused-suppression"], "{out}");
    assert!(!stderr(&o).contains("turned off"), "{}", stderr(&o));
}
