//! `path:line:col: severity[rule] message` — one line per finding.

use crate::engine::Outcome;
use crate::report::Options;

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
