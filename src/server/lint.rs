//! What the language server and the MCP server share: the configuration for
//! a file (read afresh on every lint, so a `proclint.toml` edit applies to
//! the next lint without a restart), linting a buffer with the rest of its
//! project as context (the `--stdin-filename` path), and the positions of
//! edits and suppression comments.

use std::path::{Path, PathBuf};

use crate::diagnostic::{Diagnostic, Edit};
use crate::engine::cache::Cache;
use crate::engine::discover::{self, FileKind};
use crate::engine::fix;
use crate::engine::{self, Outcome, Stage};
use crate::project::config::Config;
use crate::source::{LineIndex, Pos};

/// `path` made absolute against the working directory.
pub fn absolute(path: &Path) -> PathBuf {
    if path.is_absolute() {
        return path.to_path_buf();
    }
    match std::env::current_dir() {
        Ok(cwd) => cwd.join(path),
        Err(_) => path.to_path_buf(),
    }
}

/// `path` relative to the working directory when it is inside it: the
/// engine's context modules display that way, and one file must have one
/// display path.
pub fn relative(path: &Path) -> PathBuf {
    let abs = absolute(path);
    match std::env::current_dir() {
        Ok(cwd) => match abs.strip_prefix(&cwd) {
            Ok(rel) if !rel.as_os_str().is_empty() => rel.to_path_buf(),
            _ => abs,
        },
        Err(_) => abs,
    }
}

/// The effective configuration for a file or directory, resolved as `check`
/// resolves it (`engine::settings`) over the file's project: every file
/// gets the nearest `proclint.toml` at or above it, so the buffer and its
/// context modules get what `check` on the project gives them. Read on
/// every call, which is how edits to any of them take effect at once. An
/// invalid file gives the defaults and every error in one line, for the
/// caller to show.
pub fn config_for(anchor: &Path) -> (Config, Option<String>) {
    let abs = absolute(anchor);
    let project = if abs.is_dir() {
        abs.clone()
    } else {
        crate::engine::project_root(&abs)
            .map(|r| absolute(&r))
            .unwrap_or_else(|| abs.clone())
    };
    // The project's folder (its configurations below it) and the file
    // itself (those above it, should the project root be below them).
    let mut inputs = vec![project];
    if !inputs.contains(&abs) {
        inputs.push(abs);
    }
    match crate::engine::settings::resolve(&inputs, None) {
        Ok(config) => (config, None),
        Err(errors) => (
            Config::default(),
            Some(
                errors
                    .iter()
                    .map(|e| e.one_line())
                    .collect::<Vec<_>>()
                    .join("; "),
            ),
        ),
    }
}

/// The kind a file is linted as, or `None` for files proclint does not
/// read (an editor opens every JavaScript file; only process modules,
/// SKILL.md and package.json get findings).
pub fn kind_of(path: &Path, text: &str) -> Option<FileKind> {
    match engine::kind_of(path)? {
        FileKind::Process if !discover::looks_like_process(text.as_bytes()) => None,
        kind => Some(kind),
    }
}

/// Lints `text` as the file at `path`, with the other process modules of
/// its project loaded from disk as context. Returns the outcome and the
/// buffer's display path (its findings are the ones with that path).
///
/// The context modules go through the result cache, as with `check`: an
/// editor lints on every change, and only the buffer changes between two
/// lints. The buffer itself is never cached.
pub fn lint_buffer(path: &Path, text: String, config: &Config) -> (Outcome, String) {
    let rel = relative(path);
    let display = discover::display_path(&rel).to_string();
    let cache = cache_for(config);
    let outcome = engine::run_cached(
        &[],
        Some((rel, text.into_bytes())),
        config,
        Stage::Full,
        None,
        Some(&cache),
    );
    (outcome, display)
}

/// The result cache a configuration names, as `check` uses it.
pub fn cache_for(config: &Config) -> Cache {
    Cache::new(config.cache_dir(), &Cache::build_id(), config)
}

/// Applies the safe fixes (with `unsafe_fixes`, every fix) to a buffer,
/// re-linting after each pass so fixes that overlapped apply too (as
/// `check --fix` does). Returns the fixed text, how many fixes were
/// applied, and how many unsafe fixes the first lint offered that were
/// left out (0 with `unsafe_fixes`).
pub fn fix_buffer(
    path: &Path,
    text: &str,
    config: &Config,
    unsafe_fixes: bool,
) -> (String, usize, usize) {
    let mut config = config.clone();
    // Each fix is re-linted beside the project's modules as they were.
    config.keep_summaries = true;
    let mut current = text.to_string();
    let mut applied = 0;
    let mut left_out = None;
    for _ in 0..4 {
        let (outcome, display) = lint_buffer(path, current.clone(), &config);
        let mine: Vec<&Diagnostic> = outcome
            .diagnostics
            .iter()
            .filter(|d| *d.location.path == *display)
            .collect();
        left_out.get_or_insert_with(|| {
            mine.iter()
                .filter(|d| !unsafe_fixes && d.fix.as_ref().is_some_and(|f| !f.safe))
                .count()
        });
        let kind = outcome
            .files
            .iter()
            .find(|f| *f.display == *display)
            .map_or(FileKind::Process, |f| f.kind);
        let buffer = Buffer {
            display: &display,
            path: &relative(path),
            kind,
            text: &current,
            baseline: fix::Baseline::of(&outcome),
            config: &config,
        };
        let (fixed, n) = buffer.apply_fixes(&mine, unsafe_fixes);
        if n == 0 || fixed == current {
            break;
        }
        applied += n;
        current = fixed;
    }
    (current, applied, left_out.unwrap_or(0))
}

/// A linted buffer, what its fixes are verified against
/// ([`fix::verify`]): its findings, the project's modules beside it (the
/// outcome of a lint with [`Config::keep_summaries`]) and the config.
pub struct Buffer<'a> {
    pub display: &'a str,
    pub path: &'a Path,
    pub kind: FileKind,
    pub text: &'a str,
    pub baseline: fix::Baseline<'a>,
    pub config: &'a Config,
}

impl Buffer<'_> {
    /// The fixes of `diagnostics` (the safe ones; with `unsafe_fixes`,
    /// all), applied to the text in one pass and verified by
    /// [`fix::verify`]: a fix that would keep the file from loading as it
    /// did, or that the re-lint blames, is dropped. Returns the fixed text
    /// and how many fixes it applied.
    pub fn apply_fixes(&self, diagnostics: &[&Diagnostic], unsafe_fixes: bool) -> (String, usize) {
        let fixes: Vec<&Diagnostic> = diagnostics
            .iter()
            .copied()
            .filter(|d| d.fix.as_ref().is_some_and(|f| f.applies(unsafe_fixes)))
            .collect();
        if fixes.is_empty() {
            return (self.text.to_string(), 0);
        }
        let pending = fix::Pending {
            display: self.display.to_string(),
            path: self.path.to_path_buf(),
            kind: self.kind,
            original: self.text.to_string(),
            fixes,
        };
        match fix::verify(&self.baseline, self.config, &[pending]).pop() {
            Some(v) => (v.fixed, v.applied),
            None => (self.text.to_string(), 0),
        }
    }

    /// Whether one finding's fix, applied alone, passes [`fix::verify`]:
    /// the editor offers no edit that breaks loading or that the re-lint
    /// blames.
    pub fn fix_holds(&self, d: &Diagnostic) -> bool {
        self.apply_fixes(&[d], true).1 == 1
    }
}

/// The edits, line by line, that turn `old` into `new`: what the editor
/// gets for a whole-document change (its cursor and folds stay where the
/// lines did not change). Lines break as LSP breaks them (`\n`, `\r\n`,
/// a lone `\r`).
pub fn line_edits(old: &str, new: &str) -> Vec<Edit> {
    let old_lines: Vec<&str> = crate::source::lines_inclusive(old).collect();
    let new_lines: Vec<&str> = crate::source::lines_inclusive(new).collect();
    let offsets = |lines: &[&str]| -> Vec<usize> {
        let mut at = 0;
        let mut out = Vec::with_capacity(lines.len() + 1);
        out.push(0);
        for l in lines {
            at += l.len();
            out.push(at);
        }
        out
    };
    let (old_at, new_at) = (offsets(&old_lines), offsets(&new_lines));
    similar::capture_diff_slices(similar::Algorithm::Myers, &old_lines, &new_lines)
        .into_iter()
        .filter_map(|op| {
            let (tag, o, n) = op.as_tag_tuple();
            (tag != similar::DiffTag::Equal).then(|| Edit {
                span: crate::source::Span::new(old_at[o.start], old_at[o.end]),
                replacement: new[new_at[n.start]..new_at[n.end]].to_string(),
            })
        })
        .collect()
}

/// A unified diff between two versions of one file, headed `a/` and `b/`
/// like `check --fix --diff`.
pub fn diff(display: &str, original: &str, fixed: &str) -> String {
    let plan = fix::Plan {
        files: vec![fix::FilePlan {
            display: display.to_string(),
            path: PathBuf::from(display),
            original: original.to_string(),
            fixed: fixed.to_string(),
            applied: 1,
            dropped: 0,
            reasons: Vec::new(),
        }],
        ..fix::Plan::default()
    };
    fix::diff(&plan)
}

/// The start and end positions (1-based line, 1-based UTF-16 column) of
/// an edit's byte span in `text`.
pub fn edit_range(index: &LineIndex, text: &str, edit: &Edit) -> (Pos, Pos) {
    (
        index.pos(text, edit.span.start),
        index.pos(text, edit.span.end),
    )
}

/// How a suppression comment is written in a file of this kind; `None`
/// where the format has no comments (package.json).
fn comment(kind: FileKind, body: &str) -> Option<String> {
    match kind {
        FileKind::Process => Some(format!("// {body}")),
        FileKind::Skill => Some(format!("<!-- {body} -->")),
        _ => None,
    }
}

/// The edit that inserts `proclint-disable-next-line RULE -- reason` above
/// the diagnostic's line, indented like it. In a process module the line
/// may start inside a template literal (a prompt spanning lines), a string
/// or a comment, where a comment would be text: the directive goes above
/// the line where that token starts, which a `next-line` directive covers
/// with every line of the token (`engine::suppress`).
pub fn disable_line_edit(kind: FileKind, text: &str, d: &Diagnostic) -> Option<Edit> {
    let index = LineIndex::new(text);
    let mut line0 = (d.location.start.line as usize).saturating_sub(1);
    if kind == FileKind::Process {
        let continued = crate::js::syntax::tree_of(text)
            .map(|tree| crate::js::syntax::continued_line_starts(&tree, text))
            .unwrap_or_default();
        while line0 > 0 && continued.binary_search(&index.line_start(line0)).is_ok() {
            line0 -= 1;
        }
    }
    let start = index.line_start(line0).min(text.len());
    let line = index.line_text(text, line0);
    let indent: String = line.chars().take_while(|c| c.is_whitespace()).collect();
    let body = format!("proclint-disable-next-line {} -- reason", d.rule);
    let newline = crate::source::newline_of(text);
    Some(Edit {
        span: crate::source::Span::new(start, start),
        replacement: format!("{indent}{}{newline}", comment(kind, &body)?),
    })
}

/// The edit that inserts `proclint-disable-file RULE -- reason` at the top
/// of the file (after a `#!` line, and after a SKILL.md's frontmatter,
/// which must stay first).
pub fn disable_file_edit(kind: FileKind, text: &str, rule: &str) -> Option<Edit> {
    let body = format!("proclint-disable-file {rule} -- reason");
    // Lines end at `\n`, `\r\n` or a lone `\r`; the comment gets the
    // file's own.
    let newline = crate::source::newline_of(text);
    let mut lines = crate::source::lines_inclusive(text);
    let mut at = 0;
    if text.starts_with("#!") {
        at = lines.next().map_or(text.len(), str::len);
    }
    if kind == FileKind::Skill && text.starts_with("---") {
        // The line after the closing `---` of the frontmatter.
        let mut offset = 0;
        for (i, line) in lines.enumerate() {
            offset += line.len();
            if i > 0 && line.trim_end() == "---" {
                at = offset;
                break;
            }
        }
    }
    let mut replacement = comment(kind, &body)?;
    replacement.push_str(newline);
    if at == text.len() && !text.is_empty() && !text.ends_with(['\n', '\r']) {
        replacement.insert_str(0, newline);
    }
    Some(Edit {
        span: crate::source::Span::new(at, at),
        replacement,
    })
}

/// The public page of a rule's documentation.
pub fn doc_url(rule: &str) -> String {
    format!("https://github.com/a5c-ai/proclint/blob/main/rules/{rule}.md")
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn file_directive_goes_after_frontmatter_and_shebang() {
        let skill = "---\nname: x\n---\n# X\n";
        let e = disable_file_edit(FileKind::Skill, skill, "r").unwrap();
        assert_eq!(e.span.start, "---\nname: x\n---\n".len());
        let js = "#!/usr/bin/env node\nx\n";
        let e = disable_file_edit(FileKind::Process, js, "r").unwrap();
        assert_eq!(e.span.start, 20);
        assert_eq!(e.replacement, "// proclint-disable-file r -- reason\n");
        assert!(disable_file_edit(FileKind::Manifest, "{}", "r").is_none());
    }

    /// In a lone-CR file the frontmatter was not found (the directive went
    /// above it, where it ends the frontmatter) and lines got `\n`.
    #[test]
    fn directives_in_lone_cr_and_crlf_files() {
        for newline in ["\r", "\r\n"] {
            let skill = "---\nname: x\n---\n# X\n".replace('\n', newline);
            let e = disable_file_edit(FileKind::Skill, &skill, "r").unwrap();
            let head = "---\nname: x\n---\n".replace('\n', newline);
            assert_eq!(e.span.start, head.len(), "{newline:?}");
            assert_eq!(
                e.replacement,
                format!("<!-- proclint-disable-file r -- reason -->{newline}")
            );
            let js = "#!/usr/bin/env node\nx\n".replace('\n', newline);
            let e = disable_file_edit(FileKind::Process, &js, "r").unwrap();
            assert_eq!(e.span.start, 19 + newline.len(), "{newline:?}");
            assert!(e.replacement.ends_with(&format!("reason{newline}")));
        }
    }

    /// The line edits of a change rebuild the new text from the old, with
    /// any line break; unchanged lines are not in them.
    #[test]
    fn line_edits_rebuild_the_new_text() {
        for newline in ["\n", "\r\n", "\r"] {
            let old = "a\nb\nc\nd\ne\n".replace('\n', newline);
            let new = "a\nB\nc\nd\nx\ne\nf".replace('\n', newline);
            let edits = line_edits(&old, &new);
            assert_eq!(edits.len(), 3, "{newline:?}: {edits:?}");
            let all: Vec<&[Edit]> = edits.iter().map(std::slice::from_ref).collect();
            assert_eq!(fix::apply(&old, &all), (new.clone(), 3), "{newline:?}");
            assert!(edits.iter().all(|e| !e.replacement.contains('a')));
        }
        assert!(line_edits("same\n", "same\n").is_empty());
    }
}
