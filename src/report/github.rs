//! GitHub Actions workflow commands (`::error file=…::message`).

use std::collections::HashMap;

use crate::diagnostic::{Diagnostic, Severity};
use crate::engine::Outcome;
use crate::report::escape::{self, markdown};

/// Message escaping, as the runner unescapes it: `%`, CR and LF as `%25`,
/// `%0D` and `%0A` (the annotation shows the line breaks, and the command
/// stays one line); any other character [`escape::is_unsafe`] as a visible
/// escape (`\u{1b}`), which the runner leaves as it is; and the `[` of
/// `##[` (the legacy command prefix) as `\[`, as in the other formats.
pub fn escape_data(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '%' => out.push_str("%25"),
            '\r' => out.push_str("%0D"),
            '\n' => out.push_str("%0A"),
            c if escape::is_unsafe(c) => escape::push_visible(&mut out, c),
            '[' if out.ends_with("##") => out.push_str("\\["),
            c => out.push(c),
        }
    }
    out
}

/// Property escaping: as data, plus `:` and `,` so a file name cannot
/// forge another property or end the properties.
pub fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

/// GitHub shows at most this many annotations of each level per step (and
/// 50 per job); the rest are only lines in the log.
pub const SHOWN_PER_LEVEL: usize = 10;

/// The order annotations are written in: errors, then warnings, then
/// notices, and within a level one finding per rule before any rule's
/// second, so the few GitHub shows cover as many rules as possible.
/// Report (path) order otherwise.
pub fn annotation_order(diagnostics: &[Diagnostic]) -> Vec<&Diagnostic> {
    let mut seen: HashMap<(Severity, &str), usize> = HashMap::new();
    let mut keyed: Vec<(std::cmp::Reverse<Severity>, usize, usize, &Diagnostic)> = diagnostics
        .iter()
        .enumerate()
        .map(|(i, d)| {
            let n = seen.entry((d.severity, d.rule)).or_insert(0);
            *n += 1;
            (std::cmp::Reverse(d.severity), *n, i, d)
        })
        .collect();
    keyed.sort_by_key(|k| (k.0, k.1, k.2));
    keyed.into_iter().map(|k| k.3).collect()
}

pub fn write(outcome: &Outcome, out: &mut dyn std::io::Write) -> std::io::Result<()> {
    for d in annotation_order(&outcome.diagnostics) {
        let level = match d.severity {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Info => "notice",
        };
        let l = &d.location;
        let mut props = format!("file={},line={}", escape_property(&l.path), l.start.line);
        let single_line = l.start.line == l.end.line;
        if single_line {
            props.push_str(&format!(",col={}", l.start.column));
        }
        props.push_str(&format!(",endLine={}", l.end.line));
        if single_line {
            props.push_str(&format!(",endColumn={}", l.end.column));
        }
        props.push_str(&format!(",title={}", escape_property(d.rule)));
        let mut message = d.message.clone();
        if let Some(h) = &d.help {
            message.push_str("\nhelp: ");
            message.push_str(h);
        }
        writeln!(out, "::{level} {props}::{}", escape_data(&message))?;
    }
    Ok(())
}

/// A step summary holds at most 1 MiB; the table stops short of it.
const SUMMARY_BYTES: usize = 1_000_000;

/// Every finding as a Markdown table, for `$GITHUB_STEP_SUMMARY`, which
/// the job's summary page shows whole (annotations stop at 10 per level).
/// Paths and messages are escaped ([`markdown`]): one row per finding.
pub fn step_summary(outcome: &Outcome) -> String {
    let mut out = format!(
        "## proclint\n\n{}\n\n",
        crate::report::summary_line(outcome)
    );
    if outcome.diagnostics.is_empty() {
        return out;
    }
    out.push_str("| Severity | Rule | Location | Message |\n|---|---|---|---|\n");
    // Most severe first, then as reported (by path): a table is read
    // top-down, not sampled like annotations.
    let mut rows: Vec<&Diagnostic> = outcome.diagnostics.iter().collect();
    rows.sort_by_key(|d| std::cmp::Reverse(d.severity));
    for (i, d) in rows.into_iter().enumerate() {
        let row = format!(
            "| {} | `{}` | {} | {} |\n",
            d.severity,
            d.rule,
            markdown::cell(&markdown::code(&format!(
                "{}:{}",
                d.location.path, d.location.start.line
            ))),
            markdown::cell(&markdown::message(&d.message))
        );
        if out.len() + row.len() > SUMMARY_BYTES - 200 {
            out.push_str(&format!(
                "\n{} more findings are not shown (a step summary holds 1 MiB); \
                 `proclint check --format json` reports them all.\n",
                outcome.diagnostics.len() - i
            ));
            break;
        }
        out.push_str(&row);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes() {
        assert_eq!(escape_data("50% a:b,c\r\nd"), "50%25 a:b,c%0D%0Ad");
        assert_eq!(escape_property("a,b:c%"), "a%2Cb%3Ac%25");
        assert_eq!(
            escape_data("a\n::error::b\u{1b}[2J\u{202e} ##[warning]c"),
            "a%0A::error::b\\u{1b}[2J\\u{202e} ##\\[warning]c"
        );
        assert_eq!(
            escape_property("a\n::warning::x.js"),
            "a%0A%3A%3Awarning%3A%3Ax.js"
        );
    }
}
