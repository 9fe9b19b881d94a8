//! Issue 35, item 2: one configuration resolution for every file (the
//! nearest `proclint.toml` at or above it), `extend`, `[per-file-ignores]`,
//! `check --show-settings`, every configuration error in one run, and a
//! cache keyed on every configuration that applies.

mod common;

use std::path::Path;

use common::*;

/// Findings (rule, path) of a JSON run in `dir`.
fn found(dir: &Path, args: &[&str]) -> Vec<(String, String)> {
    let mut all = vec!["check", "--format", "json", "--no-cache"];
    all.extend_from_slice(args);
    let o = proclint_in(dir, &all);
    findings(&report_json(&o))
        .into_iter()
        .map(|f| (f.0, f.1))
        .collect()
}

/// A repository (`.git`) with the same bad module at the top and in `sub/`.
fn repo() -> tempfile::TempDir {
    let dir = tempdir();
    std::fs::create_dir(dir.path().join(".git")).unwrap_or_else(|e| panic!("{e}"));
    write(dir.path(), "top.js", BAD_BREAKPOINT);
    write(dir.path(), "sub/p.js", BAD_BREAKPOINT);
    dir
}

fn has(found: &[(String, String)], rule: &str, path: &str) -> bool {
    found.iter().any(|(r, p)| r == rule && p == path)
}

#[test]
fn each_file_gets_the_nearest_config_whatever_the_working_directory() {
    let dir = repo();
    let d = dir.path();
    write(
        d,
        "sub/proclint.toml",
        "[rules]\nunchecked-breakpoint = \"off\"\n",
    );
    for (cwd, args) in [
        (d.to_path_buf(), vec!["."]),
        (d.join("sub"), vec![".", "../top.js"]),
    ] {
        let f = found(&cwd, &args);
        let (top, sub) = if cwd == d {
            ("top.js", "sub/p.js")
        } else {
            ("../top.js", "p.js")
        };
        assert!(has(&f, "unchecked-breakpoint", top), "{cwd:?}: {f:?}");
        assert!(!has(&f, "unchecked-breakpoint", sub), "{cwd:?}: {f:?}");
    }
    // A file named alone gets its folder's configuration too (the
    // pre-commit hook names files from the repository root).
    let f = found(d, &["sub/p.js", "top.js"]);
    assert!(!has(&f, "unchecked-breakpoint", "sub/p.js"), "{f:?}");
    assert!(has(&f, "unchecked-breakpoint", "top.js"), "{f:?}");
    // `--config` is the one configuration of every file.
    write(
        d,
        "all.toml",
        "[rules]\nunchecked-breakpoint = \"warning\"\n",
    );
    let f = found(d, &[".", "--config", "all.toml"]);
    assert!(has(&f, "unchecked-breakpoint", "sub/p.js"), "{f:?}");
}

#[test]
fn a_config_above_the_repository_does_not_apply() {
    let dir = tempdir();
    let outer = dir.path();
    write(
        outer,
        "proclint.toml",
        "[rules]\nunchecked-breakpoint = \"off\"\n",
    );
    let d = outer.join("repo");
    std::fs::create_dir_all(d.join(".git")).unwrap_or_else(|e| panic!("{e}"));
    write(&d, "p.js", BAD_BREAKPOINT);
    let f = found(&d, &["."]);
    assert!(has(&f, "unchecked-breakpoint", "p.js"), "{f:?}");
}

#[test]
fn extend_merges_the_parent_under_the_child() {
    let dir = repo();
    let d = dir.path();
    write(
        d,
        "proclint.toml",
        "exclude = [\"vendor/**\"]\n[rules]\nunchecked-breakpoint = \"warning\"\n",
    );
    write(d, "sub/vendor/v.js", BAD_BREAKPOINT);
    write(d, "vendor/v.js", BAD_BREAKPOINT);
    write(
        d,
        "sub/proclint.toml",
        "extend = \"../proclint.toml\"\n[rules]\nanonymous-breakpoint = \"info\"\n",
    );
    let o = proclint_in(d, &["check", ".", "--format", "json", "--no-cache"]);
    let v = report_json(&o);
    let diags = v["diagnostics"].as_array().cloned().unwrap_or_default();
    let severity = |path: &str| {
        diags
            .iter()
            .find(|x| x["path"] == path && x["rule"] == "unchecked-breakpoint")
            .map(|x| x["severity"].as_str().unwrap_or("").to_string())
    };
    // The parent's severity, in the child's folder; the parent's exclude
    // stays relative to the parent's folder (`vendor/`, not `sub/vendor/`).
    assert_eq!(severity("sub/p.js").as_deref(), Some("warning"), "{v}");
    assert_eq!(severity("vendor/v.js"), None, "{v}");
    assert_eq!(
        severity("sub/vendor/v.js").as_deref(),
        Some("warning"),
        "{v}"
    );
    // The child's own setting.
    let out = stdout(&proclint_in(d, &["check", "--show-settings", "sub/p.js"]));
    assert!(out.contains("anonymous-breakpoint = \"info\""), "{out}");
    assert!(out.contains("# from: sub/proclint.toml"), "{out}");
    assert!(out.contains("# extends: proclint.toml"), "{out}");
}

#[test]
fn extend_errors_missing_cycles_and_outside_the_repository() {
    let dir = tempdir();
    let outer = dir.path();
    write(outer, "secret.toml", "token = \"hunter2\"\n");
    let d = outer.join("repo");
    std::fs::create_dir_all(d.join(".git")).unwrap_or_else(|e| panic!("{e}"));
    write(&d, "p.js", BAD_BREAKPOINT);
    let cases = [
        ("extend = \"nope.toml\"\n", "cannot read `nope.toml`"),
        ("extend = \"proclint.toml\"\n", "`extend` makes a cycle"),
        ("extend = \"../secret.toml\"\n", "is outside the repository"),
    ];
    for (text, expected) in cases {
        write(&d, "proclint.toml", text);
        let o = proclint_in(&d, &["check", "."]);
        assert_eq!(code(&o), 2, "{text}: {}", stderr(&o));
        assert!(stderr(&o).contains(expected), "{text}: {}", stderr(&o));
        assert!(!stderr(&o).contains("hunter2"), "{}", stderr(&o));
    }
    // A cycle through two files.
    write(&d, "proclint.toml", "extend = \"sub/proclint.toml\"\n");
    write(&d, "sub/proclint.toml", "extend = \"../proclint.toml\"\n");
    let o = proclint_in(&d, &["check", "."]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(
        stderr(&o).contains("`extend` makes a cycle"),
        "{}",
        stderr(&o)
    );
}

#[test]
fn per_file_ignores_drop_rules_for_matching_files() {
    let dir = repo();
    let d = dir.path();
    write(
        d,
        "proclint.toml",
        "[per-file-ignores]\n\"sub/**\" = [\"unchecked-breakpoint\"]\n\"top.js\" = [\"suspicious\"]\n",
    );
    let f = found(d, &["."]);
    assert!(!has(&f, "unchecked-breakpoint", "sub/p.js"), "{f:?}");
    // `top.js` only drops the suspicious category; the breakpoint rule is
    // correctness.
    assert!(has(&f, "unchecked-breakpoint", "top.js"), "{f:?}");
    let out = stdout(&proclint_in(d, &["check", "--show-settings", "sub/p.js"]));
    assert!(out.contains("unchecked-breakpoint = \"off\""), "{out}");
    assert!(
        out.contains("# [per-file-ignores] matching this file: [\"unchecked-breakpoint\"]"),
        "{out}"
    );
    // A bad glob and an unknown rule are errors with their places.
    write(
        d,
        "proclint.toml",
        "[per-file-ignores]\n\"[\" = [\"unchecked-breakpoint\"]\n\"x\" = [\"no-such-rule\"]\n",
    );
    let o = proclint_in(d, &["check", "."]);
    assert_eq!(code(&o), 2);
    assert!(stderr(&o).contains("invalid glob"), "{}", stderr(&o));
    assert!(stderr(&o).contains("no-such-rule"), "{}", stderr(&o));
}

#[test]
fn every_configuration_error_is_reported_in_one_run() {
    let dir = repo();
    let d = dir.path();
    write(
        d,
        "proclint.toml",
        "colour = true\n[rules]\nunchecked-breakpiont = \"error\"\nmissing-labels = \"loud\"\n",
    );
    write(d, "sub/proclint.toml", "extend-select = [\"nonsense\"]\n");
    let o = proclint_in(d, &["check", ".", "--select", "bogus-rule"]);
    assert_eq!(code(&o), 2);
    let err = stderr(&o);
    for expected in [
        "colour",
        "unchecked-breakpiont",
        "loud",
        "nonsense",
        "bogus-rule",
    ] {
        assert!(err.contains(expected), "{expected} missing from:\n{err}");
    }
}

#[test]
fn show_settings_names_the_files_and_the_defaults() {
    let dir = repo();
    let d = dir.path();
    let o = proclint_in(d, &["check", "--show-settings", "top.js"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.starts_with("# Settings for top.js\n"), "{out}");
    assert!(
        out.contains("# from: no proclint.toml (the defaults)"),
        "{out}"
    );
    assert!(out.contains("unchecked-breakpoint = \"error\""), "{out}");
    assert!(
        out.contains("context-names = [\"ctx\", \"context\"]"),
        "{out}"
    );
    // Nothing was linted, so no cache was made.
    assert!(!d.join(".proclint_cache").exists());
}

#[test]
fn a_changed_parent_config_invalidates_the_cache() {
    let dir = repo();
    let d = dir.path();
    write(d, "proclint.toml", "[rules]\nmissing-labels = \"off\"\n");
    write(d, "sub/proclint.toml", "extend = \"../proclint.toml\"\n");
    let run = || {
        let o = proclint_in(d, &["check", "sub", "--format", "json", "--cache-stats"]);
        (stdout(&o), stderr(&o))
    };
    run();
    let (_, warm) = run();
    assert!(warm.contains("proclint cache: 1 hits, 0 misses"), "{warm}");
    write(
        d,
        "proclint.toml",
        "[rules]\nmissing-labels = \"off\"\nunchecked-breakpoint = \"warning\"\n",
    );
    let (out, after) = run();
    assert!(
        after.contains("proclint cache: 0 hits, 1 misses"),
        "{after}"
    );
    assert!(out.contains("\"severity\": \"warning\""), "{out}");
}

/// Item 3: the cache sits at the project root whatever the working
/// directory (next to the outermost configuration, else at the repository
/// root), and is made only when something was linted.
#[test]
fn the_cache_sits_at_the_project_root_and_only_when_something_was_linted() {
    let dir = repo();
    let d = dir.path();
    write(d, "docs/notes.txt", "nothing to lint\n");
    let o = proclint_in(&d.join("docs"), &["check", "."]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(!d.join(".proclint_cache").exists());
    assert!(!d.join("docs/.proclint_cache").exists());
    // No configuration: the repository root.
    proclint_in(&d.join("sub"), &["check", "."]);
    assert!(d.join(".proclint_cache").is_dir());
    assert!(!d.join("sub/.proclint_cache").exists());
    std::fs::remove_dir_all(d.join(".proclint_cache")).unwrap_or_else(|e| panic!("{e}"));
    // A configuration below the repository root: its folder.
    write(
        d,
        "sub/proclint.toml",
        "[rules]\nmissing-labels = \"off\"\n",
    );
    proclint_in(&d.join("sub"), &["check", "p.js"]);
    assert!(d.join("sub/.proclint_cache").is_dir());
    assert!(!d.join(".proclint_cache").exists());
}
