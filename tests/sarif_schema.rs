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
