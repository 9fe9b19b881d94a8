//! One line per run: what `proclint runs` lists, as JSON or an aligned table.

use serde_json::{json, Value};

use crate::runs::journal::{Decision, EffectStatus, Run};
use crate::runs::time::{human_duration, parse_iso8601_ms};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RunStatus {
    Completed,
    Failed,
    Halted,
    InProgress,
}

impl RunStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            RunStatus::Completed => "completed",
            RunStatus::Failed => "failed",
            RunStatus::Halted => "halted",
            RunStatus::InProgress => "in-progress",
        }
    }
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct EffectCounts {
    pub requested: usize,
    pub ok: usize,
    /// Resolved with an error, or cancelled: either way no result came back.
    pub error: usize,
    pub pending: usize,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BreakpointCounts {
    pub approved: usize,
    pub rejected: usize,
    pub pending: usize,
}

#[derive(Debug, Clone, PartialEq)]
pub struct RunSummary {
    pub run_id: String,
    pub process_id: Option<String>,
    pub created_at: Option<String>,
    /// The run directory relative to the scanned root.
    pub path: String,
    pub status: RunStatus,
    pub events: usize,
    pub effects: EffectCounts,
    pub breakpoints: BreakpointCounts,
    pub started_at: Option<String>,
    pub ended_at: Option<String>,
    /// First event to the terminal event; `None` while the run has no terminal event.
    pub wall_seconds: Option<f64>,
    pub integrity_verified: usize,
    pub integrity_failed: usize,
}

pub fn status_of(run: &Run) -> RunStatus {
    match run.terminal_event().map(|e| e.event_type.as_str()) {
        Some("RUN_COMPLETED") => RunStatus::Completed,
        Some("RUN_FAILED") => RunStatus::Failed,
        Some("RUN_HALTED") => RunStatus::Halted,
        _ => RunStatus::InProgress,
    }
}

pub fn summarize(run: &Run) -> RunSummary {
    let mut effects = EffectCounts::default();
    let mut breakpoints = BreakpointCounts::default();
    for effect in &run.effects {
        effects.requested += 1;
        match effect.status() {
            Some(EffectStatus::Ok) => effects.ok += 1,
            Some(EffectStatus::Error | EffectStatus::Cancelled) => effects.error += 1,
            None => effects.pending += 1,
        }
        match effect.breakpoint_decision() {
            Some(Decision::Approved) => breakpoints.approved += 1,
            Some(Decision::Rejected) => breakpoints.rejected += 1,
            Some(Decision::Pending) => breakpoints.pending += 1,
            None => {}
        }
    }
    let first = run.events.first();
    let last = run.events.last();
    let wall_seconds = match (first.and_then(|e| e.recorded_ms), run.terminal_event()) {
        (Some(start), Some(end)) => end.recorded_ms.map(|end| (end - start) as f64 / 1000.0),
        _ => None,
    };
    RunSummary {
        run_id: run.run_id.clone(),
        process_id: run.meta.process_id.clone(),
        created_at: run.created_at().map(str::to_string),
        path: run.rel_dir.clone(),
        status: status_of(run),
        events: run.events.len(),
        effects,
        breakpoints,
        started_at: first.and_then(|e| e.recorded_at.clone()),
        ended_at: last.and_then(|e| e.recorded_at.clone()),
        wall_seconds,
        integrity_verified: run.integrity.verified,
        integrity_failed: run.integrity.failed(),
    }
}

/// Created time (unparseable or missing times last), then run id, then path.
fn sorted(summaries: &[RunSummary]) -> Vec<&RunSummary> {
    let mut v: Vec<&RunSummary> = summaries.iter().collect();
    v.sort_by(|a, b| {
        let key = |s: &RunSummary| {
            let ms = s.created_at.as_deref().and_then(parse_iso8601_ms);
            (ms.is_none(), ms, s.created_at.clone())
        };
        key(a)
            .cmp(&key(b))
            .then_with(|| a.run_id.cmp(&b.run_id))
            .then_with(|| a.path.cmp(&b.path))
    });
    v
}

fn summary_json(s: &RunSummary) -> Value {
    json!({
        "run_id": s.run_id,
        "process_id": s.process_id,
        "created_at": s.created_at,
        "path": s.path,
        "status": s.status.as_str(),
        "events": s.events,
        "effects": {
            "requested": s.effects.requested,
            "ok": s.effects.ok,
            "error": s.effects.error,
            "pending": s.effects.pending,
        },
        "breakpoints": {
            "approved": s.breakpoints.approved,
            "rejected": s.breakpoints.rejected,
            "pending": s.breakpoints.pending,
        },
        "started_at": s.started_at,
        "ended_at": s.ended_at,
        "wall_seconds": s.wall_seconds,
        "integrity": {
            "verified": s.integrity_verified,
            "failed": s.integrity_failed,
        },
    })
}

/// `{"version":1,"runs":[…]}`, compact, sorted by created time then id.
pub fn render_json(summaries: &[RunSummary]) -> String {
    render_json_with(summaries, &[])
}

/// As [`render_json`], plus `without_journal`: folders under `.a5c/runs`
/// that hold no `run.json` or `journal/` (e.g. only `tasks/…/output.json`),
/// which are not runs.
pub fn render_json_with(summaries: &[RunSummary], without_journal: &[String]) -> String {
    let runs: Vec<Value> = sorted(summaries).into_iter().map(summary_json).collect();
    json!({ "version": 1, "runs": runs, "without_journal": without_journal }).to_string()
}

const HEADERS: [&str; 9] = [
    "RUN",
    "PROCESS",
    "CREATED",
    "STATUS",
    "EVENTS",
    "EFFECTS req (ok/err/pend)",
    "BREAKPOINTS a/r/p",
    "WALL",
    "INTEGRITY",
];
/// Columns holding numbers are right-aligned so digits line up.
const RIGHT_ALIGNED: [bool; 9] = [false, false, false, false, true, false, false, true, false];

/// Aligned plain-text columns, one row per run (no colour: callers decide on TTYs).
pub fn render_table(summaries: &[RunSummary]) -> String {
    if summaries.is_empty() {
        return "no runs found\n".to_string();
    }
    let rows: Vec<[String; 9]> = sorted(summaries).into_iter().map(table_row).collect();
    let mut widths = HEADERS.map(|h| h.chars().count());
    for row in &rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    let header = HEADERS.map(str::to_string);
    for row in std::iter::once(&header).chain(&rows) {
        let mut line = String::new();
        for (i, cell) in row.iter().enumerate() {
            let pad = widths[i].saturating_sub(cell.chars().count());
            if i > 0 {
                line.push_str("  ");
            }
            if RIGHT_ALIGNED[i] {
                line.push_str(&" ".repeat(pad));
                line.push_str(cell);
            } else {
                line.push_str(cell);
                line.push_str(&" ".repeat(pad));
            }
        }
        out.push_str(line.trim_end());
        out.push('\n');
    }
    out
}

fn table_row(s: &RunSummary) -> [String; 9] {
    let e = s.effects;
    let b = s.breakpoints;
    let integrity = if s.integrity_failed == 0 {
        format!("{} ok", s.integrity_verified)
    } else {
        format!("{} ok, {} FAILED", s.integrity_verified, s.integrity_failed)
    };
    [
        s.run_id.clone(),
        s.process_id.clone().unwrap_or_else(|| "-".into()),
        s.created_at.clone().unwrap_or_else(|| "-".into()),
        s.status.as_str().to_string(),
        s.events.to_string(),
        format!("{} ({}/{}/{})", e.requested, e.ok, e.error, e.pending),
        format!("{}/{}/{}", b.approved, b.rejected, b.pending),
        s.wall_seconds
            .map(|w| human_duration((w * 1000.0).round() as i64))
            .unwrap_or_else(|| "-".into()),
        integrity,
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn summary(id: &str, created: Option<&str>) -> RunSummary {
        RunSummary {
            run_id: id.into(),
            process_id: Some("p".into()),
            created_at: created.map(str::to_string),
            path: id.into(),
            status: RunStatus::InProgress,
            events: 1,
            effects: EffectCounts::default(),
            breakpoints: BreakpointCounts::default(),
            started_at: None,
            ended_at: None,
            wall_seconds: None,
            integrity_verified: 1,
            integrity_failed: 0,
        }
    }

    #[test]
    fn json_is_sorted_by_created_then_id_and_has_the_exact_shape() {
        let out = render_json(&[
            summary("b", Some("2026-01-02T00:00:00.000Z")),
            summary("z", None),
            summary("c", Some("2026-01-01T01:00:00+02:00")),
            summary("a", Some("2026-01-02T00:00:00.000Z")),
        ]);
        let ids: Vec<&str> = ["\"c\"", "\"a\"", "\"b\"", "\"z\""]
            .into_iter()
            .filter(|id| out.contains(id))
            .collect();
        assert_eq!(ids.len(), 4);
        let pos = |id: &str| {
            out.find(&format!("\"run_id\":\"{id}\""))
                .unwrap_or(usize::MAX)
        };
        assert!(
            pos("c") < pos("a") && pos("a") < pos("b") && pos("b") < pos("z"),
            "{out}"
        );
        assert!(out.starts_with(r#"{"version":1,"runs":[{"run_id":"c","process_id":"p","created_at":"2026-01-01T01:00:00+02:00","path":"c","status":"in-progress","events":1,"effects":{"requested":0,"ok":0,"error":0,"pending":0},"breakpoints":{"approved":0,"rejected":0,"pending":0},"started_at":null,"ended_at":null,"wall_seconds":null,"integrity":{"verified":1,"failed":0}}"#), "{out}");
    }

    #[test]
    fn table_columns_align() {
        let mut long = summary("a-much-longer-run-id", Some("2026-01-01T00:00:00.000Z"));
        long.wall_seconds = Some(185.0);
        long.integrity_failed = 2;
        let out = render_table(&[summary("r1", None), long]);
        let lines: Vec<&str> = out.lines().collect();
        assert_eq!(lines.len(), 3);
        let col = |l: &str| l.find("PROCESS").or_else(|| l.find(" p ")).unwrap_or(0);
        assert_eq!(
            col(lines[0]),
            lines[1].find(" p ").map(|i| i + 1).unwrap_or(0)
        );
        assert!(lines[1].contains("3m 05s"), "{out}");
        assert!(lines[1].ends_with("1 ok, 2 FAILED"), "{out}");
        assert_eq!(col(lines[0]), col(lines[2]) + 1);
        assert_eq!(render_table(&[]), "no runs found\n");
    }
}
