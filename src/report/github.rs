//! GitHub Actions workflow commands (`::error file=…::message`).

use crate::diagnostic::Severity;
use crate::engine::Outcome;

/// Message escaping: `%` first, then CR and LF — nothing else, or GitHub
/// shows the escapes literally.
pub fn escape_data(s: &str) -> String {
    s.replace('%', "%25")
        .replace('\r', "%0D")
        .replace('\n', "%0A")
}

/// Property escaping: as data, plus `:` and `,` so a file name cannot
/// forge another property.
pub fn escape_property(s: &str) -> String {
    escape_data(s).replace(':', "%3A").replace(',', "%2C")
}

pub fn write(outcome: &Outcome, out: &mut dyn std::io::Write) -> std::io::Result<()> {
    for d in &outcome.diagnostics {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes() {
        assert_eq!(escape_data("50% a:b,c\r\nd"), "50%25 a:b,c%0D%0Ad");
        assert_eq!(escape_property("a,b:c%"), "a%2Cb%3Ac%25");
    }
}
