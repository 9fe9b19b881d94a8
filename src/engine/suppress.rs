//! Inline suppressions:
//! `// proclint-disable-next-line RULE[, RULE] -- reason`,
//! `code; // proclint-disable-line RULE -- reason` (its own line),
//! `// proclint-disable-file RULE`, and the same inside `<!-- … -->` in
//! Markdown. A directive that suppresses nothing is reported as
//! `unused-suppression`.

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
    /// Rule ids with their locations; empty means every rule.
    pub rules: Vec<(String, Location)>,
    pub location: Location,
    used: Vec<bool>,
    used_any: bool,
}

const NEXT_LINE: &str = "proclint-disable-next-line";
const LINE: &str = "proclint-disable-line";
const FILE: &str = "proclint-disable-file";

/// Finds directives in comments (`//`, `/*`, `<!--`) line by line.
pub fn parse(file: &SourceFile) -> Vec<Directive> {
    let text = &file.text;
    if memchr::memmem::find(text.as_bytes(), b"proclint-disable").is_none() {
        return Vec::new();
    }
    let mut out = Vec::new();
    let mut offset = 0;
    // Lines end at LF, CRLF or a lone CR (a CRLF yields an extra empty
    // piece, which holds no directive).
    for line in text.split_inclusive(['\n', '\r']) {
        let line_start = offset;
        offset += line.len();
        let Some(at) = line.find("proclint-disable") else {
            continue;
        };
        let before = &line[..at];
        if !(before.contains("//") || before.contains("/*") || before.contains("<!--")) {
            continue;
        }
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
        let n = rules.len();
        out.push(Directive {
            scope,
            line: line_no,
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
                let applies = match dir.scope {
                    Scope::File => true,
                    Scope::NextLine => d.location.start.line == dir.line + 1,
                    Scope::Line => d.location.start.line == dir.line,
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
