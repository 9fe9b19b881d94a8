//! SARIF 2.1.0 for GitHub code scanning. Hand-written structs for the
//! subset we emit; a test validates the output against the official schema.

use serde::Serialize;

use crate::diagnostic::{Diagnostic, Location, Severity};
use crate::engine::Outcome;
use crate::rules;

const SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";
pub const INFORMATION_URI: &str = "https://github.com/a5c-ai/proclint";

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Log<'a> {
    #[serde(rename = "$schema")]
    schema: &'static str,
    version: &'static str,
    runs: Vec<Run<'a>>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Run<'a> {
    tool: Tool,
    results: Results<'a>,
    column_kind: &'static str,
    original_uri_base_ids: serde_json::Value,
}

/// The results, converted one at a time as they are written (a run over a
/// large tree has tens of thousands).
struct Results<'a>(&'a [Diagnostic]);

impl Serialize for Results<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let all = rules::all();
        s.collect_seq(self.0.iter().map(|d| {
            let index = all.iter().position(|r| r.meta().id == d.rule).unwrap_or(0);
            result(d, index)
        }))
    }
}

#[derive(Serialize)]
struct Tool {
    driver: Driver,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Driver {
    name: &'static str,
    version: &'static str,
    semantic_version: &'static str,
    information_uri: &'static str,
    rules: Vec<ReportingDescriptor>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ReportingDescriptor {
    id: &'static str,
    name: String,
    short_description: Text,
    full_description: Text,
    help: Help,
    help_uri: String,
    default_configuration: DefaultConfiguration,
    properties: RuleProperties,
}

#[derive(Serialize)]
struct Text {
    text: String,
}

#[derive(Serialize)]
struct Help {
    text: String,
    markdown: &'static str,
}

#[derive(Serialize)]
struct DefaultConfiguration {
    level: &'static str,
}

#[derive(Serialize)]
struct RuleProperties {
    tags: Vec<String>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifResult<'a> {
    rule_id: &'a str,
    rule_index: usize,
    level: &'static str,
    message: Text,
    locations: Vec<SarifLocation>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    related_locations: Vec<SarifLocation>,
    partial_fingerprints: serde_json::Value,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifLocation {
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<usize>,
    physical_location: PhysicalLocation,
    #[serde(skip_serializing_if = "Option::is_none")]
    message: Option<Text>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PhysicalLocation {
    artifact_location: ArtifactLocation,
    region: Region,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ArtifactLocation {
    uri: String,
    uri_base_id: &'static str,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Region {
    start_line: u32,
    start_column: u32,
    end_line: u32,
    end_column: u32,
}

fn level(s: Severity) -> &'static str {
    match s {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Info => "note",
    }
}

/// `unchecked-breakpoint` → `UncheckedBreakpoint`.
fn pascal(id: &str) -> String {
    id.split('-')
        .map(|w| {
            let mut c = w.chars();
            match c.next() {
                Some(f) => f.to_uppercase().chain(c).collect::<String>(),
                None => String::new(),
            }
        })
        .collect()
}

/// The "What it does" paragraph of a rule doc.
pub fn doc_section(doc: &str, heading: &str) -> String {
    let mut lines = doc.lines().skip_while(|l| l.trim() != heading);
    lines.next();
    lines
        .take_while(|l| !l.starts_with("## "))
        .collect::<Vec<_>>()
        .join("\n")
        .trim()
        .to_string()
}

/// Percent-encodes a relative path for a URI reference.
fn uri(path: &str) -> String {
    let path = path.strip_prefix("./").unwrap_or(path);
    let rel = if std::path::Path::new(path).is_absolute() {
        std::env::current_dir()
            .ok()
            .and_then(|cwd| {
                std::path::Path::new(path)
                    .strip_prefix(&cwd)
                    .ok()
                    .map(|p| p.to_string_lossy().replace('\\', "/"))
            })
            .unwrap_or_else(|| path.to_string())
    } else {
        path.to_string()
    };
    let mut out = String::new();
    for b in rel.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

fn physical(l: &Location) -> PhysicalLocation {
    PhysicalLocation {
        artifact_location: ArtifactLocation {
            uri: uri(&l.path),
            uri_base_id: "%SRCROOT%",
        },
        region: Region {
            start_line: l.start.line.max(1),
            start_column: l.start.column.max(1),
            end_line: l.end.line.max(l.start.line).max(1),
            end_column: l.end.column.max(1),
        },
    }
}

/// FNV-1a: a fingerprint that is stable across proclint versions and
/// platforms (std's hasher is not guaranteed to be).
pub fn fnv1a(parts: &[&str]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for p in parts {
        for b in p.bytes().chain(std::iter::once(0)) {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
    }
    format!("{h:016x}")
}

fn result<'a>(d: &'a Diagnostic, index: usize) -> SarifResult<'a> {
    let mut text = d.message.clone();
    if !text.ends_with('.') {
        text.push('.');
    }
    if let Some(h) = &d.help {
        text.push_str(" Help: ");
        text.push_str(h);
    }
    SarifResult {
        rule_id: d.rule,
        rule_index: index,
        level: level(d.severity),
        message: Text { text },
        locations: vec![SarifLocation {
            id: None,
            physical_location: physical(&d.location),
            message: None,
        }],
        related_locations: d
            .related
            .iter()
            .enumerate()
            .map(|(i, r)| SarifLocation {
                id: Some(i + 1),
                physical_location: physical(&r.location),
                message: Some(Text {
                    text: r.message.clone(),
                }),
            })
            .collect(),
        // Line numbers are left out so the fingerprint survives edits
        // elsewhere in the file.
        partial_fingerprints: serde_json::json!({
            "proclint/v1": fnv1a(&[d.rule, &d.location.path, &d.message]),
        }),
    }
}

pub fn write(outcome: &Outcome, out: &mut dyn std::io::Write) -> std::io::Result<()> {
    let all = rules::all();
    let descriptors = all
        .iter()
        .map(|r| {
            let m = r.meta();
            let what = doc_section(m.doc, "## What it does");
            ReportingDescriptor {
                id: m.id,
                name: pascal(m.id),
                short_description: Text {
                    text: m.summary.to_string(),
                },
                full_description: Text {
                    text: if what.is_empty() {
                        m.summary.to_string()
                    } else {
                        what
                    },
                },
                help: Help {
                    text: m.summary.to_string(),
                    markdown: m.doc,
                },
                help_uri: format!("{INFORMATION_URI}/blob/main/rules/{}.md", m.id),
                default_configuration: DefaultConfiguration {
                    level: level(m.severity),
                },
                properties: RuleProperties {
                    tags: vec![m.area.name().to_string()],
                },
            }
        })
        .collect();
    let log = Log {
        schema: SCHEMA,
        version: "2.1.0",
        runs: vec![Run {
            tool: Tool {
                driver: Driver {
                    name: "proclint",
                    version: env!("CARGO_PKG_VERSION"),
                    semantic_version: env!("CARGO_PKG_VERSION"),
                    information_uri: INFORMATION_URI,
                    rules: descriptors,
                },
            },
            results: Results(&outcome.diagnostics),
            column_kind: "utf16CodeUnits",
            original_uri_base_ids: serde_json::json!({
                "%SRCROOT%": { "description": { "text": "The directory proclint ran in." } }
            }),
        }],
    };
    serde_json::to_writer_pretty(&mut *out, &log)?;
    out.write_all(b"\n")
}
