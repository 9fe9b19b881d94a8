//! The Convergence section: per check loop, its class and the round-by-round
//! trajectory of finding fingerprints.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::{code, code_at, code_list, inline, plural, prose};
use crate::project::run_analysis::{loop_name, RunAnalysis};
use crate::runs::{LoopTrajectory, Verdict};

pub(super) fn section(out: &mut String, a: &RunAnalysis) {
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
    let _ = writeln!(
        out,
        "### {} — {}{flag}\n",
        prose(&loop_name(t)),
        t.class.as_str()
    );
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
                " In the source: {} at {} (call at {}).",
                prose(&r.what),
                code_at(&r.location),
                code_at(&i.site.location)
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
            .map(|(i, f)| format!("F{} {}", i + 1, code(&super::one_line(f))))
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
