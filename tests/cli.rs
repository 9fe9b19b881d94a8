//! CLI behaviour: exit codes, --fail-on, --output, config, suppressions,
//! rules/explain.

mod common;

use common::*;

#[test]
fn exit_codes_and_fail_on() {
    let dir = tempdir();
    write(dir.path(), "bad.js", BAD_BREAKPOINT);
    write(dir.path(), "good.js", GOOD_BREAKPOINT);
    assert_eq!(code(&proclint_in(dir.path(), &["check", "good.js"])), 0);
    assert_eq!(code(&proclint_in(dir.path(), &["check", "bad.js"])), 1);
    assert_eq!(
        code(&proclint_in(
            dir.path(),
            &["check", "bad.js", "--exit-zero"]
        )),
        0
    );
    // A warning-level finding fails with the default --fail-on warning but
    // not with --fail-on error.
    write(
        dir.path(),
        "proclint.toml",
        "[rules]\nunchecked-breakpoint = \"warning\"\n",
    );
    assert_eq!(code(&proclint_in(dir.path(), &["check", "bad.js"])), 1);
    assert_eq!(
        code(&proclint_in(
            dir.path(),
            &["check", "bad.js", "--fail-on", "error"]
        )),
        0
    );
    write(
        dir.path(),
        "proclint.toml",
        "[rules]\nunchecked-breakpoint = \"info\"\n",
    );
    assert_eq!(code(&proclint_in(dir.path(), &["check", "bad.js"])), 0);
    assert_eq!(
        code(&proclint_in(
            dir.path(),
            &["check", "bad.js", "--fail-on", "info"]
        )),
        1
    );
    // Same exit code in every format.
    for f in ["json", "sarif", "github", "concise", "pretty"] {
        let o = proclint_in(
            dir.path(),
            &["check", "bad.js", "--fail-on", "info", "--format", f],
        );
        assert_eq!(code(&o), 1, "{f}");
    }
}

#[test]
fn missing_path_is_a_usage_error() {
    let o = proclint(&["check", "does/not/exist"]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("does/not/exist"));
}

#[test]
fn output_writes_a_file() {
    let dir = tempdir();
    write(dir.path(), "bad.js", BAD_BREAKPOINT);
    let o = proclint_in(
        dir.path(),
        &[
            "check", "bad.js", "--format", "json", "--output", "out.json",
        ],
    );
    assert_eq!(code(&o), 1);
    assert_eq!(stdout(&o), "");
    let text = std::fs::read_to_string(dir.path().join("out.json")).unwrap_or_default();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap_or_default();
    assert_eq!(v["version"], 1);
    assert_eq!(v["diagnostics"][0]["rule"], "unchecked-breakpoint");
    assert_eq!(v["diagnostics"][0]["line"], 2);
    assert_eq!(v["diagnostics"][0]["column"], 9);
    assert_eq!(v["summary"]["files"], 1);
    assert_eq!(v["summary"]["errors"], 1);
    // No temporary files left behind.
    let leftovers: Vec<_> = std::fs::read_dir(dir.path())
        .map(|rd| {
            rd.flatten()
                .map(|e| e.file_name())
                .filter(|n| n != ".proclint_cache")
                .collect()
        })
        .unwrap_or_default();
    assert_eq!(leftovers.len(), 2, "{leftovers:?}");
}

#[test]
fn config_errors_point_at_the_line() {
    let dir = tempdir();
    write(dir.path(), "good.js", GOOD_BREAKPOINT);
    let cases = [
        ("[rules]\nunchecked-brekpoint = \"error\"\n", "proclint.toml:2:1: unknown rule `unchecked-brekpoint` (did you mean `unchecked-breakpoint`?)"),
        ("exclude = []\ncolour = true\n", "proclint.toml:2:1: unknown field `colour`"),
        ("[rules]\nunchecked-breakpoint = \"loud\"\n", "proclint.toml:2:24: invalid severity `loud`"),
        ("exclude = [\"a[\"]\n", "proclint.toml:1:12: invalid glob"),
        ("[rules\n", "proclint.toml:1:"),
    ];
    for (text, expected) in cases {
        write(dir.path(), "proclint.toml", text);
        let o = proclint_in(dir.path(), &["check", "good.js"]);
        assert_eq!(code(&o), 2, "{text}");
        assert!(stderr(&o).contains(expected), "{text}: {}", stderr(&o));
    }
    // --no-config ignores the broken file; --config picks another.
    assert_eq!(
        code(&proclint_in(
            dir.path(),
            &["check", "good.js", "--no-config"]
        )),
        0
    );
    write(
        dir.path(),
        "other.toml",
        "[rules]\nunchecked-breakpoint = \"off\"\n",
    );
    write(dir.path(), "bad.js", BAD_BREAKPOINT);
    assert_eq!(
        code(&proclint_in(
            dir.path(),
            &["check", "bad.js", "--config", "other.toml"]
        )),
        0
    );
}

#[test]
fn config_found_in_a_parent_directory_and_excludes() {
    let dir = tempdir();
    write(dir.path(), "proclint.toml", "exclude = [\"vendor/**\"]\n");
    write(dir.path(), "src/bad.js", BAD_BREAKPOINT);
    write(dir.path(), "vendor/bad.js", BAD_BREAKPOINT);
    let o = proclint_in(dir.path(), &["check", "--format", "concise"]);
    let out = stdout(&o);
    assert!(out.contains("src/bad.js:2:9"), "{out}");
    assert!(!out.contains("vendor"), "{out}");
    // Run from a subdirectory: the parent's config still applies.
    let o = proclint_in(&dir.path().join("src"), &["check", "--format", "concise"]);
    assert!(stdout(&o).starts_with("bad.js:2:9"), "{}", stdout(&o));
}

#[test]
fn select_and_ignore_override_config() {
    let dir = tempdir();
    write(dir.path(), "bad.js", BAD_BREAKPOINT);
    assert_eq!(
        code(&proclint_in(
            dir.path(),
            &["check", "bad.js", "--ignore", "unchecked-breakpoint"]
        )),
        0
    );
    assert_eq!(
        code(&proclint_in(
            dir.path(),
            &["check", "bad.js", "--select", "unchecked-breakpoint"]
        )),
        1
    );
    let o = proclint_in(dir.path(), &["check", "bad.js", "--select", "nope"]);
    assert_eq!(code(&o), 2);
}

#[test]
fn suppressions() {
    let dir = tempdir();
    write(
        dir.path(),
        "p.js",
        "export async function process(inputs, ctx) {\n\
         \x20 // proclint-disable-next-line unchecked-breakpoint -- approval is logged elsewhere\n\
         \x20 await ctx.breakpoint({ question: 'a', label: 'a' });\n\
         \x20 await ctx.breakpoint({ question: 'b', label: 'b' });\n\
         \x20 // proclint-disable-next-line unchecked-breakpoint\n\
         \x20 const ok = 1;\n\
         \x20 // proclint-disable-next-line unchecked-breakpiont\n\
         \x20 await ctx.breakpoint({ question: 'c', label: 'c' });\n\
         }\n",
    );
    let o = proclint_in(dir.path(), &["check", "p.js", "--format", "concise", "-q"]);
    assert_eq!(
        stdout(&o),
        "p.js:4:9: error[unchecked-breakpoint] the result of `ctx.breakpoint` (\"b\") is discarded: a rejection is treated as an approval\n\
         p.js:5:33: warning[unused-suppression] `unchecked-breakpoint` is suppressed here but reports nothing\n\
         p.js:7:33: warning[unused-suppression] unknown rule `unchecked-breakpiont` in suppression\n\
         p.js:8:9: error[unchecked-breakpoint] the result of `ctx.breakpoint` (\"c\") is discarded: a rejection is treated as an approval\n"
    );
    write(
        dir.path(),
        "f.js",
        "// proclint-disable-file unchecked-breakpoint\nexport async function process(inputs, ctx) {\n  await ctx.breakpoint({});\n  await ctx.breakpoint({});\n}\n",
    );
    assert_eq!(code(&proclint_in(dir.path(), &["check", "f.js"])), 0);
}

#[test]
fn rules_and_explain() {
    let o = proclint(&["rules"]);
    assert_eq!(code(&o), 0);
    let out = stdout(&o);
    assert!(out.starts_with("RULE"));
    for r in proclint::rules::all() {
        assert!(out.contains(r.meta().id), "{}", r.meta().id);
    }
    let o = proclint(&["explain", "unchecked-breakpoint"]);
    assert_eq!(code(&o), 0);
    assert!(stdout(&o).starts_with("# unchecked-breakpoint\n"));
    let o = proclint(&["explain", "unchecked-breakpont"]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("did you mean `unchecked-breakpoint`"));
    let o = proclint(&["--version"]);
    assert!(stdout(&o).contains(&format!("({} rules)", proclint::rules::all().len())));
}

#[test]
fn statistics_and_quiet() {
    let dir = tempdir();
    write(dir.path(), "bad.js", BAD_BREAKPOINT);
    let o = proclint_in(
        dir.path(),
        &["check", "bad.js", "--format", "concise", "--statistics"],
    );
    assert!(
        stdout(&o).contains("    1  unchecked-breakpoint  error\n"),
        "{}",
        stdout(&o)
    );
    let o = proclint_in(
        dir.path(),
        &["check", "bad.js", "--format", "concise", "--quiet"],
    );
    assert!(!stdout(&o).contains("proclint:"));
}

#[test]
fn explicit_files_are_linted_even_without_markers_and_hidden_dirs_are_walked() {
    let dir = tempdir();
    write(dir.path(), "plain.js", "export const x = 1;\n");
    write(dir.path(), ".a5c/processes/p.js", BAD_BREAKPOINT);
    write(dir.path(), ".a5c/runs/r1/p.js", BAD_BREAKPOINT);
    write(dir.path(), "node_modules/x/p.js", BAD_BREAKPOINT);
    write(dir.path(), "ignored/p.js", BAD_BREAKPOINT);
    write(dir.path(), ".gitignore", "ignored/\n");
    let o = proclint_in(dir.path(), &["check", ".", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap_or_default();
    let paths: Vec<&str> = v["diagnostics"]
        .as_array()
        .map(|a| a.iter().filter_map(|d| d["path"].as_str()).collect())
        .unwrap_or_default();
    assert_eq!(paths, vec![".a5c/processes/p.js"]);
    // plain.js is not process code: not counted when walked …
    assert_eq!(v["summary"]["files"], 1);
    // … but linted when named.
    let o = proclint_in(dir.path(), &["check", "plain.js", "--format", "json"]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap_or_default();
    assert_eq!(v["summary"]["files"], 1);
}

/// The rules a JSON report names, sorted and deduplicated.
fn rules_in(o: &std::process::Output) -> Vec<String> {
    let v = report_json(o);
    let mut ids: Vec<String> = v["diagnostics"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|d| d["rule"].as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    ids.sort();
    ids.dedup();
    ids
}

/// Categories: pedantic rules and notes are off by default and one flag or
/// config line away; `--ignore` takes a category; unknown names are errors.
#[test]
fn categories_select_the_rule_set() {
    let dir = tempdir();
    // Two anonymous breakpoints (pedantic) and a discarded one (correctness).
    write(
        dir.path(),
        "p.js",
        "export async function process(inputs, ctx) {\n  const a = await ctx.breakpoint({ question: 'A?' });\n  if (!a.approved) return { a: a.feedback };\n  await ctx.breakpoint({ question: 'B?' });\n  return {};\n}\n",
    );
    let json = |args: &[&str]| {
        let mut all = vec!["check", "p.js", "--format", "json", "--no-cache"];
        all.extend_from_slice(args);
        rules_in(&proclint_in(dir.path(), &all))
    };
    assert_eq!(json(&[]), ["unchecked-breakpoint"]);
    assert_eq!(
        json(&["--extend-select", "pedantic"]),
        ["anonymous-breakpoint", "unchecked-breakpoint"]
    );
    assert_eq!(json(&["--select", "pedantic"]), ["anonymous-breakpoint"]);
    assert_eq!(
        json(&["--select", "all"]),
        ["anonymous-breakpoint", "unchecked-breakpoint"]
    );
    assert!(json(&["--ignore", "correctness"]).is_empty());
    // The same from proclint.toml.
    write(
        dir.path(),
        "proclint.toml",
        "extend-select = [\"anonymous-breakpoint\"]\n",
    );
    assert_eq!(json(&[]), ["anonymous-breakpoint", "unchecked-breakpoint"]);
    write(
        dir.path(),
        "proclint.toml",
        "[rules]\nanonymous-breakpoint = \"warning\"\n",
    );
    assert_eq!(json(&[]), ["anonymous-breakpoint", "unchecked-breakpoint"]);
    write(
        dir.path(),
        "proclint.toml",
        "extend-select = [\"pedantc\"]\n",
    );
    let o = proclint_in(dir.path(), &["check", "p.js"]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("pedantc"), "{}", stderr(&o));
    std::fs::remove_file(dir.path().join("proclint.toml")).unwrap_or_else(|e| panic!("{e}"));
    let o = proclint_in(dir.path(), &["check", "p.js", "--select", "nosuch"]);
    assert_eq!(code(&o), 2);
    assert!(
        stderr(&o).contains("unknown rule or category"),
        "{}",
        stderr(&o)
    );
}

/// A note (info) from a default rule is not reported unless asked for, so it
/// never crowds the default output.
#[test]
fn notes_of_default_rules_are_opt_in() {
    let dir = tempdir();
    // `^0.0.168` admits exactly one version: an unpinned-sdk note.
    write(
        dir.path(),
        "package.json",
        "{\n  \"name\": \"x\",\n  \"dependencies\": { \"@a5c-ai/babysitter-sdk\": \"^0.0.168\" }\n}\n",
    );
    let run = |args: &[&str]| {
        let mut all = vec!["check", "package.json", "--format", "json", "--no-cache"];
        all.extend_from_slice(args);
        rules_in(&proclint_in(dir.path(), &all))
    };
    assert!(run(&[]).is_empty());
    assert_eq!(run(&["--extend-select", "unpinned-sdk"]), ["unpinned-sdk"]);
    assert_eq!(run(&["--extend-select", "pedantic"]), ["unpinned-sdk"]);
}
