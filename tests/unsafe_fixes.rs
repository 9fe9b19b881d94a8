//! Fix applicability as in ruff (issue 34, items 1 and 4): `--fix` applies
//! the safe fixes, `--fix --unsafe-fixes` (or `unsafe-fixes = true`) the
//! unsafe ones too, `--diff` shows what the same flags would apply; the
//! summary counts what is fixable, and JSON and SARIF carry every fix.

mod common;

use common::*;

/// One safe fix (`missing-labels`: labels moved into the definition) and
/// one unsafe one (`missing-stable-key`: a key per call changes how replay
/// matches the call's records; the `continue` makes the SDK's count drift
/// from the pass, so the call is reported).
const MODULE: &str = "import { defineTask } from '@a5c-ai/babysitter-sdk';

export const reviewTask = defineTask('review', (args) => ({
  kind: 'agent',
  title: 'Review',
}), {
  labels: ['review'],
});

export async function process(inputs, ctx) {
  for (let file = 0; file < 3; file++) {
    if (inputs.skip === file) continue;
    await ctx.task(reviewTask, { file });
  }
  return { ok: true };
}
";

const SAFE_LINE: &str = "  kind: 'agent',\n  labels: ['review'],";
const UNSAFE_TEXT: &str = "{ key: `review-${file}` }";

fn project(config: Option<&str>) -> tempfile::TempDir {
    let dir = tempdir();
    write(dir.path(), "p.js", MODULE);
    if let Some(c) = config {
        write(dir.path(), "proclint.toml", c);
    }
    dir
}

fn read(dir: &tempfile::TempDir) -> String {
    std::fs::read_to_string(dir.path().join("p.js")).unwrap_or_default()
}

#[test]
fn fix_applies_only_safe_fixes_and_unsafe_fixes_adds_the_others() {
    let dir = project(None);
    let o = proclint_in(dir.path(), &["check", ".", "--fix", "--no-cache"]);
    let text = read(&dir);
    assert!(text.contains(SAFE_LINE), "{text}");
    assert!(!text.contains("key:"), "{text}");
    let err = stderr(&o);
    assert!(err.contains("fixed 1 findings in 1 files"), "{err}");
    // What remains is the unsafe one, and the summary says how to apply it.
    let out = stdout(&o);
    assert!(
        out.contains("1 fixable with `--fix --unsafe-fixes`"),
        "{out}"
    );

    let dir = project(None);
    let o = proclint_in(
        dir.path(),
        &["check", ".", "--fix", "--unsafe-fixes", "--no-cache"],
    );
    let text = read(&dir);
    assert!(text.contains(SAFE_LINE), "{text}");
    assert!(text.contains(UNSAFE_TEXT), "{text}");
    assert!(
        stderr(&o).contains("fixed 2 findings in 1 files"),
        "{}",
        stderr(&o)
    );
    assert_eq!(code(&o), 0, "{}{}", stdout(&o), stderr(&o));
    // A second run changes nothing.
    let o = proclint_in(
        dir.path(),
        &[
            "check",
            ".",
            "--fix",
            "--unsafe-fixes",
            "--diff",
            "--no-cache",
        ],
    );
    assert_eq!((code(&o), stdout(&o).as_str()), (0, ""));
}

#[test]
fn diff_shows_what_the_same_flags_would_apply() {
    let dir = project(None);
    let o = proclint_in(dir.path(), &["check", ".", "--fix", "--diff", "--no-cache"]);
    assert_eq!(code(&o), 1);
    let diff = stdout(&o);
    assert!(diff.contains("+  labels: ['review'],"), "{diff}");
    assert!(!diff.contains("key:"), "{diff}");
    assert!(
        stderr(&o).contains("1 fix available in 1 file (nothing written)"),
        "{}",
        stderr(&o)
    );
    let o = proclint_in(
        dir.path(),
        &[
            "check",
            ".",
            "--fix",
            "--diff",
            "--unsafe-fixes",
            "--no-cache",
        ],
    );
    let diff = stdout(&o);
    assert!(diff.contains("+  labels: ['review'],"), "{diff}");
    assert!(diff.contains(UNSAFE_TEXT), "{diff}");
    assert_eq!(read(&dir), MODULE, "--diff wrote the file");
}

#[test]
fn unsafe_fixes_in_the_config_and_its_override() {
    let dir = project(Some("unsafe-fixes = true\n"));
    let o = proclint_in(dir.path(), &["check", ".", "--fix", "--diff", "--no-cache"]);
    assert!(stdout(&o).contains(UNSAFE_TEXT), "{}", stdout(&o));
    let o = proclint_in(
        dir.path(),
        &[
            "check",
            ".",
            "--fix",
            "--diff",
            "--no-unsafe-fixes",
            "--no-cache",
        ],
    );
    assert!(!stdout(&o).contains(UNSAFE_TEXT), "{}", stdout(&o));
    assert!(
        stdout(&o).contains("+  labels: ['review'],"),
        "{}",
        stdout(&o)
    );

    let dir = project(Some("unsafe-fixes = \"yes\"\n"));
    let o = proclint_in(dir.path(), &["check", ".", "--no-cache"]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
}

#[test]
fn extend_safe_and_unsafe_fixes_change_a_rules_applicability() {
    let dir = project(Some(
        "extend-safe-fixes = [\"missing-stable-key\"]\nextend-unsafe-fixes = [\"missing-labels\"]\n",
    ));
    let o = proclint_in(dir.path(), &["check", ".", "--fix", "--diff", "--no-cache"]);
    let diff = stdout(&o);
    assert!(diff.contains(UNSAFE_TEXT), "{diff}");
    assert!(!diff.contains("+  labels: ['review'],"), "{diff}");
    let o = proclint_in(
        dir.path(),
        &["check", ".", "--format", "json", "--no-cache"],
    );
    let v = report_json(&o);
    let applicability = |rule: &str| {
        v["diagnostics"]
            .as_array()
            .into_iter()
            .flatten()
            .find(|d| d["rule"] == rule)
            .map(|d| d["fix"]["applicability"].clone())
    };
    assert_eq!(applicability("missing-stable-key"), Some("safe".into()));
    assert_eq!(applicability("missing-labels"), Some("unsafe".into()));

    // A rule id beats a category; an unknown name is an error.
    let dir = project(Some(
        "extend-unsafe-fixes = [\"all\"]\nextend-safe-fixes = [\"missing-labels\"]\n",
    ));
    let o = proclint_in(dir.path(), &["check", ".", "--fix", "--diff", "--no-cache"]);
    let diff = stdout(&o);
    assert!(diff.contains("+  labels: ['review'],"), "{diff}");
    assert!(!diff.contains(UNSAFE_TEXT), "{diff}");
    let dir = project(Some("extend-safe-fixes = [\"missing-lables\"]\n"));
    let o = proclint_in(dir.path(), &["check", ".", "--no-cache"]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("missing-labels"), "{}", stderr(&o));
}

#[test]
fn the_summary_counts_what_is_fixable_and_findings_are_marked() {
    let dir = project(None);
    for format in ["concise", "pretty"] {
        let o = proclint_in(
            dir.path(),
            &["check", ".", "--format", format, "--no-cache"],
        );
        let out = stdout(&o);
        let last = out.lines().last().unwrap_or_default();
        assert!(
            last.ends_with("1 fixable with `--fix` (1 more with `--unsafe-fixes`)"),
            "{format}: {out}"
        );
        let o = proclint_in(
            dir.path(),
            &[
                "check",
                ".",
                "--format",
                format,
                "--no-cache",
                "--unsafe-fixes",
            ],
        );
        let out = stdout(&o);
        let last = out.lines().last().unwrap_or_default();
        assert!(last.ends_with("2 fixable with `--fix`"), "{format}: {out}");
    }
    // Concise marks the findings `--fix` would fix, as ruff does.
    let o = proclint_in(
        dir.path(),
        &["check", ".", "--format", "concise", "--no-cache"],
    );
    let out = stdout(&o);
    assert!(out.contains("warning[missing-labels] [*] task"), "{out}");
    assert!(
        out.contains("warning[missing-stable-key] `ctx.task"),
        "{out}"
    );
    let o = proclint_in(
        dir.path(),
        &[
            "check",
            ".",
            "--format",
            "concise",
            "--no-cache",
            "--unsafe-fixes",
        ],
    );
    assert!(
        stdout(&o).contains("warning[missing-stable-key] [*] `ctx.task"),
        "{}",
        stdout(&o)
    );
    // Nothing fixable: the line is as it was.
    let clean = tempdir();
    write(
        clean.path(),
        "p.js",
        "export async function process(inputs, ctx) {\n  return {};\n}\n",
    );
    let o = proclint_in(
        clean.path(),
        &["check", ".", "--format", "concise", "--no-cache"],
    );
    assert!(!stdout(&o).contains("fixable"), "{}", stdout(&o));
}

#[test]
fn json_carries_each_fix_with_positions() {
    let dir = project(None);
    let o = proclint_in(
        dir.path(),
        &["check", ".", "--format", "json", "--no-cache"],
    );
    let v = report_json(&o);
    let diags = v["diagnostics"].as_array().cloned().unwrap_or_default();
    let labels = diags
        .iter()
        .find(|d| d["rule"] == "missing-labels")
        .cloned()
        .unwrap_or_default();
    let fix = &labels["fix"];
    assert_eq!(fix["applicability"], "safe", "{labels}");
    assert!(fix["description"].as_str().is_some_and(|s| !s.is_empty()));
    let edits = fix["edits"].as_array().cloned().unwrap_or_default();
    assert!(!edits.is_empty(), "{fix}");
    // Applying the edits by position gives what `--fix` writes.
    let fixed = apply_by_position(MODULE, &edits);
    let written = project(None);
    proclint_in(written.path(), &["check", ".", "--fix", "--no-cache"]);
    assert_eq!(fixed, read(&written));

    let key = diags
        .iter()
        .find(|d| d["rule"] == "missing-stable-key")
        .cloned()
        .unwrap_or_default();
    assert_eq!(key["fix"]["applicability"], "unsafe", "{key}");
    let edits = key["fix"]["edits"].as_array().cloned().unwrap_or_default();
    assert!(apply_by_position(MODULE, &edits).contains(UNSAFE_TEXT));
    // A finding without a fix says so.
    let clean = tempdir();
    write(
        clean.path(),
        "p.js",
        "export async function process(inputs, ctx) {\n  await ctx.breakpoint({ question: 'Ship?' });\n}\n",
    );
    let v = report_json(&proclint_in(
        clean.path(),
        &[
            "check",
            ".",
            "--format",
            "json",
            "--no-cache",
            "--select",
            "anonymous-breakpoint",
        ],
    ));
    for d in v["diagnostics"].as_array().into_iter().flatten() {
        assert!(d["fix"].is_null(), "{d}");
    }
}

/// Applies JSON edits (1-based lines, 1-based UTF-16 columns; the module is
/// ASCII, so columns are bytes) from the last to the first.
fn apply_by_position(text: &str, edits: &[serde_json::Value]) -> String {
    let starts: Vec<usize> = std::iter::once(0)
        .chain(text.match_indices('\n').map(|(i, _)| i + 1))
        .collect();
    let offset = |line: &serde_json::Value, column: &serde_json::Value| {
        let line = line.as_u64().unwrap_or(0) as usize;
        let column = column.as_u64().unwrap_or(0) as usize;
        starts[line - 1] + column - 1
    };
    let mut spans: Vec<(usize, usize, String)> = edits
        .iter()
        .map(|e| {
            (
                offset(&e["line"], &e["column"]),
                offset(&e["end_line"], &e["end_column"]),
                e["replacement"].as_str().unwrap_or_default().to_string(),
            )
        })
        .collect();
    spans.sort();
    let mut out = text.to_string();
    for (start, end, replacement) in spans.into_iter().rev() {
        out.replace_range(start..end, &replacement);
    }
    out
}

#[test]
fn sarif_carries_fixes_and_validates() {
    let dir = project(None);
    let o = proclint_in(
        dir.path(),
        &["check", ".", "--format", "sarif", "--no-cache"],
    );
    let out = stdout(&o);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap_or_default();
    let results = v["runs"][0]["results"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let with_fix: Vec<_> = results
        .iter()
        .filter(|r| r.get("fixes").is_some())
        .collect();
    assert_eq!(with_fix.len(), 2, "{out}");
    let labels = results
        .iter()
        .find(|r| r["ruleId"] == "missing-labels")
        .cloned()
        .unwrap_or_default();
    let fix = &labels["fixes"][0];
    assert!(fix["description"]["text"]
        .as_str()
        .is_some_and(|s| !s.is_empty()));
    let change = &fix["artifactChanges"][0];
    assert_eq!(change["artifactLocation"]["uri"], "p.js");
    let replacements = change["replacements"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert!(!replacements.is_empty());
    for r in &replacements {
        assert!(r["deletedRegion"]["startLine"].as_u64().is_some(), "{r}");
        assert!(r["insertedContent"]["text"].is_string(), "{r}");
    }
    assert_eq!(fix["properties"]["applicability"], "safe");
    let schema_text = std::fs::read_to_string(root().join("tests/data/sarif-schema-2.1.0.json"))
        .unwrap_or_else(|e| panic!("{e}"));
    let schema: serde_json::Value =
        serde_json::from_str(&schema_text).unwrap_or_else(|e| panic!("{e}"));
    let validator = jsonschema::validator_for(&schema).unwrap_or_else(|e| panic!("{e}"));
    let errors: Vec<String> = validator
        .iter_errors(&v)
        .map(|e| format!("{e} at {}", e.instance_path))
        .collect();
    assert!(errors.is_empty(), "{}", errors.join("\n"));
}

#[test]
fn rules_lists_whether_each_rule_fixes() {
    let o = proclint(&["rules"]);
    let out = stdout(&o);
    let header = out.lines().next().unwrap_or_default();
    assert!(header.contains("FIX"), "{header}");
    let row = |id: &str| {
        out.lines()
            .find(|l| l.starts_with(&format!("{id} ")))
            .unwrap_or_default()
            .to_string()
    };
    assert!(row("missing-labels").contains("sometimes"), "{out}");
    assert!(row("colliding-effect-key").contains("never"), "{out}");
    let v: serde_json::Value =
        serde_json::from_str(&stdout(&proclint(&["rules", "--format", "json"])))
            .unwrap_or_default();
    let fix_of = |id: &str| {
        v.as_array()
            .into_iter()
            .flatten()
            .find(|r| r["id"] == id)
            .map(|r| r["fix"].clone())
    };
    assert_eq!(fix_of("missing-stable-key"), Some("sometimes".into()));
    assert_eq!(fix_of("parse-error"), Some("never".into()));
    // `explain` says what the fix does.
    let o = proclint(&["explain", "missing-stable-key"]);
    assert!(stdout(&o).contains("**Fix:** unsafe"), "{}", stdout(&o));
}

/// A buffer linted from stdin has its fixes placed in the buffer, not in
/// the file on disk at its name (here an older, shorter version).
#[test]
fn json_places_the_fixes_of_a_stdin_buffer_in_the_buffer() {
    let dir = tempdir();
    write(
        dir.path(),
        "p.js",
        "export async function process(inputs, ctx) {}\n",
    );
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_proclint"))
        .args([
            "check",
            "--stdin-filename",
            "p.js",
            "--format",
            "json",
            "--no-cache",
        ])
        .current_dir(dir.path())
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("{e}"));
    if let Some(mut stdin) = child.stdin.take() {
        use std::io::Write;
        stdin
            .write_all(MODULE.as_bytes())
            .unwrap_or_else(|e| panic!("{e}"));
    }
    let o = child.wait_with_output().unwrap_or_else(|e| panic!("{e}"));
    let v = report_json(&o);
    let edits: Vec<serde_json::Value> = v["diagnostics"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|d| d["fix"]["edits"].as_array().cloned())
        .flatten()
        .collect();
    assert_eq!(edits.len(), 3, "{v}");
    let fixed = apply_by_position(MODULE, &edits);
    assert!(
        fixed.contains(SAFE_LINE) && fixed.contains(UNSAFE_TEXT),
        "{fixed}"
    );
}
