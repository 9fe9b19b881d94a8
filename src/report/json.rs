//! The frozen JSON v1 shape. These structs are the public contract and are
//! kept separate from the internal [`Diagnostic`] type. Fields are only
//! ever added (`fix`, in v1 since issue 34), never changed or removed.

use serde::Serialize;

use crate::diagnostic::{Diagnostic, Severity};
use crate::engine::Outcome;
use crate::report::fixes::{EditAt, Texts};
use crate::report::Options;

/// The whole report, as serde_json would write it: [`write`] writes it
/// faster, byte for byte the same (tested), so this is the shape's
/// reference.
#[cfg_attr(not(test), allow(dead_code))]
#[derive(Serialize)]
struct Report<'a> {
    version: u32,
    diagnostics: Diagnostics<'a>,
    summary: Summary,
}

/// The diagnostics, converted one at a time as they are written (a run
/// over a large tree has tens of thousands), with their fixes' edits
/// placed.
#[cfg_attr(not(test), allow(dead_code))]
struct Diagnostics<'a>(&'a [Diagnostic], Vec<Option<Vec<EditAt<'a>>>>);

impl Serialize for Diagnostics<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(
            self.0
                .iter()
                .zip(&self.1)
                .map(|(d, edits)| convert(d, edits.clone())),
        )
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
    fix: Option<JsonFix<'a>>,
}

/// A finding's fix: what it does, whether `--fix` applies it (`"safe"`) or
/// only `--fix --unsafe-fixes` does (`"unsafe"`), and its edits.
#[derive(Serialize)]
struct JsonFix<'a> {
    description: &'a str,
    applicability: &'a str,
    edits: Vec<JsonEdit<'a>>,
}

/// Replace the text from (`line`, `column`) up to (`end_line`,
/// `end_column`) — 1-based, columns in UTF-16 code units, the end
/// exclusive; an insertion when they are equal — with `replacement`. The
/// edits of one fix never overlap and all refer to the file as it was
/// linted.
#[derive(Serialize)]
struct JsonEdit<'a> {
    line: u32,
    column: u32,
    end_line: u32,
    end_column: u32,
    replacement: &'a str,
}

#[derive(Serialize)]
struct Summary {
    files: usize,
    errors: usize,
    warnings: usize,
    infos: usize,
}

fn convert<'a>(d: &'a Diagnostic, edits: Option<Vec<EditAt<'a>>>) -> JsonDiagnostic<'a> {
    let fix = d.fix.as_ref().zip(edits).map(|(f, edits)| JsonFix {
        description: &f.description,
        applicability: f.applicability(),
        edits: edits
            .into_iter()
            .map(|e| JsonEdit {
                line: e.start.line,
                column: e.start.column,
                end_line: e.end.line,
                end_column: e.end.column,
                replacement: e.replacement,
            })
            .collect(),
    });
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
        fix,
    }
}

#[cfg(test)]
fn report<'a>(outcome: &'a Outcome, texts: &mut Texts<'a>) -> Report<'a> {
    Report {
        version: 1,
        diagnostics: Diagnostics(
            &outcome.diagnostics,
            outcome.diagnostics.iter().map(|d| texts.edits(d)).collect(),
        ),
        summary: summary(outcome),
    }
}

fn summary(outcome: &Outcome) -> Summary {
    Summary {
        files: outcome.files.len(),
        errors: outcome.count(Severity::Error),
        warnings: outcome.count(Severity::Warning),
        infos: outcome.count(Severity::Info),
    }
}

/// Written as it is produced: the report of a large tree is never held
/// whole in memory. serde_json writes a report as hundreds of thousands of
/// small pieces on one thread, which was the longest sequential step of a
/// warm run; here batches of diagnostics are formatted in parallel into
/// buffers (in the exact shape and escaping of serde_json's pretty
/// printer, see the tests) and written in order.
pub fn write(
    outcome: &Outcome,
    options: &Options,
    out: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    write_with(
        outcome,
        &mut Texts::new(outcome, options.stdin.as_deref()),
        out,
    )
}

fn write_with<'a>(
    outcome: &'a Outcome,
    texts: &mut Texts<'a>,
    out: &mut dyn std::io::Write,
) -> std::io::Result<()> {
    /// Diagnostics per buffer, and per batch (what is held at once).
    const CHUNK: usize = 256;
    const BATCH: usize = 4 * CHUNK;
    let all = &outcome.diagnostics;
    out.write_all(b"{\n  \"version\": 1,\n  \"diagnostics\": [")?;
    if all.is_empty() {
        out.write_all(b"]")?;
    } else {
        for (b, batch) in all.chunks(BATCH).enumerate() {
            // Placed in order (a file's text is read once), formatted in
            // parallel.
            let placed: Vec<Option<Vec<EditAt>>> = batch.iter().map(|d| texts.edits(d)).collect();
            let parts: Vec<Vec<u8>> = crate::engine::on_pool(|| {
                use rayon::prelude::*;
                batch
                    .par_chunks(CHUNK)
                    .zip(placed.par_chunks(CHUNK))
                    .enumerate()
                    .map(|(c, (chunk, placed))| {
                        let mut buf = Vec::with_capacity(chunk.len() * 768);
                        for (i, (d, edits)) in chunk.iter().zip(placed).enumerate() {
                            let first = b == 0 && c == 0 && i == 0;
                            buf.extend_from_slice(if first { b"\n" } else { b",\n" });
                            diagnostic(&mut buf, &convert(d, edits.clone()));
                        }
                        buf
                    })
                    .collect()
            });
            for part in parts {
                out.write_all(&part)?;
            }
        }
        out.write_all(b"\n  ]")?;
    }
    let summary = summary(outcome);
    let mut buf = Vec::with_capacity(128);
    buf.extend_from_slice(b",\n  \"summary\": {\n    \"files\": ");
    number(&mut buf, summary.files as u64);
    buf.extend_from_slice(b",\n    \"errors\": ");
    number(&mut buf, summary.errors as u64);
    buf.extend_from_slice(b",\n    \"warnings\": ");
    number(&mut buf, summary.warnings as u64);
    buf.extend_from_slice(b",\n    \"infos\": ");
    number(&mut buf, summary.infos as u64);
    buf.extend_from_slice(b"\n  }\n}\n");
    out.write_all(&buf)
}

/// One element of the `diagnostics` array, as serde_json's pretty printer
/// writes it there (two levels deep).
fn diagnostic(buf: &mut Vec<u8>, d: &JsonDiagnostic<'_>) {
    buf.extend_from_slice(b"    {\n      \"rule\": ");
    string(buf, d.rule);
    buf.extend_from_slice(b",\n      \"severity\": ");
    string(buf, d.severity);
    buf.extend_from_slice(b",\n      \"path\": ");
    string(buf, d.path);
    buf.extend_from_slice(b",\n      \"line\": ");
    number(buf, u64::from(d.line));
    buf.extend_from_slice(b",\n      \"column\": ");
    number(buf, u64::from(d.column));
    buf.extend_from_slice(b",\n      \"end_line\": ");
    number(buf, u64::from(d.end_line));
    buf.extend_from_slice(b",\n      \"end_column\": ");
    number(buf, u64::from(d.end_column));
    buf.extend_from_slice(b",\n      \"message\": ");
    string(buf, d.message);
    buf.extend_from_slice(b",\n      \"help\": ");
    match d.help {
        Some(help) => string(buf, help),
        None => buf.extend_from_slice(b"null"),
    }
    buf.extend_from_slice(b",\n      \"fix\": ");
    match &d.fix {
        // Rare beside the findings (a few per file): serde_json's own
        // pretty printer, indented to this depth (a JSON string holds no
        // line break, so every line break is the printer's).
        Some(fix) => match serde_json::to_string_pretty(fix) {
            Ok(text) => buf.extend_from_slice(text.replace('\n', "\n      ").as_bytes()),
            Err(_) => buf.extend_from_slice(b"null"),
        },
        None => buf.extend_from_slice(b"null"),
    }
    buf.extend_from_slice(b"\n    }");
}

/// A JSON string as serde_json writes it: only `"`, `\\` and control
/// characters are escaped, so a string without them is copied as is, and
/// one with them is left to serde_json.
fn string(buf: &mut Vec<u8>, s: &str) {
    if needs_escape(s.as_bytes()) {
        // Writing to a Vec cannot fail.
        let _ = serde_json::to_writer(&mut *buf, s);
    } else {
        buf.reserve(s.len() + 2);
        buf.push(b'"');
        buf.extend_from_slice(s.as_bytes());
        buf.push(b'"');
    }
}

/// Whether any byte is a control character, `"` or `\\`: eight bytes at a
/// time (each test below is exact for "some byte of the word").
fn needs_escape(bytes: &[u8]) -> bool {
    const ONES: u64 = u64::from_ne_bytes([0x01; 8]);
    const HIGH: u64 = u64::from_ne_bytes([0x80; 8]);
    let zero_byte = |x: u64| x.wrapping_sub(ONES) & !x & HIGH != 0;
    let mut words = bytes.chunks_exact(8);
    for w in &mut words {
        let mut b = [0u8; 8];
        b.copy_from_slice(w);
        let x = u64::from_ne_bytes(b);
        // A byte below 0x20; a byte equal to `"`; to `\\`.
        if x.wrapping_sub(ONES * 0x20) & !x & HIGH != 0
            || zero_byte(x ^ (ONES * u64::from(b'"')))
            || zero_byte(x ^ (ONES * u64::from(b'\\')))
        {
            return true;
        }
    }
    words
        .remainder()
        .iter()
        .any(|&b| b < 0x20 || b == b'"' || b == b'\\')
}

fn number(buf: &mut Vec<u8>, mut n: u64) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    buf.extend_from_slice(&digits[at..]);
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::diagnostic::Location;
    use crate::source::{Pos, Span};

    const FIXED_TEXT: &str = "a\nb\r\nc\u{e9}\u{1f389}d\n";

    fn outcome(n: usize) -> Outcome {
        let texts = [
            "plain",
            "quote \" and backslash \\ and slash /",
            "control \u{1} \u{1f} tab\t newline\n cr\r \u{8} \u{c}",
            "del \u{7f}, non-ASCII é ü 漢字 and 🎉",
            "",
        ];
        let diagnostics = (0..n)
            .map(|i| {
                let t = texts[i % texts.len()];
                let path: Arc<str> = Arc::from(format!("dir/{}{i}.js", texts[(i / 5) % 5]));
                let location = Location {
                    path,
                    span: Span::new(i, i + 1),
                    start: Pos {
                        line: i as u32,
                        column: u32::MAX - i as u32,
                    },
                    end: Pos {
                        line: (i * 7) as u32,
                        column: 0,
                    },
                };
                let severity = [Severity::Info, Severity::Warning, Severity::Error][i % 3];
                let mut d = Diagnostic::new("unused-output-field", severity, location, t);
                if i % 2 == 0 {
                    d = d.with_help(texts[(i + 1) % texts.len()]);
                }
                if i % 3 == 0 {
                    // Edits in a text with line breaks and non-ASCII.
                    d = d.with_fix(crate::diagnostic::Fix {
                        description: texts[(i + 2) % texts.len()].to_string(),
                        edits: vec![
                            crate::diagnostic::Edit {
                                span: Span::new(0, 0),
                                replacement: texts[i % texts.len()].to_string(),
                            },
                            crate::diagnostic::Edit {
                                span: Span::new(i % FIXED_TEXT.len(), FIXED_TEXT.len()),
                                replacement: String::new(),
                            },
                        ],
                        safe: i % 2 == 0,
                    });
                }
                d
            })
            .collect();
        Outcome {
            diagnostics,
            ..Outcome::default()
        }
    }

    #[test]
    fn needs_escape_finds_every_escaped_byte_anywhere() {
        for b in 0..=255u8 {
            let expected = b < 0x20 || b == b'"' || b == b'\\';
            for len in [1, 7, 8, 9, 16, 23] {
                for at in 0..len {
                    let mut text = vec![b'a'; len];
                    text[at] = b;
                    assert_eq!(needs_escape(&text), expected, "{b:#x} at {at} of {len}");
                }
            }
        }
        assert!(!needs_escape(
            "é ü 漢字 🎉 plain text, long enough".as_bytes()
        ));
        assert!(!needs_escape(b""));
    }

    /// The parallel writer gives exactly serde_json's pretty output, for no
    /// diagnostics, one, and more than a batch.
    #[test]
    fn write_matches_serde_json() {
        for n in [0, 1, 2, 7, 513, 20_000] {
            let o = outcome(n);
            let texts = || {
                let mut t = Texts::new(&o, None);
                for d in o.diagnostics.iter().filter(|d| d.fix.is_some()) {
                    t.give(&d.location.path, FIXED_TEXT);
                }
                t
            };
            let mut written = Vec::new();
            write_with(&o, &mut texts(), &mut written).unwrap_or_else(|e| panic!("{e}"));
            // Some fixes are placed, and some not (an edit inside a character).
            let shown = String::from_utf8_lossy(&written);
            assert_eq!(n >= 7, shown.contains("\"applicability\": \"unsafe\""));
            assert_eq!(n >= 7, shown.contains("\"replacement\": \"quote"));
            let mut expected = serde_json::to_string_pretty(&report(&o, &mut texts()))
                .unwrap_or_else(|e| panic!("{e}"));
            expected.push('\n');
            assert!(
                written == expected.as_bytes(),
                "n = {n}: differs at byte {:?}",
                written
                    .iter()
                    .zip(expected.as_bytes())
                    .position(|(a, b)| a != b)
            );
        }
    }
}
