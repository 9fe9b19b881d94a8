//! `proclint runs` end to end over the committed run fixtures.

mod common;

use common::*;

#[test]
fn runs_json_over_valid_fixtures() {
    let o = proclint(&["runs", "fixtures/runs/project", "--format", "json"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert_eq!(stderr(&o), "");
    let out = stdout(&o);
    assert!(out.starts_with("{\"version\":1,\"runs\":["), "{out}");
    assert!(out.ends_with("}\n"));
    insta::assert_snapshot!(out);
}

#[test]
fn runs_table_over_valid_fixtures() {
    let o = proclint(&["runs", "fixtures/runs/convergence"]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    insta::assert_snapshot!(stdout(&o));
}

#[test]
fn integrity_failures_exit_1_and_are_listed() {
    let o = proclint(&["runs", "fixtures/runs/integrity"]);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    insta::assert_snapshot!(stdout(&o));

    let j = proclint(&["runs", "fixtures/runs/integrity", "--format", "json"]);
    assert_eq!(code(&j), 1);
    assert!(stdout(&j).starts_with("{\"version\":1,"));
    assert!(stderr(&j).contains("error[journal-integrity] checksum mismatch"));
}

#[test]
fn a_run_directory_itself_and_the_default_path() {
    let o = proclint(&[
        "runs",
        "fixtures/runs/project/.a5c/runs/run-halted",
        "--format",
        "json",
    ]);
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(stdout(&o).contains("\"run_id\":\"run-halted\",\"process_id\":\"acme/release\""));
    assert_eq!(stdout(&o).matches("run_id").count(), 1);

    let here = proclint_in(
        &root().join("fixtures/runs/project"),
        &["runs", "--format", "json"],
    );
    assert_eq!(code(&here), 0, "{}", stderr(&here));
    assert_eq!(stdout(&here).matches("run_id").count(), 4);
}

#[test]
fn empty_and_missing_paths() {
    let tmp = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
    let path = tmp.path().to_string_lossy().into_owned();
    let o = proclint(&["runs", &path, "--format", "json"]);
    assert_eq!(
        (code(&o), stdout(&o)),
        (
            0,
            "{\"version\":1,\"runs\":[],\"without_journal\":[]}\n".to_string()
        )
    );
    let t = proclint(&["runs", &path]);
    assert_eq!(stdout(&t), "no runs found\n");
    let missing = proclint(&["runs", "no/such/dir"]);
    assert_eq!(code(&missing), 2);
    assert!(stderr(&missing).contains("is not a directory"));
}
