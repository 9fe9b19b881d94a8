//! `proclint runs [PATH] [--format table|json]`.
//!
//! Exit codes follow `check`: 0 when every journal verifies, 1 when any
//! integrity check failed, 2 when PATH cannot be read.

use std::path::{Path, PathBuf};

use crate::commands::cli::{RunsArgs, RunsFormat};
use crate::report::escape;
use crate::runs::summary::{render_json_with, RunSummary};
use crate::runs::{discover_runs, load_run, render_table, summarize, Run};
use crate::source::output::{EXIT_ERROR, EXIT_FINDINGS, EXIT_OK};

pub fn run(args: &RunsArgs) -> i32 {
    let root = args.path.clone().unwrap_or_else(|| PathBuf::from("."));
    if !root.is_dir() {
        eprintln!(
            "error: `{}` is not a directory",
            escape::line(&root.to_string_lossy())
        );
        return EXIT_ERROR;
    }
    // A folder under `.a5c/runs` with neither `run.json` nor `journal/` (a
    // nested package's leftover `tasks/…/output.json`) is not a run: listing
    // it as one would show a second run with the same id and fail its
    // integrity check. It is named once, as what it is.
    let (dirs, stray): (Vec<_>, Vec<_>) = discover_runs(&root)
        .into_iter()
        .partition(|d| is_run_dir(&d.path));
    // Relative to PATH, like each run's `path`.
    let stray: Vec<String> = stray
        .iter()
        .map(|d| shown(d.path.strip_prefix(&root).unwrap_or(&d.path)))
        .collect();
    let runs: Vec<Run> = dirs.iter().map(|d| load_run(&d.path, &root)).collect();
    let summaries: Vec<_> = runs.iter().map(summarize).collect();
    let out = match args.format {
        // stdout carries exactly the documented JSON; integrity details go to stderr.
        RunsFormat::Json => {
            for line in issue_lines(&runs, &root) {
                eprintln!("{line}");
            }
            for path in &stray {
                eprintln!(
                    "warning: {}: a folder without a journal (no run.json or journal/), not a run",
                    escape::line(path)
                );
            }
            render_json_with(&summaries, &stray) + "\n"
        }
        RunsFormat::Table => {
            let shown: Vec<RunSummary> = summaries.iter().map(shown_in_table).collect();
            let mut text = render_table(&shown);
            if !stray.is_empty() {
                text.push_str("\nfolders without a journal (no run.json or journal/), not runs:\n");
                for path in &stray {
                    text.push_str("  ");
                    text.push_str(&escape::line(path));
                    text.push('\n');
                }
            }
            let issues = issue_lines(&runs, &root);
            if !issues.is_empty() {
                text.push_str("\njournal integrity:\n");
                for line in issues {
                    text.push_str("  ");
                    text.push_str(&line);
                    text.push('\n');
                }
            }
            text
        }
    };
    // A failed write used to exit 2 with no message.
    let code = if runs.iter().any(|r| r.integrity.failed() > 0) {
        EXIT_FINDINGS
    } else {
        EXIT_OK
    };
    crate::source::output::print_stdout(&out, code)
}

/// A run's line of the table as the terminal shows it: the journal's
/// values escaped ([`escape::line`]), so a run is one line whatever they hold.
fn shown_in_table(s: &RunSummary) -> RunSummary {
    let shown = |v: &str| escape::line(v).into_owned();
    RunSummary {
        run_id: shown(&s.run_id),
        process_id: s.process_id.as_deref().map(shown),
        created_at: s.created_at.as_deref().map(shown),
        path: shown(&s.path),
        ..s.clone()
    }
}

/// `path:line: error[journal-integrity] message`, with paths as the user
/// can open them; the path and the message escaped ([`escape::line`]).
fn issue_lines(runs: &[Run], root: &Path) -> Vec<String> {
    let shown_root = (root != Path::new(".")).then(|| root.to_string_lossy().replace('\\', "/"));
    let mut lines = Vec::new();
    for issue in runs.iter().flat_map(|r| &r.integrity.issues) {
        let file = match &shown_root {
            Some(r) => format!("{}/{}", r.trim_end_matches('/'), issue.file),
            None => issue.file.clone(),
        };
        let at = issue.line.map(|l| format!("{file}:{l}")).unwrap_or(file);
        lines.push(format!(
            "{}: error[journal-integrity] {}",
            escape::line(&at),
            escape::line(&issue.message)
        ));
    }
    lines
}

pub(crate) use crate::runs::journal::is_run_dir;

fn shown(p: &Path) -> String {
    p.to_string_lossy().replace('\\', "/")
}
