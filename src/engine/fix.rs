//! Applies the fixes rules attach to diagnostics (the safe ones, and with
//! `--unsafe-fixes` the unsafe ones too): edits by byte span,
//! never re-printing a file; a file that changed on disk since it was read
//! is left alone.

use std::collections::{BTreeMap, HashSet};
use std::path::PathBuf;

use rayon::prelude::*;

use crate::diagnostic::{Diagnostic, Edit, Severity};
use crate::engine::discover::FileKind;
use crate::engine::{FileOutcome, Outcome, Stage};
use crate::project::config::Config;
use crate::rules::RuleSwitches;
use crate::source::{LineIndex, SourceFile};

/// The planned edits of one file.
#[derive(Debug)]
pub struct FilePlan {
    pub display: String,
    pub path: PathBuf,
    pub original: String,
    pub fixed: String,
    pub applied: usize,
    /// Fixes left out because the file would no longer parse with them, or
    /// the re-lint found what they introduce ([`verify`]).
    pub dropped: usize,
    /// Why, one line per dropped fix.
    pub reasons: Vec<String>,
}

#[derive(Debug, Default)]
pub struct Plan {
    pub files: Vec<FilePlan>,
    /// Files skipped because they changed on disk while proclint ran.
    pub changed: Vec<String>,
    /// Files skipped for another reason, with it: text read from stdin, or
    /// read with substitutions for invalid UTF-8. (Both were reported as
    /// "changed on disk".)
    pub skipped: Vec<(String, &'static str)>,
    /// `internal-error`s of files whose fixes could not be planned (a bug
    /// in a rule's edits): those files are left untouched, the others are
    /// still fixed.
    pub failed: Vec<Diagnostic>,
    /// Files none of whose fixes survived verification, with why each was
    /// dropped.
    pub unapplied: Vec<(String, Vec<String>)>,
}

impl Plan {
    pub fn applied(&self) -> usize {
        self.files.iter().map(|f| f.applied).sum()
    }
}

/// Applies non-overlapping edits (earlier ones win) to `text`. Returns the
/// new text and how many fixes were applied in full.
pub fn apply(text: &str, fixes: &[&[Edit]]) -> (String, usize) {
    let mut taken: Vec<&Edit> = Vec::new();
    let mut applied = 0;
    for edits in fixes {
        let overlaps = edits.iter().any(|e| {
            e.span.end > text.len()
                || !text.is_char_boundary(e.span.start)
                || !text.is_char_boundary(e.span.end)
                || taken.iter().any(|t| {
                    e.span.start < t.span.end && t.span.start < e.span.end
                        || (e.span.start == t.span.start && e.span.is_empty() && t.span.is_empty())
                })
        });
        if overlaps {
            continue;
        }
        taken.extend(edits.iter());
        applied += 1;
    }
    taken.sort_by_key(|e| (e.span.start, e.span.end));
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for e in taken {
        out.push_str(&text[at..e.span.start]);
        out.push_str(&e.replacement);
        at = e.span.end;
    }
    out.push_str(&text[at..]);
    (out, applied)
}

/// [`apply`], verified: when the result no longer parses as the original
/// did (a JavaScript module that Node loaded would fail to load, a
/// package.json would no longer be JSON with the same keys), the fixes are
/// applied one at a time, in order, and each that breaks the text is
/// dropped. Returns the text, the fixes applied and the fixes dropped.
pub fn apply_verified(text: &str, fixes: &[&[Edit]], kind: FileKind) -> (String, usize, usize) {
    let (fixed, kept, dropped) = apply_parsing(text, fixes, kind);
    (fixed, kept.len(), dropped.len())
}

/// [`apply_verified`] by index: the text, the fixes applied and the fixes
/// that broke parsing.
fn apply_parsing(
    text: &str,
    fixes: &[&[Edit]],
    kind: FileKind,
) -> (String, Vec<usize>, Vec<usize>) {
    let check = match Check::of(text, kind) {
        // What cannot be verified is not written.
        Check::Unverifiable => return (text.to_string(), Vec::new(), (0..fixes.len()).collect()),
        check => check,
    };
    let mut kept: Vec<usize> = Vec::new();
    for i in 0..fixes.len() {
        kept.push(i);
        if apply(text, &pick(fixes, &kept)).1 < kept.len() {
            // Overlaps an earlier fix: `apply` skips it.
            kept.pop();
        }
    }
    let (fixed, _) = apply(text, &pick(fixes, &kept));
    if kept.is_empty() || check.holds(&fixed) {
        return (fixed, kept, Vec::new());
    }
    let mut good: Vec<usize> = Vec::new();
    let mut dropped = Vec::new();
    for i in kept {
        good.push(i);
        if !check.holds(&apply(text, &pick(fixes, &good)).0) {
            good.pop();
            dropped.push(i);
        }
    }
    let (fixed, _) = apply(text, &pick(fixes, &good));
    (fixed, good, dropped)
}

fn pick<'a>(fixes: &[&'a [Edit]], which: &[usize]) -> Vec<&'a [Edit]> {
    which
        .iter()
        .filter_map(|&i| fixes.get(i).copied())
        .collect()
}

/// One file's fixes, to be verified and applied together.
pub struct Pending<'a> {
    pub display: String,
    pub path: PathBuf,
    pub kind: FileKind,
    pub original: String,
    /// The findings whose fixes are applied, earlier ones first.
    pub fixes: Vec<&'a Diagnostic>,
}

/// A file's text once its fixes are verified.
#[derive(Debug)]
pub struct Verified {
    pub fixed: String,
    pub applied: usize,
    pub dropped: usize,
    /// Why, one line per dropped fix.
    pub reasons: Vec<String>,
}

/// What the fixed modules are re-linted beside: the run's findings (what
/// each file had before) and its modules as cross-module context
/// ([`Outcome::context`], kept when [`Config::keep_summaries`] is set).
/// Without context, the originals are re-linted too, so that before and
/// after are judged in the same (smaller) project.
pub struct Baseline<'a> {
    pub diagnostics: &'a [Diagnostic],
    pub context: Option<&'a [FileOutcome]>,
}

impl<'a> Baseline<'a> {
    pub fn of(outcome: &'a Outcome) -> Baseline<'a> {
        Baseline {
            diagnostics: &outcome.diagnostics,
            context: outcome.context.as_deref(),
        }
    }
}

/// A round drops the fixes the re-lint blames; the next re-lints what is
/// left. Most files settle in the first.
const ROUNDS: usize = 3;

/// The rule whose findings no fix may introduce, whichever rule's fix it
/// is: a name the fix uses that nothing declares is a `ReferenceError`.
const UNDEFINED: &str = "undefined-reference";

/// [`apply_verified`] and then a re-lint: each file's fixes are applied in
/// one pass (parse-checked as [`apply_verified`] does), and the fixed
/// modules are linted again — the same rules and config, beside the
/// project's other modules as they were — in one pass over all of them. A
/// fix is dropped when, on the lines its edits wrote, the re-lint finds an
/// `undefined-reference` or a warning or error of the fix's own rule that the same
/// lines did not have before; the file's other fixes are then re-applied
/// and checked again.
pub fn verify(baseline: &Baseline<'_>, config: &Config, pending: &[Pending<'_>]) -> Vec<Verified> {
    let relint_config = relint_config(config);
    let mut states: Vec<State> = pending
        .iter()
        .map(|p| State {
            kept: (0..p.fixes.len()).collect(),
            fixed: p.original.clone(),
            dropped: 0,
            reasons: Vec::new(),
            settled: false,
        })
        .collect();
    let before = before_findings(baseline, config, &relint_config, pending);
    for _ in 0..ROUNDS {
        let mut check = Vec::new();
        for (i, (p, st)) in pending.iter().zip(states.iter_mut()).enumerate() {
            if st.settled {
                continue;
            }
            let edits: Vec<&[Edit]> = st.kept.iter().map(|&k| edits_of(p.fixes[k])).collect();
            let (fixed, ok, broke) = apply_parsing(&p.original, &edits, p.kind);
            for b in broke {
                let d = p.fixes[st.kept[b]];
                st.reasons.push(format!(
                    "{}: it would make the file fail to parse",
                    describe(d)
                ));
                st.dropped += 1;
            }
            st.kept = ok.iter().map(|&j| st.kept[j]).collect();
            st.fixed = fixed;
            if st.kept.is_empty() {
                st.settled = true;
            } else {
                check.push(i);
            }
        }
        if check.is_empty() {
            break;
        }
        let after = relint(
            baseline.context,
            &relint_config,
            check
                .iter()
                .map(|&i| (&pending[i], states[i].fixed.as_str()))
                .collect(),
        );
        for (&i, found) in check.iter().zip(after) {
            let (p, st) = (&pending[i], &mut states[i]);
            let blamed = introduced(p, st, &before[i], &found);
            if blamed.is_empty() {
                st.settled = true;
                continue;
            }
            for (k, why) in blamed {
                st.reasons.push(format!("{}: {why}", describe(p.fixes[k])));
                st.dropped += 1;
                st.kept.retain(|&x| x != k);
            }
        }
    }
    pending
        .iter()
        .zip(states)
        .map(|(p, mut st)| {
            if !st.settled {
                // Still blamed after the last round: nothing is written.
                st.dropped += st.kept.len();
                st.reasons.push(format!(
                    "{} more: the re-lint kept finding what fixes introduce",
                    st.kept.len()
                ));
                st.kept.clear();
                st.fixed = p.original.clone();
            }
            Verified {
                fixed: st.fixed,
                applied: st.kept.len(),
                dropped: st.dropped,
                reasons: st.reasons,
            }
        })
        .collect()
}

struct State {
    /// Indices into the file's fixes, applied in this order.
    kept: Vec<usize>,
    fixed: String,
    dropped: usize,
    reasons: Vec<String>,
    settled: bool,
}

fn edits_of(d: &Diagnostic) -> &[Edit] {
    d.fix.as_ref().map_or(&[], |f| f.edits.as_slice())
}

fn describe(d: &Diagnostic) -> String {
    let what = d.fix.as_ref().map_or("", |f| f.description.as_str());
    format!("{} fix at line {} ({what})", d.rule, d.location.start.line)
}

/// The run's config with `undefined-reference` on (unless the config turns
/// it off): a fix must not introduce one even under `--select`.
fn relint_config(config: &Config) -> Config {
    let mut c = config.clone();
    c.keep_summaries = false;
    if !c.is_enabled(UNDEFINED) {
        c.extend_select.push(UNDEFINED.to_string());
        if let Some(select) = c.select.as_mut() {
            select.push(UNDEFINED.to_string());
        }
    }
    c
}

/// Each pending file's findings before its fixes, as the re-lint reports
/// them: the run's own, plus `undefined-reference` when the run did not
/// look for it; with no context, the originals re-linted beside each other.
fn before_findings(
    baseline: &Baseline<'_>,
    config: &Config,
    relint_config: &Config,
    pending: &[Pending<'_>],
) -> Vec<Vec<Diagnostic>> {
    if baseline.context.is_none() {
        return relint(
            None,
            relint_config,
            pending.iter().map(|p| (p, p.original.as_str())).collect(),
        );
    }
    let mut by_file: BTreeMap<&str, Vec<Diagnostic>> = BTreeMap::new();
    for d in baseline.diagnostics {
        by_file.entry(&d.location.path).or_default().push(d.clone());
    }
    let mut out: Vec<Vec<Diagnostic>> = pending
        .iter()
        .map(|p| by_file.remove(p.display.as_str()).unwrap_or_default())
        .collect();
    if !config.is_enabled(UNDEFINED) && relint_config.is_enabled(UNDEFINED) {
        // A per-file rule: the module alone gives its findings.
        let found: Vec<Vec<Diagnostic>> = crate::engine::on_pool(|| {
            pending
                .par_iter()
                .map(|p| {
                    let file = SourceFile::new(p.display.as_str(), p.original.clone());
                    let key = crate::project::module_key(&p.path);
                    crate::engine::analyse(&file, p.kind, relint_config, Stage::Full, key, true)
                        .diagnostics
                        .into_iter()
                        .filter(|d| d.rule == UNDEFINED)
                        .collect()
                })
                .collect()
        });
        for (o, mut f) in out.iter_mut().zip(found) {
            o.append(&mut f);
        }
    }
    out
}

/// The findings of `files` (each a pending file and a text for it), linted
/// together beside `context` (less the files themselves), per file.
fn relint(
    context: Option<&[FileOutcome]>,
    config: &Config,
    files: Vec<(&Pending<'_>, &str)>,
) -> Vec<Vec<Diagnostic>> {
    crate::engine::on_pool(|| {
        let keys: HashSet<PathBuf> = files
            .iter()
            .map(|(p, _)| crate::project::module_key(&p.path))
            .collect();
        let mut all: Vec<FileOutcome> = files
            .par_iter()
            .map(|(p, text)| {
                let file = SourceFile::new(p.display.as_str(), text.to_string());
                let key = crate::project::module_key(&p.path);
                // Not described for the retrospective: only findings are read.
                let quiet = crate::engine::Reparse {
                    old: None,
                    facts: false,
                    keep_tree: false,
                };
                let (mut o, _) = crate::engine::analyse_from(
                    &file,
                    p.kind,
                    config,
                    Stage::Full,
                    key,
                    true,
                    quiet,
                );
                o.path = p.path.clone();
                o
            })
            .collect();
        all.extend(
            context
                .unwrap_or_default()
                .iter()
                .filter(|c| !keys.contains(&crate::project::module_key(&c.path)))
                .cloned(),
        );
        let outcome = crate::engine::finish(all, Vec::new(), config, Stage::Full);
        let mut by_file: BTreeMap<&str, Vec<Diagnostic>> = BTreeMap::new();
        for d in outcome.diagnostics {
            if let Some((p, _)) = files.iter().find(|(p, _)| *p.display == *d.location.path) {
                by_file.entry(p.display.as_str()).or_default().push(d);
            }
        }
        files
            .iter()
            .map(|(p, _)| by_file.remove(p.display.as_str()).unwrap_or_default())
            .collect()
    })
}

/// The kept fixes of a file the re-lint blames, with what each
/// introduces: a warning or error of its own rule or an `undefined-reference` on a
/// line its edits wrote, more of them (same rule and message) than the
/// lines it replaced had.
fn introduced(
    p: &Pending<'_>,
    st: &State,
    before: &[Diagnostic],
    after: &[Diagnostic],
) -> Vec<(usize, String)> {
    let old_lines = LineIndex::new(&p.original);
    let new_lines = LineIndex::new(&st.fixed);
    // Where each kept edit's replacement lands in the fixed text.
    let mut placed: Vec<(usize, usize, usize, usize, usize)> = Vec::new();
    for &k in &st.kept {
        for e in edits_of(p.fixes[k]) {
            placed.push((e.span.start, e.span.end, e.replacement.len(), k, 0));
        }
    }
    placed.sort_by_key(|&(s, e, ..)| (s, e));
    let mut shift: isize = 0;
    for x in placed.iter_mut() {
        x.4 = x.0.saturating_add_signed(shift);
        shift += x.2 as isize - (x.1 - x.0) as isize;
    }
    // A span ending just past a newline touches no part of the next line:
    // an inserted line ending in "\n" must not claim the line it pushed
    // down, nor a deleted whole line the line that moved up into its place.
    let ends_line =
        |text: &str, a: usize, b: usize| b > a && text.as_bytes().get(b - 1) == Some(&b'\n');
    let lines = |index: &LineIndex, text: &str, a: usize, b: usize| {
        let b = if ends_line(text, a, b) { b - 1 } else { b };
        (index.pos(text, a).line, index.pos(text, b).line)
    };
    let overlaps =
        |d: &Diagnostic, (a, b): (u32, u32)| d.location.start.line <= b && a <= d.location.end.line;
    let mut blamed = Vec::new();
    for &k in &st.kept {
        let rule = p.fixes[k].rule;
        let mine: Vec<_> = placed.iter().filter(|x| x.3 == k).collect();
        let old: Vec<(u32, u32)> = mine
            .iter()
            .map(|x| lines(&old_lines, &p.original, x.0, x.1))
            .collect();
        // A whole-line deletion writes no line: what follows it was there.
        let new: Vec<(u32, u32)> = mine
            .iter()
            .filter(|x| !(x.2 == 0 && ends_line(&p.original, x.0, x.1)))
            .map(|x| lines(&new_lines, &st.fixed, x.4, x.4 + x.2))
            .collect();
        // A note of the fix's own rule is no breakage: an edit that removes
        // some of a list changes the wording of the note about the rest.
        // A finding whose wording counts the project's other modules
        // (tasks without labels) differs between a run over the project and
        // a re-check of the fixed files alone.
        let watched = |d: &&Diagnostic| {
            ((d.rule == rule && d.severity > Severity::Info) || d.rule == UNDEFINED)
                && !crate::rules::missing_labels::is_unlabelled_finding(d)
        };
        let mut had: Vec<(&str, &str)> = before
            .iter()
            .filter(watched)
            .filter(|d| old.iter().any(|&r| overlaps(d, r)))
            .map(|d| (d.rule, d.message.as_str()))
            .collect();
        for d in after
            .iter()
            .filter(watched)
            .filter(|d| new.iter().any(|&r| overlaps(d, r)))
        {
            match had
                .iter()
                .position(|&(r, m)| r == &*d.rule && m == d.message)
            {
                Some(at) => {
                    had.swap_remove(at);
                }
                None => {
                    blamed.push((
                        k,
                        format!(
                            "it would introduce {} at line {}: {}",
                            d.rule, d.location.start.line, d.message
                        ),
                    ));
                    break;
                }
            }
        }
    }
    blamed
}

/// What a fixed text must still satisfy.
enum Check {
    Js(crate::js::syntax::oxc::Loads),
    Json(Vec<String>),
    /// Nothing to keep: a module that already fails to load, a file of a
    /// kind fixes cannot break (Markdown).
    Unjudged,
    /// A module too deeply nested to parse safely, a package.json serde
    /// cannot read (a lone surrogate npm accepts): its fixes are dropped.
    Unverifiable,
}

impl Check {
    fn of(text: &str, kind: FileKind) -> Check {
        match kind {
            FileKind::Process => match crate::js::syntax::oxc::loads(text) {
                Some(l) if l.module || l.commonjs => Check::Js(l),
                Some(_) => Check::Unjudged,
                None => Check::Unverifiable,
            },
            FileKind::Manifest => json_keys(text).map_or(Check::Unverifiable, Check::Json),
            _ => Check::Unjudged,
        }
    }

    fn holds(&self, fixed: &str) -> bool {
        match self {
            Check::Js(before) => {
                crate::js::syntax::oxc::loads(fixed).is_some_and(|after| before.kept_by(after))
            }
            Check::Json(keys) => json_keys(fixed).as_ref() == Some(keys),
            Check::Unjudged => true,
            Check::Unverifiable => false,
        }
    }
}

/// Every key of a JSON document, as paths from the top (`dependencies.x`),
/// in order: a fix of a value never adds, removes or renames one.
fn json_keys(text: &str) -> Option<Vec<String>> {
    fn walk(value: &serde_json::Value, at: &str, out: &mut Vec<String>) {
        match value {
            serde_json::Value::Object(map) => {
                for (k, v) in map {
                    let path = format!("{at}{}{k}", if at.is_empty() { "" } else { "." });
                    walk(v, &path, out);
                    out.push(path);
                }
            }
            serde_json::Value::Array(items) => {
                for (i, v) in items.iter().enumerate() {
                    walk(v, &format!("{at}[{i}]"), out);
                }
            }
            _ => {}
        }
    }
    let value: serde_json::Value = serde_json::from_str(text).ok()?;
    let mut out = Vec::new();
    walk(&value, "", &mut out);
    Some(out)
}

/// Plans the safe fixes of an outcome: [`plan_with`] without unsafe fixes.
pub fn plan(outcome: &Outcome, stdin: Option<&[u8]>, config: &Config) -> Plan {
    plan_with(outcome, stdin, false, config)
}

/// Plans the fixes of an outcome that `--fix` applies (the safe ones; with
/// `unsafe_fixes`, all: `check --unsafe-fixes`, MCP's `fix` with `unsafe:
/// true`) against the files on disk, and, with `stdin`, against the buffer
/// linted from stdin (`--fix --diff --stdin-filename`, which prints the
/// diff; it printed nothing). Every file's fixes are [`verify`]-ed, beside
/// the outcome's context (lint with [`Config::keep_summaries`] set).
pub fn plan_with(
    outcome: &Outcome,
    stdin: Option<&[u8]>,
    unsafe_fixes: bool,
    config: &Config,
) -> Plan {
    let mut by_file: BTreeMap<&str, Vec<&Diagnostic>> = BTreeMap::new();
    for d in &outcome.diagnostics {
        if d.fix.as_ref().is_some_and(|f| f.applies(unsafe_fixes)) {
            by_file.entry(&d.location.path).or_default().push(d);
        }
    }
    let mut plan = Plan::default();
    let mut pending = Vec::new();
    for (display, diags) in by_file {
        let Some(file) = outcome.files.iter().find(|f| &*f.display == display) else {
            continue;
        };
        let read = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            crate::source::inject::point("fix", display);
            read_original(display, file, stdin)
        }));
        match read {
            Ok(Ok(original)) => pending.push(Pending {
                display: display.to_string(),
                path: file.path.clone(),
                kind: file.kind,
                original,
                fixes: diags,
            }),
            Ok(Err(Skip::Changed(changed))) => plan.changed.push(changed),
            Ok(Err(Skip::Because(display, why))) => plan.skipped.push((display, why)),
            Err(p) => plan.failed.push(failure(display, &p)),
        }
    }
    if pending.is_empty() {
        return plan;
    }
    let verified = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        verify(&Baseline::of(outcome), config, &pending)
    }));
    let verified = match verified {
        Ok(v) => v,
        Err(p) => {
            plan.failed
                .extend(pending.iter().map(|f| failure(&f.display, &p)));
            return plan;
        }
    };
    for (p, v) in pending.into_iter().zip(verified) {
        if v.applied > 0 && v.fixed != p.original {
            plan.files.push(FilePlan {
                display: p.display,
                path: p.path,
                original: p.original,
                fixed: v.fixed,
                applied: v.applied,
                dropped: v.dropped,
                reasons: v.reasons,
            });
        } else if v.dropped > 0 {
            plan.unapplied.push((p.display, v.reasons));
        }
    }
    plan
}

fn failure(display: &str, p: &Box<dyn std::any::Any + Send>) -> Diagnostic {
    let file = crate::source::SourceFile::new(display, String::new());
    crate::engine::internal(&file, "fix", crate::engine::panic_message(p))
}

/// Why a file's fixes are not applied.
enum Skip {
    Changed(String),
    Because(String, &'static str),
}

/// The text a file's fixes apply to; `Err` when it is not to be rewritten.
fn read_original(
    display: &str,
    file: &crate::engine::FileOutcome,
    stdin: Option<&[u8]>,
) -> Result<String, Skip> {
    let bytes = match (file.hash, stdin) {
        // Linted from stdin (`--stdin-filename`): not what is on disk.
        (None, None) => {
            return Err(Skip::Because(
                display.to_string(),
                "was read from stdin; --fix rewrites files on disk",
            ))
        }
        (None, Some(buffer)) => buffer.to_vec(),
        (Some(hash), _) => {
            let Ok(bytes) = std::fs::read(&file.path) else {
                return Err(Skip::Changed(display.to_string()));
            };
            if crate::source::content_hash(&bytes) != hash {
                return Err(Skip::Changed(display.to_string()));
            }
            bytes
        }
    };
    String::from_utf8(bytes).map_err(|_| {
        // Invalid UTF-8 was read with substitutions; never write it back.
        Skip::Because(
            display.to_string(),
            "is not valid UTF-8 (proclint read it with substitutions and never writes that back)",
        )
    })
}

/// A unified diff of every planned file.
pub fn diff(plan: &Plan) -> String {
    let mut out = String::new();
    for f in &plan.files {
        let diff = similar::TextDiff::from_lines(&f.original, &f.fixed);
        out.push_str(
            &diff
                .unified_diff()
                .context_radius(3)
                .header(&format!("a/{}", f.display), &format!("b/{}", f.display))
                .to_string(),
        );
    }
    out
}

/// Writes every planned file (atomically, one by one, keeping each file's
/// identity: see [`crate::source::output::write_file_with`]). A file that cannot be
/// written (read-only, hard-linked, a full disk) does not stop the others:
/// the failures come back, each with its file's display path.
pub fn write(
    plan: &Plan,
    replace: crate::source::output::Replace,
) -> Vec<(String, std::io::Error)> {
    plan.files
        .iter()
        .filter_map(|f| {
            crate::source::output::write_file_with(&f.path, replace, |out| {
                out.write_all(f.fixed.as_bytes())
            })
            .err()
            .map(|e| (f.display.clone(), e))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::source::Span;

    fn edit(start: usize, end: usize, text: &str) -> Edit {
        Edit {
            span: Span::new(start, end),
            replacement: text.to_string(),
        }
    }

    /// Each fix alone keeps the module loading; together they declare
    /// `decision` twice, an early error Node refuses to load. The second is
    /// dropped, the first applied.
    #[test]
    fn fixes_that_break_the_module_together_are_dropped_one_by_one() {
        let text = "export async function p(ctx) {\n  await a();\n  await b();\n}\n";
        let first = [edit(33, 33, "const decision = ")];
        let second = [edit(46, 46, "const decision = ")];
        let (fixed, applied, dropped) = apply_verified(text, &[&first, &second], FileKind::Process);
        assert_eq!((applied, dropped), (1, 1), "{fixed}");
        assert!(fixed.contains("const decision = await a();"), "{fixed}");
        assert!(fixed.contains("\n  await b();"), "{fixed}");
        // A syntax error is dropped too; a module that was already broken
        // is not judged.
        let broken = [edit(0, 0, ")")];
        let (_, applied, dropped) = apply_verified(text, &[&broken], FileKind::Process);
        assert_eq!((applied, dropped), (0, 1));
        let (_, applied, dropped) = apply_verified("export (", &[&broken], FileKind::Process);
        assert_eq!((applied, dropped), (1, 0));
    }

    /// A CommonJS module is a function's body (`let module` redeclares a
    /// parameter); a regular expression must compile.
    #[test]
    fn commonjs_wrapper_names_and_regular_expressions_are_checked() {
        let text = "const a = 1;\nmodule.exports = { a };\n";
        let redeclare = [edit(0, 0, "let module;\n")];
        let (_, applied, dropped) = apply_verified(text, &[&redeclare], FileKind::Process);
        assert_eq!((applied, dropped), (0, 1));
        let regex = [edit(10, 11, "/(/")];
        let (fixed, applied, dropped) = apply_verified(text, &[&regex], FileKind::Process);
        assert_eq!((applied, dropped), (0, 1), "{fixed}");
    }

    /// A fix whose edits name something nothing declares is dropped by
    /// the re-lint, and says why; the file's other fixes still apply.
    #[test]
    fn a_fix_that_introduces_an_undefined_reference_is_dropped() {
        // The call is skipped on some passes (data decides), so the SDK's
        // occurrence count does not follow the pass and the rule reports it.
        let text = "export async function process(inputs, ctx) {\n  await ctx.breakpoint({ question: 'Ship it?' });\n  for (let j = 0; j < 3; j++) {\n    if (inputs.on[j]) await ctx.task(u, { j });\n  }\n}\nconst u = 2;\n";
        let mut config = Config::default();
        config.select = Some(vec![
            "missing-stable-key".into(),
            "unchecked-breakpoint".into(),
        ]);
        let outcome = crate::engine::lint_texts(
            vec![("p.js".into(), FileKind::Process, text.to_string())],
            &config,
        );
        let mut found: Vec<Diagnostic> = outcome
            .diagnostics
            .iter()
            .filter(|d| d.fix.as_ref().is_some_and(|f| !f.edits.is_empty()))
            .cloned()
            .collect();
        assert_eq!(found.len(), 2, "{:#?}", outcome.diagnostics);
        // The second fix, broken: its key names `h`, declared nowhere.
        if let Some(f) = found[1].fix.as_mut() {
            for e in &mut f.edits {
                e.replacement = e.replacement.replace("${j}", "${h}");
            }
        }
        let pending = Pending {
            display: "p.js".into(),
            path: PathBuf::from("p.js"),
            kind: FileKind::Process,
            original: text.to_string(),
            fixes: found.iter().collect(),
        };
        let baseline = Baseline {
            diagnostics: &outcome.diagnostics,
            context: None,
        };
        let v = verify(&baseline, &config, &[pending]).remove(0);
        assert_eq!((v.applied, v.dropped), (1, 1), "{v:#?}");
        assert!(
            v.reasons[0].contains("introduce undefined-reference"),
            "{v:#?}"
        );
        assert!(v.fixed.contains("decision.approved"), "{}", v.fixed);
        assert!(!v.fixed.contains("${h}"), "{}", v.fixed);
    }

    #[test]
    fn a_manifest_fix_must_keep_json_with_the_same_keys() {
        let text = r#"{"dependencies": {"x": "^1"}}"#;
        let pin = [edit(24, 26, "1.0.0")];
        let (fixed, applied, dropped) = apply_verified(text, &[&pin], FileKind::Manifest);
        assert_eq!((applied, dropped), (1, 0), "{fixed}");
        for injected in [
            r#"", "scripts": {"postinstall": "x"}, "y": ""#,
            r#""}, "scripts": {"postinstall": "x"}, "z": {"y": ""#,
        ] {
            let inject = [edit(26, 26, injected)];
            let (fixed, applied, dropped) = apply_verified(text, &[&inject], FileKind::Manifest);
            assert_eq!((applied, dropped), (0, 1), "{fixed}");
        }
    }

    #[test]
    fn applies_in_order_and_skips_overlaps() {
        let a = [edit(0, 1, "A")];
        let b = [edit(2, 3, "C")];
        let overlapping = [edit(0, 2, "X")];
        let (out, n) = apply("abcd", &[&a, &b, &overlapping]);
        assert_eq!(out, "AbCd");
        assert_eq!(n, 2);
    }

    #[test]
    fn out_of_range_edits_are_ignored() {
        let bad = [edit(3, 10, "x")];
        let (out, n) = apply("abc", &[&bad]);
        assert_eq!((out.as_str(), n), ("abc", 0));
    }
}
