//! The runs library API over the committed fixtures in `fixtures/runs/`
//! (regenerate with `python3 scripts/gen_run_fixtures.py`).

use std::fs;
use std::path::{Path, PathBuf};

use proclint::runs::integrity::write_event_text;
use proclint::runs::timeline::Outcome;
use proclint::runs::{
    convergence, discover_runs, load_run, render_json, render_table, summarize, timeline, Decision,
    LoopClass, Run, RunStatus, TimelineOptions,
};
use serde_json::{json, Value};

fn fixtures(group: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures/runs")
        .join(group)
}

fn load_group(group: &str) -> Vec<Run> {
    let root = fixtures(group);
    discover_runs(&root)
        .iter()
        .map(|d| load_run(&d.path, &root))
        .collect()
}

fn run(group: &str, id: &str) -> Run {
    let root = fixtures(group);
    load_run(&root.join(".a5c/runs").join(id), &root)
}

/// Pretty JSON text for snapshots. `insta::assert_json_snapshot!` cannot be
/// used on `serde_json::Value`: with serde_json's `arbitrary_precision` (needed
/// for checksums) numbers reach insta as `{"$serde_json::private::Number": …}`.
fn pretty(json: &str) -> String {
    let v: Value = serde_json::from_str(json).unwrap_or(Value::Null);
    to_pretty(&v)
}

fn to_pretty<T: serde::Serialize>(v: &T) -> String {
    serde_json::to_string_pretty(v).unwrap_or_else(|e| format!("serialization failed: {e}"))
}

#[test]
fn discovers_runs_at_any_depth_and_a_run_dir_itself() {
    let all = discover_runs(&fixtures(""));
    // 21 runs, plus `phases/nested/pkg`'s folder without a journal, which
    // discovery lists and `proclint runs` reports as not a run.
    assert_eq!(all.len(), 22, "{all:?}");
    let one = fixtures("project").join(".a5c/runs/run-failed");
    let found = discover_runs(&one);
    assert_eq!(found.len(), 1);
    assert_eq!(found[0].path, one);
    // `.a5c/runs` itself lists its children
    assert_eq!(
        discover_runs(&fixtures("project").join(".a5c/runs")).len(),
        4
    );
}

#[test]
fn every_valid_journal_verifies_completely() {
    for group in ["project", "convergence", "retro"] {
        for run in load_group(group) {
            assert_eq!(
                run.integrity.issues,
                vec![],
                "{} should verify cleanly",
                run.run_id
            );
            assert_eq!(run.integrity.verified, run.events.len(), "{}", run.run_id);
            assert!(run.integrity.verified > 0);
        }
    }
}

#[test]
fn project_runs_json() {
    let summaries: Vec<_> = load_group("project").iter().map(summarize).collect();
    let out = render_json(&summaries);
    assert!(out.starts_with("{\"version\":1,\"runs\":[{\"run_id\":\"run-completed\""));
    insta::assert_snapshot!("project_runs_json", pretty(&out));
}

#[test]
fn project_runs_statuses_and_counts() {
    let by_id = |id: &str| summarize(&run("project", id));
    let completed = by_id("run-completed");
    assert_eq!(completed.status, RunStatus::Completed);
    assert_eq!(completed.breakpoints.approved, 1);
    assert!(completed.wall_seconds.is_some_and(|w| w > 7_260.0));
    assert_eq!(by_id("run-failed").status, RunStatus::Failed);
    assert_eq!(by_id("run-failed").effects.error, 1);
    let halted = by_id("run-halted");
    assert_eq!(halted.status, RunStatus::Halted);
    assert_eq!(halted.breakpoints.rejected, 1);
    let open = by_id("run-in-progress");
    assert_eq!(open.status, RunStatus::InProgress);
    assert_eq!(open.wall_seconds, None);
    assert_eq!((open.effects.pending, open.breakpoints.pending), (2, 1));
}

#[test]
fn project_runs_table() {
    let summaries: Vec<_> = load_group("project").iter().map(summarize).collect();
    insta::assert_snapshot!("project_runs_table", render_table(&summaries));
}

#[test]
fn integrity_failures_are_reported_and_reading_continues() {
    let runs = load_group("integrity");
    let report: Vec<Value> = runs
        .iter()
        .map(|r| {
            json!({
                "run": r.run_id,
                "events_read": r.events.len(),
                "verified": r.integrity.verified,
                "issues": r.integrity.issues,
            })
        })
        .collect();
    insta::assert_snapshot!("integrity_issues", to_pretty(&report));
    let summaries: Vec<_> = runs.iter().map(summarize).collect();
    insta::assert_snapshot!("integrity_runs_json", pretty(&render_json(&summaries)));
}

#[test]
fn each_integrity_fixture_trips_its_check() {
    let messages = |id: &str| -> Vec<String> {
        run("integrity", id)
            .integrity
            .issues
            .into_iter()
            .map(|i| format!("{}:{} {}", i.file, i.line.unwrap_or(0), i.message))
            .collect()
    };
    let has = |id: &str, needle: &str| {
        let m = messages(id);
        assert!(
            m.iter().any(|s| s.contains(needle)),
            "{id}: no issue containing {needle:?} in {m:#?}"
        );
    };
    has("int-tampered-data", "checksum mismatch");
    has("int-reordered-key", "checksum mismatch");
    has("int-missing-sequence", "event(s) 3 missing before 4");
    has("int-truncated", "truncated JSON");
    has("int-unparseable", "not valid JSON");
    has("int-unparseable", "which was never requested");
    has("int-structural", "which was never requested");
    has("int-structural", "does not exist");
    has(
        "int-structural",
        "recorded after the terminal RUN_COMPLETED",
    );
}

#[test]
fn convergence_classes_on_fixtures() {
    let expect = [
        ("conv-converged-first", LoopClass::Converged),
        ("conv-independent-fixes", LoopClass::Converged),
        ("conv-progressive", LoopClass::Progressive),
        ("conv-oscillating", LoopClass::Oscillating),
        ("conv-stalled", LoopClass::Stalled),
        ("conv-growing", LoopClass::Growing),
        ("conv-ended-unresolved", LoopClass::EndedUnresolved),
    ];
    for (id, class) in expect {
        let loops = convergence(&run("convergence", id), 3);
        assert_eq!(loops.len(), 1, "{id}: {loops:#?}");
        assert_eq!(loops[0].class, class, "{id}: {}", loops[0].reason);
    }
    for healthy in [
        "conv-independent-fixes",
        "conv-progressive",
        "conv-converged-first",
    ] {
        let loops = convergence(&run("convergence", healthy), 3);
        assert!(
            !loops[0].class.is_non_convergent(),
            "{healthy} must not be flagged"
        );
    }
}

#[test]
fn convergence_trajectories_snapshot() {
    let all: Vec<Value> = load_group("convergence")
        .iter()
        .map(|r| json!({"run": r.run_id, "loops": convergence(r, 3)}))
        .collect();
    insta::assert_snapshot!("convergence_trajectories", to_pretty(&all));
}

#[test]
fn timeline_of_the_completed_run() {
    let r = run("project", "run-completed");
    let t = timeline(&r, &TimelineOptions::default());
    assert_eq!(t.effects.len(), 4);
    assert!(t.effects.iter().all(|e| e.outcome == Outcome::Ok));
    assert_eq!(
        t.effects[1].title.as_deref(),
        Some("Implement: login form — résumé ✓")
    );
    assert_eq!(t.effects[1].wait_ms, Some(610_005));
    assert_eq!(t.breakpoints.len(), 1);
    assert_eq!(t.breakpoints[0].decision, Decision::Approved);
    assert_eq!(t.breakpoints[0].wait_ms, Some(7_260_005));
    assert_eq!(t.breakpoints[0].responded_by.as_deref(), Some("dana"));
    let long: Vec<(i64, bool, bool)> = t
        .gaps
        .iter()
        .map(|g| (g.ms, g.slowest_decile, g.over_threshold))
        .collect();
    assert_eq!(long, vec![(610_005, true, true), (7_260_005, true, true)]);
    assert_eq!(t.gaps[1].waiting_on, vec!["__sdk.breakpoint"]);
    let kinds: Vec<&str> = t.key_events.iter().map(|k| k.event_type.as_str()).collect();
    assert_eq!(kinds, vec!["RUN_CREATED", "RUN_COMPLETED"]);

    let strict = timeline(
        &r,
        &TimelineOptions {
            gap_threshold_ms: i64::MAX,
        },
    );
    assert!(strict
        .gaps
        .iter()
        .all(|g| g.slowest_decile && !g.over_threshold));
}

#[test]
fn timeline_counts_redispatched_tasks() {
    let t = timeline(
        &run("convergence", "conv-oscillating"),
        &TimelineOptions::default(),
    );
    let counts: Vec<(&str, usize)> = t
        .redispatched
        .iter()
        .map(|r| (r.task_id.as_str(), r.count))
        .collect();
    assert_eq!(counts, vec![("acceptance", 4), ("fix", 3)]);
}

/// A journal written by the Rust-side serializer in a temp dir verifies 100%,
/// including the awkward values (floats as written, U+2028, controls, empties).
#[test]
fn rust_written_journal_verifies_completely() {
    let tmp = match tempfile::tempdir() {
        Ok(t) => t,
        Err(e) => panic!("tempdir: {e}"),
    };
    let dir = tmp.path().join("proj/.a5c/runs/r1");
    let write = |rel: &str, text: &str| {
        let p = dir.join(rel);
        if let Some(parent) = p.parent() {
            fs::create_dir_all(parent).ok();
        }
        if let Err(e) = fs::write(&p, text) {
            panic!("write {rel}: {e}");
        }
    };
    write(
        "run.json",
        r#"{"runId":"r1","processId":"p","createdAt":"2026-02-01T00:00:00.000Z"}"#,
    );
    write("tasks/e1/task.json", r#"{"taskId":"t","title":"T"}"#);
    write(
        "tasks/e1/result.json",
        r#"{"status":"ok","value":{"passed":true}}"#,
    );
    let events = [
        (
            "RUN_CREATED",
            json!({"runId": "r1", "weird": "\u{2028}\u{1}é\"\\", "n": [1.5, 100, -0.25], "e": {}, "a": []}),
        ),
        (
            "EFFECT_REQUESTED",
            json!({"effectId": "e1", "taskId": "t", "kind": "agent", "taskDefRef": "tasks/e1/task.json"}),
        ),
        (
            "EFFECT_RESOLVED",
            json!({"effectId": "e1", "status": "ok", "resultRef": "tasks/e1/result.json"}),
        ),
        ("RUN_COMPLETED", json!({})),
    ];
    for (i, (kind, data)) in events.into_iter().enumerate() {
        let ulid = format!("01KF{:022}", i + 1);
        let at = format!("2026-02-01T00:00:0{i}.000Z");
        write(
            &format!("journal/{:06}.{ulid}.json", i + 1),
            &write_event_text(kind, &at, data),
        );
    }
    let root = tmp.path().join("proj");
    let runs = discover_runs(&root);
    assert_eq!(runs.len(), 1);
    let r = load_run(&runs[0].path, &root);
    assert_eq!(r.integrity.issues, vec![]);
    assert_eq!(r.integrity.verified, 4);
    let s = summarize(&r);
    assert_eq!(s.status, RunStatus::Completed);
    assert_eq!(s.wall_seconds, Some(3.0));
    assert_eq!(r.effects[0].title.as_deref(), Some("T"));
}
