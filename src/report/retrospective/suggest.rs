//! Suggestions: concrete edits built from the code (a rule's fix applied to
//! the lines it touches), patterns that recur across modules, and what they
//! suggest for the SDK.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt::Write as _;

use crate::diagnostic::{Diagnostic, Edit, Severity};
use crate::engine::Outcome;
use crate::report::escape::markdown::{self, code, fence};
use crate::rules::{self, Sites};

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

/// Warning rules, after every rule with an error, that get a worked
/// example (a before/after or the line and what to do); the rest, and the
/// notes, get one line each. A reviewer shows the edit for what matters most
/// and names the rest.
const WARNING_EXAMPLES: usize = 2;

/// Locations listed in a suggestion before "and N more" (What went poorly
/// lists them all).
const LISTED: usize = 10;

/// "For the process": one entry per rule, counting its findings and naming
/// their lines, with one worked example (the shortest edit of the rule's
/// findings) for the errors and the top warnings. `patterns_too`: the
/// patterns and SDK suggestions follow (with one group; with several they
/// are said once, in the cross-process summary).
pub fn suggestions(
    out: &mut String,
    sources: &mut Sources,
    diags: &[&Diagnostic],
    h: &str,
    patterns_too: bool,
    shown: &mut BTreeMap<&'static str, String>,
) {
    sources.read.clear();
    let _ = writeln!(out, "{h} Suggestions\n");
    let _ = writeln!(out, "{h}# For the process\n");
    let mut per_rule: BTreeMap<&'static str, Vec<&Diagnostic>> = BTreeMap::new();
    for d in diags {
        if rules::meta(d.rule).is_some_and(|m| !m.builtin) {
            per_rule.entry(d.rule).or_default().push(d);
        }
    }
    let mut ordered: Vec<(&'static str, Vec<&Diagnostic>)> = per_rule.into_iter().collect();
    for (_, ds) in &mut ordered {
        ds.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
    }
    let worst = |ds: &[&Diagnostic]| ds.iter().map(|d| d.severity).max();
    ordered.sort_by(|(ra, a), (rb, b)| {
        worst(b)
            .cmp(&worst(a))
            .then(b.len().cmp(&a.len()))
            .then(ra.cmp(rb))
    });
    if ordered.is_empty() {
        out.push_str("No edits to suggest.\n\n");
    }
    let mut warnings_shown = 0;
    let mut brief: Vec<String> = Vec::new();
    let mut n = 0;
    for (rule, ds) in &ordered {
        let severity = worst(ds).unwrap_or(Severity::Info);
        let worked = match severity {
            Severity::Error => true,
            Severity::Warning if warnings_shown < WARNING_EXAMPLES => {
                warnings_shown += 1;
                true
            }
            _ => false,
        };
        if !worked {
            brief.push(brief_line(rule, ds));
            continue;
        }
        n += 1;
        worked_example(out, sources, n, rule, ds, shown);
    }
    if !brief.is_empty() {
        if n > 0 {
            out.push_str("Also:\n\n");
        }
        for b in brief {
            let _ = writeln!(out, "{b}");
        }
        out.push('\n');
    }
    if patterns_too {
        patterns(out, diags, &format!("{h}#"));
    }
}

fn locations(ds: &[&Diagnostic]) -> String {
    let mut list: Vec<String> = ds
        .iter()
        .take(LISTED)
        .map(|d| code(&format!("{}:{}", d.location.path, d.location.start.line)))
        .collect();
    if ds.len() > LISTED {
        list.push(format!("and {} more", ds.len() - LISTED));
    }
    list.join(", ")
}

fn plural(n: usize, one: &str) -> String {
    format!("{n} {one}{}", if n == 1 { "" } else { "s" })
}

/// One line for a rule without a worked example: where, and what to do.
fn brief_line(rule: &str, ds: &[&Diagnostic]) -> String {
    let what = match ds {
        [d] => format!(
            "{} — {}",
            code(&format!("{}:{}", d.location.path, d.location.start.line)),
            markdown::message(&d.message)
        ),
        _ => format!(
            "{} ({})",
            rules::meta(rule).map_or(String::new(), |m| m.summary.trim_end_matches('.').into()),
            locations(ds)
        ),
    };
    let todo = ds
        .iter()
        .find_map(|d| d.help.as_deref())
        .map(|h| format!(" To do: {}", markdown::message(h)))
        .unwrap_or_default();
    format!("- `{rule}`: {what}.{todo}")
}

/// A rule's entry with its example edit: the finding whose fix touches the
/// fewest lines, else the first, quoted with what to do. A rule an earlier
/// section already showed the edit for (`shown`: where) points there
/// instead of showing the same edit again.
fn worked_example(
    out: &mut String,
    sources: &mut Sources,
    n: usize,
    rule: &'static str,
    ds: &[&Diagnostic],
    shown: &mut BTreeMap<&'static str, String>,
) {
    let Some(first) = ds.first() else {
        return;
    };
    if let Some(at) = shown.get(rule) {
        let summary = rules::meta(rule).map_or("", |m| m.summary.trim_end_matches('.'));
        let what = match ds {
            [d] => format!(
                "{}: {}",
                code(&format!("{}:{}", d.location.path, d.location.start.line)),
                markdown::message(&d.message)
            ),
            _ => format!("{}: {}", plural(ds.len(), "finding"), locations(ds)),
        };
        let _ = writeln!(
            out,
            "{n}. **{summary}** (`{rule}`, {what}). The edit is the one shown above for {at}.\n"
        );
        return;
    }
    let mut example: (&Diagnostic, Option<(String, String)>) = (first, None);
    for d in ds {
        let text = sources.text(&d.location.path);
        let pair = d.fix.as_ref().and_then(|f| before_after(text, &f.edits));
        if let Some(p) = pair {
            let shorter = example.1.as_ref().is_none_or(|(b, _)| p.0.len() < b.len());
            if shorter {
                example = (d, Some(p));
            }
        }
    }
    let (d, pair) = example;
    let path = &*d.location.path;
    let at = code(&format!("{path}:{}", d.location.start.line));
    shown.insert(rule, at.clone());
    if ds.len() == 1 {
        let _ = writeln!(
            out,
            "{n}. **{at}** — {} (`{rule}`)",
            markdown::message(&d.message)
        );
    } else {
        let summary = rules::meta(rule).map_or("", |m| m.summary.trim_end_matches('.'));
        let _ = writeln!(
            out,
            "{n}. **{summary}** (`{rule}`, {}: {}). For example {at}: {}",
            plural(ds.len(), "finding"),
            locations(ds),
            markdown::message(&d.message)
        );
    }
    let lang = lang(path);
    match pair {
        Some((before, after)) => {
            let _ = writeln!(
                out,
                "\n   Before:\n{}   After:\n{}",
                fence(lang, &before, INDENT),
                fence(lang, &after, INDENT)
            );
        }
        None => {
            let text = sources.text(path);
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

/// Patterns worth sharing and what they suggest for the SDK: the rules
/// that fire in several modules.
pub fn patterns(out: &mut String, diags: &[&Diagnostic], h: &str) {
    let mut modules: BTreeMap<&'static str, BTreeSet<&str>> = BTreeMap::new();
    let mut first_help: BTreeMap<&'static str, &str> = BTreeMap::new();
    for d in diags {
        // A finding may stand for sites in several modules (hygiene
        // merged per project).
        modules
            .entry(d.rule)
            .or_default()
            .extend(d.sites().map(|l| &*l.path));
        if let Some(h) = &d.help {
            first_help.entry(d.rule).or_insert(h);
        }
    }
    let recurring: Vec<(&'static str, &BTreeSet<&str>)> = modules
        .iter()
        .filter(|(r, m)| m.len() > 1 && rules::meta(r).is_some_and(|x| !x.builtin))
        .map(|(r, m)| (*r, m))
        .collect();
    if recurring.is_empty() {
        return;
    }
    let _ = writeln!(out, "{h} Patterns worth sharing\n");
    let mut conventions = Vec::new();
    for (rule, mods) in &recurring {
        // A shared helper only helps where the finding is about code that
        // can be shared (a loop, a batch); a property of each task, call or
        // breakpoint (its labels, its key) is set where it is written.
        let shareable = rules::find(rule).is_some_and(|r| {
            matches!(
                r.report().sites,
                Sites::RetryLoops | Sites::EffectLoops | Sites::ParallelSites
            )
        });
        if !shareable {
            conventions.push(format!("`{rule}` ({} modules)", mods.len()));
            continue;
        }
        let list: Vec<String> = mods.iter().map(|m| code(m)).collect();
        let _ = writeln!(
            out,
            "- `{rule}` fires in {} modules ({}). The same edit repeats in each — {} — so extract it once into a shared helper the modules import, instead of fixing every copy.",
            mods.len(),
            list.join(", "),
            first_help.get(rule).map_or_else(
                || "see the rule's documentation".to_string(),
                |h| markdown::message(h)
            ),
        );
    }
    if !conventions.is_empty() {
        let _ = writeln!(
            out,
            "- Conventions to apply at every site, not code to share (proclint in CI keeps them): {}.",
            conventions.join(", ")
        );
    }
    out.push('\n');
    let hints: Vec<String> = recurring
        .iter()
        .filter_map(|(rule, mods)| {
            let hint = rules::find(rule)?.report().sdk_hint;
            (!hint.is_empty()).then(|| format!("- {hint} (`{rule}` in {} modules)", mods.len()))
        })
        .collect();
    if !hints.is_empty() {
        let _ = writeln!(out, "{h} For the SDK\n");
        for l in hints {
            let _ = writeln!(out, "{l}");
        }
        out.push('\n');
    }
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
