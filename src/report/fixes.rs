//! Fixes as the reports show them: the positions of their edits (JSON and
//! SARIF), and what is fixable (the summary line and the per-finding marks
//! of `pretty` and `concise`).
//!
//! Rules give edits as byte spans of the text they linted, and reports give
//! 1-based lines and UTF-16 columns, so a file's text is read again: from
//! disk when its bytes are still the ones linted (their content hash), or
//! the buffer read from stdin. A file that changed since, or cannot be
//! read, gets no positions, and its findings are reported without a fix
//! rather than with edits that would land in the wrong place.

use std::collections::HashMap;
use std::sync::Arc;

use crate::diagnostic::{Diagnostic, Fix};
use crate::engine::{FileOutcome, Outcome};
use crate::source::{LineIndex, Pos};

/// One edit of a fix, placed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EditAt<'a> {
    pub start: Pos,
    pub end: Pos,
    pub replacement: &'a str,
}

/// A file's text and its line index.
type Text = Arc<(String, LineIndex)>;

/// The texts of the files whose findings have fixes, read once each (the
/// findings come sorted by path, so the last one read is kept).
pub struct Texts<'o> {
    files: HashMap<&'o str, &'o FileOutcome>,
    stdin: Option<&'o [u8]>,
    last: Option<(Arc<str>, Option<Text>)>,
    /// Texts given directly (tests).
    given: HashMap<String, Text>,
}

impl<'o> Texts<'o> {
    /// `stdin`: the buffer linted as the file that has no content hash
    /// (`--stdin-filename`), if any.
    pub fn new(outcome: &'o Outcome, stdin: Option<&'o [u8]>) -> Texts<'o> {
        Texts {
            files: outcome.files.iter().map(|f| (&*f.display, f)).collect(),
            stdin,
            last: None,
            given: HashMap::new(),
        }
    }

    #[cfg(test)]
    pub fn give(&mut self, display: &str, text: &str) {
        self.given.insert(
            display.to_string(),
            Arc::new((text.to_string(), LineIndex::new(text))),
        );
    }

    fn text(&mut self, display: &Arc<str>) -> Option<Text> {
        if let Some((path, text)) = &self.last {
            if path == display {
                return text.clone();
            }
        }
        let text = self.given.get(&**display).cloned().or_else(|| {
            let file = self.files.get(&**display)?;
            let bytes = match file.hash {
                Some(hash) => {
                    let bytes = std::fs::read(&file.path).ok()?;
                    (crate::source::content_hash(&bytes) == hash).then_some(bytes)?
                }
                None => self.stdin?.to_vec(),
            };
            let text = crate::source::decode(bytes).0;
            let index = LineIndex::new(&text);
            Some(Arc::new((text, index)))
        });
        self.last = Some((display.clone(), text.clone()));
        text
    }

    /// The edits of `d`'s fix, placed; `None` when it has none or its
    /// file's text is not the one linted.
    pub fn edits<'d>(&mut self, d: &'d Diagnostic) -> Option<Vec<EditAt<'d>>> {
        let fix = d.fix.as_ref().filter(|f| !f.edits.is_empty())?;
        let text = self.text(&d.location.path)?;
        let (text, index) = &*text;
        fix.edits
            .iter()
            .map(|e| {
                let inside = e.span.start <= e.span.end
                    && text.is_char_boundary(e.span.start)
                    && text.is_char_boundary(e.span.end);
                inside.then(|| EditAt {
                    start: index.pos(text, e.span.start),
                    end: index.pos(text, e.span.end),
                    replacement: &e.replacement,
                })
            })
            .collect()
    }
}

/// Whether a finding's fix is one `--fix` applies under these flags (the
/// findings `pretty` and `concise` mark).
pub fn applies(d: &Diagnostic, unsafe_fixes: bool) -> bool {
    d.fix.as_ref().is_some_and(|f| f.applies(unsafe_fixes))
}

/// "2 fixable with `--fix` (1 more with `--unsafe-fixes`)", or `None` when
/// no finding has a fix: what ends the summary line.
pub fn summary(outcome: &Outcome, unsafe_fixes: bool) -> Option<String> {
    let fixes = || outcome.diagnostics.iter().filter_map(|d| d.fix.as_ref());
    let now = fixes().filter(|f| f.applies(unsafe_fixes)).count();
    let more = fixes()
        .filter(|f| f.applies(true) && !f.applies(unsafe_fixes))
        .count();
    match (now, more) {
        (0, 0) => None,
        (0, more) => Some(format!("{more} fixable with `--fix --unsafe-fixes`")),
        (now, 0) => Some(format!("{now} fixable with `--fix`")),
        (now, more) => Some(format!(
            "{now} fixable with `--fix` ({more} more with `--unsafe-fixes`)"
        )),
    }
}

/// The line `pretty` adds to a finding's help: what its fix does and how
/// to apply it.
pub fn help_line(fix: &Fix, unsafe_fixes: bool) -> Option<String> {
    if fix.edits.is_empty() {
        return None;
    }
    let how = match (fix.safe, unsafe_fixes) {
        (true, _) => "[*] safe fix, `--fix`",
        (false, true) => "[*] unsafe fix, `--fix`",
        (false, false) => "unsafe fix, `--fix --unsafe-fixes`",
    };
    Some(format!("{how}: {}", fix.description))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostic::{Edit, Severity};
    use crate::engine::discover::FileKind;
    use crate::source::{SourceFile, Span};

    /// A file that changed on disk since it was linted gets no positions:
    /// edits placed in the new text would land in the wrong place.
    #[test]
    fn a_file_changed_since_it_was_linted_gets_no_positions() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let path = dir.path().join("p.js");
        let text = "const a = 1;\nconst b = 2;\n";
        std::fs::write(&path, text).unwrap_or_else(|e| panic!("{e}"));
        let file = SourceFile::new("p.js", text.to_string());
        let d = Diagnostic::new(
            "undefined-reference",
            Severity::Error,
            file.location(Span::new(13, 18)),
            "m",
        )
        .with_fix(Fix {
            description: "d".into(),
            edits: vec![Edit {
                span: Span::new(19, 20),
                replacement: "c".into(),
            }],
            safe: true,
        });
        let outcome = Outcome {
            files: vec![FileOutcome {
                display: Arc::from("p.js"),
                path: path.clone(),
                kind: FileKind::Process,
                lines: 2,
                report: true,
                diagnostics: Vec::new(),
                directives: Vec::new(),
                summary: None,
                facts: None,
                hash: Some(crate::source::content_hash(text.as_bytes())),
                cache_key: None,
                looked_up: Vec::new(),
            }],
            diagnostics: vec![d],
            run: None,
            context: None,
        };
        let placed = Texts::new(&outcome, None).edits(&outcome.diagnostics[0]);
        let at = |line, column| Pos { line, column };
        assert_eq!(
            placed,
            Some(vec![EditAt {
                start: at(2, 7),
                end: at(2, 8),
                replacement: "c",
            }])
        );
        std::fs::write(&path, format!("// new\n{text}")).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            Texts::new(&outcome, None).edits(&outcome.diagnostics[0]),
            None
        );
        // Without `--unsafe-fixes` only a safe fix counts as fixable now.
        assert_eq!(
            summary(&outcome, false).as_deref(),
            Some("1 fixable with `--fix`")
        );
    }
}
