//! Applies the fixes rules attach to diagnostics (the safe ones, and with
//! `--unsafe-fixes` the unsafe ones too): edits by byte span,
//! never re-printing a file; a file that changed on disk since it was read
//! is left alone.

use std::collections::BTreeMap;
use std::path::PathBuf;

use crate::diagnostic::{Diagnostic, Edit};
use crate::engine::discover::FileKind;
use crate::engine::Outcome;

/// The planned edits of one file.
#[derive(Debug)]
pub struct FilePlan {
    pub display: String,
    pub path: PathBuf,
    pub original: String,
    pub fixed: String,
    pub applied: usize,
    /// Fixes left out because the file would no longer parse with them.
    pub dropped: usize,
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
    let (fixed, applied) = apply(text, fixes);
    let check = match Check::of(text, kind) {
        Check::Unjudged => return (fixed, applied, 0),
        // What cannot be verified is not written.
        Check::Unverifiable => return (text.to_string(), 0, fixes.len()),
        check => check,
    };
    if applied == 0 || check.holds(&fixed) {
        return (fixed, applied, 0);
    }
    let mut kept: Vec<&[Edit]> = Vec::new();
    let mut dropped = 0;
    for edits in fixes {
        kept.push(edits);
        let (candidate, n) = apply(text, &kept);
        if n < kept.len() {
            // Overlaps an earlier fix: `apply` would skip it anyway.
            kept.pop();
        } else if !check.holds(&candidate) {
            kept.pop();
            dropped += 1;
        }
    }
    let (fixed, applied) = apply(text, &kept);
    (fixed, applied, dropped)
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
pub fn plan(outcome: &Outcome, stdin: Option<&[u8]>) -> Plan {
    plan_with(outcome, stdin, false)
}

/// Plans the fixes of an outcome that `--fix` applies (the safe ones; with
/// `unsafe_fixes`, all: `check --unsafe-fixes`, MCP's `fix` with `unsafe:
/// true`) against the files on disk, and, with `stdin`, against the buffer
/// linted from stdin (`--fix --diff --stdin-filename`, which prints the
/// diff; it printed nothing).
pub fn plan_with(outcome: &Outcome, stdin: Option<&[u8]>, unsafe_fixes: bool) -> Plan {
    let mut by_file: BTreeMap<&str, Vec<&Diagnostic>> = BTreeMap::new();
    for d in &outcome.diagnostics {
        if d.fix.as_ref().is_some_and(|f| f.applies(unsafe_fixes)) {
            by_file.entry(&d.location.path).or_default().push(d);
        }
    }
    let mut plan = Plan::default();
    for (display, diags) in by_file {
        let Some(file) = outcome.files.iter().find(|f| &*f.display == display) else {
            continue;
        };
        let planned = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            crate::source::inject::point("fix", display);
            plan_file(display, file, &diags, stdin)
        }));
        match planned {
            Ok(Ok(Some(f))) => plan.files.push(f),
            Ok(Ok(None)) => {}
            Ok(Err(Skip::Changed(changed))) => plan.changed.push(changed),
            Ok(Err(Skip::Because(display, why))) => plan.skipped.push((display, why)),
            Err(p) => {
                let file = crate::source::SourceFile::new(display, String::new());
                plan.failed.push(crate::engine::internal(
                    &file,
                    "fix",
                    crate::engine::panic_message(&p),
                ));
            }
        }
    }
    plan
}

/// Why a file's fixes are not applied.
enum Skip {
    Changed(String),
    Because(String, &'static str),
}

/// The fixed text of one file; `Err` when it is not to be rewritten.
fn plan_file(
    display: &str,
    file: &crate::engine::FileOutcome,
    diags: &[&Diagnostic],
    stdin: Option<&[u8]>,
) -> Result<Option<FilePlan>, Skip> {
    {
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
        let Ok(original) = String::from_utf8(bytes) else {
            // Invalid UTF-8 was read with substitutions; never write it back.
            return Err(Skip::Because(
                display.to_string(),
                "is not valid UTF-8 (proclint read it with substitutions and never writes that back)",
            ));
        };
        let edits: Vec<&[Edit]> = diags
            .iter()
            .filter_map(|d| d.fix.as_ref().map(|f| f.edits.as_slice()))
            .collect();
        let (fixed, applied, dropped) = apply_verified(&original, &edits, file.kind);
        if applied > 0 && fixed != original {
            return Ok(Some(FilePlan {
                display: display.to_string(),
                path: file.path.clone(),
                original,
                fixed,
                applied,
                dropped,
            }));
        }
        if dropped > 0 {
            return Err(Skip::Because(
                display.to_string(),
                "would fail to parse with its fixes",
            ));
        }
        Ok(None)
    }
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
