//! `--write-baseline` / `--baseline`: recording findings, hiding them across
//! unrelated edits, stale entries, option precedence.

mod common;

use std::path::Path;

use common::*;
use serde_json::Value;

const BASELINE: &str = "proclint-baseline.json";

/// A process with one unchecked breakpoint in `process` and one in a phase
/// helper.
const TWO_FINDINGS: &str = "\
export async function reviewPhase(inputs, ctx) {
  await ctx.breakpoint({ question: 'Review ok?' }, { breakpointId: 'review' });
}

export async function process(inputs, ctx) {
  await reviewPhase(inputs, ctx);
  await ctx.breakpoint({ question: 'Ship?' }, { breakpointId: 'ship' });
}
";

/// One unchecked breakpoint (named, so only `unchecked-breakpoint` fires).
const BAD: &str = "export async function process(inputs, ctx) {\n  await ctx.breakpoint({ question: 'Ship?' }, { breakpointId: 'ship' });\n}\n";
const GOOD: &str = "export async function process(inputs, ctx) {\n  const d = await ctx.breakpoint({ question: 'Ship?' }, { breakpointId: 'ship' });\n  return d.approved;\n}\n";

fn json(dir: &Path, args: &[&str]) -> (i32, Value) {
    let mut all = vec!["check", "--format", "json"];
    all.extend_from_slice(args);
    let out = proclint_in(dir, &all);
    let v: Value = serde_json::from_str(&stdout(&out))
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}\n{}", stdout(&out), stderr(&out)));
    (code_of(&out), v)
}

fn rules(report: &Value) -> Vec<String> {
    report["diagnostics"]
        .as_array()
        .into_iter()
        .flatten()
        .map(|d| {
            format!(
                "{}:{}",
                d["path"].as_str().unwrap_or(""),
                d["rule"].as_str().unwrap_or("")
            )
        })
        .collect()
}

fn read(dir: &Path, rel: &str) -> String {
    std::fs::read_to_string(dir.join(rel)).unwrap_or_else(|e| panic!("read {rel}: {e}"))
}

fn entries(dir: &Path, rel: &str) -> Vec<Value> {
    let v: Value = serde_json::from_str(&read(dir, rel)).unwrap_or_else(|e| panic!("{rel}: {e}"));
    assert_eq!(v["version"], 1);
    v["entries"].as_array().cloned().unwrap_or_default()
}

#[test]
fn write_then_apply_is_clean_and_the_file_is_stable() {
    let dir = tempdir();
    write(dir.path(), "process/main.js", TWO_FINDINGS);
    write(dir.path(), "process/other.js", BAD);
    assert_eq!(code_of(&proclint_in(dir.path(), &["check", "."])), 1);

    let out = proclint_in(dir.path(), &["check", ".", "--write-baseline", BASELINE]);
    assert_eq!(code_of(&out), 0, "{}", stderr(&out));
    assert!(stderr(&out).contains("wrote 3 baseline entries to proclint-baseline.json"));
    let first = read(dir.path(), BASELINE);
    let list = entries(dir.path(), BASELINE);
    assert_eq!(list.len(), 3);
    for e in &list {
        let keys: Vec<&String> = e
            .as_object()
            .map(|o| o.keys().collect())
            .unwrap_or_default();
        assert_eq!(keys, ["rule", "path", "fingerprint", "message"]);
        assert_eq!(e["rule"], "unchecked-breakpoint");
    }
    // Sorted by path, one entry per line (a diff shows one line per finding).
    let paths: Vec<&str> = list.iter().filter_map(|e| e["path"].as_str()).collect();
    assert_eq!(
        paths,
        ["process/main.js", "process/main.js", "process/other.js"]
    );
    assert_eq!(first.lines().filter(|l| l.contains("\"rule\"")).count(), 3);
    assert!(!first.contains("\"line\""), "no line numbers in a baseline");

    let (code, report) = json(dir.path(), &[".", "--baseline", BASELINE]);
    assert_eq!(code, 0);
    assert!(rules(&report).is_empty(), "{report}");
    assert_eq!(report["summary"]["errors"], 0);

    // Writing again gives the same bytes (deterministic).
    let out = proclint_in(dir.path(), &["check", ".", "--write-baseline", BASELINE]);
    assert_eq!(code_of(&out), 0);
    assert_eq!(read(dir.path(), BASELINE), first);

    // A new finding is still reported.
    write(
        dir.path(),
        "process/new.js",
        "export async function process(inputs, context) {\n  void context.breakpoint({ question: 'New?' }, { breakpointId: 'new' });\n}\n",
    );
    let (code, report) = json(dir.path(), &[".", "--baseline", BASELINE]);
    assert_eq!(code, 1);
    assert_eq!(rules(&report), ["process/new.js:unchecked-breakpoint"]);
}

fn code_of(o: &std::process::Output) -> i32 {
    code(o)
}

#[test]
fn unrelated_edits_keep_findings_hidden() {
    let dir = tempdir();
    write(dir.path(), "main.js", TWO_FINDINGS);
    assert_eq!(
        code_of(&proclint_in(
            dir.path(),
            &["check", ".", "--write-baseline", BASELINE]
        )),
        0
    );

    // Lines added above, the flagged statement re-indented and re-wrapped,
    // a new helper in between: same findings, same fingerprints.
    let edited = "\
import { defineTask } from '@a5c-ai/babysitter-sdk';

// Phase helpers.
export async function reviewPhase(inputs, ctx) {
  ctx.log('reviewing');
      await ctx.breakpoint(
        { question: 'Review ok?' },
        { breakpointId: 'review' }
      );
}

function unrelated() {
  return 42;
}

export async function process(inputs, ctx) {
  await reviewPhase(inputs, ctx);
  await ctx.breakpoint({ question: 'Ship?' }, { breakpointId: 'ship' });
}
";
    write(dir.path(), "main.js", edited);
    let (code, report) = json(dir.path(), &[".", "--baseline", BASELINE]);
    assert_eq!((code, rules(&report)), (0, vec![]), "{report}");

    // Editing the flagged code itself makes it a new finding (and the old
    // entry stale).
    write(
        dir.path(),
        "main.js",
        &edited.replace("'Ship?'", "'Ship now?'"),
    );
    let (code, report) = json(dir.path(), &[".", "--baseline", BASELINE]);
    assert_eq!(code, 1);
    assert_eq!(
        rules(&report),
        [
            "main.js:unchecked-breakpoint",
            "proclint-baseline.json:baseline-stale"
        ]
    );

    // The same statement moved into another function is a different finding.
    let moved = TWO_FINDINGS.replace(
        "{ question: 'Review ok?' }, { breakpointId: 'review' }",
        "{ question: 'Ship?' }, { breakpointId: 'ship' }",
    );
    write(dir.path(), "main.js", &moved);
    let (code, report) = json(dir.path(), &[".", "--baseline", BASELINE]);
    assert_eq!(code, 1);
    assert_eq!(rules(&report)[0], "main.js:unchecked-breakpoint");
}

#[test]
fn identical_findings_are_counted() {
    let dir = tempdir();
    // Only this rule: the same statement twice also draws notes from others.
    let only = "[rules]\nanonymous-breakpoint = \"off\"\n";
    write(dir.path(), "proclint.toml", only);
    let bp = "  await ctx.breakpoint({ question: 'Ship?' });\n";
    let body = |n: usize| {
        format!(
            "export async function process(inputs, ctx) {{\n{}}}\n",
            bp.repeat(n)
        )
    };
    write(dir.path(), "main.js", &body(2));
    assert_eq!(
        code_of(&proclint_in(
            dir.path(),
            &["check", ".", "--write-baseline", BASELINE]
        )),
        0
    );
    let list = entries(dir.path(), BASELINE);
    assert_eq!(list.len(), 2);
    assert_eq!(list[0]["fingerprint"], list[1]["fingerprint"]);
    write(dir.path(), "main.js", &body(3));
    let (code, report) = json(dir.path(), &[".", "--baseline", BASELINE]);
    assert_eq!(code, 1);
    assert_eq!(rules(&report), ["main.js:unchecked-breakpoint"]);
}

#[test]
fn fixed_findings_are_reported_once_as_stale() {
    let dir = tempdir();
    write(dir.path(), "a.js", TWO_FINDINGS);
    write(dir.path(), "b.js", BAD);
    assert_eq!(
        code_of(&proclint_in(
            dir.path(),
            &["check", ".", "--write-baseline", BASELINE]
        )),
        0
    );
    // Fix two of three (one in a.js, and b.js deleted altogether).
    write(
        dir.path(),
        "a.js",
        &TWO_FINDINGS.replace(
            "  await ctx.breakpoint({ question: 'Ship?' }, { breakpointId: 'ship' });\n",
            "  const d = await ctx.breakpoint({ question: 'Ship?' }, { breakpointId: 'ship' });\n  return d.approved;\n",
        ),
    );
    std::fs::remove_file(dir.path().join("b.js")).unwrap_or_else(|e| panic!("{e}"));
    let (code, report) = json(dir.path(), &[".", "--baseline", BASELINE]);
    assert_eq!(code, 0, "an info note does not fail the default --fail-on");
    let diags = report["diagnostics"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert_eq!(diags.len(), 1, "{report}");
    let d = &diags[0];
    assert_eq!(d["rule"], "baseline-stale");
    assert_eq!(d["severity"], "info");
    assert_eq!(d["path"], BASELINE);
    assert_eq!(
        d["message"],
        "2 baseline entries are fixed; run --write-baseline to prune"
    );
    let help = d["help"].as_str().unwrap_or("");
    assert!(help.contains("a.js") && help.contains("b.js"), "{help}");
    assert_eq!(report["summary"]["infos"], 1);

    // --fail-on info makes a stale baseline fail the gate.
    let (code, _) = json(
        dir.path(),
        &[".", "--baseline", BASELINE, "--fail-on", "info"],
    );
    assert_eq!(code, 1);

    // Rewriting prunes the fixed entries; the note goes away.
    let out = proclint_in(dir.path(), &["check", ".", "--write-baseline", BASELINE]);
    assert!(
        stderr(&out).contains("wrote 1 baseline entry"),
        "{}",
        stderr(&out)
    );
    let (code, report) = json(dir.path(), &[".", "--baseline", BASELINE]);
    assert_eq!((code, rules(&report)), (0, vec![]));

    // The note can be turned off like any rule.
    write(dir.path(), "a.js", GOOD);
    write(
        dir.path(),
        "proclint.toml",
        "[rules]\nbaseline-stale = \"off\"\n",
    );
    let (code, report) = json(dir.path(), &[".", "--baseline", BASELINE]);
    assert_eq!((code, rules(&report)), (0, vec![]));
}

#[test]
fn partial_runs_neither_report_nor_drop_other_entries() {
    let dir = tempdir();
    write(dir.path(), "a.js", BAD);
    write(dir.path(), "b.js", BAD);
    assert_eq!(
        code_of(&proclint_in(
            dir.path(),
            &["check", ".", "--write-baseline", BASELINE]
        )),
        0
    );
    // A pre-commit run over a.js only: b.js's entry is not stale.
    let (code, report) = json(dir.path(), &["a.js", "--baseline", BASELINE]);
    assert_eq!((code, rules(&report)), (0, vec![]));
    // Rewriting from a partial run keeps the entries it could not re-find.
    write(dir.path(), "a.js", GOOD);
    let out = proclint_in(dir.path(), &["check", "a.js", "--write-baseline", BASELINE]);
    assert_eq!(code_of(&out), 0);
    let paths: Vec<String> = entries(dir.path(), BASELINE)
        .iter()
        .filter_map(|e| e["path"].as_str().map(String::from))
        .collect();
    assert_eq!(paths, ["b.js"]);
}

#[test]
fn paths_are_relative_to_the_baseline_file() {
    let dir = tempdir();
    write(dir.path(), "process/a.js", BAD);
    assert_eq!(
        code_of(&proclint_in(
            dir.path(),
            &["check", ".", "--write-baseline", BASELINE]
        )),
        0
    );
    // From a subdirectory, the finding's path is `a.js`, the entry's
    // `process/a.js`: still matched.
    let sub = dir.path().join("process");
    let (code, report) = json(&sub, &[".", "--baseline", "../proclint-baseline.json"]);
    assert_eq!((code, rules(&report)), (0, vec![]), "{report}");
}

#[test]
fn a_baseline_in_config_matches_from_the_top_and_from_a_subdirectory() {
    let dir = tempdir();
    write(dir.path(), "src/a.js", BAD);
    std::fs::create_dir_all(dir.path().join("config")).unwrap_or_else(|e| panic!("{e}"));
    let out = proclint_in(
        dir.path(),
        &["check", ".", "--write-baseline", "config/base.json"],
    );
    assert_eq!(code_of(&out), 0, "{}", stderr(&out));
    let text: Value = serde_json::from_str(&read(dir.path(), "config/base.json"))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(text["root"], "..", "{text}");
    assert_eq!(text["entries"][0]["path"], "../src/a.js", "{text}");
    let src = dir.path().join("src");
    let (code, report) = json(&src, &[".", "--baseline", "../config/base.json"]);
    assert_eq!((code, rules(&report)), (0, vec![]), "{report}");
    // Rewritten from the subdirectory: the same tree, the same file.
    let before = read(dir.path(), "config/base.json");
    let out = proclint_in(
        &src,
        &["check", ".", "--write-baseline", "../config/base.json"],
    );
    assert_eq!(code_of(&out), 0, "{}", stderr(&out));
    assert_eq!(read(dir.path(), "config/base.json"), before);
}

#[test]
fn a_baseline_of_another_tree_is_refused() {
    let dir = tempdir();
    write(dir.path(), "a/p.js", BAD);
    write(dir.path(), "b/q.js", BAD);
    let a = dir.path().join("a");
    let b = dir.path().join("b");
    assert_eq!(
        code_of(&proclint_in(
            &a,
            &["check", ".", "--write-baseline", "base.json"]
        )),
        0
    );
    let before = read(&a, "base.json");
    assert_eq!(entries(&a, "base.json").len(), 1);

    // Rewriting a's baseline from b would mix b's findings into it.
    let out = proclint_in(&b, &["check", ".", "--write-baseline", "../a/base.json"]);
    assert_eq!(code_of(&out), 2, "{}", stderr(&out));
    assert!(
        stderr(&out).contains(
            "baseline ../a/base.json is for the tree at `../a`, and `q.js` is outside it"
        ),
        "{}",
        stderr(&out)
    );
    assert_eq!(read(&a, "base.json"), before, "a's baseline is unchanged");
    // Nor is a new baseline in a written for b's files.
    let out = proclint_in(&b, &["check", ".", "--write-baseline", "../a/new.json"]);
    assert_eq!(code_of(&out), 2, "{}", stderr(&out));
    assert!(!a.join("new.json").exists());

    // Reading it on b is refused too, not silently a no-op.
    let out = proclint_in(&b, &["check", ".", "--baseline", "../a/base.json"]);
    assert_eq!(code_of(&out), 2, "{}", stderr(&out));
    assert!(stderr(&out).contains("--no-baseline"), "{}", stderr(&out));

    // A baseline written before the root was recorded is for the tree it
    // sits in (here, without proclint.toml or .git, its own folder).
    std::fs::write(
        a.join("old.json"),
        "{\n  \"version\": 1,\n  \"entries\": []\n}\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let out = proclint_in(&b, &["check", ".", "--baseline", "../a/old.json"]);
    assert_eq!(code_of(&out), 2, "{}", stderr(&out));
    let (code, _) = json(&a, &[".", "--baseline", "old.json"]);
    assert_eq!(code, 1, "a's finding is not in the old, empty baseline");
}

#[test]
fn option_precedence() {
    let dir = tempdir();
    write(dir.path(), "a.js", BAD);
    assert_eq!(
        code_of(&proclint_in(
            dir.path(),
            &["check", ".", "--write-baseline", BASELINE]
        )),
        0
    );
    let empty = "{\n  \"version\": 1,\n  \"entries\": []\n}\n";
    write(dir.path(), "empty.json", empty);

    // `baseline` in proclint.toml applies without a flag...
    write(
        dir.path(),
        "proclint.toml",
        &format!("baseline = \"{BASELINE}\"\n"),
    );
    let (code, report) = json(dir.path(), &["."]);
    assert_eq!((code, rules(&report)), (0, vec![]));
    // ...`--baseline FILE` replaces it...
    let (code, report) = json(dir.path(), &[".", "--baseline", "empty.json"]);
    assert_eq!(
        (code, rules(&report)),
        (1, vec!["a.js:unchecked-breakpoint".to_string()])
    );
    // ...and `--no-baseline` or `--no-config` turn it off.
    let (code, _) = json(dir.path(), &[".", "--no-baseline"]);
    assert_eq!(code, 1);
    let (code, _) = json(dir.path(), &[".", "--no-config"]);
    assert_eq!(code, 1);
    let out = proclint_in(
        dir.path(),
        &["check", ".", "--no-baseline", "--baseline", BASELINE],
    );
    assert_eq!(code_of(&out), 2, "the two flags conflict");

    // A config in a subdirectory names its baseline relative to itself.
    write(
        dir.path(),
        "ci/proclint.toml",
        "baseline = \"../proclint-baseline.json\"\n",
    );
    let (code, report) = json(dir.path(), &[".", "--config", "ci/proclint.toml"]);
    assert_eq!((code, rules(&report)), (0, vec![]));

    // --write-baseline wins over --baseline: it records what is there now.
    let out = proclint_in(
        dir.path(),
        &[
            "check",
            ".",
            "--baseline",
            "empty.json",
            "--write-baseline",
            "new.json",
        ],
    );
    assert_eq!(code_of(&out), 0);
    assert_eq!(entries(dir.path(), "new.json").len(), 1);
    assert_eq!(
        read(dir.path(), "empty.json"),
        empty,
        "--baseline is not written"
    );

    // --ignore / --select: entries of rules that did not run are not stale.
    std::fs::remove_file(dir.path().join("proclint.toml")).unwrap_or_else(|e| panic!("{e}"));
    write(dir.path(), "a.js", GOOD);
    let (code, report) = json(
        dir.path(),
        &[
            ".",
            "--baseline",
            BASELINE,
            "--ignore",
            "unchecked-breakpoint",
        ],
    );
    assert_eq!((code, rules(&report)), (0, vec![]));
    let (code, report) = json(
        dir.path(),
        &[".", "--baseline", BASELINE, "--select", "missing-labels"],
    );
    assert_eq!((code, rules(&report)), (0, vec![]));
    let (_, report) = json(dir.path(), &[".", "--baseline", BASELINE]);
    assert_eq!(rules(&report), ["proclint-baseline.json:baseline-stale"]);
}

#[test]
fn bad_baseline_files_are_usage_errors() {
    let dir = tempdir();
    write(dir.path(), "a.js", BAD);
    let out = proclint_in(dir.path(), &["check", ".", "--baseline", "missing.json"]);
    assert_eq!(code_of(&out), 2);
    assert!(stderr(&out).contains("missing.json"), "{}", stderr(&out));
    write(dir.path(), "bad.json", "{ not json");
    assert_eq!(
        code_of(&proclint_in(
            dir.path(),
            &["check", ".", "--baseline", "bad.json"]
        )),
        2
    );
    write(dir.path(), "v2.json", "{\"version\":2,\"entries\":[]}");
    let out = proclint_in(dir.path(), &["check", ".", "--baseline", "v2.json"]);
    assert_eq!(code_of(&out), 2);
    assert!(
        stderr(&out).contains("unsupported version 2"),
        "{}",
        stderr(&out)
    );
    // SARIF still reports the error through the exit code.
    let out = proclint_in(
        dir.path(),
        &["check", ".", "--format", "sarif", "--baseline", "bad.json"],
    );
    assert_eq!(code_of(&out), 2);
}

#[test]
fn cross_module_findings_can_be_baselined() {
    let dir = tempdir();
    let src = common::root().join("fixtures/unused-output-field/multi");
    for entry in std::fs::read_dir(&src).unwrap_or_else(|e| panic!("{e}")) {
        let entry = entry.unwrap_or_else(|e| panic!("{e}"));
        let name = entry.file_name();
        std::fs::copy(entry.path(), dir.path().join(&name)).unwrap_or_else(|e| panic!("{e}"));
    }
    let (code, report) = json(dir.path(), &["."]);
    assert_eq!(code, 1);
    assert!(rules(&report)
        .iter()
        .any(|r| r.ends_with(":unused-output-field")));
    assert_eq!(
        code_of(&proclint_in(
            dir.path(),
            &["check", ".", "--write-baseline", BASELINE]
        )),
        0
    );
    let (code, report) = json(dir.path(), &[".", "--baseline", BASELINE]);
    assert_eq!((code, rules(&report)), (0, vec![]));
}
