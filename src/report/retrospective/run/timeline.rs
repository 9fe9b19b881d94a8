//! The Timeline section: key events and effects in journal order with
//! their waits, breakpoints with the decision and the human's time, and the
//! long gaps.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use super::{breakpoint_name, cell, code, inline, markdown, plural, task_name};
use crate::project::run_analysis::RunAnalysis;
use crate::runs::journal::BREAKPOINT_TASK_ID;
use crate::runs::summary::{RunStatus, RunSummary};
use crate::runs::time::human_duration;
use crate::runs::timeline::{BreakpointEntry, EffectEntry, Outcome as Resolved, Timeline};
use crate::runs::Decision;

/// One line of the timeline table.
struct Row {
    seq: u64,
    /// `recordedAt` as written.
    at: Option<String>,
    ms: Option<i64>,
    text: String,
    /// Request → resolution.
    took: String,
}

/// Rows shown in the timeline table; longer runs show the first and last
/// half of this with a gap row, so a run of thousands of effects stays
/// readable (problems are still listed in full under the run evidence).
const MAX_TIMELINE_ROWS: usize = 200;

pub(super) fn section(
    out: &mut String,
    a: &RunAnalysis,
    tl: &Timeline,
    s: &RunSummary,
    threshold_ms: i64,
) {
    out.push_str("## Timeline\n\n");
    let ended = match (s.status, &s.ended_at) {
        (RunStatus::InProgress, Some(last)) => format!(
            "; last event {}, no terminal event (in progress or abandoned)",
            markdown::text(last)
        ),
        (status, Some(last)) => format!(
            "; {} {}{}",
            status.as_str(),
            markdown::text(last),
            s.wall_seconds
                .map(|w| format!(" after {}", human_duration((w * 1000.0) as i64)))
                .unwrap_or_default()
        ),
        _ => String::new(),
    };
    let _ = writeln!(
        out,
        "Run {}: started {}{ended}. {} event{}, {} of them verified. Times are the journal's `recordedAt`; **Took** is request → resolution (for breakpoints: the time the human took).\n",
        code(&a.run.run_id),
        s.started_at
            .as_deref()
            .map_or_else(|| "at an unknown time".to_string(), markdown::text),
        s.events,
        plural(s.events),
        a.run.integrity.verified,
    );
    let start_ms = a.run.events.iter().find_map(|e| e.recorded_ms);
    let breakpoints: BTreeMap<&str, &BreakpointEntry> = tl
        .breakpoints
        .iter()
        .map(|b| (b.effect_id.as_str(), b))
        .collect();
    let mut rows: Vec<Row> = Vec::new();
    for k in &tl.key_events {
        let ms = a
            .run
            .events
            .iter()
            .find(|e| e.seq == k.seq)
            .and_then(|e| e.recorded_ms);
        rows.push(Row {
            seq: k.seq,
            at: k.recorded_at.clone(),
            ms,
            text: key_event_text(a, k.seq, &k.event_type),
            took: String::new(),
        });
    }
    for e in &tl.effects {
        let ms = a.run.effect(&e.effect_id).and_then(|x| x.requested_ms);
        let (text, took) = match breakpoints.get(e.effect_id.as_str()) {
            Some(b) => breakpoint_row(b),
            None => effect_row(e),
        };
        rows.push(Row {
            seq: e.seq,
            at: e.requested_at.clone(),
            ms,
            text,
            took,
        });
    }
    rows.sort_by_key(|r| r.seq);
    out.push_str("| # | Time | At | Event | Took |\n|---|---|---|---|---|\n");
    let total = rows.len();
    let half = MAX_TIMELINE_ROWS / 2;
    for (i, row) in rows.iter().enumerate() {
        if total > MAX_TIMELINE_ROWS && i >= half && i < total - half {
            if i == half {
                let _ = writeln!(
                    out,
                    "| … | | | *{} more rows; the run evidence below lists every problem* | |",
                    total - 2 * half
                );
            }
            continue;
        }
        let offset = match (start_ms, row.ms) {
            (Some(s), Some(m)) => format!("+{}", human_duration(m - s)),
            _ => "—".into(),
        };
        let _ = writeln!(
            out,
            "| {} | {} | {offset} | {} | {} |",
            row.seq,
            row.at
                .as_deref()
                .map_or_else(|| "—".to_string(), |at| cell(&markdown::text(at))),
            cell(&row.text),
            cell(&row.took)
        );
    }
    out.push('\n');
    if tl.gaps.is_empty() {
        out.push_str("No long gaps between events.\n\n");
        return;
    }
    let _ = writeln!(
        out,
        "**Long gaps** (the slowest 10% of the gaps between events, and any over {}):\n",
        human_duration(threshold_ms)
    );
    for g in &tl.gaps {
        let mut why = Vec::new();
        if g.slowest_decile {
            why.push("slowest 10%".to_string());
        }
        if g.over_threshold {
            why.push(format!("over {}", human_duration(threshold_ms)));
        }
        let waiting: BTreeSet<String> = g
            .waiting_on
            .iter()
            .map(|t| {
                if t == BREAKPOINT_TASK_ID {
                    "a breakpoint".to_string()
                } else {
                    code(t)
                }
            })
            .collect();
        let waiting = if waiting.is_empty() {
            "nothing outstanding (time spent in the process itself or the orchestrator)".to_string()
        } else {
            format!(
                "waiting on {}",
                waiting.into_iter().collect::<Vec<_>>().join(", ")
            )
        };
        let _ = writeln!(
            out,
            "- **{}** from #{} to #{} ({} → {}), {waiting} — {}",
            human_duration(g.ms),
            g.from_seq,
            g.to_seq,
            markdown::text(&g.from_at),
            markdown::text(&g.to_at),
            why.join(", ")
        );
    }
    out.push('\n');
}

pub(super) fn key_event_text(a: &RunAnalysis, seq: u64, event_type: &str) -> String {
    let reason = a
        .run
        .events
        .iter()
        .find(|e| e.seq == seq)
        .and_then(|e| event_reason(&e.data));
    let with = |head: &str| match &reason {
        Some(r) => format!("{head}: {}", inline(r)),
        None => head.to_string(),
    };
    match event_type {
        "RUN_CREATED" => "Run created".into(),
        "RUN_COMPLETED" => "**Run completed**".into(),
        "RUN_FAILED" => with("**Run failed**"),
        "RUN_HALTED" => with("**Run halted**"),
        other => code(other),
    }
}

/// The message of a failure or halt: `error.message`, `error`, `reason`.
pub(super) fn event_reason(data: &serde_json::Value) -> Option<String> {
    use serde_json::Value;
    let error = data.get("error");
    error
        .and_then(|e| e.get("message"))
        .and_then(Value::as_str)
        .or_else(|| error.and_then(Value::as_str))
        .or_else(|| data.get("reason").and_then(Value::as_str))
        .map(str::to_string)
}

fn effect_row(e: &EffectEntry) -> (String, String) {
    let name = task_name(&e.task_id, e.title.as_deref());
    let result = match e.outcome {
        Resolved::Ok => "ok".to_string(),
        Resolved::Error => match &e.error {
            Some(m) => format!("**error**: {}", inline(m)),
            None => "**error**".into(),
        },
        Resolved::Cancelled => "**cancelled**".into(),
        Resolved::Pending => "**pending** (no resolution recorded)".into(),
    };
    (
        format!("{name} → {result}"),
        e.wait_ms.map(human_duration).unwrap_or_default(),
    )
}

fn breakpoint_row(b: &BreakpointEntry) -> (String, String) {
    let by = b
        .responded_by
        .as_deref()
        .map(|r| format!(" by {}", inline(r)))
        .unwrap_or_default();
    let decision = match b.decision {
        Decision::Approved => format!("approved{by}"),
        Decision::Rejected => format!("**rejected**{by}"),
        Decision::Pending => "**pending** (no decision recorded)".into(),
    };
    let feedback = b
        .feedback
        .as_deref()
        .map(|f| format!(": “{}”", inline(f)))
        .unwrap_or_default();
    (
        format!("Breakpoint {} → {decision}{feedback}", breakpoint_name(b)),
        b.wait_ms
            .map(|w| format!("{} (human)", human_duration(w)))
            .unwrap_or_default(),
    )
}
