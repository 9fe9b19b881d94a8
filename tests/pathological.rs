//! Pathological inputs (issue 10, point 2): each is a test that the run
//! neither crashes nor hangs, reports the documented note, keeps exact
//! positions, and still lints every other file.

mod common;

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use common::*;
use proclint::engine::discover::{Candidate, FileKind};
use proclint::engine::{self, Stage};
use proclint::project::config::Config;

/// Runs proclint with a deadline: a hang fails the test instead of the suite.
fn run_with_deadline(dir: &Path, args: &[&str], stdin: Option<&Path>) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_proclint"));
    cmd.args(args)
        .current_dir(dir)
        .env("RAYON_NUM_THREADS", "2")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    match stdin {
        Some(p) => {
            let f = std::fs::File::open(p).unwrap_or_else(|e| panic!("{e}"));
            cmd.stdin(f);
        }
        None => {
            cmd.stdin(Stdio::null());
        }
    }
    let child = cmd
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run proclint: {e}"));
    wait_with_deadline(child, &format!("{args:?}"), 120)
}

/// (rule, path, line, column) of every diagnostic.
fn found(v: &serde_json::Value) -> Vec<(String, String, u64, u64)> {
    findings(v)
        .into_iter()
        .map(|(rule, path, line, column, _)| (rule, path, line, column))
        .collect()
}

fn has(v: &serde_json::Value, rule: &str, path: &str) -> bool {
    found(v).iter().any(|(r, p, _, _)| r == rule && p == path)
}

const HEAD: &str = "export async function process(inputs, ctx) {\n  await ctx.breakpoint({});\n";

fn nested(open: &str, close: &str, n: usize) -> String {
    format!("{}1{}", open.repeat(n), close.repeat(n))
}

/// 100,000-deep arrays, parentheses, callbacks, objects, blocks, `if`
/// chains and binary chains: no stack overflow, a `depth-limit` note, and
/// the breakpoint above the deep code is still found — through the walk,
/// through `--stdin-filename` (the main-thread path), and through the
/// library on a test thread's small stack.
#[test]
fn hundred_thousand_deep_nesting() {
    const N: usize = 100_000;
    let cases = [
        (
            "arrays.js",
            format!("  const a = {};\n}}\n", nested("[", "]", N)),
        ),
        (
            "parens.js",
            format!("  const a = {};\n}}\n", nested("(", ")", N)),
        ),
        (
            "callbacks.js",
            format!("  {};\n}}\n", nested("f(() => ", ")", N)),
        ),
        (
            "objects.js",
            format!("  const o = {};\n}}\n", nested("{a: ", "}", N)),
        ),
        (
            "blocks.js",
            format!("  {}\n}}\n", "{".repeat(N) + &"}".repeat(N)),
        ),
        ("ifs.js", format!("  {}y();\n}}\n", "if (x) ".repeat(N))),
        (
            "binary.js",
            format!("  const s = a{};\n}}\n", " + a".repeat(N)),
        ),
    ];
    let dir = tempdir();
    for (name, body) in &cases {
        write(dir.path(), name, &format!("{HEAD}{body}"));
    }
    let o = run_with_deadline(
        dir.path(),
        &["check", ".", "--format", "json", "--no-cache"],
        None,
    );
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    let v = report_json(&o);
    for (name, _) in &cases {
        assert!(
            has(&v, "unchecked-breakpoint", name),
            "{name}: {:?}",
            found(&v)
        );
        assert!(has(&v, "depth-limit", name), "{name}: {:?}", found(&v));
    }
    assert!(!found(&v).iter().any(|f| f.0 == "internal-error"));

    for (name, _) in &cases[..3] {
        let path = dir.path().join(name);
        let o = run_with_deadline(
            dir.path(),
            &[
                "check",
                "--stdin-filename",
                name,
                "--format",
                "json",
                "--no-cache",
            ],
            Some(&path),
        );
        assert_eq!(code(&o), 1, "{name}: {}", stderr(&o));
        let v = report_json(&o);
        assert!(has(&v, "depth-limit", name), "{name}: {:?}", found(&v));
    }

    // The library entry points run on their own big-stack pool, so a
    // caller's 2 MiB thread is enough.
    let (name, text) = &cases[2];
    let diags = std::thread::Builder::new()
        .stack_size(2 * 1024 * 1024)
        .spawn({
            let text = format!("{HEAD}{text}");
            let name = name.to_string();
            move || engine::lint_text(&name, FileKind::Process, text, &Config::default())
        })
        .unwrap_or_else(|e| panic!("{e}"))
        .join()
        .unwrap_or_else(|_| panic!("lint_text overflowed or panicked"));
    assert!(diags.iter().any(|d| d.rule == "depth-limit"), "{diags:?}");
}

/// A 50 MB minified file is skipped above max-file-size (never read into
/// memory whole), walked or named, and the other files are linted.
#[test]
fn fifty_megabyte_minified_file_is_skipped() {
    let dir = tempdir();
    let line = "defineTask('t',function(a,b){return{kind:'agent',title:'x'}});var q=[1,2,3];";
    let big = line.repeat(50 * 1024 * 1024 / line.len() + 1);
    write(dir.path(), "bundle.min.js", &big);
    write(dir.path(), "bad.js", BAD_BREAKPOINT);
    for args in [
        &["check", ".", "--format", "json", "--no-cache"][..],
        &[
            "check",
            "bundle.min.js",
            "bad.js",
            "--format",
            "json",
            "--no-cache",
        ][..],
    ] {
        let o = run_with_deadline(dir.path(), args, None);
        assert_eq!(code(&o), 1, "{}", stderr(&o));
        let v = report_json(&o);
        assert!(has(&v, "skipped-file", "bundle.min.js"), "{:?}", found(&v));
        assert!(has(&v, "unchecked-breakpoint", "bad.js"), "{:?}", found(&v));
        assert!(
            !found(&v)
                .iter()
                .any(|f| f.1 == "bundle.min.js" && f.0 != "skipped-file"),
            "{:?}",
            found(&v)
        );
    }
}

/// Files of NUL bytes, of every kind, walked and named.
#[test]
fn files_of_nul_bytes_are_skipped() {
    let dir = tempdir();
    let nul = vec![0u8; 4096];
    for name in ["nul.js", "skill/SKILL.md", "pkg/package.json"] {
        let p = dir.path().join(name);
        if let Some(parent) = p.parent() {
            std::fs::create_dir_all(parent).unwrap_or_else(|e| panic!("{e}"));
        }
        std::fs::write(&p, &nul).unwrap_or_else(|e| panic!("{e}"));
    }
    write(dir.path(), "bad.js", BAD_BREAKPOINT);
    let o = run_with_deadline(
        dir.path(),
        &["check", ".", "nul.js", "--format", "json", "--no-cache"],
        None,
    );
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    let v = report_json(&o);
    for name in ["nul.js", "skill/SKILL.md", "pkg/package.json"] {
        assert!(has(&v, "skipped-file", name), "{name}: {:?}", found(&v));
    }
    assert!(has(&v, "unchecked-breakpoint", "bad.js"));
}

/// Invalid UTF-8 in the middle of a string literal: a `parse-error` note at
/// the bad byte, and a finding later on the same line keeps its exact
/// column in JSON and SARIF (each bad byte counts as one column).
#[test]
fn invalid_utf8_inside_a_string_literal() {
    let dir = tempdir();
    let bytes = b"export async function process(i, ctx) { const s = 'a\xff\xfe\xc3b'; await ctx.breakpoint({}); }\n";
    std::fs::write(dir.path().join("u.js"), bytes).unwrap_or_else(|e| panic!("{e}"));
    let o = run_with_deadline(
        dir.path(),
        &["check", "u.js", "--format", "json", "--no-cache"],
        None,
    );
    let v = report_json(&o);
    let f = found(&v);
    // `export … { const s = 'a` is 52 characters: the first bad byte is 53.
    assert!(
        f.contains(&("parse-error".into(), "u.js".into(), 1, 53)),
        "{f:?}"
    );
    // `… 'a???b'; await ` is 65 characters (one per bad byte): the call is 66.
    assert!(
        f.contains(&("unchecked-breakpoint".into(), "u.js".into(), 1, 66)),
        "{f:?}"
    );
    let o = run_with_deadline(
        dir.path(),
        &["check", "u.js", "--format", "sarif", "--no-cache"],
        None,
    );
    let regions = sarif_regions(&report_json(&o));
    assert!(
        regions
            .iter()
            .any(|r| r.0 == "unchecked-breakpoint" && r.1 == (1, 66)),
        "{regions:?}"
    );
}

/// (rule, (startLine, startColumn), (endLine, endColumn)) of SARIF results.
type Region = (String, (u64, u64), (u64, u64));

fn sarif_regions(v: &serde_json::Value) -> Vec<Region> {
    let mut out = Vec::new();
    for r in v["runs"][0]["results"]
        .as_array()
        .cloned()
        .unwrap_or_default()
    {
        let reg = &r["locations"][0]["physicalLocation"]["region"];
        let n = |k: &str| reg[k].as_u64().unwrap_or(0);
        out.push((
            r["ruleId"].as_str().unwrap_or("").to_string(),
            (n("startLine"), n("startColumn")),
            (n("endLine"), n("endColumn")),
        ));
    }
    out
}

/// CRLF and lone-CR line endings, a BOM and tabs: the same positions in
/// JSON, SARIF regions and GitHub annotations; a suppression comment works
/// on every line-ending style.
#[test]
fn line_endings_bom_and_tabs_keep_positions() {
    let body =
        "export async function process(inputs, ctx) {\n\tawait ctx.breakpoint({ q: 'é😀' });\n}\n";
    let suppressed = "export async function process(inputs, ctx) {\n  // proclint-disable-next-line unchecked-breakpoint -- test\n  await ctx.breakpoint({});\n}\n";
    let dir = tempdir();
    let d = dir.path();
    write(d, "lf.js", body);
    write(d, "crlf.js", &body.replace('\n', "\r\n"));
    write(d, "cr.js", &body.replace('\n', "\r"));
    write(d, "bom.js", &format!("\u{feff}{body}"));
    write(d, "s-crlf.js", &suppressed.replace('\n', "\r\n"));
    write(d, "s-cr.js", &suppressed.replace('\n', "\r"));
    // On the first line, after a BOM: the BOM is not a column.
    write(
        d,
        "bom1.js",
        "\u{feff}export async function process(i, ctx) { await ctx.breakpoint({}); }\n",
    );
    // One rule, so the suppressed files' other findings do not count.
    let o = run_with_deadline(
        d,
        &[
            "check",
            ".",
            "--format",
            "json",
            "--no-cache",
            "--select",
            "unchecked-breakpoint",
        ],
        None,
    );
    let v = report_json(&o);
    let diags = v["diagnostics"].as_array().cloned().unwrap_or_default();
    // Tab = one column; `ctx.breakpoint({ q: 'é😀' })` ends 2 + 30 units later
    // (😀 is two UTF-16 code units).
    for name in ["lf.js", "crlf.js", "cr.js", "bom.js"] {
        let d = diags
            .iter()
            .find(|x| x["path"] == name)
            .unwrap_or_else(|| panic!("{name}: {diags:?}"));
        assert_eq!(
            (&d["line"], &d["column"], &d["end_line"], &d["end_column"]),
            (&2.into(), &8.into(), &2.into(), &36.into()),
            "{name}: {d}"
        );
    }
    let bom1 = diags
        .iter()
        .find(|x| x["path"] == "bom1.js")
        .cloned()
        .unwrap_or_default();
    assert_eq!(
        (&bom1["line"], &bom1["column"]),
        (&1.into(), &47.into()),
        "{bom1}"
    );
    assert!(
        !diags
            .iter()
            .any(|x| x["path"] == "s-crlf.js" || x["path"] == "s-cr.js"),
        "suppressions on CRLF/CR files: {diags:?}"
    );

    let o = run_with_deadline(
        d,
        &[
            "check",
            ".",
            "--format",
            "sarif",
            "--no-cache",
            "--select",
            "unchecked-breakpoint",
        ],
        None,
    );
    let regions = sarif_regions(&report_json(&o));
    assert_eq!(regions.len(), 5, "{regions:?}");
    for r in &regions {
        let expected = if r.1 .0 == 1 {
            ((1, 47), (1, 65))
        } else {
            ((2, 8), (2, 36))
        };
        assert_eq!((r.1, r.2), expected, "{r:?}");
    }

    let o = run_with_deadline(d, &["check", ".", "--format", "github", "--no-cache"], None);
    let out = stdout(&o);
    for name in ["lf.js", "crlf.js", "cr.js", "bom.js"] {
        assert!(
            out.contains(&format!("file={name},line=2,col=8,endLine=2,endColumn=36,")),
            "{name}: {out}"
        );
    }
}

/// Symlink loops (file and directory) are neither followed forever nor
/// fatal: walked ones are skipped, a named one is an `io-error`.
#[cfg(unix)]
#[test]
fn symlink_loops() {
    let dir = tempdir();
    let d = dir.path();
    write(d, "bad.js", BAD_BREAKPOINT);
    std::os::unix::fs::symlink("b.js", d.join("a.js")).unwrap_or_else(|e| panic!("{e}"));
    std::os::unix::fs::symlink("a.js", d.join("b.js")).unwrap_or_else(|e| panic!("{e}"));
    std::os::unix::fs::symlink(".", d.join("loop")).unwrap_or_else(|e| panic!("{e}"));
    let o = run_with_deadline(d, &["check", ".", "--format", "json", "--no-cache"], None);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    let v = report_json(&o);
    assert_eq!(found(&v).len(), 1, "{:?}", found(&v));
    assert!(has(&v, "unchecked-breakpoint", "bad.js"));

    let o = run_with_deadline(
        d,
        &["check", "a.js", "bad.js", "--format", "json", "--no-cache"],
        None,
    );
    let v = report_json(&o);
    assert!(has(&v, "io-error", "a.js"), "{:?}", found(&v));
    assert!(has(&v, "unchecked-breakpoint", "bad.js"));
}

/// A FIFO is never opened: walked ones (under every linted name) are
/// skipped, a named one is an `io-error`, and the run does not hang.
#[cfg(unix)]
#[test]
fn fifos_do_not_hang() {
    let dir = tempdir();
    let d = dir.path();
    write(d, "bad.js", BAD_BREAKPOINT);
    std::fs::create_dir_all(d.join("s")).unwrap_or_else(|e| panic!("{e}"));
    for name in ["fifo.js", "s/SKILL.md", "package.json"] {
        let st = Command::new("mkfifo")
            .arg(d.join(name))
            .status()
            .unwrap_or_else(|e| panic!("mkfifo: {e}"));
        assert!(st.success());
    }
    let o = run_with_deadline(d, &["check", ".", "--format", "json", "--no-cache"], None);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    let v = report_json(&o);
    assert!(has(&v, "unchecked-breakpoint", "bad.js"));
    assert_eq!(found(&v).len(), 1, "{:?}", found(&v));

    let o = run_with_deadline(
        d,
        &[
            "check",
            "fifo.js",
            "bad.js",
            "--format",
            "json",
            "--no-cache",
        ],
        None,
    );
    let v = report_json(&o);
    assert!(has(&v, "io-error", "fifo.js"), "{:?}", found(&v));
    assert!(has(&v, "unchecked-breakpoint", "bad.js"));

    // A file that became a FIFO after discovery: checked before reading.
    let c = Candidate {
        path: d.join("fifo.js"),
        display: "fifo.js".into(),
        kind: FileKind::Process,
        explicit: true,
    };
    let out = engine::lint_candidate(&c, &Config::default(), Stage::Full, true);
    let diags = out.map(|o| o.diagnostics).unwrap_or_default();
    assert!(
        diags
            .iter()
            .any(|d| d.rule == "io-error" && d.message.contains("not a regular file")),
        "{diags:?}"
    );
}

/// A file removed between discovery and reading is an `io-error` note on
/// that file; nothing else is affected.
#[test]
fn file_removed_between_discovery_and_read() {
    let dir = tempdir();
    let c = Candidate {
        path: dir.path().join("gone.js"),
        display: "gone.js".into(),
        kind: FileKind::Process,
        explicit: false,
    };
    let out = engine::lint_candidate(&c, &Config::default(), Stage::Full, true);
    let diags = out.map(|o| o.diagnostics).unwrap_or_default();
    assert_eq!(diags.len(), 1, "{diags:?}");
    assert_eq!(diags[0].rule, "io-error");
    assert_eq!(&*diags[0].location.path, "gone.js");
}

/// An unreadable directory. As root, permissions do not stop reading, so
/// the same failure is simulated by a directory that vanishes before the
/// walk (what a concurrent `rm -rf` does).
#[test]
fn unreadable_or_vanished_directory() {
    let dir = tempdir();
    let d = dir.path();
    write(d, "bad.js", BAD_BREAKPOINT);
    write(d, "locked/p.js", BAD_BREAKPOINT);
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let locked = d.join("locked");
        let _ = std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o000));
        let readable = std::fs::read_dir(&locked).is_ok();
        let o = run_with_deadline(d, &["check", ".", "--format", "json", "--no-cache"], None);
        let _ = std::fs::set_permissions(&locked, std::fs::Permissions::from_mode(0o755));
        let v = report_json(&o);
        assert!(has(&v, "unchecked-breakpoint", "bad.js"), "{:?}", found(&v));
        if !readable {
            assert!(
                found(&v).iter().any(|f| f.0 == "io-error"),
                "{:?}",
                found(&v)
            );
        }
    }
    let gone = d.join("vanished");
    let outcome = engine::run(&[gone, d.join("bad.js")], &Config::default(), Stage::Full);
    let rules: Vec<(&str, &str)> = outcome
        .diagnostics
        .iter()
        .map(|x| (x.rule, &*x.location.path))
        .collect();
    assert!(
        rules
            .iter()
            .any(|(r, p)| *r == "io-error" && p.ends_with("vanished")),
        "{rules:?}"
    );
    assert!(
        rules.iter().any(|(r, _)| *r == "unchecked-breakpoint"),
        "{rules:?}"
    );
}

/// Every kind of configuration error: exit 2, nothing on stdout, and a
/// `path:line:col: message` on stderr pointing at the offending place.
#[test]
fn every_kind_of_config_error() {
    let cases: &[(&[u8], &str)] = &[
        (b"exclude = [\n", "proclint.toml:1:12: unclosed array"),
        (b"colour = true\n", "proclint.toml:1:1: unknown field `colour`"),
        (b"[rules]\nunchecked-brekpoint = \"error\"\n", "proclint.toml:2:1: unknown rule `unchecked-brekpoint` (did you mean `unchecked-breakpoint`?)"),
        (b"[rules]\nunchecked-breakpoint = \"loud\"\n", "proclint.toml:2:24: invalid severity `loud`"),
        (b"[rules]\nunchecked-breakpoint = 3\n", "proclint.toml:2:24: expected a severity string or a table"),
        (b"[rules]\nunchecked-breakpoint = { severity = 1 }\n", "proclint.toml:2:26: `severity` must be a string"),
        (b"[rules]\nunchecked-breakpoint = { colour = 1 }\n", "proclint.toml:2:26: unknown option `colour` for rule `unchecked-breakpoint`"),
        (b"exclude = [\"[\"]\n", "proclint.toml:1:12: invalid glob"),
        (b"include = 3\n", "proclint.toml:1:11: "),
        (b"max-file-size = \"big\"\n", "proclint.toml:1:17: "),
        (b"max-file-size = -1\n", "proclint.toml:1:17: "),
        (b"context-names = [1]\n", "proclint.toml:1:18: "),
        (b"cache-dir = \"\"\n", "proclint.toml:1:13: `cache-dir` must not be empty"),
        (b"exclude = []\nexclude = []\n", "proclint.toml:2:1: "),
        (b"[rules]\n[rules]\n", "proclint.toml:2:"),
        (b"exclude = [\"\xff\"]\n", "proclint.toml: cannot read"),
    ];
    for (text, expected) in cases {
        let dir = tempdir();
        std::fs::write(dir.path().join("proclint.toml"), text).unwrap_or_else(|e| panic!("{e}"));
        write(dir.path(), "good.js", GOOD_BREAKPOINT);
        let o = run_with_deadline(dir.path(), &["check", ".", "--no-cache"], None);
        let what = String::from_utf8_lossy(text);
        assert_eq!(code(&o), 2, "{what}: {}", stderr(&o));
        assert_eq!(stdout(&o), "", "{what}");
        let err = stderr(&o);
        assert!(
            err.contains(expected),
            "{what}: expected `{expected}` in `{err}`"
        );
    }
    // A config given with --config that does not exist, or is a directory.
    let dir = tempdir();
    write(dir.path(), "good.js", GOOD_BREAKPOINT);
    for path in ["missing.toml", "."] {
        let o = run_with_deadline(dir.path(), &["check", ".", "--config", path], None);
        assert_eq!(code(&o), 2, "{path}: {}", stderr(&o));
        assert!(stderr(&o).contains("cannot read"), "{path}: {}", stderr(&o));
    }
}

/// A result handed round phase modules that each reassign it as
/// `report = { ...report, note }`: every pass wrapped it in one more layer,
/// so the cross-module result walk made a new state per path through the
/// phases — minutes for eight modules (the generated benchmark corpus hung).
#[test]
fn results_reassigned_with_spreads_across_modules_stay_linear() {
    const PHASES: usize = 8;
    let dir = tempdir();
    let d = dir.path();
    let mut tasks = String::from("import { defineTask } from '@a5c-ai/babysitter-sdk';\n");
    for i in 0..=PHASES {
        tasks.push_str(&format!(
            "export const t{i} = defineTask('t{i}', (args) => ({{ kind: 'agent', labels: ['x'], \
             agent: {{ name: 'a', prompt: {{ task: 'x' }}, outputSchema: {{ type: 'object', \
             properties: {{ done: {{ type: 'boolean' }}, note: {{ type: 'string' }} }} }} }} }}));\n"
        ));
    }
    write(d, "tasks.js", &tasks);
    let import = |i: usize| format!("import {{ phase{i} }} from './phase{i}.js';\n");
    let mut process = String::from("import { t0 } from './tasks.js';\n");
    let mut body = String::from("  let report = await ctx.task(t0, {});\n");
    for i in 0..PHASES {
        process.push_str(&import(i));
        body.push_str(&format!(
            "  report = await phase{i}(inputs, ctx, report);\n  report = {{ ...report, note: 'p{i}' }};\n"
        ));
    }
    process.push_str(&format!(
        "export async function process(inputs, ctx) {{\n{body}  return report;\n}}\n"
    ));
    write(d, "process.js", &process);
    for i in 0..PHASES {
        let mut phase = format!("import {{ t{} }} from './tasks.js';\n", i + 1);
        let mut calls = String::new();
        for j in (0..PHASES).filter(|j| *j != i) {
            phase.push_str(&import(j));
            calls.push_str(&format!(
                "  if (inputs.k{j}) report = await phase{j}(inputs, ctx, report);\n"
            ));
        }
        phase.push_str(&format!(
            "export async function phase{i}(inputs, ctx, report) {{\n  const r = await ctx.task(t{}, {{ report }});\n  if (r.done) return report;\n{}{calls}  return report;\n}}\n",
            i + 1,
            "  report = { ...report, note: 'n' };\n".repeat(10)
        ));
        write(d, &format!("phase{i}.js"), &phase);
    }
    let start = std::time::Instant::now();
    let o = run_with_deadline(d, &["check", ".", "--no-cache", "--format", "json"], None);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    let v = report_json(&o);
    // `done` is read in every phase; `note` is only ever written.
    assert!(has(&v, "unused-output-field", "tasks.js"), "{v}");
    assert!(
        !stdout(&o).contains("`done`"),
        "a read of `done` was missed: {}",
        stdout(&o)
    );
    assert!(
        start.elapsed() < Duration::from_secs(20),
        "took {:?}",
        start.elapsed()
    );
}

/// "Did you mean" compares an undefined name with the module's bindings:
/// twenty thousand of each compared pairwise took about a minute. A typo
/// among them still gets its guess.
#[test]
fn thousands_of_undefined_names_and_bindings() {
    const N: usize = 20_000;
    let dir = tempdir();
    let d = dir.path();
    let mut src = String::from("export async function process(inputs, ctx) {\n");
    for i in 0..N {
        src.push_str(&format!("  const value{i} = {i};\n"));
    }
    src.push_str("  use(valeu1);\n");
    for i in 0..N {
        src.push_str(&format!("  use(undef{i});\n"));
    }
    src.push_str("}\n");
    write(d, "big.js", &src);
    let start = std::time::Instant::now();
    let o = run_with_deadline(
        d,
        &[
            "check",
            "big.js",
            "--no-cache",
            "--select",
            "undefined-reference",
            "--format",
            "json",
        ],
        None,
    );
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    let v = report_json(&o);
    let ds = v["diagnostics"].as_array().cloned().unwrap_or_default();
    // `use` and every undefined name, once each.
    assert_eq!(ds.len(), N + 2, "{}", ds.len());
    let typo = ds
        .iter()
        .find(|d| {
            d["message"]
                .as_str()
                .is_some_and(|m| m.contains("`valeu1`"))
        })
        .unwrap_or_else(|| panic!("no finding for valeu1"));
    assert!(
        typo["help"]
            .as_str()
            .is_some_and(|h| h.contains("did you mean `value1`")),
        "{typo}"
    );
    assert!(
        start.elapsed() < Duration::from_secs(30),
        "took {:?}",
        start.elapsed()
    );
}
