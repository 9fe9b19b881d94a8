//! Snapshots of every output format over the bundled fixtures, and one
//! snapshot per (rule, fixture file).

mod common;

use common::*;

fn normalise(s: &str) -> String {
    s.replace(env!("CARGO_PKG_VERSION"), "[VERSION]")
}

#[test]
fn concise_over_fixtures() {
    let o = proclint(&["check", "fixtures", "--format", "concise"]);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    insta::assert_snapshot!(stdout(&o));
}

#[test]
fn json_over_fixtures() {
    let o = proclint(&["check", "fixtures", "--format", "json"]);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    insta::assert_snapshot!(stdout(&o));
}

#[test]
fn sarif_over_fixtures() {
    let o = proclint(&["check", "fixtures", "--format", "sarif"]);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    insta::assert_snapshot!(normalise(&stdout(&o)));
}

#[test]
fn github_over_fixtures() {
    let o = proclint(&["check", "fixtures", "--format", "github"]);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    insta::assert_snapshot!(stdout(&o));
}

#[test]
fn pretty_over_realistic_tree() {
    let o = proclint(&[
        "check",
        "fixtures/realistic",
        "--format",
        "pretty",
        "--color",
        "never",
    ]);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    insta::assert_snapshot!(stdout(&o));
}

/// `fixtures/<rule>/<file>` linted with only that rule selected.
#[test]
fn per_rule_fixtures() {
    let dir = root().join("fixtures");
    let mut rules: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{e}"))
        .filter_map(|e| e.ok())
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|name| proclint::rules::meta(name).is_some())
        .collect();
    rules.sort();
    assert!(!rules.is_empty());
    for rule in rules {
        // Files directly in the rule's folder are linted one by one;
        // subfolders (multi-module trees) as a whole.
        let mut files: Vec<_> = std::fs::read_dir(dir.join(&rule))
            .map(|rd| rd.flatten().map(|e| e.path()).collect())
            .unwrap_or_default();
        files.retain(|p: &std::path::PathBuf| {
            p.is_dir() || proclint::engine::discover::kind_by_name(p).is_some()
        });
        files.sort();
        for file in files {
            let rel = file
                .strip_prefix(root())
                .unwrap_or(&file)
                .to_string_lossy()
                .replace('\\', "/");
            let o = proclint(&[
                "check", &rel, "--select", &rule, "--format", "concise", "-q",
            ]);
            assert_ne!(code(&o), 2, "{rel}: {}", stderr(&o));
            let name = format!(
                "{rule}__{}",
                rel.trim_start_matches(&format!("fixtures/{rule}/"))
                    .replace(['/', '.'], "_")
            );
            insta::assert_snapshot!(name, stdout(&o));
        }
    }
}
