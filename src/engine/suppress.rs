//! Inline suppressions:
//! `// proclint-disable-next-line RULE[, RULE] -- reason`,
//! `code; // proclint-disable-line RULE -- reason` (its own line),
//! `// proclint-disable-file RULE`, and the same inside `<!-- … -->` in
//! Markdown. A directive that suppresses nothing is reported as
//! `unused-suppression`.
//!
//! In JavaScript a directive counts only in a comment of the parse tree:
//! the same text in a string or a template literal (a prompt quoting
//! `// proclint-disable-next-line`) is text. A line of code can span
//! lines: a `next-line` directive covers the lines of a template literal,
//! string or comment that goes on from its next line, and a `line`
//! directive every line of the template it ends or starts. package.json
//! has no comments, so no directives.

use crate::diagnostic::Location;
use crate::diagnostic::{Diagnostic, Severity};
use crate::project::config::Config;
use crate::rules::{self, RuleSwitches};
use crate::source::{SourceFile, Span};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum Scope {
    NextLine,
    /// The line the comment is on (a trailing comment).
    Line,
    File,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Directive {
    pub scope: Scope,
    /// 1-based line of the comment.
    pub line: u32,
    /// The 1-based lines a `next-line` or `line` directive covers: one
    /// line, or the lines of a line of code that spans several.
    pub lines: (u32, u32),
    /// Rule ids with their locations; empty means every rule.
    pub rules: Vec<(String, Location)>,
    pub location: Location,
    used: Vec<bool>,
    used_any: bool,
}

const NEXT_LINE: &str = "proclint-disable-next-line";
const LINE: &str = "proclint-disable-line";
const FILE: &str = "proclint-disable-file";

/// Whether a text may hold a directive at all (a byte search).
pub fn mentions_directive(text: &str) -> bool {
    memchr::memmem::find(text.as_bytes(), b"proclint-disable").is_some()
}

/// What a JavaScript module's directives need from its parse tree.
#[derive(Debug, Clone, Default)]
pub struct JsComments {
    /// The comments, in source order.
    pub comments: Vec<Span>,
    /// The 1-based lines that continue the line above them (they start
    /// inside a template literal, a string or a comment:
    /// `js::syntax::continued_line_starts`), in order.
    pub continued: Vec<u32>,
}

impl JsComments {
    fn in_comment(&self, at: usize) -> bool {
        let i = self.comments.partition_point(|c| c.end <= at);
        self.comments.get(i).is_some_and(|c| c.start <= at)
    }

    fn continues(&self, line: u32) -> bool {
        self.continued.binary_search(&line).is_ok()
    }

    /// The lines a directive of `scope` on `line` covers.
    fn lines(&self, scope: Scope, line: u32) -> (u32, u32) {
        let (mut first, mut last) = match scope {
            Scope::NextLine => (line + 1, line + 1),
            _ => (line, line),
        };
        if scope == Scope::Line {
            while first > 1 && self.continues(first) {
                first -= 1;
            }
        }
        while self.continues(last + 1) {
            last += 1;
        }
        (first, last)
    }
}

/// Finds directives in comments (`//`, `/*`, `<!--`) line by line. `js`
/// is a JavaScript module's comments (a directive outside them is text);
/// `None` for Markdown, whose `<!-- … -->` are found by the text alone.
pub fn parse(file: &SourceFile, js: Option<&JsComments>) -> Vec<Directive> {
    let text = &file.text;
    if !mentions_directive(text) {
        return Vec::new();
    }
    let mut out = Vec::new();
    let mut offset = 0;
    // Lines end at LF, CRLF or a lone CR (a CRLF yields an extra empty
    // piece, which holds no directive).
    for line in text.split_inclusive(['\n', '\r']) {
        let line_start = offset;
        offset += line.len();
        // The first mention that is in a comment.
        let found = line.match_indices("proclint-disable").find(|&(at, _)| {
            let before = &line[..at];
            (before.contains("//") || before.contains("/*") || before.contains("<!--"))
                && js.is_none_or(|js| js.in_comment(line_start + at))
        });
        let Some((at, _)) = found else {
            continue;
        };
        let rest = &line[at..];
        let (scope, after) = if let Some(r) = rest.strip_prefix(NEXT_LINE) {
            (Scope::NextLine, r)
        } else if let Some(r) = rest.strip_prefix(LINE) {
            (Scope::Line, r)
        } else if let Some(r) = rest.strip_prefix(FILE) {
            (Scope::File, r)
        } else {
            continue;
        };
        let after_start = line_start + at + (rest.len() - after.len());
        let mut body = after;
        for end in ["-->", "*/"] {
            if let Some(p) = body.find(end) {
                body = &body[..p];
            }
        }
        if let Some(p) = body.find("--") {
            body = &body[..p];
        }
        let mut rules = Vec::new();
        let mut pos = 0;
        for part in body.split([',', ' ', '\t', '\r', '\n']) {
            let start = pos;
            pos += part.len() + 1;
            if part.is_empty() {
                continue;
            }
            let s = after_start + start;
            rules.push((
                part.to_string(),
                file.location(Span::new(s, s + part.len())),
            ));
        }
        let line_no = file.pos(line_start + at).line;
        let lines = match (js, scope) {
            (Some(js), _) => js.lines(scope, line_no),
            (None, Scope::NextLine) => (line_no + 1, line_no + 1),
            (None, _) => (line_no, line_no),
        };
        let n = rules.len();
        out.push(Directive {
            scope,
            line: line_no,
            lines,
            rules,
            location: file.location(Span::new(
                line_start + at,
                after_start + body.trim_end().len(),
            )),
            used: vec![false; n],
            used_any: false,
        });
    }
    out
}

/// Removes suppressed diagnostics, marking the directives that matched.
pub fn apply(diags: Vec<Diagnostic>, directives: &mut [Directive]) -> Vec<Diagnostic> {
    if directives.is_empty() {
        return diags;
    }
    diags
        .into_iter()
        .filter(|d| {
            let mut suppressed = false;
            for dir in directives.iter_mut() {
                let line = d.location.start.line;
                let applies = match dir.scope {
                    Scope::File => true,
                    Scope::NextLine | Scope::Line => dir.lines.0 <= line && line <= dir.lines.1,
                };
                if !applies {
                    continue;
                }
                if dir.rules.is_empty() {
                    dir.used_any = true;
                    suppressed = true;
                }
                for (i, (id, _)) in dir.rules.iter().enumerate() {
                    if id == d.rule {
                        dir.used[i] = true;
                        suppressed = true;
                    }
                }
            }
            !suppressed
        })
        .collect()
}

/// `unused-suppression` diagnostics for directives (or rule ids in them)
/// that suppressed nothing. Disabled rules are not reported: toggling a
/// rule in config should not make its suppressions noisy. Neither are rules
/// that report only about a recorded run when no run was read (`run_read`):
/// a plain `check` cannot know whether they would fire.
pub fn unused(directives: &[Directive], config: &Config, run_read: bool) -> Vec<Diagnostic> {
    let id = "unused-suppression";
    if !config.is_enabled(id) {
        return Vec::new();
    }
    let severity = config.severity_of(id).unwrap_or(Severity::Warning);
    let mut out = Vec::new();
    for dir in directives {
        if dir.rules.is_empty() {
            if !dir.used_any {
                out.push(
                    Diagnostic::new(
                        id,
                        severity,
                        dir.location.clone(),
                        "this suppression suppresses nothing",
                    )
                    .with_help("remove the comment"),
                );
            }
            continue;
        }
        for (i, (rule, location)) in dir.rules.iter().enumerate() {
            if dir.used[i] {
                continue;
            }
            let known = rules::meta(rule).is_some();
            if known && !config.is_enabled(rule) {
                continue;
            }
            if !run_read && rules::find(rule).is_some_and(|r| r.needs_run()) {
                continue;
            }
            let (message, help) = if known {
                (
                    format!("`{rule}` is suppressed here but reports nothing"),
                    format!("remove `{rule}` from the comment"),
                )
            } else {
                let hint = crate::rules::closest_rule(rule)
                    .map(|c| format!("did you mean `{c}`?"))
                    .unwrap_or_else(|| "see `proclint rules` for the rule ids".into());
                (format!("unknown rule `{rule}` in suppression"), hint)
            };
            out.push(Diagnostic::new(id, severity, location.clone(), message).with_help(help));
        }
    }
    out
}
