//! The frozen JSON v1 shape. These structs are the public contract and are
//! kept separate from the internal [`Diagnostic`] type.

use serde::Serialize;

use crate::diagnostic::{Diagnostic, Severity};
use crate::lint::Outcome;

#[derive(Serialize)]
struct Report<'a> {
    version: u32,
    diagnostics: Diagnostics<'a>,
    summary: Summary,
}

/// The diagnostics, converted one at a time as they are written (a run
/// over a large tree has tens of thousands).
struct Diagnostics<'a>(&'a [Diagnostic]);

impl Serialize for Diagnostics<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(self.0.iter().map(convert))
    }
}

#[derive(Serialize)]
struct JsonDiagnostic<'a> {
    rule: &'a str,
    severity: &'a str,
    path: &'a str,
    line: u32,
    column: u32,
    end_line: u32,
    end_column: u32,
    message: &'a str,
    help: Option<&'a str>,
}

#[derive(Serialize)]
struct Summary {
    files: usize,
    errors: usize,
    warnings: usize,
    infos: usize,
}

fn convert(d: &Diagnostic) -> JsonDiagnostic<'_> {
    JsonDiagnostic {
        rule: d.rule,
        severity: d.severity.as_str(),
        path: &d.location.path,
        line: d.location.start.line,
        column: d.location.start.column,
        end_line: d.location.end.line,
        end_column: d.location.end.column,
        message: &d.message,
        help: d.help.as_deref(),
    }
}

fn report(outcome: &Outcome) -> Report<'_> {
    Report {
        version: 1,
        diagnostics: Diagnostics(&outcome.diagnostics),
        summary: Summary {
            files: outcome.files.len(),
            errors: outcome.count(Severity::Error),
            warnings: outcome.count(Severity::Warning),
            infos: outcome.count(Severity::Info),
        },
    }
}

/// Written as it is produced: the report of a large tree is never held
/// whole in memory.
pub fn write(outcome: &Outcome, out: &mut dyn std::io::Write) -> std::io::Result<()> {
    serde_json::to_writer_pretty(&mut *out, &report(outcome))?;
    out.write_all(b"\n")
}
