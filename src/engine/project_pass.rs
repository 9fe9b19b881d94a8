//! After every file: the cross-module pass over the module summaries (or
//! its cached findings), the run rules over a recorded run, then the
//! findings routed to their files for suppression, filtered by the config
//! and put in output order.
//! In: the per-file outcomes and loose findings (walk errors). Out: the
//! run's [`Outcome`].

use std::cell::RefCell;
use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rayon::prelude::*;

use super::{FileOutcome, Outcome, Stage, Summary};
use crate::diagnostic::{self, Diagnostic, Severity};
use crate::engine::cache::Cache;
use crate::engine::cached::project_key;
use crate::engine::guard::{internal, panic_message, whole_file};
use crate::engine::runs::check_run_rules;
use crate::engine::suppress;
use crate::project::config::Config;
use crate::project::run_analysis::RunAnalysis;
use crate::project::{ModuleSummary, Project};
use crate::rules::{self, ProjectSink, RuleSwitches};
use crate::runs::Run;
use crate::source::inject;
use crate::source::SourceFile;

/// The cross-module pass, suppressions and ordering.
pub fn finish(
    files: Vec<FileOutcome>,
    extra: Vec<Diagnostic>,
    config: &Config,
    stage: Stage,
) -> Outcome {
    finish_with_run(files, extra, config, stage, None)
}

/// [`finish`], with the run rules over a recorded run: they run after the
/// cross-module pass because they need the project index to find the loop
/// a task ran in, and before suppression so a `proclint-disable` comment at
/// that loop works like for any rule.
pub fn finish_with_run(
    files: Vec<FileOutcome>,
    extra: Vec<Diagnostic>,
    config: &Config,
    stage: Stage,
    run: Option<Run>,
) -> Outcome {
    finish_cached(files, extra, config, stage, run, None)
}

/// [`finish_with_run`], with the cross-module pass's findings read from and
/// stored in `cache` (not with a recorded run: the run rules need the
/// project index itself).
pub(super) fn finish_cached(
    mut files: Vec<FileOutcome>,
    mut extra: Vec<Diagnostic>,
    config: &Config,
    stage: Stage,
    run: Option<Run>,
    cache: Option<&Cache>,
) -> Outcome {
    files.sort_by(|a, b| a.display.cmp(&b.display));
    // Taken before the pass consumes the summaries; decoded here, once, so
    // each fix verification only clones them.
    let context: Option<Vec<FileOutcome>> =
        (config.keep_summaries && stage == Stage::Full).then(|| {
            files
                .par_iter()
                .filter(|f| f.summary.is_some())
                .map(|f| {
                    FileOutcome {
                        summary: f.summary.clone(),
                        ..FileOutcome::empty_like(f)
                    }
                    .into_context()
                })
                .collect()
        });
    let mut analysis = None;
    if stage == Stage::Full {
        let memo = match (cache, &run) {
            (Some(cache), None) => project_key(cache, &files).map(|k| (cache, k)),
            _ => None,
        };
        let reused = memo.and_then(|(cache, key)| {
            let paths: HashMap<&str, Arc<str>> = files
                .iter()
                .map(|f| (&*f.display, f.display.clone()))
                .collect();
            cache.get_project(&key, &paths)
        });
        let mut run_found = Vec::new();
        let found = match reused {
            Some(found) => {
                let summaries: Vec<Summary> =
                    files.iter_mut().filter_map(|f| f.summary.take()).collect();
                rayon::spawn(move || drop(summaries));
                found
            }
            None => {
                // Summaries read from the cache are decoded now, in
                // parallel.
                let decoded: Vec<(usize, Option<ModuleSummary>)> = files
                    .par_iter_mut()
                    .enumerate()
                    .filter_map(|(i, f)| f.summary.take().map(|s| (i, s.into_module())))
                    .collect();
                let mut summaries = Vec::with_capacity(decoded.len());
                let mut undecodable = false;
                for (i, s) in decoded {
                    match s {
                        Some(s) => summaries.push(s),
                        None => {
                            undecodable = true;
                            let f = &mut files[i];
                            let file = SourceFile::new(f.display.clone(), String::new());
                            f.diagnostics.push(internal(
                                &file,
                                "cache",
                                "the stored module summary does not decode".into(),
                            ));
                        }
                    }
                }
                let project = Project::new(summaries);
                let found = cross_module_pass(&project, config);
                if let Some(run) = run {
                    let stall = rules::non_convergent_loop::stall_rounds(config);
                    let a = RunAnalysis::new(run, &project, stall);
                    check_run_rules(&a, config, &mut run_found);
                    analysis = Some(Box::new(a));
                }
                // Freeing thousands of summaries takes a noticeable share of
                // a warm run; let another worker do it while the report is
                // rendered.
                rayon::spawn(move || drop(project));
                // Stored once the project is being freed (it is the larger).
                if let Some((cache, key)) = memo {
                    // A pass that hit a bug is not remembered.
                    if !undecodable && !found.iter().any(|d| d.rule == "internal-error") {
                        cache.put_project(&key, &found);
                    }
                }
                found
            }
        };
        extra.reserve_exact(found.len() + run_found.len());
        extra.extend(found);
        extra.append(&mut run_found);
    }
    // Route cross-module findings to their files for suppression.
    let index: HashMap<Arc<str>, usize> = files
        .iter()
        .enumerate()
        .map(|(i, f)| (f.display.clone(), i))
        .collect();
    // Lists sized exactly: a run over a large tree holds tens of thousands
    // of findings here, and growing by doubling would hold up to twice that.
    let mut incoming = vec![0usize; files.len()];
    for d in &extra {
        if let Some(&i) = index.get(&d.location.path) {
            incoming[i] += 1;
        }
    }
    for (f, n) in files.iter_mut().zip(&incoming) {
        f.diagnostics.reserve_exact(*n);
    }
    let mut loose = Vec::new();
    for d in extra {
        match index.get(&d.location.path) {
            Some(&i) => files[i].diagnostics.push(d),
            None => loose.push(d),
        }
    }
    // Plus at most one unused-suppression finding per rule a directive
    // names (one for a directive naming none).
    let total = loose.len()
        + files
            .iter()
            .filter(|f| f.report)
            .map(|f| {
                let unused: usize = f.directives.iter().map(|d| d.rules.len().max(1)).sum();
                f.diagnostics.len() + unused
            })
            .sum::<usize>();
    let with_run = analysis.is_some();
    // Files are independent here: in parallel, concatenated in path order.
    let per_file: Vec<Vec<Diagnostic>> = files
        .par_iter_mut()
        .filter(|f| f.report)
        .map(|f| {
            let mut ds = std::mem::take(&mut f.diagnostics);
            // The file's own configuration (the nearest, with its
            // per-file ignores) decides, cross-module findings included.
            let path = std::path::Path::new(&*f.display);
            ds.retain(|d| config.is_enabled_for(path, d.rule));
            if stage == Stage::Full {
                ds = suppress::apply(ds, &mut f.directives);
                ds.extend(suppress::unused(
                    &f.directives,
                    config.for_path(path),
                    with_run,
                ));
                ds.retain(|d| config.is_enabled_for(path, d.rule));
            }
            // Sorted per file (files are in path order), so the sort of the
            // whole list below usually finds it in order already; a stable
            // sort of each part first gives the same order as sorting the
            // whole.
            diagnostic::sort(&mut ds);
            ds
        })
        .collect();
    let mut diagnostics = Vec::with_capacity(total);
    diagnostics.append(&mut loose);
    for mut ds in per_file {
        diagnostics.append(&mut ds);
    }
    files.retain(|f| f.report);
    diagnostics.retain(|d| config.is_enabled_for(std::path::Path::new(&*d.location.path), d.rule));
    diagnostic::sort(&mut diagnostics);
    diagnostics.dedup();
    merge_across_files(&mut diagnostics, config, &files);
    Outcome {
        files,
        diagnostics,
        run: analysis,
        context,
    }
}

/// Hands each rule that asks for it its findings of the whole run (see
/// [`rules::Rule::merge_across_files`]); the list stays in output order.
fn merge_across_files(diagnostics: &mut Vec<Diagnostic>, config: &Config, files: &[FileOutcome]) {
    let facts: Vec<(&str, &crate::project::facts::Facts)> = files
        .iter()
        .filter_map(|f| Some((&*f.display, f.facts.as_ref()?)))
        .collect();
    // Memoised per directory: a rule may ask for every file of a large tree.
    let roots: RefCell<HashMap<PathBuf, Option<PathBuf>>> = RefCell::new(HashMap::new());
    let project_of = |display: &str| -> Option<PathBuf> {
        let dir = Path::new(display).parent()?.to_path_buf();
        let mut roots = roots.borrow_mut();
        roots
            .entry(dir)
            .or_insert_with(|| crate::engine::discover::project_root(Path::new(display)))
            .clone()
    };
    let cx = rules::MergeContext {
        config,
        facts: &facts,
        project_of: &project_of,
    };
    for rule in rules::all().iter().filter(|r| r.merges_across_files()) {
        let id = rule.meta().id;
        if !diagnostics.iter().any(|d| d.rule == id) {
            continue;
        }
        let (own, rest): (Vec<Diagnostic>, Vec<Diagnostic>) = std::mem::take(diagnostics)
            .into_iter()
            .partition(|d| d.rule == id);
        *diagnostics = rest;
        diagnostics.extend(rule.merge_across_files(own, &cx));
        diagnostic::sort(diagnostics);
    }
}

/// Every enabled rule's `check_project`, in registry order.
fn cross_module_pass(project: &Project, config: &Config) -> Vec<Diagnostic> {
    // Cross-module rules only read the project: run them in parallel,
    // collecting in registry order so the output does not depend on
    // scheduling.
    let found: Vec<Vec<Diagnostic>> = rules::all()
        .par_iter()
        .map(|rule| {
            let meta = rule.meta();
            // Run when some file's configuration wants it; each finding is
            // then kept or dropped by its own file's.
            if meta.builtin || !config.any(|c| c.is_enabled(meta.id)) {
                return Vec::new();
            }
            let mut sink = ProjectSink::new(meta, config);
            match catch_unwind(AssertUnwindSafe(|| {
                inject::point(meta.id, "<project>");
                rule.check_project(project, config, &mut sink)
            })) {
                Ok(()) => sink.out,
                Err(p) => vec![Diagnostic::new(
                    "internal-error",
                    Severity::Error,
                    whole_file(Arc::from("<project>")),
                    format!(
                        "internal error in {} (cross-module pass): {}",
                        meta.id,
                        panic_message(&p)
                    ),
                )
                .with_help("this is a bug in proclint; please report it")],
            }
        })
        .collect();
    let mut out = Vec::with_capacity(found.iter().map(Vec::len).sum());
    for mut list in found {
        out.append(&mut list);
    }
    out
}
