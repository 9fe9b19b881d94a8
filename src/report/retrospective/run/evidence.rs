//! What went well / poorly, from the run's evidence: first-try effects,
//! re-dispatches and the loops they ran in, looping breakpoints, errors,
//! pending effects, non-convergent loops, integrity failures.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::{
    breakpoint_name, calls, code, code_at, code_list, inline, is_breakpoint, one_line, plural,
    prose, source_suffix, task_name, terminal_reason, MAX_LISTED,
};
use crate::project::run_analysis::{loop_name, InvocationSite, RunAnalysis};
use crate::runs::summary::{RunStatus, RunSummary};
use crate::runs::time::human_duration;
use crate::runs::timeline::{BreakpointEntry, EffectEntry, Outcome as Resolved, Timeline};
use crate::runs::{Decision, LoopClass};

pub(super) fn went_well(out: &mut String, a: &RunAnalysis, tl: &Timeline, s: &RunSummary) {
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
    for t in a
        .trajectories
        .iter()
        .filter(|t| matches!(t.class, LoopClass::Converged | LoopClass::Progressive))
    {
        any = true;
        let _ = writeln!(
            out,
            "- **Check loop {} {}** in {} round{}: {}.",
            prose(&loop_name(t)),
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

pub(super) fn went_poorly(out: &mut String, a: &RunAnalysis, tl: &Timeline, s: &RunSummary) {
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
                    " — {} at {} ran it {} times in this run (call at {})",
                    prose(&rep.what),
                    code_at(&rep.location),
                    r.count,
                    code_at(&inv.site.location)
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
                        "{} at {} (call at {})",
                        prose(&rep.what),
                        code_at(&rep.location),
                        code_at(&i.site.location)
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
            "- **{} requested {} times**{place}{class}.",
            code(&r.task_id),
            r.count
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
                            .map(|t| code(&one_line(t)))
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
            prose(&loop_name(t)),
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
            let _ = writeln!(out, "  - {}: {}", code(&at), prose(&i.message));
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
