//! `path:line:col: severity[rule] message` — one line per finding.

use crate::engine::Outcome;
use crate::report::{escape, Options};

/// `path:line:col: severity[rule] message` with a trailing newline; the
/// path and the message escaped ([`escape::line`]), so each finding is one
/// line whatever they hold.
pub fn line(d: &crate::diagnostic::Diagnostic) -> String {
    format!(
        "{}:{}:{}: {}[{}] {}\n",
        escape::line(&d.location.path),
        d.location.start.line,
        d.location.start.column,
        d.severity,
        d.rule,
        escape::line(&d.message)
    )
}

pub fn write(
    outcome: &Outcome,
    options: &Options,
    out: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    for d in &outcome.diagnostics {
        out.write_all(line(d).as_bytes())?;
    }
    if !options.quiet {
        writeln!(out, "proclint: {}", crate::report::summary_line(outcome))?;
    }
    Ok(())
}
