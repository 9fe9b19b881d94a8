//! SARIF 2.1.0 for GitHub code scanning. Hand-written structs for the
//! subset we emit; a test validates the output against the official schema.

use std::path::{Component, Path, PathBuf};

use serde::Serialize;

use crate::diagnostic::{Diagnostic, Location, Severity};
use crate::engine::Outcome;
use crate::report::fixes::{EditAt, Texts};
use crate::report::Options;
use crate::rules;

const SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";

/// Results written per run. GitHub code scanning rejects a run with more
/// than 25,000 results and, below that, keeps only the 5,000 most severe;
/// writing exactly what it will show keeps the file small and the note
/// about what was left out true.
pub const MAX_RESULTS: usize = 5_000;
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
    invocations: Vec<Invocation>,
    results: Results<'a>,
    column_kind: &'static str,
    original_uri_base_ids: serde_json::Value,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Invocation {
    execution_successful: bool,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tool_execution_notifications: Vec<Notification>,
}

#[derive(Serialize)]
struct Notification {
    level: &'static str,
    message: Text,
}

/// The results, converted one at a time as they are written (a run over a
/// large tree has tens of thousands).
struct Results<'a> {
    diagnostics: &'a [Diagnostic],
    /// `keep[i]`: whether the i-th diagnostic is within [`MAX_RESULTS`].
    keep: Vec<bool>,
    root: Root,
    /// Where fixes' edits are placed (read as the results are written).
    texts: std::cell::RefCell<Texts<'a>>,
}

impl Serialize for Results<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let all = rules::all();
        s.collect_seq(
            self.diagnostics
                .iter()
                .zip(&self.keep)
                .filter(|(_, keep)| **keep)
                .map(|(d, _)| {
                    let index = all.iter().position(|r| r.meta().id == d.rule).unwrap_or(0);
                    let edits = self.texts.borrow_mut().edits(d);
                    result(d, index, &self.root, edits)
                }),
        )
    }
}

/// Which findings fit in [`MAX_RESULTS`]: the most severe, in report order
/// within a severity; the file keeps report order.
fn kept(diagnostics: &[Diagnostic], max: usize) -> Vec<bool> {
    let mut order: Vec<usize> = (0..diagnostics.len()).collect();
    // Stable: equal severities stay in report (path) order.
    order.sort_by(|&a, &b| diagnostics[b].severity.cmp(&diagnostics[a].severity));
    let mut keep = vec![false; diagnostics.len()];
    for &i in order.iter().take(max) {
        keep[i] = true;
    }
    keep
}

/// The note recorded when findings were left out: how many, of what
/// severity, and how to get them all.
fn truncation_note(diagnostics: &[Diagnostic], keep: &[bool]) -> Option<Notification> {
    let left: Vec<&Diagnostic> = diagnostics
        .iter()
        .zip(keep)
        .filter(|(_, k)| !**k)
        .map(|(d, _)| d)
        .collect();
    if left.is_empty() {
        return None;
    }
    let count = |s: Severity| left.iter().filter(|d| d.severity == s).count();
    Some(Notification {
        level: "warning",
        message: Text {
            text: format!(
                "proclint found {} results; this run holds the {MAX_RESULTS} most severe, \
                 as GitHub code scanning shows no more. {} were left out ({} errors, {} \
                 warnings, {} notes). `proclint check --format json` reports them all; \
                 `--min-severity` or `--select` narrows the report.",
                diagnostics.len(),
                left.len(),
                count(Severity::Error),
                count(Severity::Warning),
                count(Severity::Info),
            ),
        },
    })
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
    #[serde(skip_serializing_if = "Vec::is_empty")]
    fixes: Vec<SarifFix<'a>>,
}

/// SARIF's `fix`: one artifact change (the finding's file) whose
/// replacements are the edits; `properties.applicability` says whether
/// `--fix` applies it (`safe`) or only `--fix --unsafe-fixes` (`unsafe`).
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifFix<'a> {
    description: Text,
    artifact_changes: Vec<ArtifactChange<'a>>,
    properties: FixProperties,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ArtifactChange<'a> {
    artifact_location: ArtifactLocation,
    replacements: Vec<Replacement<'a>>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Replacement<'a> {
    /// Empty (start = end) for an insertion.
    deleted_region: Region,
    inserted_content: Content<'a>,
}

#[derive(Serialize)]
struct Content<'a> {
    text: &'a str,
}

#[derive(Serialize)]
struct FixProperties {
    applicability: &'static str,
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
    /// `%SRCROOT%` for a file under the repository root; none for an
    /// absolute `file://` URI.
    #[serde(skip_serializing_if = "Option::is_none")]
    uri_base_id: Option<&'static str>,
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

/// Where `%SRCROOT%` points: the repository root (the nearest ancestor of
/// the working directory with `.git`, as GitHub checks out a repository at
/// its root), else the working directory.
struct Root {
    cwd: PathBuf,
    root: PathBuf,
}

impl Root {
    fn find() -> Root {
        let cwd = std::env::current_dir().unwrap_or_default();
        let root = cwd
            .ancestors()
            .find(|a| a.join(".git").exists())
            .unwrap_or(&cwd)
            .to_path_buf();
        Root { cwd, root }
    }

    /// The URI of a reported path (as shown, relative to the working
    /// directory or absolute) and its base: relative to `%SRCROOT%` when
    /// under the root, else an absolute `file://` URI, which GitHub cannot
    /// map to the repository but which still names the file.
    fn uri(&self, path: &str) -> (String, Option<&'static str>) {
        let absolute = normalize(&self.cwd.join(path));
        match absolute.strip_prefix(&self.root) {
            Ok(rel) => (encode(&slashes(rel)), Some(SRCROOT)),
            Err(_) => {
                let p = slashes(&absolute);
                // `C:/x` on Windows becomes `file:///C:/x`.
                let p = if p.starts_with('/') {
                    p
                } else {
                    format!("/{p}")
                };
                (format!("file://{}", encode(&p)), None)
            }
        }
    }
}

const SRCROOT: &str = "%SRCROOT%";

/// `/`-separated: a backslash is a separator only where the platform's
/// is one (Windows); on Unix it is part of a name (`a\b.js`), and
/// [`encode`] percent-encodes it.
fn slashes(p: &Path) -> String {
    let s = p.to_string_lossy();
    if std::path::MAIN_SEPARATOR == '\\' {
        s.replace('\\', "/")
    } else {
        s.into_owned()
    }
}

/// Removes `.` and folds `..` without touching the file system (a reported
/// file may be gone, and symlinks are reported as given).
fn normalize(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other),
        }
    }
    out
}

/// Percent-encodes a path for a URI. `:` is kept only in an absolute
/// path (a drive letter); in a relative one it would read as a scheme.
fn encode(path: &str) -> String {
    let colon = path.starts_with('/');
    let mut out = String::new();
    for b in path.bytes() {
        if b.is_ascii_alphanumeric() || b"-._~/".contains(&b) || (colon && b == b':') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

fn physical(l: &Location, root: &Root) -> PhysicalLocation {
    let (uri, uri_base_id) = root.uri(&l.path);
    PhysicalLocation {
        artifact_location: ArtifactLocation { uri, uri_base_id },
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

/// The finding's fix, when its edits could be placed.
fn fixes<'a>(d: &'a Diagnostic, edits: Option<Vec<EditAt<'a>>>, root: &Root) -> Vec<SarifFix<'a>> {
    let (Some(fix), Some(edits)) = (&d.fix, edits) else {
        return Vec::new();
    };
    let (uri, uri_base_id) = root.uri(&d.location.path);
    vec![SarifFix {
        description: Text {
            text: fix.description.clone(),
        },
        artifact_changes: vec![ArtifactChange {
            artifact_location: ArtifactLocation { uri, uri_base_id },
            replacements: edits
                .into_iter()
                .map(|e| Replacement {
                    deleted_region: Region {
                        start_line: e.start.line,
                        start_column: e.start.column,
                        end_line: e.end.line,
                        end_column: e.end.column,
                    },
                    inserted_content: Content {
                        text: e.replacement,
                    },
                })
                .collect(),
        }],
        properties: FixProperties {
            applicability: fix.applicability(),
        },
    }]
}

fn result<'a>(
    d: &'a Diagnostic,
    index: usize,
    root: &Root,
    edits: Option<Vec<EditAt<'a>>>,
) -> SarifResult<'a> {
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
            physical_location: physical(&d.location, root),
            message: None,
        }],
        related_locations: d
            .related
            .iter()
            .enumerate()
            .map(|(i, r)| SarifLocation {
                id: Some(i + 1),
                physical_location: physical(&r.location, root),
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
        fixes: fixes(d, edits, root),
    }
}

pub fn write(
    outcome: &Outcome,
    options: &Options,
    out: &mut dyn std::io::Write,
) -> std::io::Result<()> {
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
    let keep = kept(&outcome.diagnostics, MAX_RESULTS);
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
            invocations: vec![Invocation {
                // A bug in proclint (an `internal-error`) means some file
                // was not fully checked.
                execution_successful: !outcome
                    .diagnostics
                    .iter()
                    .any(|d| d.rule == "internal-error"),
                tool_execution_notifications: truncation_note(&outcome.diagnostics, &keep)
                    .into_iter()
                    .collect(),
            }],
            results: Results {
                diagnostics: &outcome.diagnostics,
                keep,
                root: Root::find(),
                texts: std::cell::RefCell::new(Texts::new(outcome, options.stdin.as_deref())),
            },
            column_kind: "utf16CodeUnits",
            original_uri_base_ids: serde_json::json!({
                SRCROOT: { "description": { "text":
                    "The repository root: the nearest directory with `.git` above the \
                     directory proclint ran in, else that directory." } }
            }),
        }],
    };
    serde_json::to_writer_pretty(&mut *out, &log)?;
    out.write_all(b"\n")
}
