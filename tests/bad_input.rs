//! Bad input never crashes the run: each case gives a clear diagnostic or
//! a note, and the other files are still linted.

mod common;

use common::*;

/// Lints `dir` as JSON and returns (exit code, [(rule, path)]).
fn lint(dir: &std::path::Path) -> (i32, Vec<(String, String)>, serde_json::Value) {
    let o = proclint_in(dir, &["check", ".", "--format", "json"]);
    let v = report_json(&o);
    let found = findings(&v)
        .into_iter()
        .map(|(rule, path, ..)| (rule, path))
        .collect();
    (code(&o), found, v)
}

fn has(found: &[(String, String)], rule: &str, path: &str) -> bool {
    found.iter().any(|(r, p)| r == rule && p == path)
}

#[test]
fn every_bad_input_still_lints_the_rest() {
    let dir = tempdir();
    let d = dir.path();
    write(d, "z-bad.js", BAD_BREAKPOINT);
    // Invalid UTF-8 inside a string literal; the finding after it keeps its column.
    let mut bytes = b"import { defineTask } from '@a5c-ai/babysitter-sdk';\nconst s = '\xff\xfe';\nexport async function process(i, ctx) { await ctx.breakpoint({}); }\n".to_vec();
    std::fs::write(d.join("utf8.js"), &bytes).unwrap_or_default();
    // Binary content.
    bytes = b"defineTask\0\0\0\x01\x02".to_vec();
    std::fs::write(d.join("binary.js"), &bytes).unwrap_or_default();
    // Syntax error: the breakpoint after it is still found.
    write(
        d,
        "syntax.js",
        "export async function process(i, ctx) {\n  const x = ;\n  await ctx.breakpoint({});\n}\n",
    );
    // Empty process-named file and an empty package.json.
    write(d, "empty/SKILL.md", "");
    write(d, "empty.js", "");
    // A 6 MB file is over the default max-file-size.
    let big = format!("// defineTask\n{}", "const a = 1;\n".repeat(500_000));
    write(d, "big.js", &big);
    // 5,000-deep nesting.
    let deep = format!(
        "export async function process(i, ctx) {{ const a = {}1{}; await ctx.breakpoint({{}}); }}\n",
        "[".repeat(5000),
        "]".repeat(5000)
    );
    write(d, "deep.js", &deep);
    // A dangling symlink: discovered, then unreadable.
    #[cfg(unix)]
    {
        let _ = std::os::unix::fs::symlink(d.join("gone.js"), d.join("dangling.js"));
    }

    let (code, found, v) = lint(d);
    assert_eq!(code, 1, "{found:?}");
    assert!(has(&found, "unchecked-breakpoint", "z-bad.js"), "{found:?}");
    assert!(has(&found, "parse-error", "utf8.js"), "{found:?}");
    assert!(has(&found, "unchecked-breakpoint", "utf8.js"), "{found:?}");
    assert!(has(&found, "skipped-file", "binary.js"), "{found:?}");
    assert!(has(&found, "parse-error", "syntax.js"), "{found:?}");
    assert!(
        has(&found, "unchecked-breakpoint", "syntax.js"),
        "{found:?}"
    );
    assert!(has(&found, "skipped-file", "big.js"), "{found:?}");
    assert!(
        has(&found, "depth-limit", "deep.js") || has(&found, "unchecked-breakpoint", "deep.js"),
        "{found:?}"
    );
    assert!(
        !found.iter().any(|(r, _)| r == "internal-error"),
        "{found:?}"
    );
    // The invalid bytes were replaced one for one: the column is exact.
    let utf8 = v["diagnostics"]
        .as_array()
        .and_then(|a| {
            a.iter()
                .find(|d| d["path"] == "utf8.js" && d["rule"] == "unchecked-breakpoint")
        })
        .cloned()
        .unwrap_or_default();
    assert_eq!(utf8["line"], 3);
    assert_eq!(utf8["column"], 47);
}

#[test]
fn deep_nesting_reports_depth_limit_and_still_finds_shallow_code() {
    let dir = tempdir();
    let deep = format!(
        "export async function process(i, ctx) {{\n  await ctx.breakpoint({{}});\n  const a = {}1{};\n}}\n",
        "(".repeat(5000),
        ")".repeat(5000)
    );
    write(dir.path(), "deep.js", &deep);
    let (code, found, _) = lint(dir.path());
    assert_eq!(code, 1);
    assert!(has(&found, "unchecked-breakpoint", "deep.js"), "{found:?}");
    assert!(has(&found, "depth-limit", "deep.js"), "{found:?}");
}

#[test]
fn max_file_size_is_configurable() {
    let dir = tempdir();
    write(dir.path(), "proclint.toml", "max-file-size = 10\n");
    write(dir.path(), "bad.js", BAD_BREAKPOINT);
    let (code, found, _) = lint(dir.path());
    assert_eq!(code, 0);
    assert!(has(&found, "skipped-file", "bad.js"), "{found:?}");
}

#[test]
fn crlf_and_lone_cr_positions() {
    let dir = tempdir();
    write(dir.path(), "crlf.js", &BAD_BREAKPOINT.replace('\n', "\r\n"));
    write(dir.path(), "cr.js", &BAD_BREAKPOINT.replace('\n', "\r"));
    write(dir.path(), "bom.js", &format!("\u{feff}{BAD_BREAKPOINT}"));
    let (_, _, v) = lint(dir.path());
    // Positions are what this test is about: one rule is enough.
    let diags: Vec<_> = v["diagnostics"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .into_iter()
        .filter(|d| d["rule"] == "unchecked-breakpoint")
        .collect();
    assert_eq!(diags.len(), 3, "{diags:?}");
    for d in diags {
        assert_eq!(
            (d["line"].as_u64(), d["column"].as_u64()),
            (Some(2), Some(9)),
            "{d}"
        );
    }
}
