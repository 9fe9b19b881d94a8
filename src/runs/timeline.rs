//! The run as it happened: effects with their waits, the long gaps, the
//! breakpoint decisions and the task ids dispatched more than once. Pure data;
//! the retrospective renders it.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::runs::journal::{Decision, EffectStatus, Run};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TimelineOptions {
    /// Gaps longer than this are long whatever their rank.
    pub gap_threshold_ms: i64,
}

impl Default for TimelineOptions {
    fn default() -> Self {
        Self {
            gap_threshold_ms: 5 * 60 * 1000,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    Ok,
    Error,
    Cancelled,
    Pending,
}

#[derive(Debug, Clone, PartialEq)]
pub struct KeyEvent {
    pub seq: u64,
    pub event_type: String,
    pub recorded_at: Option<String>,
    pub file: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct EffectEntry {
    pub seq: u64,
    pub effect_id: String,
    pub task_id: String,
    pub title: Option<String>,
    pub kind: Option<String>,
    pub requested_at: Option<String>,
    pub resolved_at: Option<String>,
    pub outcome: Outcome,
    pub wait_ms: Option<i64>,
    pub error: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Gap {
    pub from_seq: u64,
    pub to_seq: u64,
    pub from_at: String,
    pub to_at: String,
    pub ms: i64,
    /// Among the slowest 10% of the run's gaps.
    pub slowest_decile: bool,
    pub over_threshold: bool,
    /// Task ids of the effects that were outstanding across the gap.
    pub waiting_on: Vec<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct BreakpointEntry {
    pub seq: u64,
    pub effect_id: String,
    pub title: Option<String>,
    pub decision: Decision,
    pub requested_at: Option<String>,
    pub resolved_at: Option<String>,
    /// The time the human (or approval rule) took.
    pub wait_ms: Option<i64>,
    pub feedback: Option<String>,
    pub responded_by: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Redispatch {
    pub task_id: String,
    pub count: usize,
    pub effect_ids: Vec<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Timeline {
    /// Run-level events (creation, terminal, halts, anything that is not an
    /// effect or a log line) in journal order.
    pub key_events: Vec<KeyEvent>,
    pub effects: Vec<EffectEntry>,
    /// Long gaps in journal order.
    pub gaps: Vec<Gap>,
    pub breakpoints: Vec<BreakpointEntry>,
    /// Task ids requested more than once, most dispatches first. Breakpoints
    /// share one task id, so they are listed under `breakpoints` instead.
    pub redispatched: Vec<Redispatch>,
}

const ROUTINE_EVENTS: &[&str] = &[
    "EFFECT_REQUESTED",
    "EFFECT_RESOLVED",
    "EFFECT_CANCELLED",
    "EFFECT_PROGRESS",
    "PROCESS_LOG",
    "COST_TRACKED",
];

pub fn timeline(run: &Run, options: &TimelineOptions) -> Timeline {
    let key_events = run
        .events
        .iter()
        .filter(|e| !ROUTINE_EVENTS.contains(&e.event_type.as_str()))
        .map(|e| KeyEvent {
            seq: e.seq,
            event_type: e.event_type.clone(),
            recorded_at: e.recorded_at.clone(),
            file: e.file.clone(),
        })
        .collect();

    let effects = run
        .effects
        .iter()
        .map(|e| EffectEntry {
            seq: e.requested_seq,
            effect_id: e.effect_id.clone(),
            task_id: e.task_id.clone(),
            title: e.title.clone(),
            kind: e.kind.clone(),
            requested_at: e.requested_at.clone(),
            resolved_at: e.resolution.as_ref().and_then(|r| r.recorded_at.clone()),
            outcome: match e.status() {
                Some(EffectStatus::Ok) => Outcome::Ok,
                Some(EffectStatus::Error) => Outcome::Error,
                Some(EffectStatus::Cancelled) => Outcome::Cancelled,
                None => Outcome::Pending,
            },
            wait_ms: e.wait_ms(),
            error: e.resolution.as_ref().and_then(|r| r.error_message.clone()),
        })
        .collect();

    let breakpoints = run
        .effects
        .iter()
        .filter_map(|e| {
            let decision = e.breakpoint_decision()?;
            let value = e.value();
            let text = |key: &str| {
                value
                    .and_then(|v| v.get(key))
                    .and_then(Value::as_str)
                    .map(str::to_string)
            };
            Some(BreakpointEntry {
                seq: e.requested_seq,
                effect_id: e.effect_id.clone(),
                title: e.title.clone().or_else(|| e.label.clone()),
                decision,
                requested_at: e.requested_at.clone(),
                resolved_at: e.resolution.as_ref().and_then(|r| r.recorded_at.clone()),
                wait_ms: e.wait_ms(),
                feedback: text("feedback").or_else(|| text("response")),
                responded_by: text("respondedBy"),
            })
        })
        .collect();

    Timeline {
        key_events,
        effects,
        gaps: long_gaps(run, options),
        breakpoints,
        redispatched: redispatched(run),
    }
}

fn redispatched(run: &Run) -> Vec<Redispatch> {
    let mut by_task: BTreeMap<&str, Vec<String>> = BTreeMap::new();
    for e in run.effects.iter().filter(|e| !e.is_breakpoint()) {
        by_task
            .entry(&e.task_id)
            .or_default()
            .push(e.effect_id.clone());
    }
    let mut out: Vec<Redispatch> = by_task
        .into_iter()
        .filter(|(_, ids)| ids.len() > 1)
        .map(|(task, ids)| Redispatch {
            task_id: task.to_string(),
            count: ids.len(),
            effect_ids: ids,
        })
        .collect();
    out.sort_by(|a, b| {
        b.count
            .cmp(&a.count)
            .then_with(|| a.task_id.cmp(&b.task_id))
    });
    out
}

/// Gaps between consecutive timed events that rank in the slowest 10% (at
/// least one) or exceed the threshold.
fn long_gaps(run: &Run, options: &TimelineOptions) -> Vec<Gap> {
    let timed: Vec<_> = run
        .events
        .iter()
        .filter_map(|e| Some((e, e.recorded_ms?, e.recorded_at.as_deref()?)))
        .collect();
    let all: Vec<(usize, i64)> = timed
        .windows(2)
        .enumerate()
        .map(|(i, w)| (i, w[1].1 - w[0].1))
        .filter(|(_, ms)| *ms > 0)
        .collect();
    let mut ranked = all.clone();
    ranked.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    let decile = all.len().div_ceil(10);
    // Flags by gap index and a sweep over the effects in flight: a search
    // of the slowest list and a scan of every effect per gap made a run of
    // n effects quadratic.
    let mut slowest = vec![false; timed.len()];
    for (i, _) in ranked.iter().take(decile) {
        if let Some(s) = slowest.get_mut(*i) {
            *s = true;
        }
    }
    let effects = &run.effects;
    let mut by_request: Vec<usize> = (0..effects.len()).collect();
    by_request.sort_by_key(|&i| effects[i].requested_seq);
    let mut by_resolution: Vec<(u64, usize)> = effects
        .iter()
        .enumerate()
        .filter_map(|(i, e)| Some((e.resolution.as_ref()?.seq, i)))
        .collect();
    by_resolution.sort_unstable();
    let (mut requested, mut resolved) = (0, 0);
    let mut in_flight: std::collections::BTreeSet<usize> = Default::default();

    all.into_iter()
        .filter_map(|(i, ms)| {
            let slowest_decile = slowest.get(i).copied().unwrap_or(false);
            let over_threshold = ms > options.gap_threshold_ms;
            if !slowest_decile && !over_threshold {
                return None;
            }
            let (from, _, from_at) = timed[i];
            let (to, _, to_at) = timed[i + 1];
            // Gaps come in sequence order, so both cursors only move on:
            // in flight are effects requested by `from` and not resolved
            // before `to`.
            while let Some(&e) = by_request.get(requested) {
                if effects[e].requested_seq > from.seq {
                    break;
                }
                if effects[e]
                    .resolution
                    .as_ref()
                    .is_none_or(|r| r.seq >= to.seq)
                {
                    in_flight.insert(e);
                }
                requested += 1;
            }
            while let Some(&(seq, e)) = by_resolution.get(resolved) {
                if seq >= to.seq {
                    break;
                }
                in_flight.remove(&e);
                resolved += 1;
            }
            let waiting_on = in_flight
                .iter()
                .map(|&e| effects[e].task_id.clone())
                .collect();
            Some(Gap {
                from_seq: from.seq,
                to_seq: to.seq,
                from_at: from_at.to_string(),
                to_at: to_at.to_string(),
                ms,
                slowest_decile,
                over_threshold,
                waiting_on,
            })
        })
        .collect()
}
