//! Suggestions: concrete edits built from the code (a rule's fix applied to
//! the lines it touches), patterns that recur across modules, and what they
//! suggest for the SDK.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt::Write as _;

use crate::diagnostic::{Diagnostic, Edit};
use crate::engine::Outcome;
use crate::report::escape::markdown::{self, code, fence};
use crate::rules::{self, Sites};

/// Suggestions shown in full per section; the rest are summarised.
const MAX_SUGGESTIONS: usize = 12;

/// The text of the files a section's suggestions quote, read once per
/// section (and dropped after it, so a tree's sources are never all held
/// at once). A file is found by its shown path through an index: a scan of
/// every file per suggestion was quadratic.
pub struct Sources<'a> {
    index: HashMap<&'a str, &'a std::path::Path>,
    read: HashMap<String, String>,
}

impl<'a> Sources<'a> {
    pub fn new(outcome: &'a Outcome) -> Sources<'a> {
        let mut index = HashMap::new();
        for f in &outcome.files {
            // The first file shown under a path, as the scan found it.
            index.entry(&*f.display).or_insert(f.path.as_path());
        }
        Sources {
            index,
            read: HashMap::new(),
        }
    }

    fn text(&mut self, display: &str) -> &str {
        let index = &self.index;
        self.read.entry(display.to_string()).or_insert_with(|| {
            index
                .get(display)
                .and_then(|p| std::fs::read(p).ok())
                .map(|b| crate::source::decode(b).0)
                .unwrap_or_default()
        })
    }
}

pub fn suggestions(out: &mut String, sources: &mut Sources, diags: &[&Diagnostic], h: &str) {
    sources.read.clear();
    let _ = writeln!(out, "{h} Suggestions\n");
    let _ = writeln!(out, "{h}# For the process\n");
    let mut per_rule: HashMap<&str, usize> = HashMap::new();
    for d in diags {
        *per_rule.entry(d.rule).or_default() += 1;
    }
    let mut ordered: Vec<&&Diagnostic> = diags
        .iter()
        .filter(|d| rules::meta(d.rule).is_some_and(|m| !m.builtin))
        .collect();
    ordered.sort_by(|a, b| {
        b.severity
            .cmp(&a.severity)
            .then(per_rule[b.rule].cmp(&per_rule[a.rule]))
            .then(a.rule.cmp(b.rule))
            .then(a.sort_key().cmp(&b.sort_key()))
    });
    if ordered.is_empty() {
        out.push_str("No edits to suggest.\n\n");
    }
    for (n, d) in ordered.iter().take(MAX_SUGGESTIONS).enumerate() {
        let path = &*d.location.path;
        let _ = writeln!(
            out,
            "{}. **{}** — {} (`{}`)",
            n + 1,
            code(&format!("{path}:{}", d.location.start.line)),
            markdown::message(&d.message),
            d.rule
        );
        let text = sources.text(path);
        let lang = lang(path);
        match d.fix.as_ref().and_then(|f| before_after(text, &f.edits)) {
            Some((before, after)) => {
                let _ = writeln!(
                    out,
                    "\n   Before:\n{}   After:\n{}",
                    fence(lang, &before, INDENT),
                    fence(lang, &after, INDENT)
                );
            }
            None => {
                if let Some(line) = line_of(text, d.location.span.start) {
                    let _ = write!(out, "\n{}", fence(lang, line, INDENT));
                }
                if let Some(help) = &d.help {
                    let _ = writeln!(out, "   To do: {}\n", markdown::message(help));
                } else {
                    out.push('\n');
                }
            }
        }
    }
    if ordered.len() > MAX_SUGGESTIONS {
        let _ = writeln!(
            out,
            "{} more findings are listed under *What went poorly*; the same edits apply to each.\n",
            ordered.len() - MAX_SUGGESTIONS
        );
    }

    // Rules firing in several modules.
    let mut modules: BTreeMap<&'static str, BTreeSet<&str>> = BTreeMap::new();
    let mut first_help: BTreeMap<&'static str, &str> = BTreeMap::new();
    for d in diags {
        modules.entry(d.rule).or_default().insert(&d.location.path);
        if let Some(h) = &d.help {
            first_help.entry(d.rule).or_insert(h);
        }
    }
    let recurring: Vec<(&'static str, &BTreeSet<&str>)> = modules
        .iter()
        .filter(|(r, m)| m.len() > 1 && rules::meta(r).is_some_and(|x| !x.builtin))
        .map(|(r, m)| (*r, m))
        .collect();
    let _ = writeln!(out, "{h}# Patterns worth sharing\n");
    if recurring.is_empty() {
        out.push_str("No finding recurs across modules.\n\n");
    }
    for (rule, mods) in &recurring {
        let list: Vec<String> = mods.iter().map(|m| code(m)).collect();
        // A shared helper only helps where the finding is about code that
        // can be shared (a loop, a batch); a property of each task, call or
        // breakpoint (its labels, its key) is set where it is written.
        let shareable = rules::find(rule).is_some_and(|r| {
            matches!(
                r.report().sites,
                Sites::RetryLoops | Sites::EffectLoops | Sites::ParallelSites
            )
        });
        let advice = if shareable {
            "so extract it once into a shared helper the modules import, instead of fixing every copy"
        } else {
            "a convention to apply at every site (proclint in CI keeps it), not code to share"
        };
        let _ = writeln!(
            out,
            "- `{rule}` fires in {} modules ({}). The same edit repeats in each — {} — {advice}.",
            mods.len(),
            list.join(", "),
            first_help.get(rule).map_or_else(
                || "see the rule's documentation".to_string(),
                |h| markdown::message(h)
            ),
        );
    }
    if !recurring.is_empty() {
        out.push('\n');
    }
    let _ = writeln!(out, "{h}# For the SDK\n");
    let mut any = false;
    for (rule, mods) in &recurring {
        let Some(r) = rules::find(rule) else { continue };
        let hint = r.report().sdk_hint;
        if hint.is_empty() {
            continue;
        }
        any = true;
        let _ = writeln!(out, "- {hint} (`{rule}` in {} modules)", mods.len());
    }
    if !any {
        out.push_str("Nothing recurs across modules that points at a missing SDK primitive.\n");
    }
    out.push('\n');
}

fn lang(path: &str) -> &'static str {
    if path.ends_with(".json") {
        "json"
    } else if path.ends_with(".md") {
        "markdown"
    } else {
        "js"
    }
}

/// Quoted code sits in the numbered list item.
const INDENT: &str = "   ";

/// The line holding `offset`, without its line break (`\n`, `\r\n` or a
/// lone `\r`: the line of a lone-CR file was the rest of the file).
fn line_of(text: &str, offset: usize) -> Option<&str> {
    if offset > text.len() || !text.is_char_boundary(offset) {
        return None;
    }
    let start = text[..offset].rfind(['\n', '\r']).map_or(0, |i| i + 1);
    let end = text[offset..]
        .find(['\n', '\r'])
        .map_or(text.len(), |i| offset + i);
    text.get(start..end)
}

/// The whole lines a fix touches, before and after the edits.
fn before_after(text: &str, edits: &[Edit]) -> Option<(String, String)> {
    let lo = edits.iter().map(|e| e.span.start).min()?;
    let hi = edits.iter().map(|e| e.span.end).max()?;
    if hi > text.len() || !text.is_char_boundary(lo) || !text.is_char_boundary(hi) {
        return None;
    }
    let start = text[..lo].rfind(['\n', '\r']).map_or(0, |i| i + 1);
    let end = text[hi..]
        .find(['\n', '\r'])
        .map_or(text.len(), |i| hi + i + 1);
    let before = &text[start..end];
    let mut sorted: Vec<&Edit> = edits.iter().collect();
    sorted.sort_by_key(|e| e.span.start);
    let mut after = String::new();
    let mut at = start;
    for e in sorted {
        if e.span.start < at {
            return None;
        }
        after.push_str(&text[at..e.span.start]);
        after.push_str(&e.replacement);
        at = e.span.end;
    }
    after.push_str(&text[at..end]);
    if !after.ends_with('\n') {
        after.push('\n');
    }
    let mut before = before.to_string();
    if !before.ends_with('\n') {
        before.push('\n');
    }
    Some((before, after))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::Span;

    #[test]
    fn before_after_covers_whole_lines() {
        let text = "a\n  kind: 'agent',\nb\n";
        let at = text.find(",").map(|i| i + 1).unwrap_or(0);
        let edit = Edit {
            span: Span::new(at, at),
            replacement: "\n  labels: ['x'],".into(),
        };
        assert_eq!(
            before_after(text, &[edit]),
            Some((
                "  kind: 'agent',\n".to_string(),
                "  kind: 'agent',\n  labels: ['x'],\n".to_string()
            ))
        );
    }
}
