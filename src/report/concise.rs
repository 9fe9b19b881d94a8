//! `path:line:col: severity[rule] message` — one line per finding.

use super::Options;
use crate::lint::Outcome;

pub fn render(outcome: &Outcome, options: &Options) -> String {
    let mut out = String::new();
    for d in &outcome.diagnostics {
        out.push_str(&format!(
            "{}:{}:{}: {}[{}] {}\n",
            d.location.path,
            d.location.start.line,
            d.location.start.column,
            d.severity,
            d.rule,
            d.message.replace('\n', " ")
        ));
    }
    if !options.quiet {
        out.push_str(&format!("proclint: {}\n", super::summary_line(outcome)));
    }
    out
}
