//! The run sections of a run-aware retrospective (`check --run`): the
//! timeline, the run evidence (what went well / poorly in this run), the
//! cross-reference between journal task ids and the source, and the
//! convergence trajectory of every check loop. Every line comes from the
//! journal (times as recorded, never the clock) or from the checked source.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt::Write as _;

use super::RetroInfo;
use crate::diagnostic::Location;
use crate::facts::Facts;
use crate::lint::Outcome;
use crate::rules::{self, Area};
use crate::runs::analysis::{loop_name, InvocationSite, RunAnalysis, TaskSites};
use crate::runs::summary::{summarize, RunStatus, RunSummary};
use crate::runs::time::human_duration;
use crate::runs::timeline::{
    timeline, BreakpointEntry, EffectEntry, Outcome as Resolved, Timeline, TimelineOptions,
};
use crate::runs::{Decision, LoopTrajectory, Verdict};

/// Rows shown in the timeline table; longer runs show the first and last
/// half of this with a gap row, so a run of thousands of effects stays
/// readable (problems are still listed in full under the run evidence).
const MAX_TIMELINE_ROWS: usize = 200;
/// Items listed per bullet before "and N more".
const MAX_LISTED: usize = 10;

/// The header's `Run:` value.
pub(super) fn header_run(a: &RunAnalysis, info: &RetroInfo) -> String {
    let process = a
        .run
        .meta
        .process_id
        .as_deref()
        .map(|p| format!(" of `{p}`"))
        .unwrap_or_default();
    let how = info
        .run_selection
        .map(|h| format!(", {h}"))
        .unwrap_or_default();
    format!(
        "`{}`{process} (journal `{}`{how}; with static analysis by proclint {})",
        a.run.run_id,
        a.run.rel_dir,
        env!("CARGO_PKG_VERSION")
    )
}

/// The header's `Outcome:` from the journal.
pub(super) fn header_outcome(a: &RunAnalysis) -> String {
    let s = summarize(&a.run);
    let mut text = format!("**{}**", s.status.as_str());
    if let Some(reason) = terminal_reason(a) {
        let _ = write!(text, " ({})", inline(&reason));
    }
    let e = s.effects;
    let _ = write!(
        text,
        " — {} effect{} ({} ok, {} error, {} pending)",
        e.requested,
        plural(e.requested),
        e.ok,
        e.error,
        e.pending
    );
    let b = s.breakpoints;
    let asked = b.approved + b.rejected + b.pending;
    if asked > 0 {
        let _ = write!(
            text,
            ", {asked} breakpoint{} ({} approved, {} rejected, {} pending)",
            plural(asked),
            b.approved,
            b.rejected,
            b.pending
        );
    }
    match s.wall_seconds {
        Some(secs) => {
            let _ = write!(
                text,
                ", wall time {}",
                human_duration((secs * 1000.0) as i64)
            );
        }
        None => text.push_str(", no terminal event yet"),
    }
    text
}

/// Timeline, run evidence, cross-reference and convergence.
pub(super) fn sections(out: &mut String, outcome: &Outcome, a: &RunAnalysis, info: &RetroInfo) {
    let options = TimelineOptions {
        gap_threshold_ms: info
            .long_gap_ms
            .unwrap_or(TimelineOptions::default().gap_threshold_ms),
    };
    let tl = timeline(&a.run, &options);
    let summary = summarize(&a.run);
    timeline_section(out, a, &tl, &summary, options.gap_threshold_ms);
    went_well(out, a, &tl, &summary);
    went_poorly(out, a, &tl, &summary);
    cross_reference(out, outcome, a, &tl);
    convergence_section(out, a);
}

/// The run's line in the Evidence list.
pub(super) fn evidence_line(a: &RunAnalysis) -> String {
    let r = &a.run;
    let entry = match (&r.meta.import_path, &r.meta.export_name) {
        (Some(p), Some(e)) => format!("; entrypoint `{p}#{e}`"),
        (Some(p), None) => format!("; entrypoint `{p}`"),
        _ => String::new(),
    };
    let checked = a
        .entry
        .as_deref()
        .map(|e| format!(" (checked as `{e}`)"))
        .unwrap_or_else(|| {
            if entry.is_empty() {
                String::new()
            } else {
                " (not among the checked files)".into()
            }
        });
    format!(
        "- Run `{}`: `{}` — {} journal event{}, {} checksum{} verified, {} integrity problem{}{entry}{checked}",
        r.run_id,
        r.rel_dir,
        r.events.len(),
        plural(r.events.len()),
        r.integrity.verified,
        plural(r.integrity.verified),
        r.integrity.failed(),
        plural(r.integrity.failed()),
    )
}

fn timeline_section(
    out: &mut String,
    a: &RunAnalysis,
    tl: &Timeline,
    s: &RunSummary,
    threshold_ms: i64,
) {
    out.push_str("## Timeline\n\n");
    let ended = match (s.status, &s.ended_at) {
        (RunStatus::InProgress, Some(last)) => {
            format!("; last event {last}, no terminal event (in progress or abandoned)")
        }
        (status, Some(last)) => format!(
            "; {} {last}{}",
            status.as_str(),
            s.wall_seconds
                .map(|w| format!(" after {}", human_duration((w * 1000.0) as i64)))
                .unwrap_or_default()
        ),
        _ => String::new(),
    };
    let _ = writeln!(
        out,
        "Run `{}`: started {}{ended}. {} event{}, {} of them verified. Times are the journal's `recordedAt`; **Took** is request → resolution (for breakpoints: the time the human took).\n",
        a.run.run_id,
        s.started_at.as_deref().unwrap_or("at an unknown time"),
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
    // (seq, time, row text, took)
    let mut rows: Vec<(u64, Option<String>, Option<i64>, String, String)> = Vec::new();
    for k in &tl.key_events {
        let ms = a
            .run
            .events
            .iter()
            .find(|e| e.seq == k.seq)
            .and_then(|e| e.recorded_ms);
        rows.push((
            k.seq,
            k.recorded_at.clone(),
            ms,
            key_event_text(a, k.seq, &k.event_type),
            String::new(),
        ));
    }
    for e in &tl.effects {
        let ms = a
            .run
            .effects
            .iter()
            .find(|x| x.effect_id == e.effect_id)
            .and_then(|x| x.requested_ms);
        let (text, took) = match breakpoints.get(e.effect_id.as_str()) {
            Some(b) => breakpoint_row(b),
            None => effect_row(e),
        };
        rows.push((e.seq, e.requested_at.clone(), ms, text, took));
    }
    rows.sort_by_key(|r| r.0);
    out.push_str("| # | Time | At | Event | Took |\n|---|---|---|---|---|\n");
    let total = rows.len();
    let half = MAX_TIMELINE_ROWS / 2;
    for (i, (seq, at, ms, text, took)) in rows.iter().enumerate() {
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
        let offset = match (start_ms, ms) {
            (Some(s), Some(m)) => format!("+{}", human_duration(m - s)),
            _ => "—".into(),
        };
        let _ = writeln!(
            out,
            "| {seq} | {} | {offset} | {} | {} |",
            at.as_deref().unwrap_or("—"),
            cell(text),
            cell(took)
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
                if t == crate::runs::journal::BREAKPOINT_TASK_ID {
                    "a breakpoint".to_string()
                } else {
                    format!("`{t}`")
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
            g.from_at,
            g.to_at,
            why.join(", ")
        );
    }
    out.push('\n');
}

fn key_event_text(a: &RunAnalysis, seq: u64, event_type: &str) -> String {
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
        other => format!("`{other}`"),
    }
}

/// The message of a failure or halt: `error.message`, `error`, `reason`.
fn event_reason(data: &serde_json::Value) -> Option<String> {
    use serde_json::Value;
    let error = data.get("error");
    error
        .and_then(|e| e.get("message"))
        .and_then(Value::as_str)
        .or_else(|| error.and_then(Value::as_str))
        .or_else(|| data.get("reason").and_then(Value::as_str))
        .map(str::to_string)
}

fn terminal_reason(a: &RunAnalysis) -> Option<String> {
    a.run.terminal_event().and_then(|e| event_reason(&e.data))
}

fn task_name(task_id: &str, title: Option<&str>) -> String {
    match title {
        Some(t) if t != task_id => format!("`{task_id}` ({})", inline(t)),
        _ => format!("`{task_id}`"),
    }
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

fn breakpoint_name(b: &BreakpointEntry) -> String {
    b.title
        .as_deref()
        .map(|t| format!("`{}`", inline(t)))
        .unwrap_or_else(|| "(unnamed)".into())
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

fn went_well(out: &mut String, a: &RunAnalysis, tl: &Timeline, s: &RunSummary) {
    out.push_str("## What went well (run evidence)\n\n");
    let mut any = false;
    let mut per_task: BTreeMap<&str, Vec<&EffectEntry>> = BTreeMap::new();
    for e in tl
        .effects
        .iter()
        .filter(|e| !is_breakpoint(a, &e.effect_id))
    {
        per_task.entry(&e.task_id).or_default().push(e);
    }
    let first_try: Vec<&str> = per_task
        .iter()
        .filter(|(_, es)| es.len() == 1 && es[0].outcome == Resolved::Ok)
        .map(|(t, _)| *t)
        .collect();
    if !first_try.is_empty() {
        any = true;
        let total = per_task.len();
        let head = if first_try.len() == total {
            format!("Every task resolved first try ({total}/{total} task ids)")
        } else {
            format!("{} of {total} task ids resolved first try", first_try.len())
        };
        let _ = writeln!(out, "- **{head}**: {}.", code_list(&first_try));
    }
    let mut asked: BTreeMap<String, Vec<&BreakpointEntry>> = BTreeMap::new();
    for b in &tl.breakpoints {
        asked.entry(breakpoint_name(b)).or_default().push(b);
    }
    let approved_first: Vec<String> = asked
        .iter()
        .filter(|(_, bs)| bs.len() == 1 && bs[0].decision == Decision::Approved)
        .map(|(name, bs)| {
            let took = bs[0]
                .wait_ms
                .map(|w| format!(" (answered in {})", human_duration(w)))
                .unwrap_or_default();
            format!("{name}{took}")
        })
        .collect();
    if !approved_first.is_empty() {
        any = true;
        let _ = writeln!(
            out,
            "- **Breakpoints approved on first ask**: {}.",
            approved_first.join(", ")
        );
    }
    for t in a.trajectories.iter().filter(|t| {
        matches!(
            t.class,
            crate::runs::LoopClass::Converged | crate::runs::LoopClass::Progressive
        )
    }) {
        any = true;
        let _ = writeln!(
            out,
            "- **Check loop {} {}** in {} round{}: {}.",
            loop_name(t),
            t.class.as_str(),
            t.rounds.len(),
            plural(t.rounds.len()),
            inline(&t.reason)
        );
    }
    if a.run.integrity.issues.is_empty() && s.events > 0 {
        any = true;
        let _ = writeln!(
            out,
            "- **Journal verified**: {}/{} checksums match; sequence, effect pairing and task files are intact.",
            a.run.integrity.verified, s.events
        );
    }
    if s.status != RunStatus::InProgress && s.effects.pending == 0 && s.effects.requested > 0 {
        any = true;
        out.push_str("- **Nothing left pending**: every requested effect was resolved.\n");
    }
    if !any {
        out.push_str("- Nothing in this run's evidence stands out as going well.\n");
    }
    out.push('\n');
}

fn is_breakpoint(a: &RunAnalysis, effect_id: &str) -> bool {
    a.run
        .effects
        .iter()
        .any(|e| e.effect_id == effect_id && e.is_breakpoint())
}

fn went_poorly(out: &mut String, a: &RunAnalysis, tl: &Timeline, s: &RunSummary) {
    out.push_str("## What went poorly (run evidence)\n\n");
    let mut any = false;
    if matches!(s.status, RunStatus::Failed | RunStatus::Halted) {
        any = true;
        let seq = a.run.terminal_event().map(|e| e.seq).unwrap_or_default();
        let reason = terminal_reason(a)
            .map(|r| format!(": {}", inline(&r)))
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "- **The run {}** at #{seq}{reason}.",
            s.status.as_str()
        );
    }
    let errors: Vec<&EffectEntry> = tl
        .effects
        .iter()
        .filter(|e| matches!(e.outcome, Resolved::Error | Resolved::Cancelled))
        .filter(|e| !is_breakpoint(a, &e.effect_id))
        .collect();
    for e in errors.iter().take(MAX_LISTED) {
        any = true;
        let what = if e.outcome == Resolved::Cancelled {
            "was cancelled"
        } else {
            "failed"
        };
        let after = e
            .wait_ms
            .map(|w| format!(" after {}", human_duration(w)))
            .unwrap_or_default();
        let message = e
            .error
            .as_deref()
            .map(|m| format!(": “{}”", inline(m)))
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "- **{} {what}** at #{}{after}{message}{}.",
            task_name(&e.task_id, e.title.as_deref()),
            e.seq,
            source_suffix(a, &e.task_id)
        );
    }
    more(out, errors.len());
    for r in &tl.redispatched {
        any = true;
        let sites = a.tasks.get(&r.task_id);
        let looped: Vec<&InvocationSite> = sites
            .map(|s| {
                s.invocations
                    .iter()
                    .filter(|i| i.repeat.is_some())
                    .collect()
            })
            .unwrap_or_default();
        let place = match (looped.as_slice(), sites) {
            ([inv], _) => match &inv.repeat {
                Some(rep) => format!(
                    " — {} at `{}` ran it {} times in this run (call at `{}`)",
                    rep.what,
                    at(&rep.location),
                    r.count,
                    at(&inv.site.location)
                ),
                None => String::new(),
            },
            // Called inside several loops: the journal does not say which
            // call each dispatch came from, so name them all.
            ([_, _, ..], _) => format!(
                " — from its calls inside {}",
                looped
                    .iter()
                    .filter_map(|i| i.repeat.as_ref().map(|rep| format!(
                        "{} at `{}` (call at `{}`)",
                        rep.what,
                        at(&rep.location),
                        at(&i.site.location)
                    )))
                    .collect::<Vec<_>>()
                    .join(" and ")
            ),
            ([], Some(s)) if !s.invocations.is_empty() => format!(
                " — its calls ({}) are not inside a loop in the checked source",
                calls(s)
            ),
            ([], _) => " — not found in the checked modules".to_string(),
        };
        let class = a
            .trajectories
            .iter()
            .find(|t| t.task_id == r.task_id)
            .map(|t| format!("; as a check loop it was **{}**", t.class.as_str()))
            .unwrap_or_default();
        let _ = writeln!(
            out,
            "- **`{}` requested {} times**{place}{class}.",
            r.task_id, r.count
        );
    }
    let mut asked: BTreeMap<String, Vec<&BreakpointEntry>> = BTreeMap::new();
    for b in &tl.breakpoints {
        asked.entry(breakpoint_name(b)).or_default().push(b);
    }
    for (name, bs) in &asked {
        let rejected = bs
            .iter()
            .filter(|b| b.decision == Decision::Rejected)
            .count();
        if rejected == 0 {
            continue;
        }
        any = true;
        let decisions: Vec<&str> = bs
            .iter()
            .map(|b| match b.decision {
                Decision::Approved => "approved",
                Decision::Rejected => "rejected",
                Decision::Pending => "pending",
            })
            .collect();
        let feedback: Vec<String> = bs
            .iter()
            .filter_map(|b| b.feedback.as_deref())
            .map(|f| format!("“{}”", inline(f)))
            .collect();
        let feedback = if feedback.is_empty() {
            String::new()
        } else {
            format!(" — feedback: {}", feedback.join("; "))
        };
        let human: i64 = bs.iter().filter_map(|b| b.wait_ms).sum();
        if bs.len() > 1 {
            let _ = writeln!(
                out,
                "- **Breakpoint {name} looped**: asked {} times, {} ({} of human time){feedback}.",
                bs.len(),
                decisions.join(" → "),
                human_duration(human)
            );
        } else {
            let _ = writeln!(
                out,
                "- **Breakpoint {name} rejected** after {}{feedback}.",
                human_duration(human)
            );
        }
    }
    let pending: Vec<&EffectEntry> = tl
        .effects
        .iter()
        .filter(|e| e.outcome == Resolved::Pending)
        .collect();
    if !pending.is_empty() {
        any = true;
        let when = match s.status {
            RunStatus::InProgress => "at the last event (the run has no terminal event)",
            RunStatus::Completed => "when the run completed",
            RunStatus::Failed => "when the run failed",
            RunStatus::Halted => "when the run halted",
        };
        let list: Vec<String> = pending
            .iter()
            .take(MAX_LISTED)
            .map(|e| {
                if is_breakpoint(a, &e.effect_id) {
                    format!(
                        "breakpoint {} (#{})",
                        e.title
                            .as_deref()
                            .map(|t| format!("`{}`", inline(t)))
                            .unwrap_or_default(),
                        e.seq
                    )
                } else {
                    format!("{} (#{})", task_name(&e.task_id, e.title.as_deref()), e.seq)
                }
            })
            .collect();
        let _ = writeln!(
            out,
            "- **{} effect{} still pending** {when}: {}{}.",
            pending.len(),
            plural(pending.len()),
            list.join(", "),
            if pending.len() > MAX_LISTED {
                ", …"
            } else {
                ""
            }
        );
    }
    for t in a
        .trajectories
        .iter()
        .filter(|t| t.class.is_non_convergent())
    {
        any = true;
        let _ = writeln!(
            out,
            "- **Check loop {} {}** after {} round{}: {}{} (`non-convergent-loop`; trajectory under *Convergence*).",
            loop_name(t),
            t.class.as_str(),
            t.rounds.len(),
            plural(t.rounds.len()),
            inline(&t.reason),
            source_suffix(a, &t.task_id)
        );
    }
    let issues = &a.run.integrity.issues;
    if !issues.is_empty() {
        any = true;
        let _ = writeln!(
            out,
            "- **Journal integrity: {} problem{}** (`journal-integrity`) — from the first problem on, the journal may not show what happened:",
            issues.len(),
            plural(issues.len())
        );
        for i in issues.iter().take(MAX_LISTED) {
            let at = match i.line {
                Some(l) => format!("{}:{l}", i.file),
                None => i.file.clone(),
            };
            let _ = writeln!(out, "  - `{at}`: {}", inline(&i.message));
        }
        if issues.len() > MAX_LISTED {
            let _ = writeln!(out, "  - … and {} more", issues.len() - MAX_LISTED);
        }
    }
    if !any {
        out.push_str("- Nothing in this run's evidence went poorly.\n");
    }
    out.push('\n');
}

fn more(out: &mut String, n: usize) {
    if n > MAX_LISTED {
        let _ = writeln!(out, "- … and {} more like these.", n - MAX_LISTED);
    }
}

/// " (defined at `tasks.js:3`, called at `process.js:14`)" when known.
fn source_suffix(a: &RunAnalysis, task_id: &str) -> String {
    let Some(sites) = a.tasks.get(task_id) else {
        return String::new();
    };
    let mut parts = Vec::new();
    if let Some(d) = sites.definitions.first() {
        parts.push(format!("defined at `{}`", at(&d.location)));
    }
    if !sites.invocations.is_empty() {
        parts.push(format!("called at {}", calls(sites)));
    }
    if parts.is_empty() {
        String::new()
    } else {
        format!(" ({})", parts.join(", "))
    }
}

/// "`a.js:3`, `b.js:9`" for a task's calls (the first few).
fn calls(sites: &TaskSites) -> String {
    let mut list: Vec<String> = sites
        .invocations
        .iter()
        .take(3)
        .map(|i| format!("`{}`", at(&i.site.location)))
        .collect();
    if sites.invocations.len() > 3 {
        list.push(format!("{} more", sites.invocations.len() - 3));
    }
    list.join(", ")
}

fn cross_reference(out: &mut String, outcome: &Outcome, a: &RunAnalysis, tl: &Timeline) {
    out.push_str("## Cross-reference: journal ↔ source\n\n");
    if a.tasks.is_empty() {
        out.push_str("The journal requested no tasks.\n\n");
    } else {
        out.push_str("Each task id the journal requested, its `defineTask` and `ctx.task` calls in the checked modules, and the static findings at those lines.\n\n");
        out.push_str("| Task id | Requested | Results | Defined | Called | Static findings |\n|---|---|---|---|---|---|\n");
    }
    for (task_id, sites) in &a.tasks {
        let effects: Vec<&EffectEntry> = tl
            .effects
            .iter()
            .filter(|e| &e.task_id == task_id)
            .collect();
        let count = |o: Resolved| effects.iter().filter(|e| e.outcome == o).count();
        let mut results = Vec::new();
        for (o, word) in [
            (Resolved::Ok, "ok"),
            (Resolved::Error, "error"),
            (Resolved::Cancelled, "cancelled"),
            (Resolved::Pending, "pending"),
        ] {
            let n = count(o);
            if n > 0 {
                results.push(format!("{n} {word}"));
            }
        }
        let defined = if sites.definitions.is_empty() {
            "not in the checked modules".to_string()
        } else {
            sites
                .definitions
                .iter()
                .map(|d| format!("`{}`", at(&d.location)))
                .collect::<Vec<_>>()
                .join(", ")
        };
        let called = if sites.invocations.is_empty() {
            "—".to_string()
        } else {
            sites
                .invocations
                .iter()
                .map(|i| match &i.repeat {
                    Some(r) => format!(
                        "`{}` (in {} at `{}`)",
                        at(&i.site.location),
                        r.what,
                        at(&r.location)
                    ),
                    None => format!("`{}`", at(&i.site.location)),
                })
                .collect::<Vec<_>>()
                .join(", ")
        };
        let findings = static_findings(outcome, sites);
        let _ = writeln!(
            out,
            "| `{task_id}` | {} | {} | {} | {} | {} |",
            effects.len(),
            results.join(", "),
            cell(&defined),
            cell(&called),
            if findings.is_empty() {
                "—".to_string()
            } else {
                cell(&findings.join(", "))
            }
        );
    }
    if !a.tasks.is_empty() {
        out.push('\n');
    }
    let s = summarize(&a.run);
    let b = s.breakpoints;
    let asked = b.approved + b.rejected + b.pending;
    if asked > 0 {
        let mut calls: Vec<String> = Vec::new();
        for f in &outcome.files {
            if let Some(Facts::Process(p)) = &f.facts {
                calls.extend(p.breakpoints.iter().map(|l| format!("`{}:{l}`", f.display)));
            }
        }
        let _ = writeln!(
            out,
            "Breakpoints: {asked} asked ({} approved, {} rejected, {} pending); `ctx.breakpoint` calls in the checked modules: {}.\n",
            b.approved,
            b.rejected,
            b.pending,
            if calls.is_empty() {
                "none".to_string()
            } else {
                calls.join(", ")
            }
        );
    }
}

/// Static (not run) findings at a task's definition, calls and loop headers:
/// "`missing-stable-key` `review-phase.js:12`".
fn static_findings(outcome: &Outcome, sites: &TaskSites) -> Vec<String> {
    let mut places: BTreeSet<(&str, u32)> = BTreeSet::new();
    for d in &sites.definitions {
        places.insert((&d.location.path, d.location.start.line));
    }
    for i in &sites.invocations {
        places.insert((&i.site.location.path, i.site.location.start.line));
        if let Some(r) = &i.repeat {
            places.insert((&r.location.path, r.location.start.line));
        }
    }
    let mut out: Vec<String> = outcome
        .diagnostics
        .iter()
        .filter(|d| rules::meta(d.rule).is_none_or(|m| m.area != Area::Run))
        .filter(|d| places.contains(&(&*d.location.path, d.location.start.line)))
        .map(|d| format!("`{}` `{}`", d.rule, at(&d.location)))
        .collect();
    out.dedup();
    out
}

fn convergence_section(out: &mut String, a: &RunAnalysis) {
    out.push_str("## Convergence\n\n");
    if a.trajectories.is_empty() {
        out.push_str("No check loops in this run: no task result carried a verdict (`passed`, `approved`, `allPassing`, `passesQuality`, `status`).\n\n");
        return;
    }
    let flagged = a
        .trajectories
        .iter()
        .filter(|t| t.class.is_non_convergent())
        .count();
    let _ = writeln!(
        out,
        "{} check loop{} (a task whose result carries a verdict; each dispatch is a round, the tasks between rounds are its fixes); {flagged} did not converge. A stall is {} identical failing rounds. Findings are compared as fingerprints (case folded; numbers, paths, quoted identifiers and hex masked).\n",
        a.trajectories.len(),
        plural(a.trajectories.len()),
        a.stall_rounds
    );
    for t in &a.trajectories {
        trajectory(out, a, t);
    }
}

fn trajectory(out: &mut String, a: &RunAnalysis, t: &LoopTrajectory) {
    let flag = if t.class.is_non_convergent() {
        " (`non-convergent-loop`)"
    } else {
        ""
    };
    let _ = writeln!(out, "### {} — {}{flag}\n", loop_name(t), t.class.as_str());
    let fixes = if t.fix_task_ids.is_empty() {
        "no tasks ran between rounds".to_string()
    } else {
        format!(
            "fixes between rounds: {}",
            code_list(
                &t.fix_task_ids
                    .iter()
                    .map(String::as_str)
                    .collect::<Vec<_>>()
            )
        )
    };
    let source = a
        .tasks
        .get(&t.task_id)
        .and_then(|s| s.loop_invocation())
        .and_then(|i| i.repeat.as_ref().map(|r| (i, r)))
        .map(|(i, r)| {
            format!(
                " In the source: {} at `{}` (call at `{}`).",
                r.what,
                at(&r.location),
                at(&i.site.location)
            )
        })
        .unwrap_or_default();
    let _ = writeln!(
        out,
        "{}; {fixes}.{source}\n",
        capitalise(&inline(&t.reason))
    );
    // Fingerprints numbered in order of first appearance, so the table stays
    // narrow and a recurring finding is visibly the same one.
    let mut ids: BTreeMap<&str, usize> = BTreeMap::new();
    let mut order: Vec<&str> = Vec::new();
    for r in &t.rounds {
        for f in &r.fingerprints {
            if !ids.contains_key(f.as_str()) {
                ids.insert(f, order.len() + 1);
                order.push(f);
            }
        }
    }
    let refs = |fs: &[String]| {
        if fs.is_empty() {
            "—".to_string()
        } else {
            fs.iter()
                .filter_map(|f| ids.get(f.as_str()).map(|n| format!("F{n}")))
                .collect::<Vec<_>>()
                .join(", ")
        }
    };
    out.push_str("| Round | # | Verdict | Findings | New | Cleared | Recurring | Files touched by fixes |\n|---|---|---|---|---|---|---|---|\n");
    for r in &t.rounds {
        let verdict = match r.verdict {
            Verdict::Pass => "pass",
            Verdict::Fail => "**fail**",
            Verdict::Unknown => "unknown",
        };
        let _ = writeln!(
            out,
            "| {} | {} | {verdict} | {} | {} | {} | {} | {} |",
            r.round,
            r.seq,
            r.findings,
            refs(&r.new),
            refs(&r.cleared),
            refs(&r.recurring),
            r.files_touched
                .map(|n| n.to_string())
                .unwrap_or_else(|| "—".into())
        );
    }
    out.push('\n');
    if !order.is_empty() {
        let list: Vec<String> = order
            .iter()
            .enumerate()
            .map(|(i, f)| format!("F{} `{}`", i + 1, inline(f).replace('`', "'")))
            .collect();
        let _ = writeln!(out, "Fingerprints: {}.\n", list.join("; "));
    }
}

fn capitalise(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

fn code_list(items: &[&str]) -> String {
    let shown: Vec<String> = items
        .iter()
        .take(MAX_LISTED)
        .map(|i| format!("`{i}`"))
        .collect();
    let more = items.len().saturating_sub(MAX_LISTED);
    if more > 0 {
        format!("{} and {more} more", shown.join(", "))
    } else {
        shown.join(", ")
    }
}

fn at(l: &Location) -> String {
    format!("{}:{}", l.path, l.start.line)
}

/// Journal text on one line (messages may hold newlines or U+2028).
fn inline(s: &str) -> String {
    s.split(['\n', '\r', '\u{2028}', '\u{2029}'])
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
}

/// A table cell: pipes escaped so journal text cannot break the table.
fn cell(s: &str) -> String {
    s.replace('|', "\\|")
}

fn plural(n: usize) -> &'static str {
    if n == 1 {
        ""
    } else {
        "s"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn journal_text_stays_on_one_line_and_in_its_cell() {
        assert_eq!(inline("a\n b\u{2028}c"), "a b c");
        assert_eq!(cell("a|b"), "a\\|b");
    }
}
