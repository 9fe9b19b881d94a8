//! The frozen JSON v1 shape. These structs are the public contract and are
//! kept separate from the internal [`Diagnostic`] type.

use serde::Serialize;

use crate::diagnostic::{Diagnostic, Severity};
use crate::lint::Outcome;

#[derive(Serialize)]
struct Report<'a> {
    version: u32,
    diagnostics: Vec<JsonDiagnostic<'a>>,
    summary: Summary,
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

pub fn render(outcome: &Outcome) -> String {
    let report = Report {
        version: 1,
        diagnostics: outcome.diagnostics.iter().map(convert).collect(),
        summary: Summary {
            files: outcome.files.len(),
            errors: outcome.count(Severity::Error),
            warnings: outcome.count(Severity::Warning),
            infos: outcome.count(Severity::Info),
        },
    };
    let mut s = serde_json::to_string_pretty(&report)
        .unwrap_or_else(|e| format!("{{\"version\":1,\"error\":{:?}}}", e.to_string()));
    s.push('\n');
    s
}
