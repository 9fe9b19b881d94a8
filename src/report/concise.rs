//! `path:line:col: severity[rule] message` — one line per finding; a
//! finding `--fix` would fix has `[*] ` before its message, as in ruff.

use crate::engine::Outcome;
use crate::report::{escape, Options};

/// `path:line:col: severity[rule] message` with a trailing newline; the
/// path and the message escaped ([`escape::line`]), so each finding is one
/// line whatever they hold.
pub fn line(d: &crate::diagnostic::Diagnostic) -> String {
    marked(d, false)
}

/// [`line`], with `[*] ` before the message when `fixable`.
fn marked(d: &crate::diagnostic::Diagnostic, fixable: bool) -> String {
    format!(
        "{}:{}:{}: {}[{}] {}{}\n",
        escape::line(&d.location.path),
        d.location.start.line,
        d.location.start.column,
        d.severity,
        d.rule,
        if fixable { "[*] " } else { "" },
        escape::line(&d.message)
    )
}

pub fn write(
    outcome: &Outcome,
    options: &Options,
    out: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    for d in &outcome.diagnostics {
        let fixable = crate::report::fixes::applies(d, options.unsafe_fixes);
        out.write_all(marked(d, fixable).as_bytes())?;
    }
    if !options.quiet {
        writeln!(
            out,
            "proclint: {}",
            crate::report::summary_with_fixes(outcome, options)
        )?;
    }
    Ok(())
}
