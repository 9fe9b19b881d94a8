//! The README's two commands share one build: `cargo run` (normal and build
//! dependencies) and `cargo test` (the same plus the dev-dependencies) must
//! resolve the same features for every crate they both build, or `cargo
//! test` compiles that crate again, with everything above it (the oxc stack
//! and `regex` cost minutes of set-up: docs/performance.md, "Set-up on an idle
//! machine"). When this fails, name the listed features in `Cargo.toml`'s
//! `[dependencies]` beside the others kept there for that reason.

use std::collections::{BTreeMap, BTreeSet};
use std::process::Command;

/// `name version` → the feature sets it is built with, from `cargo tree -f
/// '{p} [{f}]' --prefix none`. A crate can have two: one for the target and
/// one for the build scripts and proc macros that run on the host.
fn features(tree: &str) -> BTreeMap<String, BTreeSet<String>> {
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for line in tree.lines() {
        let line = line.trim_end_matches(" (*)");
        let (Some(open), Some(close)) = (line.rfind(" ["), line.rfind(']')) else {
            continue;
        };
        // `{p}` adds the path for a local package: keep name and version.
        let package = line[..open].split(" (").next().unwrap_or_default();
        out.entry(package.trim().to_string())
            .or_default()
            .insert(line[open + 2..close].to_string());
    }
    out
}

/// Crates both trees build whose features differ, as `crate: a => b`.
fn differing(without_dev: &str, with_dev: &str) -> Vec<String> {
    let a = features(without_dev);
    let b = features(with_dev);
    a.iter()
        .filter_map(|(package, fa)| {
            let fb = b.get(package)?;
            (fa != fb).then(|| format!("{package}: {fa:?} => {fb:?}"))
        })
        .collect()
}

fn cargo_tree(edges: &str) -> String {
    let out = Command::new(env!("CARGO"))
        .args(["tree", "--locked", "--offline", "-e", edges])
        .args(["-f", "{p} [{f}]", "--prefix", "none"])
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .unwrap_or_else(|e| panic!("cargo: {e}"));
    assert!(
        out.status.success(),
        "cargo tree failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8_lossy(&out.stdout).into_owned()
}

#[test]
fn run_and_test_resolve_the_same_features() {
    let diff = differing(&cargo_tree("normal,build"), &cargo_tree("normal,build,dev"));
    assert!(
        diff.is_empty(),
        "the dev-dependencies change these crates' features, so `cargo test` rebuilds them:\n{}",
        diff.join("\n")
    );
}

#[test]
fn a_feature_only_the_tests_enable_is_reported() {
    let run = "smallvec v1.16.6 [serde,union]\nproclint v0.1.0 (/x) []\nserde_json v1 [std] (*)\nserde_json v1 []\n";
    let test = "smallvec v1.16.6 [const_generics,serde,union]\nproclint v0.1.0 (/x) []\ninsta v1.49.0 [json]\nserde_json v1 []\nserde_json v1 [std]\n";
    assert_eq!(
        differing(run, test),
        vec![r#"smallvec v1.16.6: {"serde,union"} => {"const_generics,serde,union"}"#.to_string()]
    );
    assert!(differing(run, run).is_empty());
}
