//! A panic in any per-file stage, rule, the cross-module pass or the fixer
//! becomes an `internal-error` naming the file and the rule or stage (exit
//! code 2), and every other file and rule still reports. Panics are planted
//! with the `PROCLINT_INJECT_PANIC=<stage>[:<path-substring>]` testing hook.

mod common;

use std::collections::BTreeSet;
use std::process::Command;

use common::*;

fn run(dir: &std::path::Path, args: &[&str], inject: Option<&str>) -> (i32, Vec<Finding>) {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_proclint"));
    cmd.args(args)
        .current_dir(dir)
        .env("RAYON_NUM_THREADS", "2")
        .env_remove("PROCLINT_INJECT_PANIC");
    if let Some(i) = inject {
        cmd.env("PROCLINT_INJECT_PANIC", i);
    }
    let o = cmd
        .output()
        .unwrap_or_else(|e| panic!("cannot run proclint: {e}"));
    (code(&o), findings(&report_json(&o)))
}

const ARGS: &[&str] = &["check", "fixtures", "--format", "json", "--no-cache"];

/// Injects a panic and checks the contract: exit 2, one `internal-error`
/// on `path` naming `stage`, and every baseline finding outside `lost`
/// still reported.
fn check(stage: &str, path: &str, lost: impl Fn(&Finding) -> bool) {
    check_with(stage, path, lost, true)
}

/// `subset`: nothing new may appear. Not so when a module's summary is
/// lost: the modules around it are then judged without its reads.
fn check_with(stage: &str, path: &str, lost: impl Fn(&Finding) -> bool, subset: bool) {
    let (base_code, base) = run(&root(), ARGS, None);
    assert_eq!(base_code, 1);
    let (code, found) = run(&root(), ARGS, Some(&format!("{stage}:{path}")));
    assert_eq!(code, 2, "{stage}:{path}: {found:#?}");
    let internal: Vec<&Finding> = found.iter().filter(|f| f.0 == "internal-error").collect();
    assert!(!internal.is_empty(), "{stage}:{path}: no internal-error");
    for f in &internal {
        assert!(f.1.contains(path), "{f:?}");
        assert!(f.4.contains(stage), "{f:?}");
        assert!(f.4.contains("injected panic"), "{f:?}");
    }
    let found: BTreeSet<&Finding> = found.iter().filter(|f| f.0 != "internal-error").collect();
    for f in &base {
        if !lost(f) {
            assert!(found.contains(f), "{stage}:{path}: lost {f:?}");
        }
    }
    if subset {
        let base: BTreeSet<&Finding> = base.iter().collect();
        let new: Vec<_> = found.difference(&base).collect();
        assert!(new.is_empty(), "{stage}:{path}: new findings {new:?}");
    }
}

#[test]
fn a_panicking_rule_on_one_file_spares_other_files_and_rules() {
    let file = "fixtures/unchecked-breakpoint/bad.js";
    check("unchecked-breakpoint", file, |f| {
        f.0 == "unchecked-breakpoint" && f.1 == file
    });
}

#[test]
fn a_panicking_rule_everywhere_spares_other_rules() {
    check("missing-labels", "", |f| f.0 == "missing-labels");
}

#[test]
fn each_per_file_stage_is_guarded() {
    let js = "fixtures/unused-output-field/multi/phase.js";
    // Parser, model and read failures lose the file's own findings (and
    // the cross-module findings its summary fed); facts only feed the
    // retrospective.
    for stage in ["read", "parser", "model", "summary"] {
        check_with(
            stage,
            js,
            |f| f.1 == js || f.0 == "unused-output-field" || f.0 == "missing-stable-key",
            false,
        );
    }
    check("facts", js, |_| false);
    let md = "fixtures/skill-frontmatter";
    check("markdown-parser", md, |f| f.1.starts_with(md));
    check("skill-frontmatter", md, |f| {
        f.1.starts_with(md) && f.0 == "skill-frontmatter"
    });
    let manifest = "fixtures/unpinned-sdk";
    check("manifest-parser", manifest, |f| f.1.starts_with(manifest));
    check("unpinned-sdk", manifest, |f| {
        f.1.starts_with(manifest) && f.0 == "unpinned-sdk"
    });
}

#[test]
fn a_panic_in_the_cross_module_pass_is_reported() {
    check("unused-output-field", "<project>", |f| {
        f.0 == "unused-output-field"
    });
}

#[test]
fn a_panic_while_fixing_one_file_leaves_it_alone_and_fixes_the_rest() {
    let dir = tempdir();
    let d = dir.path();
    write(d, "a.js", FIXABLE_TASK);
    write(d, "b.js", FIXABLE_TASK);
    let (code, found) = run(
        d,
        &["check", ".", "--fix", "--format", "json", "--no-cache"],
        Some("fix:b.js"),
    );
    assert_eq!(code, 2, "{found:#?}");
    assert!(
        found
            .iter()
            .any(|f| f.0 == "internal-error" && f.1 == "b.js" && f.4.contains("fix")),
        "{found:#?}"
    );
    let a = std::fs::read_to_string(d.join("a.js")).unwrap_or_default();
    let b = std::fs::read_to_string(d.join("b.js")).unwrap_or_default();
    assert!(a.contains("kind: 'agent',\nlabels: ['review'],"), "{a}");
    assert_eq!(b, FIXABLE_TASK);
    // --diff: the failure is reported and exits 2 as well.
    let o = Command::new(env!("CARGO_BIN_EXE_proclint"))
        .args(["check", ".", "--fix", "--diff", "--no-cache"])
        .current_dir(d)
        .env("PROCLINT_INJECT_PANIC", "fix:b.js")
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(code_of(&o), 2, "{}", stderr(&o));
    assert!(stderr(&o).contains("b.js"), "{}", stderr(&o));
}

fn code_of(o: &std::process::Output) -> i32 {
    code(o)
}

#[test]
fn without_the_variable_nothing_is_injected() {
    let (code, found) = run(&root(), ARGS, None);
    assert_eq!(code, 1);
    assert!(!found.iter().any(|f| f.0 == "internal-error"));
}
