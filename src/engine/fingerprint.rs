//! Finding fingerprints that survive unrelated edits (for baselines).
//!
//! A fingerprint hashes what a finding *is*, not where it is: the flagged
//! source text with whitespace runs collapsed, and the name of the function
//! or task definition it sits in. Line and column numbers are left out, so
//! adding code above a finding, re-indenting it or re-wrapping it keeps its
//! fingerprint; editing the flagged code itself, or moving it into another
//! function, makes it a new finding. Rule and path are kept beside the hash
//! (see [`crate::engine::baseline`]), so the hash only needs to tell findings of one
//! rule in one file apart.

use sha2::{Digest, Sha256};

use crate::diagnostic::Diagnostic;
use crate::js::JsModel;
use crate::source::{SourceFile, Span};

/// A named region a finding can sit in: a function or a task definition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scope {
    pub span: Span,
    /// `function reviewPhase`, `task spec-review`.
    pub name: String,
}

/// The named functions and task definitions of a module. Anonymous functions
/// are left out: a callback is identified by the named function around it.
pub fn js_scopes(model: &JsModel) -> Vec<Scope> {
    let functions = model.functions.iter().filter_map(|f| {
        let name = f.name.as_ref()?;
        Some(Scope {
            span: Span::new(f.node.start_byte(), f.node.end_byte()),
            name: format!("function {name}"),
        })
    });
    let tasks = model.task_defs.iter().filter_map(|t| {
        let id = t.id.as_ref()?;
        let node = model.calls.get(t.call)?.node;
        Some(Scope {
            span: Span::new(node.start_byte(), node.end_byte()),
            name: format!("task {id}"),
        })
    });
    functions.chain(tasks).collect()
}

/// The innermost scope containing `span`, if any.
pub fn enclosing(scopes: &[Scope], span: Span) -> Option<&Scope> {
    scopes
        .iter()
        .filter(|s| s.span.start <= span.start && span.end <= s.span.end)
        // Innermost: the latest start, then the earliest end; the name
        // breaks ties so the choice never depends on the scopes' order.
        .max_by_key(|s| {
            (
                s.span.start,
                std::cmp::Reverse(s.span.end),
                std::cmp::Reverse(s.name.as_str()),
            )
        })
}

/// Collapses every whitespace run to one space where it separates two words
/// (`await ctx`) and drops it elsewhere (`breakpoint( {` is `breakpoint({`),
/// so re-indenting and re-wrapping a statement keeps its fingerprint.
pub fn normalise(text: &str) -> String {
    let word = |c: char| c.is_alphanumeric() || c == '_' || c == '$';
    let mut out = String::with_capacity(text.len());
    let mut pending_space = false;
    for c in text.chars() {
        if c.is_whitespace() {
            pending_space = !out.is_empty();
            continue;
        }
        if pending_space && out.chars().next_back().is_some_and(word) && word(c) {
            out.push(' ');
        }
        pending_space = false;
        out.push(c);
    }
    out
}

/// The hash of a finding's normalised flagged text and enclosing scope:
/// 16 hex digits of SHA-256 (stable across platforms and versions).
pub fn hash(flagged: &str, scope: &str) -> String {
    let mut h = Sha256::new();
    h.update(b"proclint-fingerprint-v1\0");
    h.update(normalise(flagged).as_bytes());
    h.update(b"\0");
    h.update(scope.as_bytes());
    let digest = h.finalize();
    digest[..8].iter().map(|b| format!("{b:02x}")).collect()
}

/// Sets the fingerprint of every diagnostic on `file` that has none yet.
/// A finding without source text (an empty span: whole-file notes) is
/// identified by its message instead.
pub fn stamp(file: &SourceFile, scopes: &[Scope], diagnostics: &mut [Diagnostic]) {
    for d in diagnostics.iter_mut() {
        if d.fingerprint.is_some() || d.location.path != file.path {
            continue;
        }
        let span = d.location.span;
        let flagged = file
            .text
            .get(span.start..span.end)
            .filter(|t| !t.trim().is_empty())
            .unwrap_or(&d.message);
        let scope = enclosing(scopes, span).map_or("", |s| s.name.as_str());
        d.fingerprint = Some(hash(flagged, scope));
    }
}

/// The fingerprint of a finding that was not stamped where its file's text
/// was at hand (cross-module findings): its normalised message, which names
/// what is wrong without positions.
pub fn fallback(d: &Diagnostic) -> String {
    hash(&d.message, "")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn whitespace_does_not_matter() {
        assert_eq!(
            hash(
                "await ctx.breakpoint({ question: 'Ship?' })",
                "function process"
            ),
            hash(
                "await   ctx.breakpoint({\n    question: 'Ship?'\n  })",
                "function process"
            )
        );
        assert_ne!(
            hash(
                "await ctx.breakpoint({ question: 'Ship?' })",
                "function process"
            ),
            hash(
                "await ctx.breakpoint({ question: 'Ship?' })",
                "function other"
            )
        );
        assert_eq!(hash("a", "").len(), 16);
        assert_eq!(
            normalise("  await ctx.breakpoint(\n    { question: 'Ship it?' }\n  ) "),
            "await ctx.breakpoint({question:'Ship it?'})"
        );
    }

    #[test]
    fn innermost_scope_wins() {
        let scopes = vec![
            Scope {
                span: Span::new(0, 100),
                name: "function outer".into(),
            },
            Scope {
                span: Span::new(10, 50),
                name: "task inner".into(),
            },
        ];
        assert_eq!(
            enclosing(&scopes, Span::new(20, 30)).map(|s| s.name.as_str()),
            Some("task inner")
        );
        assert_eq!(
            enclosing(&scopes, Span::new(60, 70)).map(|s| s.name.as_str()),
            Some("function outer")
        );
        assert_eq!(enclosing(&scopes, Span::new(120, 130)), None);
    }
}
