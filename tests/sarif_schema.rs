//! The SARIF output validates against the official 2.1.0 schema and has
//! what GitHub code scanning needs.

mod common;

use common::*;

fn validate(sarif: &str) {
    let schema_text = std::fs::read_to_string(root().join("tests/data/sarif-schema-2.1.0.json"))
        .unwrap_or_else(|e| panic!("{e}"));
    let schema: serde_json::Value =
        serde_json::from_str(&schema_text).unwrap_or_else(|e| panic!("{e}"));
    let instance: serde_json::Value = serde_json::from_str(sarif).unwrap_or_else(|e| panic!("{e}"));
    let validator = jsonschema::validator_for(&schema).unwrap_or_else(|e| panic!("{e}"));
    let errors: Vec<String> = validator
        .iter_errors(&instance)
        .map(|e| format!("{} at {}", e, e.instance_path))
        .collect();
    assert!(
        errors.is_empty(),
        "SARIF schema errors:\n{}",
        errors.join("\n")
    );
}

#[test]
fn sarif_validates_with_findings() {
    let o = proclint(&["check", "fixtures", "--format", "sarif"]);
    let out = stdout(&o);
    validate(&out);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap_or_default();
    let run = &v["runs"][0];
    assert_eq!(run["tool"]["driver"]["name"], "proclint");
    let results = run["results"].as_array().cloned().unwrap_or_default();
    assert!(!results.is_empty());
    let rules = run["tool"]["driver"]["rules"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    for r in &results {
        let idx = r["ruleIndex"].as_u64().unwrap_or(u64::MAX) as usize;
        assert_eq!(rules[idx]["id"], r["ruleId"]);
        let loc = &r["locations"][0]["physicalLocation"];
        assert_eq!(loc["artifactLocation"]["uriBaseId"], "%SRCROOT%");
        assert!(!loc["artifactLocation"]["uri"]
            .as_str()
            .unwrap_or("/")
            .starts_with('/'));
        assert!(r
            .get("partialFingerprints")
            .and_then(|p| p.get("primaryLocationLineHash"))
            .is_none());
    }
}

#[test]
fn sarif_validates_when_clean() {
    let o = proclint(&[
        "check",
        "fixtures/unchecked-breakpoint/good.js",
        "--select",
        "unchecked-breakpoint",
        "--format",
        "sarif",
    ]);
    assert_eq!(code(&o), 0);
    let out = stdout(&o);
    validate(&out);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap_or_default();
    assert_eq!(v["runs"][0]["results"], serde_json::json!([]));
}

#[test]
fn sarif_columns_are_utf16() {
    let dir = tempdir();
    // "😀" is two UTF-16 units: the call starts at UTF-16 column 14.
    write(
        dir.path(),
        "p.js",
        "export async function process(inputs, ctx) {\n  const s = '😀'; await ctx.breakpoint({});\n}\n",
    );
    let o = proclint_in(dir.path(), &["check", "p.js", "--format", "sarif"]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap_or_default();
    let region = &v["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["region"];
    assert_eq!(region["startLine"], 2);
    assert_eq!(region["startColumn"], 25);
}

fn artifact(result: &serde_json::Value) -> &serde_json::Value {
    &result["locations"][0]["physicalLocation"]["artifactLocation"]
}

const DROPPED: &str = "export async function process(inputs, ctx) {\n  await ctx.breakpoint({ question: 'Ship?', label: 'ship' });\n}\n";

#[test]
fn sarif_uris_are_relative_to_the_repository_root() {
    let repo = tempdir();
    std::fs::create_dir_all(repo.path().join(".git")).unwrap_or_default();
    write(repo.path(), "pkg/a.js", DROPPED);
    write(repo.path(), "other dir/b.js", DROPPED);
    let outside = tempdir();
    let c = write(outside.path(), "c.js", DROPPED);
    // Run from a package below the root, as a monorepo workflow would.
    let o = proclint_in(
        &repo.path().join("pkg"),
        &[
            "check",
            "a.js",
            "../other dir/b.js",
            c.to_str().unwrap_or_default(),
            "--format",
            "sarif",
        ],
    );
    let out = stdout(&o);
    validate(&out);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap_or_default();
    let run = &v["runs"][0];
    assert!(
        run["originalUriBaseIds"]["%SRCROOT%"]["description"]["text"]
            .as_str()
            .unwrap_or_default()
            .contains("repository root")
    );
    let mut uris: Vec<(String, serde_json::Value)> = run["results"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .iter()
        .map(|r| {
            let a = artifact(r);
            (
                a["uri"].as_str().unwrap_or_default().to_string(),
                a["uriBaseId"].clone(),
            )
        })
        .collect();
    uris.sort_by(|a, b| a.0.cmp(&b.0));
    let c_uri = uris.first().cloned().unwrap_or_default();
    // Outside the repository: an absolute file URI, with no base.
    assert!(c_uri.0.starts_with("file:///"), "{uris:?}");
    assert!(c_uri.0.ends_with("/c.js"), "{uris:?}");
    assert_eq!(c_uri.1, serde_json::Value::Null);
    assert_eq!(
        uris[1..],
        [
            ("other%20dir/b.js".to_string(), "%SRCROOT%".into()),
            ("pkg/a.js".to_string(), "%SRCROOT%".into()),
        ]
    );
}

#[test]
fn sarif_keeps_the_most_severe_results_github_shows_and_says_what_was_left_out() {
    let dir = tempdir();
    let extra = 40;
    let mut text = String::from("export async function process(inputs, ctx) {\n");
    for i in 0..proclint::report::sarif::MAX_RESULTS + extra {
        text.push_str(&format!(
            "  await ctx.breakpoint({{ question: 'Ship {i}?', label: 'ship-{i}' }});\n"
        ));
    }
    text.push_str("}\n");
    write(dir.path(), "many.js", &text);
    // Sorted after `many.js`, so only its severity can keep it in.
    write(
        dir.path(),
        "z-broken.js",
        "export async function process(inputs, ctx) {\n  await ctx.breakpoint(\n",
    );
    write(
        dir.path(),
        "proclint.toml",
        "[rules]\nunchecked-breakpoint = \"warning\"\n",
    );
    let o = proclint_in(
        dir.path(),
        &[
            "check",
            "many.js",
            "z-broken.js",
            "--format",
            "sarif",
            "--no-cache",
        ],
    );
    let out = stdout(&o);
    validate(&out);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap_or_default();
    let run = &v["runs"][0];
    let results = run["results"].as_array().cloned().unwrap_or_default();
    assert_eq!(results.len(), proclint::report::sarif::MAX_RESULTS);
    assert!(results.iter().any(|r| r["ruleId"] == "parse-error"));
    let invocation = &run["invocations"][0];
    assert_eq!(invocation["executionSuccessful"], true);
    let note = invocation["toolExecutionNotifications"][0]["message"]["text"]
        .as_str()
        .unwrap_or_default();
    assert!(
        note.contains(&format!(
            "{} were left out (0 errors, {} warnings",
            extra + 1,
            extra + 1
        )),
        "{note}"
    );
    assert!(note.contains("--format json"), "{note}");
}

#[test]
fn sarif_always_records_the_invocation() {
    let dir = tempdir();
    write(dir.path(), "a.js", DROPPED);
    let o = proclint_in(dir.path(), &["check", "a.js", "--format", "sarif"]);
    let out = stdout(&o);
    validate(&out);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap_or_default();
    let invocation = &v["runs"][0]["invocations"][0];
    assert_eq!(invocation["executionSuccessful"], true);
    assert!(invocation.get("toolExecutionNotifications").is_none());
}
