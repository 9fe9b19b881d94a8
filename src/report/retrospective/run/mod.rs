//! The run sections of a run-aware retrospective (`check --run`): the
//! timeline, the run evidence (what went well / poorly in this run), the
//! cross-reference between journal task ids and the source, and the
//! convergence trajectory of every check loop. Every line comes from the
//! journal (times as recorded, never the clock) or from the checked source.
//! This file holds the header pieces and the small text helpers the
//! sections share.

mod convergence;
mod evidence;
mod timeline;
mod xref;

use std::fmt::Write as _;

use crate::diagnostic::Location;
use crate::engine::Outcome;
use crate::project::run_analysis::{RunAnalysis, TaskSites};
pub(super) use crate::report::escape::markdown::{self, cell, code, one_line};
use crate::report::retrospective::RetroInfo;
use crate::runs::summary::summarize;
use crate::runs::time::human_duration;
use crate::runs::timeline::{timeline, BreakpointEntry, TimelineOptions};

/// Items listed per bullet before "and N more".
pub(super) const MAX_LISTED: usize = 10;

/// The header's `Run:` value.
pub(super) fn header_run(a: &RunAnalysis, info: &RetroInfo) -> String {
    let process = a
        .run
        .meta
        .process_id
        .as_deref()
        .map(|p| format!(" of {}", code(p)))
        .unwrap_or_default();
    let how = info
        .run_selection
        .map(|h| format!(", {h}"))
        .unwrap_or_default();
    format!(
        "{}{process} (journal {}{how}; with static analysis by proclint {})",
        code(&a.run.run_id),
        code(&a.run.rel_dir),
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
    timeline::section(out, a, &tl, &summary, options.gap_threshold_ms);
    evidence::went_well(out, a, &tl, &summary);
    evidence::went_poorly(out, a, &tl, &summary);
    xref::section(out, outcome, a, &tl);
    convergence::section(out, a);
}

/// The run's line in the Evidence list.
pub(super) fn evidence_line(a: &RunAnalysis) -> String {
    let r = &a.run;
    let entry = match (&r.meta.import_path, &r.meta.export_name) {
        (Some(p), Some(e)) => format!("; entrypoint {}", code(&format!("{p}#{e}"))),
        (Some(p), None) => format!("; entrypoint {}", code(p)),
        _ => String::new(),
    };
    let checked = a
        .entry
        .as_deref()
        .map(|e| format!(" (checked as {})", code(e)))
        .unwrap_or_else(|| {
            if entry.is_empty() {
                String::new()
            } else {
                " (not among the checked files)".into()
            }
        });
    format!(
        "- Run {}: {} — {} journal event{}, {} checksum{} verified, {} integrity problem{}{entry}{checked}",
        code(&r.run_id),
        code(&r.rel_dir),
        r.events.len(),
        plural(r.events.len()),
        r.integrity.verified,
        plural(r.integrity.verified),
        r.integrity.failed(),
        plural(r.integrity.failed()),
    )
}

pub(super) fn terminal_reason(a: &RunAnalysis) -> Option<String> {
    a.run
        .terminal_event()
        .and_then(|e| timeline::event_reason(&e.data))
}

/// A task id as code, with its title as text.
pub(super) fn task_name(task_id: &str, title: Option<&str>) -> String {
    match title {
        Some(t) if t != task_id => format!("{} ({})", code(task_id), inline(t)),
        _ => code(task_id),
    }
}

pub(super) fn breakpoint_name(b: &BreakpointEntry) -> String {
    b.title
        .as_deref()
        .map(|t| code(&one_line(t)))
        .unwrap_or_else(|| "(unnamed)".into())
}

pub(super) fn is_breakpoint(a: &RunAnalysis, effect_id: &str) -> bool {
    a.run.effect(effect_id).is_some_and(|e| e.is_breakpoint())
}

/// " (defined at `tasks.js:3`, called at `process.js:14`)" when known.
pub(super) fn source_suffix(a: &RunAnalysis, task_id: &str) -> String {
    let Some(sites) = a.tasks.get(task_id) else {
        return String::new();
    };
    let mut parts = Vec::new();
    if sites.ambiguous() {
        // Never pick one: the journal records only the id.
        parts.push(format!(
            "ambiguous: defined in {} modules of the process, {}",
            sites.definitions.len(),
            sites
                .definitions
                .iter()
                .map(|d| code_at(&d.location))
                .collect::<Vec<_>>()
                .join(", ")
        ));
    } else if let Some(d) = sites.definitions.first() {
        parts.push(format!("defined at {}", code_at(&d.location)));
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
pub(super) fn calls(sites: &TaskSites) -> String {
    let mut list: Vec<String> = sites
        .invocations
        .iter()
        .take(3)
        .map(|i| code_at(&i.site.location))
        .collect();
    if sites.invocations.len() > 3 {
        list.push(format!("{} more", sites.invocations.len() - 3));
    }
    list.join(", ")
}

pub(super) fn code_list(items: &[&str]) -> String {
    let shown: Vec<String> = items.iter().take(MAX_LISTED).map(|i| code(i)).collect();
    let more = items.len().saturating_sub(MAX_LISTED);
    if more > 0 {
        format!("{} and {more} more", shown.join(", "))
    } else {
        shown.join(", ")
    }
}

pub(super) fn at(l: &Location) -> String {
    format!("{}:{}", l.path, l.start.line)
}

/// `path:line` as code.
pub(super) fn code_at(l: &Location) -> String {
    code(&at(l))
}

/// Journal text as Markdown text on one line (messages may hold newlines
/// or U+2028; HTML and Markdown in them are escaped).
pub(super) fn inline(s: &str) -> String {
    markdown::text(&one_line(s))
}

/// A message proclint built around code from the input (a loop's
/// description, a check loop's name): its code spans as code, the rest as
/// text.
pub(super) fn prose(s: &str) -> String {
    markdown::message(&one_line(s))
}

pub(super) fn plural(n: usize) -> &'static str {
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
        assert_eq!(inline("<b>x</b>"), "&lt;b&gt;x&lt;/b&gt;");
        assert_eq!(cell("a|b"), "a\\|b");
    }
}
