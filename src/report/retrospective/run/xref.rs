//! The cross-reference: each journal task id with its `defineTask`, its
//! `ctx.task` calls (and the loops around them) and the static findings at
//! those lines, so run evidence and static analysis sit together.

use std::collections::BTreeSet;
use std::fmt::Write as _;

use super::{cell, code, code_at, prose};
use crate::engine::Outcome;
use crate::project::facts::Facts;
use crate::project::run_analysis::{RunAnalysis, TaskSites};
use crate::rules::{self, Area};
use crate::runs::summary::summarize;
use crate::runs::timeline::{EffectEntry, Outcome as Resolved, Timeline};

pub(super) fn section(out: &mut String, outcome: &Outcome, a: &RunAnalysis, tl: &Timeline) {
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
        } else if sites.ambiguous() {
            format!(
                "ambiguous, {} definitions: {}",
                sites.definitions.len(),
                sites
                    .definitions
                    .iter()
                    .map(|d| code_at(&d.location))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        } else {
            sites
                .definitions
                .iter()
                .map(|d| code_at(&d.location))
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
                        "{} (in {} at {})",
                        code_at(&i.site.location),
                        prose(&r.what),
                        code_at(&r.location)
                    ),
                    None => code_at(&i.site.location),
                })
                .collect::<Vec<_>>()
                .join(", ")
        };
        let findings = static_findings(outcome, sites);
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} |",
            cell(&code(task_id)),
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
                calls.extend(
                    p.breakpoints
                        .iter()
                        .map(|l| code(&format!("{}:{l}", f.display))),
                );
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
        .map(|d| format!("`{}` {}", d.rule, code_at(&d.location)))
        .collect();
    out.dedup();
    out
}
