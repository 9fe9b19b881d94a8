//! Buffers open in an editor (the language server): the per-file pass of
//! one buffer, re-parsed from its previous tree, and the cross-module pass
//! over it and a project held in memory (the modules on disk, loaded once,
//! and the other open buffers as they are, saved or not).
//! In: a buffer's text and edited tree, the project's other modules. Out:
//! the buffer's [`FileOutcome`] and new tree, then its [`Outcome`].

use std::path::{Path, PathBuf};

use rayon::prelude::*;

use super::{on_pool, FileOutcome, Outcome, Stage};
use crate::engine::cache::Cache;
use crate::engine::discover::project_root;
use crate::engine::discover::{self, Candidate, FileKind};
use crate::engine::file::{analyse_from, Reparse};
use crate::engine::project_pass::finish_cached;
use crate::engine::read::{lint_candidate_cached, note};
use crate::engine::schedule::load_context_modules;
use crate::project;
use crate::project::config::Config;
use crate::source::SourceFile;

/// The process modules of the project `anchor` (a file) belongs to, read
/// from disk (through the result cache) as context for the buffers open in
/// it: never reported, summaries decoded once here rather than on every
/// pass. Empty when the file is in no project (no `proclint.toml`,
/// `package.json` or `.git` above it).
pub fn project_context(anchor: &Path, config: &Config, cache: Option<&Cache>) -> Vec<FileOutcome> {
    let Some(root) = project_root(anchor) else {
        return Vec::new();
    };
    on_pool(|| {
        let (found, _) = discover::discover(&[root], config);
        found
            .par_iter()
            .filter(|c| c.kind == FileKind::Process)
            .filter_map(|c| lint_candidate_cached(c, config, Stage::Full, false, cache))
            .map(as_context)
            .collect()
    })
}

/// A module's outcome as another module's context: its summary (decoded),
/// unreported, without findings or directives (which only the reported
/// file's pass reads).
pub fn as_context(f: FileOutcome) -> FileOutcome {
    f.into_context()
}

/// The per-file pass over an open buffer, linted as the file at `path`
/// (relative to the working directory, as `--stdin-filename` takes it):
/// `max-file-size` and the NUL check apply as to the file on disk. `old`
/// is the tree of the previous text with the changes since applied
/// (`js::syntax::parse::input_edit`), or `None` for a full parse. `None` for
/// JavaScript that is not process code; the tree comes back for the next
/// edit.
pub fn analyse_buffer(
    path: &Path,
    text: &str,
    old: Option<&tree_sitter::Tree>,
    config: &Config,
) -> Option<(FileOutcome, Option<tree_sitter::Tree>)> {
    analyse_open(path, text, old, config, true)
}

/// [`analyse_buffer`] for JavaScript that is not process code (a helper
/// module a process imports): read whatever it contains, for its summary
/// only, as imported helpers on disk are.
pub fn analyse_helper(
    path: &Path,
    text: &str,
    old: Option<&tree_sitter::Tree>,
    config: &Config,
) -> Option<(FileOutcome, Option<tree_sitter::Tree>)> {
    let mut config = config.clone();
    config.each_mut(|c| c.scan_named_files = false);
    analyse_open(path, text, old, &config, false).map(|(outcome, tree)| (as_context(outcome), tree))
}

fn analyse_open(
    path: &Path,
    text: &str,
    old: Option<&tree_sitter::Tree>,
    config: &Config,
    report: bool,
) -> Option<(FileOutcome, Option<tree_sitter::Tree>)> {
    let c = Candidate {
        path: path.to_path_buf(),
        display: discover::display_path(path),
        kind: discover::kind_by_name(path).unwrap_or(FileKind::Process),
        explicit: true,
    };
    let config = config.for_path(Path::new(&*c.display));
    if text.len() as u64 > config.max_file_size {
        let message = format!(
            "not linted: {} bytes is over max-file-size ({} bytes)",
            text.len(),
            config.max_file_size
        );
        return Some((note(&c, config, report, "skipped-file", message), None));
    }
    if c.kind == FileKind::Process
        && config.scan_named_files
        && !discover::looks_like_process(text.as_bytes())
    {
        return None;
    }
    if text.contains('\0') {
        let message = "not linted: the file contains NUL bytes (binary content)".to_string();
        return Some((note(&c, config, report, "skipped-file", message), None));
    }
    let file = SourceFile::new(c.display.clone(), text.to_string());
    let key = project::module_key(path);
    let reparse = Reparse {
        old,
        facts: false,
        keep_tree: true,
    };
    let (mut outcome, tree) =
        on_pool(|| analyse_from(&file, c.kind, config, Stage::Full, key, report, reparse));
    outcome.path = c.path;
    Some((outcome, tree))
}

/// The cross-module pass, suppressions and order for `buffer` (from
/// [`analyse_buffer`]) with `others` as the rest of its project (from
/// [`project_context`] and the other open buffers, through [`as_context`]).
/// `helpers` are open helper modules ([`analyse_helper`]): part of the
/// project when it imports them, as imported helpers on disk are, which
/// are loaded as `check` does.
pub fn finish_buffer(
    buffer: FileOutcome,
    mut others: Vec<FileOutcome>,
    mut helpers: Vec<FileOutcome>,
    config: &Config,
    cache: Option<&Cache>,
) -> Outcome {
    let key = project::module_key(&buffer.path);
    others.retain(|f| project::module_key(&f.path) != key);
    helpers.retain(|f| project::module_key(&f.path) != key);
    others.push(buffer);
    on_pool(|| {
        while !helpers.is_empty() {
            // An open helper counts as there even when it was never saved.
            let open: std::collections::HashSet<PathBuf> = helpers
                .iter()
                .map(|h| project::module_key(&h.path))
                .collect();
            let missing: std::collections::HashSet<_> = project::unresolved_relative_imports(
                others
                    .iter()
                    .filter_map(|f| f.summary.as_ref())
                    .map(|s| (s.key(), s.import_sources())),
                |p| open.contains(p) || p.is_file(),
            )
            .into_iter()
            .collect();
            let (imported, rest): (Vec<_>, Vec<_>) = helpers
                .into_iter()
                .partition(|h| missing.contains(&project::module_key(&h.path)));
            if imported.is_empty() {
                break;
            }
            others.extend(imported);
            helpers = rest;
        }
        load_context_modules(&mut others, &[], config, cache);
        finish_cached(others, Vec::new(), config, Stage::Full, None, cache)
    })
}
