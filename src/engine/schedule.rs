//! Scheduling: walks the paths (linting batches of files while the walk
//! goes on), adds the given file of `--stdin-filename`, and loads the
//! context modules a file list or imports need, all over the worker pool.
//! In: paths, an optional stdin buffer, the config. Out: the per-file
//! outcomes, handed with the walk's errors to the cross-module pass.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rayon::prelude::*;

use super::{FileOutcome, Outcome, Stage};
use crate::diagnostic::{Diagnostic, Severity};
use crate::engine::cache::Cache;
use crate::engine::discover::{self, project_root, Candidate, FileKind};
use crate::engine::guard::whole_file;
use crate::engine::project_pass::finish_cached;
use crate::engine::read::lint_candidate_cached;
use crate::project;
use crate::project::config::Config;
use crate::rules::RuleSwitches;
use crate::runs::Run;

/// Context modules are loaded at most this many import hops away.
const CONTEXT_ROUNDS: usize = 3;

pub(super) fn run_inner(
    paths: &[PathBuf],
    stdin: Option<(PathBuf, Vec<u8>)>,
    config: &Config,
    stage: Stage,
    run: Option<Run>,
    cache: Option<&Cache>,
) -> Outcome {
    let (mut candidates, walk_errors, mut files) = discover_and_lint(paths, config, stage, cache);
    let mut given: Vec<PathBuf> = candidates
        .iter()
        .map(|c| project::module_key(&c.path))
        .collect();
    if let Some((path, bytes)) = &stdin {
        let c = Candidate {
            path: path.clone(),
            display: discover::display_path(path),
            kind: discover::kind_by_name(path).unwrap_or(FileKind::Process),
            explicit: true,
        };
        let key = project::module_key(path);
        files.retain(|f| project::module_key(&f.path) != key);
        let over = bytes.len() as u64 > config.for_path(Path::new(&*c.display)).max_file_size;
        files.extend(crate::engine::read::lint_stdin(
            &c,
            bytes.clone(),
            over,
            config,
            stage,
        ));
        given.push(key);
    }
    let file_list = stdin.is_some() || (!paths.is_empty() && paths.iter().all(|p| p.is_file()));
    if stage == Stage::Full && file_list {
        let anchor = stdin
            .as_ref()
            .map(|(p, _)| p.clone())
            .or_else(|| paths.first().cloned());
        if let Some(root) = anchor.as_deref().and_then(project_root) {
            let (context, _) = discover::discover(&[root], config);
            let given: std::collections::HashSet<PathBuf> = given.into_iter().collect();
            let context: Vec<Candidate> = context
                .into_iter()
                .filter(|c| c.kind == FileKind::Process)
                .filter(|c| !given.contains(&project::module_key(&c.path)))
                .collect();
            files.par_extend(
                context
                    .par_iter()
                    .filter_map(|c| lint_candidate_cached(c, config, stage, false, cache)),
            );
        }
    }
    if stage == Stage::Full {
        // Walked-but-skipped helpers are reported; others are context only.
        if !file_list {
            candidates.retain(|c| c.kind == FileKind::Process);
        } else {
            candidates.clear();
        }
        load_context_modules(&mut files, &candidates, config, cache);
    }
    let mut extra = Vec::new();
    for e in walk_errors {
        extra.push(Diagnostic::new(
            "io-error",
            config.severity_of("io-error").unwrap_or(Severity::Warning),
            whole_file(Arc::from(e.path.as_str())),
            format!("cannot read: {}", e.message),
        ));
    }
    finish_cached(files, extra, config, stage, run, cache)
}

/// Walks `paths` and lints what it finds (reported): the candidates in
/// display-path order, the walk's errors, and the outcomes in the same
/// order. Over one directory (`check .`, the common case) files are linted
/// while the walk goes on: it is a sequential tenth of a warm run, and the
/// other workers would otherwise wait for it.
fn discover_and_lint(
    paths: &[PathBuf],
    config: &Config,
    stage: Stage,
    cache: Option<&Cache>,
) -> (Vec<Candidate>, Vec<discover::WalkError>, Vec<FileOutcome>) {
    let lint = |c: &Candidate| lint_candidate_cached(c, config, stage, true, cache);
    let root = match paths {
        [root] if std::fs::metadata(root).is_ok_and(|m| m.is_dir()) => root,
        _ => {
            let (candidates, errors) = discover::discover(paths, config);
            let files = candidates.par_iter().filter_map(lint).collect();
            return (candidates, errors, files);
        }
    };
    // The walking worker hands batches to the pool as it goes (another
    // worker takes them), and lints what is left once the walk is done.
    const BATCH: usize = 64;
    let mut walked: Vec<Candidate> = Vec::new();
    let mut errors = Vec::new();
    let linted = std::sync::Mutex::new(Vec::<(usize, Option<FileOutcome>)>::new());
    rayon::scope(|scope| {
        let lint_batch = |start: usize, batch: Vec<Candidate>| {
            let lint = &lint;
            let linted = &linted;
            move |_: &rayon::Scope<'_>| {
                let out: Vec<(usize, Option<FileOutcome>)> = batch
                    .iter()
                    .enumerate()
                    .map(|(i, c)| (start + i, lint(c)))
                    .collect();
                // A poisoned lock only means another batch panicked, which
                // the scope re-raises.
                if let Ok(mut all) = linted.lock() {
                    all.extend(out);
                }
            }
        };
        let mut batch = Vec::with_capacity(BATCH);
        discover::walk_dir(root, config, &mut errors, |c| {
            batch.push(c.clone());
            walked.push(c);
            if batch.len() == BATCH {
                let full = std::mem::replace(&mut batch, Vec::with_capacity(BATCH));
                scope.spawn(lint_batch(walked.len() - BATCH, full));
            }
        });
        if !batch.is_empty() {
            let start = walked.len() - batch.len();
            scope.spawn(lint_batch(start, batch));
        }
    });
    let linted = linted
        .into_inner()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    // What `discover` gives: display-path order (one directory's walk
    // finds each file once).
    let mut pairs: Vec<(Candidate, Option<FileOutcome>)> =
        walked.into_iter().map(|c| (c, None)).collect();
    for (i, outcome) in linted {
        if let Some(pair) = pairs.get_mut(i) {
            pair.1 = outcome;
        }
    }
    pairs.sort_by(|a, b| a.0.display.cmp(&b.0.display));
    let (candidates, outcomes): (Vec<Candidate>, Vec<Option<FileOutcome>>) =
        pairs.into_iter().unzip();
    (candidates, errors, outcomes.into_iter().flatten().collect())
}

/// JavaScript that process modules import but that was not linted (helper
/// modules without SDK markers, or files outside the given paths): parsed
/// for its summary; reported on only when it was inside the walked paths.
pub(super) fn load_context_modules(
    files: &mut Vec<FileOutcome>,
    walked: &[Candidate],
    config: &Config,
    cache: Option<&Cache>,
) {
    // Imported helpers are read whatever they contain (instruction arrays
    // carry no SDK markers), even under `--only-process-code`.
    let mut context_config = config.clone();
    context_config.scan_named_files = false;
    let walked: HashMap<PathBuf, &Candidate> = walked
        .iter()
        .map(|c| (project::module_key(&c.path), c))
        .collect();
    for _ in 0..CONTEXT_ROUNDS {
        let missing = project::unresolved_relative_imports(
            files
                .iter()
                .filter_map(|f| f.summary.as_ref())
                .map(|s| (s.key(), s.import_sources())),
            |p| p.is_file(),
        );
        if missing.is_empty() {
            return;
        }
        let extra: Vec<FileOutcome> = missing
            .par_iter()
            .filter_map(|key| {
                let (candidate, report) = match walked.get(key) {
                    Some(c) => ((*c).clone(), true),
                    None => (
                        Candidate {
                            path: key.clone(),
                            display: relative_display(key),
                            kind: FileKind::Process,
                            explicit: true,
                        },
                        false,
                    ),
                };
                let mut c = candidate;
                c.explicit = true;
                lint_candidate_cached(&c, &context_config, Stage::Full, report, cache)
            })
            .collect();
        if extra.is_empty() {
            return;
        }
        files.extend(extra);
    }
}

fn relative_display(key: &Path) -> Arc<str> {
    let rel = std::env::current_dir()
        .ok()
        .and_then(|cwd| key.strip_prefix(cwd).ok().map(Path::to_path_buf))
        .unwrap_or_else(|| key.to_path_buf());
    Arc::from(rel.to_string_lossy().replace('\\', "/"))
}
