//! `path:line:col: severity[rule] message` — one line per finding.

use super::Options;
use crate::lint::Outcome;

/// `path:line:col: severity[rule] message` with a trailing newline.
pub fn line(d: &crate::diagnostic::Diagnostic) -> String {
    format!(
        "{}:{}:{}: {}[{}] {}\n",
        d.location.path,
        d.location.start.line,
        d.location.start.column,
        d.severity,
        d.rule,
        d.message.replace('\n', " ")
    )
}

pub fn render(outcome: &Outcome, options: &Options) -> String {
    let mut out = String::new();
    for d in &outcome.diagnostics {
        out.push_str(&line(d));
    }
    if !options.quiet {
        out.push_str(&format!("proclint: {}\n", super::summary_line(outcome)));
    }
    out
}
