//! `unpinned-sdk` fixes over every fixture manifest: each edit stays inside the version
//! string, everything else is preserved byte for byte, and a second pass finds nothing to fix.
//! (Drives the library until `check --fix` exists; the CLI then only writes these edits.)

mod common;

use std::path::Path;

use proclint::diagnostic::{Diagnostic, Edit};
use proclint::engine::discover::FileKind;
use proclint::engine::lint_text;
use proclint::project::config::Config;

fn manifests(dir: &Path, out: &mut Vec<std::path::PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten() {
        let p = e.path();
        if p.is_dir() {
            manifests(&p, out);
        } else if p.file_name().is_some_and(|n| n == "package.json") {
            out.push(p);
        }
    }
}

fn lint(path: &str, text: &str) -> Vec<Diagnostic> {
    lint_text(
        path,
        FileKind::Manifest,
        text.to_string(),
        &Config::default(),
    )
    .into_iter()
    .filter(|d| d.rule == "unpinned-sdk")
    .collect()
}

fn safe_edits(diags: &[Diagnostic]) -> Vec<Edit> {
    let mut edits: Vec<Edit> = diags
        .iter()
        .filter_map(|d| d.fix.as_ref())
        .filter(|f| f.safe)
        .flat_map(|f| f.edits.clone())
        .collect();
    edits.sort_by_key(|e| e.span.start);
    edits
}

fn apply(text: &str, edits: &[Edit]) -> String {
    let mut out = text.to_string();
    for e in edits.iter().rev() {
        out.replace_range(e.span.start..e.span.end, &e.replacement);
    }
    out
}

#[test]
fn fixes_are_byte_exact_and_idempotent() {
    let root = common::root();
    let mut files = Vec::new();
    manifests(&root.join("fixtures/unpinned-sdk"), &mut files);
    files.sort();
    let mut fixed_count = 0;
    for file in files {
        let rel = file
            .strip_prefix(&root)
            .unwrap_or(&file)
            .to_string_lossy()
            .replace('\\', "/");
        let text = std::fs::read_to_string(&file).unwrap_or_else(|e| panic!("{rel}: {e}"));
        let edits = safe_edits(&lint(&rel, &text));
        if edits.is_empty() {
            continue;
        }
        // Every edit replaces exactly a JSON string's contents with a bare version.
        for e in &edits {
            assert_eq!(&text[e.span.start - 1..e.span.start], "\"", "{rel}");
            assert_eq!(&text[e.span.end..e.span.end + 1], "\"", "{rel}");
            assert!(!e.replacement.contains(['"', '\\', '\n']), "{rel}");
        }
        let fixed = apply(&text, &edits);
        // Outside the edited strings the file is unchanged, byte for byte.
        let mut at_text = 0;
        let mut at_fixed = 0;
        for e in &edits {
            let keep = e.span.start - at_text;
            assert_eq!(
                &text[at_text..e.span.start],
                &fixed[at_fixed..at_fixed + keep],
                "{rel}"
            );
            at_fixed += keep + e.replacement.len();
            at_text = e.span.end;
        }
        assert_eq!(&text[at_text..], &fixed[at_fixed..], "{rel}");
        assert!(
            serde_json::from_str::<serde_json::Value>(&fixed).is_ok(),
            "{rel}"
        );
        // Second run: nothing left to fix.
        let again = safe_edits(&lint(&rel, &fixed));
        assert!(again.is_empty(), "{rel}: second pass wants {again:?}");
        fixed_count += 1;
    }
    // Every lockfile format and the workspace fixtures produce a fix.
    assert!(fixed_count >= 11, "only {fixed_count} manifests fixed");
}

#[test]
fn lockfile_versions_reach_the_fix() {
    let root = common::root();
    for dir in [
        "lock-npm-v1",
        "lock-npm-v3",
        "lock-shrinkwrap",
        "lock-yarn-classic",
        "lock-yarn-berry",
        "lock-pnpm-v5",
        "lock-pnpm-v6",
        "lock-pnpm-v9",
    ] {
        let rel = format!("fixtures/unpinned-sdk/{dir}/package.json");
        let text =
            std::fs::read_to_string(root.join(&rel)).unwrap_or_else(|e| panic!("{rel}: {e}"));
        let edits = safe_edits(&lint(&rel, &text));
        let replacements: Vec<&str> = edits.iter().map(|e| e.replacement.as_str()).collect();
        assert_eq!(replacements, vec!["0.3.4"], "{rel}");
    }
}
