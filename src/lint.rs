//! The engine: read → classify → parse → model → per-file rules and
//! summary, per file in parallel; then the cross-module pass over the
//! summaries, suppressions, and deterministic ordering.

use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rayon::prelude::*;

use crate::cache::{Cache, CachedRef};
use crate::config::Config;
use crate::diagnostic::{self, Diagnostic, Severity};
use crate::discover::{self, Candidate, FileKind};
use crate::facts::Facts;
use crate::inject;
use crate::js::{self, JsModel, ModelOptions};
use crate::manifest::package_json::PackageJson;
use crate::markdown::SkillMarkdown;
use crate::project::{self, ModuleSummary, Project};
use crate::rules::{
    self, JsContext, ManifestContext, ProjectSink, RuleSwitches, RunContext, Sink, SkillContext,
};
use crate::run_analysis::RunAnalysis;
use crate::runs::Run;
use crate::source::{self, SourceFile, Span};
use crate::suppress::{self, Directive};

/// How far to take each file (the benchmark compares the two).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Stage {
    /// Read and parse only.
    ParseOnly,
    #[default]
    Full,
}

/// What the per-file pass produced for one file.
#[derive(Debug, Clone)]
pub struct FileOutcome {
    pub display: Arc<str>,
    pub path: PathBuf,
    pub kind: FileKind,
    pub lines: usize,
    /// Findings are reported for this file (false for modules loaded only
    /// as context for cross-module rules).
    pub report: bool,
    pub diagnostics: Vec<Diagnostic>,
    pub directives: Vec<Directive>,
    pub summary: Option<Summary>,
    /// What the retrospective reports about the file.
    pub facts: Option<Facts>,
    /// Hash of the bytes that were linted (`--fix` refuses to overwrite a
    /// file that changed since).
    pub hash: Option<u64>,
    /// The result-cache key (`cache::Key::full`) this outcome was read from
    /// or stored under: the summary is a function of it, which is what lets
    /// the cross-module pass be cached.
    pub cache_key: Option<[u8; 32]>,
}

/// A process module's summary: built by this run, or read from the result
/// cache and decoded only if the cross-module pass needs it.
#[derive(Debug, Clone)]
pub enum Summary {
    Built(ModuleSummary),
    Stored(crate::cache::StoredSummary),
}

impl Summary {
    /// The module's key in the project index.
    pub fn key(&self) -> &Path {
        match self {
            Summary::Built(s) => &s.key,
            Summary::Stored(s) => &s.key,
        }
    }

    /// The module's relative import specifiers (built summaries also give
    /// the others).
    pub fn import_sources(&self) -> impl Iterator<Item = &str> + Clone {
        let (built, stored) = match self {
            Summary::Built(s) => (Some(s.imports.iter().map(|i| i.source.as_str())), None),
            Summary::Stored(s) => (None, Some(s.imports.iter().map(String::as_str))),
        };
        built
            .into_iter()
            .flatten()
            .chain(stored.into_iter().flatten())
    }

    /// The summary itself; `None` if a stored one does not decode.
    pub fn into_module(self) -> Option<ModuleSummary> {
        match self {
            Summary::Built(s) => Some(s),
            Summary::Stored(s) => s.decode(),
        }
    }
}

/// The result of a whole run.
#[derive(Debug, Default)]
pub struct Outcome {
    /// Files reported on (process modules, skills, manifests), by path.
    pub files: Vec<FileOutcome>,
    /// All diagnostics, sorted.
    pub diagnostics: Vec<Diagnostic>,
    /// The recorded run read against the project (`check --run`).
    pub run: Option<Box<RunAnalysis>>,
}

impl Outcome {
    pub fn count(&self, severity: Severity) -> usize {
        self.diagnostics
            .iter()
            .filter(|d| d.severity == severity)
            .count()
    }
}

/// Context modules are loaded at most this many import hops away.
const CONTEXT_ROUNDS: usize = 3;

/// Lints every file under `paths`.
pub fn run(paths: &[PathBuf], config: &Config, stage: Stage) -> Outcome {
    run_input(paths, None, config, stage)
}

/// Lints `paths`, plus, with `stdin`, a buffer as if it were the file at
/// that path. When only files are given (pre-commit, editors), the other
/// process modules of their project are loaded as context so cross-module
/// rules still see them; findings are reported only for the given files.
pub fn run_input(
    paths: &[PathBuf],
    stdin: Option<(PathBuf, String)>,
    config: &Config,
    stage: Stage,
) -> Outcome {
    run_input_with_run(paths, stdin, config, stage, None)
}

/// The worker pool every run uses. Model building and rule walks are
/// depth-bounded ([`js::model::MAX_DEPTH`]), but the bound is sized for a
/// generous stack: library callers (tests run on 2 MiB threads) get the
/// same 64 MiB worker stacks as the CLI. `RAYON_NUM_THREADS` is honoured.
pub fn pool() -> Option<&'static rayon::ThreadPool> {
    static POOL: std::sync::OnceLock<Option<rayon::ThreadPool>> = std::sync::OnceLock::new();
    POOL.get_or_init(|| {
        rayon::ThreadPoolBuilder::new()
            .stack_size(64 * 1024 * 1024)
            .thread_name(|i| format!("proclint-{i}"))
            .build()
            .ok()
    })
    .as_ref()
}

/// Runs `f` on a pool worker (see [`pool`]); on the calling thread if the
/// pool could not be built.
pub fn on_pool<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    match pool() {
        Some(p) => p.install(f),
        None => f(),
    }
}

/// [`run_input`], also reading a recorded run against the project: the run
/// rules report on it and the outcome carries the analysis for the
/// retrospective.
pub fn run_input_with_run(
    paths: &[PathBuf],
    stdin: Option<(PathBuf, String)>,
    config: &Config,
    stage: Stage,
    run: Option<Run>,
) -> Outcome {
    run_cached(paths, stdin, config, stage, run, None)
}

/// [`run_input_with_run`] with a result cache for process modules.
pub fn run_cached(
    paths: &[PathBuf],
    stdin: Option<(PathBuf, String)>,
    config: &Config,
    stage: Stage,
    run: Option<Run>,
    cache: Option<&Cache>,
) -> Outcome {
    on_pool(|| run_inner(paths, stdin, config, stage, run, cache))
}

fn run_inner(
    paths: &[PathBuf],
    stdin: Option<(PathBuf, String)>,
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
    if let Some((path, text)) = &stdin {
        let kind = discover::kind_by_name(path).unwrap_or(FileKind::Process);
        let display = discover::display_path(path);
        let file = SourceFile::new(display, text.clone());
        let key = project::module_key(path);
        files.retain(|f| project::module_key(&f.path) != key);
        files.push(analyse(&file, kind, config, stage, key.clone(), true));
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

/// The nearest ancestor of a file with `proclint.toml`, `package.json` or
/// `.git`: the project whose modules give a file its context.
pub fn project_root(file: &Path) -> Option<PathBuf> {
    let abs = project::module_key(file);
    let mut dir = abs.parent();
    while let Some(d) = dir {
        if ["proclint.toml", "package.json", ".git"]
            .iter()
            .any(|m| d.join(m).exists())
        {
            // Relative to the working directory, so context paths display
            // the way the user's own arguments do.
            let rel = std::env::current_dir()
                .ok()
                .and_then(|cwd| d.strip_prefix(cwd).ok().map(Path::to_path_buf));
            return Some(match rel {
                Some(r) if r.as_os_str().is_empty() => PathBuf::from("."),
                Some(r) => r,
                None => d.to_path_buf(),
            });
        }
        dir = d.parent();
    }
    None
}

/// JavaScript that process modules import but that was not linted (helper
/// modules without SDK markers, or files outside the given paths): parsed
/// for its summary; reported on only when it was inside the walked paths.
fn load_context_modules(
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

/// The key under which the cross-module pass over `files` (sorted) may be
/// cached: only when every module summary came from, or went into, the
/// result cache, so each is identified by its entry's key.
fn project_key(cache: &Cache, files: &[FileOutcome]) -> Option<[u8; 32]> {
    let mut modules = Vec::new();
    for f in files.iter().filter(|f| f.summary.is_some()) {
        modules.push((&*f.display, f.cache_key.as_ref()?));
    }
    Some(cache.project_key(modules.into_iter()))
}

/// [`finish_with_run`], with the cross-module pass's findings read from and
/// stored in `cache` (not with a recorded run: the run rules need the
/// project index itself).
fn finish_cached(
    mut files: Vec<FileOutcome>,
    mut extra: Vec<Diagnostic>,
    config: &Config,
    stage: Stage,
    run: Option<Run>,
    cache: Option<&Cache>,
) -> Outcome {
    files.sort_by(|a, b| a.display.cmp(&b.display));
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
            ds.retain(|d| config.is_enabled(d.rule));
            if stage == Stage::Full {
                ds = suppress::apply(ds, &mut f.directives);
                ds.extend(suppress::unused(&f.directives, config, with_run));
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
    diagnostics.retain(|d| config.is_enabled(d.rule));
    diagnostic::sort(&mut diagnostics);
    diagnostics.dedup();
    Outcome {
        files,
        diagnostics,
        run: analysis,
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
            if meta.builtin || !config.is_enabled(meta.id) {
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

/// Every enabled rule's `check_run`, a panicking rule becoming an
/// `internal-error` like in the other passes.
fn check_run_rules(analysis: &RunAnalysis, config: &Config, out: &mut Vec<Diagnostic>) {
    let cx = RunContext { analysis, config };
    for rule in rules::all() {
        let meta = rule.meta();
        if meta.builtin || !config.is_enabled(meta.id) {
            continue;
        }
        let mut sink = ProjectSink::new(meta, config);
        match catch_unwind(AssertUnwindSafe(|| rule.check_run(&cx, &mut sink))) {
            Ok(()) => out.append(&mut sink.out),
            Err(p) => out.push(
                Diagnostic::new(
                    "internal-error",
                    Severity::Error,
                    whole_file(Arc::from(analysis.run.rel_dir.as_str())),
                    format!(
                        "internal error in {} (run pass): {}",
                        meta.id,
                        panic_message(&p)
                    ),
                )
                .with_help("this is a bug in proclint; please report it"),
            ),
        }
    }
}

fn whole_file(path: Arc<str>) -> diagnostic::Location {
    let p = source::Pos { line: 1, column: 1 };
    diagnostic::Location {
        path,
        span: Span::default(),
        start: p,
        end: p,
    }
}

/// Reads and lints one discovered file. `None` for JavaScript that turns
/// out not to be process code. Never panics: every stage is guarded, and
/// this outer guard turns anything left (reading, decoding, the cache) into
/// an `internal-error` on the file.
pub fn lint_candidate(
    c: &Candidate,
    config: &Config,
    stage: Stage,
    report: bool,
) -> Option<FileOutcome> {
    lint_candidate_cached(c, config, stage, report, None)
}

pub(crate) fn lint_candidate_cached(
    c: &Candidate,
    config: &Config,
    stage: Stage,
    report: bool,
    cache: Option<&Cache>,
) -> Option<FileOutcome> {
    match catch_unwind(AssertUnwindSafe(|| {
        lint_candidate_inner(c, config, stage, report, cache)
    })) {
        Ok(o) => o,
        Err(p) => {
            let file = SourceFile::new(c.display.clone(), String::new());
            Some(FileOutcome {
                diagnostics: vec![internal(&file, "read", panic_message(&p))],
                ..empty_outcome(c, report)
            })
        }
    }
}

fn empty_outcome(c: &Candidate, report: bool) -> FileOutcome {
    FileOutcome {
        display: c.display.clone(),
        path: c.path.clone(),
        kind: c.kind,
        lines: 0,
        report,
        diagnostics: Vec::new(),
        directives: Vec::new(),
        summary: None,
        facts: None,
        hash: None,
        cache_key: None,
    }
}

fn lint_candidate_inner(
    c: &Candidate,
    config: &Config,
    stage: Stage,
    report: bool,
    cache: Option<&Cache>,
) -> Option<FileOutcome> {
    let note = |rule: &'static str, msg: String| FileOutcome {
        display: c.display.clone(),
        path: c.path.clone(),
        kind: c.kind,
        lines: 0,
        report,
        diagnostics: vec![Diagnostic::new(
            rule,
            config.severity_of(rule).unwrap_or(Severity::Info),
            whole_file(c.display.clone()),
            msg,
        )],
        directives: Vec::new(),
        summary: None,
        facts: None,
        hash: None,
        cache_key: None,
    };
    // The type is checked before reading: reading a FIFO (or a device)
    // would block forever or never end. Vanished files fail here or at the
    // read below and become an `io-error` note.
    let meta = match std::fs::metadata(&c.path) {
        Ok(m) => m,
        Err(e) => return Some(note("io-error", format!("cannot read: {e}"))),
    };
    if !meta.is_file() {
        return Some(note(
            "io-error",
            "cannot read: not a regular file".to_string(),
        ));
    }
    let size = meta.len();
    if size > config.max_file_size {
        return Some(note(
            "skipped-file",
            format!(
                "not linted: {} bytes is over max-file-size ({} bytes)",
                size, config.max_file_size
            ),
        ));
    }
    let bytes = match read_limited(&c.path, size, config.max_file_size) {
        Ok(b) => b,
        Err(e) => return Some(note("io-error", format!("cannot read: {e}"))),
    };
    inject::point("read", &c.display);
    let scan = !c.explicit || (config.scan_named_files && report);
    if c.kind == FileKind::Process && scan && !discover::looks_like_process(&bytes) {
        return None;
    }
    if memchr::memchr(0, &bytes).is_some() {
        return Some(note(
            "skipped-file",
            "not linted: the file contains NUL bytes (binary content)".into(),
        ));
    }
    let hash = source::content_hash(&bytes);
    let key = project::module_key(&c.path);
    // Process modules and skills are cached: their per-file results depend
    // on nothing but their own bytes and the config (see `cache.rs`), except
    // for the one skill rule that looks at other files, which is rerun.
    let cached = match (cache, c.kind, stage) {
        (Some(cache), FileKind::Process, Stage::Full) => {
            Some((cache, cache.key(&c.display, &key, report, &bytes)))
        }
        (Some(cache), FileKind::Skill, Stage::Full) if skill_cacheable(&c.display) => {
            Some((cache, cache.key(&c.display, &key, report, &bytes)))
        }
        _ => None,
    };
    if let Some((cache, k)) = &cached {
        if let Some(hit) = cache.get(k) {
            let mut diagnostics = hit.diagnostics;
            if c.kind == FileKind::Skill {
                let (text, _) = source::decode(bytes);
                let file = SourceFile::new(c.display.clone(), text);
                let mut links = lint_skill_where(&file, config, |id| id == SKILL_OUTSIDE_RULE);
                crate::fingerprint::stamp(&file, &[], &mut links);
                // In the order a full run has them (the rule is the first
                // skill rule in the registry), although the output is sorted.
                links.append(&mut diagnostics);
                diagnostics = links;
                diagnostics.shrink_to_fit();
            }
            return Some(FileOutcome {
                lines: hit.lines,
                diagnostics,
                directives: hit.directives,
                summary: hit.summary.map(Summary::Stored),
                facts: hit.facts,
                hash: Some(hash),
                cache_key: Some(k.full()),
                ..empty_outcome(c, report)
            });
        }
    }
    let (text, invalid_at) = source::decode(bytes);
    let file = SourceFile::new(c.display.clone(), text);
    let mut outcome = analyse(&file, c.kind, config, stage, key, report);
    outcome.path = c.path.clone();
    outcome.hash = Some(hash);
    if let Some(at) = invalid_at {
        outcome.diagnostics.push(Diagnostic::new(
            "parse-error",
            config.severity_of("parse-error").unwrap_or(Severity::Info),
            file.location(Span::new(at, at + 1)),
            "invalid UTF-8; the bad bytes were read as `?` for analysis",
        ));
    }
    if let Some((cache, k)) = &cached {
        // A run that hit a bug is not remembered: the next run retries.
        if !outcome
            .diagnostics
            .iter()
            .any(|d| d.rule == "internal-error")
        {
            outcome.cache_key = Some(k.full());
            // A skill's entry leaves out what the rule that looks at other
            // files found: it is rerun on every hit.
            let own: Vec<Diagnostic>;
            let diagnostics = if c.kind == FileKind::Skill {
                own = outcome
                    .diagnostics
                    .iter()
                    .filter(|d| d.rule != SKILL_OUTSIDE_RULE)
                    .cloned()
                    .collect();
                &own
            } else {
                &outcome.diagnostics
            };
            cache.put(
                k,
                &CachedRef {
                    lines: outcome.lines,
                    diagnostics,
                    directives: &outcome.directives,
                    summary: match &outcome.summary {
                        Some(Summary::Built(s)) => Some(s),
                        _ => None,
                    },
                    facts: outcome.facts.as_ref(),
                },
            );
        }
    }
    Some(outcome)
}

/// Reads a regular file, giving up past `limit` bytes (a file that grew
/// after its size was checked is still bounded). `size` is its size when
/// checked: the buffer is allocated once for it (growing it from empty
/// cost a reallocation, a copy and a read per doubling).
fn read_limited(path: &Path, size: u64, limit: u64) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let capacity = usize::try_from(size.min(limit)).map_or(0, |n| n.saturating_add(1));
    let mut bytes = Vec::with_capacity(capacity);
    std::fs::File::open(path)?
        .take(limit.saturating_add(1))
        .read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(std::io::Error::other(format!(
            "the file grew past max-file-size ({limit} bytes) while being read"
        )));
    }
    Ok(bytes)
}

/// The per-file pass over one file's text. Never panics: a panic outside
/// the per-stage guards becomes an `internal-error` on the file.
pub fn analyse(
    file: &SourceFile,
    kind: FileKind,
    config: &Config,
    stage: Stage,
    key: PathBuf,
    report: bool,
) -> FileOutcome {
    match catch_unwind(AssertUnwindSafe(|| {
        analyse_inner(file, kind, config, stage, key, report)
    })) {
        Ok(o) => o,
        Err(p) => FileOutcome {
            display: file.path.clone(),
            path: PathBuf::from(&*file.path),
            kind,
            lines: 0,
            report,
            diagnostics: vec![internal(file, "engine", panic_message(&p))],
            directives: Vec::new(),
            summary: None,
            facts: None,
            hash: None,
            cache_key: None,
        },
    }
}

fn analyse_inner(
    file: &SourceFile,
    kind: FileKind,
    config: &Config,
    stage: Stage,
    key: PathBuf,
    report: bool,
) -> FileOutcome {
    let (mut diagnostics, summary, facts) = match kind {
        FileKind::Process => lint_js(file, config, stage, key, report),
        FileKind::Skill => (lint_skill(file, config, stage), None, Some(Facts::Skill)),
        FileKind::Manifest => {
            let (d, f) = lint_manifest(file, config, stage, &key);
            (d, None, f)
        }
    };
    // Process modules were stamped with their function scopes in lint_js;
    // this covers the notes and the other kinds.
    crate::fingerprint::stamp(file, &[], &mut diagnostics);
    // Kept until the cross-module pass: no spare capacity.
    diagnostics.shrink_to_fit();
    let directives = if stage == Stage::Full {
        suppress::parse(file)
    } else {
        Vec::new()
    };
    FileOutcome {
        display: file.path.clone(),
        path: PathBuf::from(&*file.path),
        kind,
        lines: file.lines.line_count(&file.text),
        report,
        diagnostics,
        directives,
        summary: summary.map(Summary::Built),
        facts,
        hash: None,
        cache_key: None,
    }
}

fn lint_js(
    file: &SourceFile,
    config: &Config,
    stage: Stage,
    key: PathBuf,
    report: bool,
) -> (Vec<Diagnostic>, Option<ModuleSummary>, Option<Facts>) {
    let mut out = Vec::new();
    let parsed = catch_unwind(AssertUnwindSafe(|| {
        inject::point("parser", &file.path);
        js::parse::parse(&file.text)
    }));
    let tree = match parsed {
        Ok(Some(tree)) => tree,
        Ok(None) => {
            out.push(internal(
                file,
                "parser",
                "tree-sitter returned no tree".into(),
            ));
            return (out, None, None);
        }
        Err(p) => {
            out.push(internal(file, "parser", panic_message(&p)));
            return (out, None, None);
        }
    };
    if stage == Stage::ParseOnly {
        return (out, None, None);
    }
    let options = ModelOptions {
        context_names: config.context_names.clone(),
    };
    let built = catch_unwind(AssertUnwindSafe(|| {
        inject::point("model", &file.path);
        JsModel::build(file, &tree, &options)
    }));
    let model = match built {
        Ok(m) => m,
        Err(p) => {
            out.push(internal(file, "model", panic_message(&p)));
            return (out, None, None);
        }
    };
    if let Some(first) = model.syntax_errors.first() {
        let more = model.syntax_errors.len() - 1;
        let suffix = if more > 0 {
            format!(" (and {more} more)")
        } else {
            String::new()
        };
        out.push(
            Diagnostic::new(
                "parse-error",
                config.severity_of("parse-error").unwrap_or(Severity::Info),
                file.location(*first),
                format!("syntax error{suffix}; the rest of the file was still linted"),
            )
            .with_help("fix the syntax so every rule sees the whole file"),
        );
    }
    if let Some(span) = model.depth_limited {
        out.push(Diagnostic::new(
            "depth-limit",
            config.severity_of("depth-limit").unwrap_or(Severity::Info),
            file.location(Span::new(span.start, span.start)),
            format!(
                "nesting deeper than {} levels; code below this point was not analysed",
                js::model::MAX_DEPTH
            ),
        ));
    }
    let cx = JsContext {
        model: &model,
        file,
        config,
    };
    if report {
        out.append(&mut run_rules(file, config, |rule, sink| {
            rule.check_js(&cx, sink)
        }));
    }
    crate::fingerprint::stamp(file, &crate::fingerprint::js_scopes(&model), &mut out);
    let summary = match catch_unwind(AssertUnwindSafe(|| {
        inject::point("summary", &file.path);
        let mut s = js::summary::summarize(&model, key, report);
        let literals = rules::literals::filter(config);
        s.compact(|text| literals.keep(text));
        s
    })) {
        Ok(s) => Some(s),
        Err(p) => {
            out.push(internal(file, "summary", panic_message(&p)));
            None
        }
    };
    let facts = if report {
        match catch_unwind(AssertUnwindSafe(|| {
            inject::point("facts", &file.path);
            Facts::Process(Box::new(crate::facts::process_facts(&model)))
        })) {
            Ok(f) => Some(f),
            Err(p) => {
                out.push(internal(file, "facts", panic_message(&p)));
                None
            }
        }
    } else {
        None
    };
    (out, summary, facts)
}

/// package.json: a file that is not JSON gets one `parse-error` at the error, and no rule runs
/// (npm cannot read it either, so nothing else about it can be trusted).
fn lint_manifest(
    file: &SourceFile,
    config: &Config,
    stage: Stage,
    path: &Path,
) -> (Vec<Diagnostic>, Option<Facts>) {
    let parsed = catch_unwind(AssertUnwindSafe(|| {
        inject::point("manifest-parser", &file.path);
        PackageJson::parse(&file.text)
    }));
    let manifest = match parsed {
        Err(p) => {
            return (
                vec![internal(file, "manifest-parser", panic_message(&p))],
                None,
            )
        }
        Ok(Ok(m)) => m,
        Ok(Err(e)) => {
            let at = e.offset.min(file.text.len());
            let end = file.text[at..]
                .chars()
                .next()
                .map_or(at, |c| at + c.len_utf8());
            return (
                vec![Diagnostic::new(
                    "parse-error",
                    config.severity_of("parse-error").unwrap_or(Severity::Info),
                    file.location(Span::new(at, end)),
                    format!("package.json is not valid JSON: {}", e.message),
                )
                .with_help(
                    "npm cannot read this file either; fix the JSON syntax at this position",
                )],
                None,
            );
        }
    };
    if stage == Stage::ParseOnly {
        return (Vec::new(), None);
    }
    let cx = ManifestContext {
        manifest: &manifest,
        file,
        config,
    };
    let mut out = run_rules(file, config, |rule, sink| rule.check_manifest(&cx, sink));
    let facts = match catch_unwind(AssertUnwindSafe(|| {
        inject::point("facts", &file.path);
        crate::facts::manifest_facts(
            &manifest,
            file,
            path,
            &crate::rules::unpinned_sdk::sdk_packages(config),
        )
    })) {
        Ok(f) => Some(Facts::Manifest(f)),
        Err(p) => {
            out.push(internal(file, "facts", panic_message(&p)));
            None
        }
    };
    (out, facts)
}

/// The one skill rule whose findings depend on other files (whether link
/// targets exist, their headings): a skill's cache entry leaves its
/// findings out, and they are recomputed on every hit.
const SKILL_OUTSIDE_RULE: &str = "skill-broken-link";

/// Whether a skill's results may be cached: `skill-frontmatter` compares the
/// name with the folder, which for a path without a folder name (`SKILL.md`
/// in the working directory, `../SKILL.md`) is found by resolving the path
/// on disk.
fn skill_cacheable(display: &str) -> bool {
    Path::new(display)
        .parent()
        .and_then(Path::file_name)
        .is_some()
}

fn lint_skill(file: &SourceFile, config: &Config, stage: Stage) -> Vec<Diagnostic> {
    if stage == Stage::ParseOnly {
        let parsed = catch_unwind(AssertUnwindSafe(|| {
            inject::point("markdown-parser", &file.path);
            SkillMarkdown::parse(&file.text)
        }));
        return match parsed {
            Ok(_) => Vec::new(),
            Err(p) => vec![internal(file, "markdown-parser", panic_message(&p))],
        };
    }
    lint_skill_where(file, config, |_| true)
}

/// Parses a skill and runs the enabled skill rules `select` accepts.
fn lint_skill_where(
    file: &SourceFile,
    config: &Config,
    select: impl Fn(&str) -> bool,
) -> Vec<Diagnostic> {
    let parsed = catch_unwind(AssertUnwindSafe(|| {
        inject::point("markdown-parser", &file.path);
        SkillMarkdown::parse(&file.text)
    }));
    let skill = match parsed {
        Ok(s) => s,
        Err(p) => return vec![internal(file, "markdown-parser", panic_message(&p))],
    };
    let cx = SkillContext {
        skill: &skill,
        file,
        config,
    };
    run_rules_where(file, config, select, |rule, sink| {
        rule.check_skill(&cx, sink)
    })
}

/// Runs every enabled rule through `check`, turning a panicking rule into an
/// `internal-error` on this file instead of a crash.
fn run_rules(
    file: &SourceFile,
    config: &Config,
    check: impl Fn(&dyn rules::Rule, &mut Sink),
) -> Vec<Diagnostic> {
    run_rules_where(file, config, |_| true, check)
}

/// [`run_rules`] over the rules `select` accepts.
fn run_rules_where(
    file: &SourceFile,
    config: &Config,
    select: impl Fn(&str) -> bool,
    check: impl Fn(&dyn rules::Rule, &mut Sink),
) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    for rule in rules::all() {
        let meta = rule.meta();
        if meta.builtin || !config.is_enabled(meta.id) || !select(meta.id) {
            continue;
        }
        let mut sink = Sink::new(meta, config, file);
        match catch_unwind(AssertUnwindSafe(|| {
            inject::point(meta.id, &file.path);
            check(*rule, &mut sink)
        })) {
            Ok(()) => out.append(&mut sink.out),
            Err(p) => out.push(internal(file, meta.id, panic_message(&p))),
        }
    }
    out
}

pub(crate) fn internal(file: &SourceFile, stage: &str, message: String) -> Diagnostic {
    Diagnostic::new(
        "internal-error",
        Severity::Error,
        file.location(Span::default()),
        format!("internal error in {stage} on this file: {message}"),
    )
    .with_help("this is a bug in proclint; please report it with the file")
}

pub(crate) fn panic_message(p: &Box<dyn std::any::Any + Send>) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "panic".into()
    }
}

/// Lints in-memory files as one project (stdin, rule-doc examples, tests):
/// `(display path, kind, text)`.
pub fn lint_texts(inputs: Vec<(String, FileKind, String)>, config: &Config) -> Outcome {
    on_pool(|| lint_texts_inner(inputs, config))
}

fn lint_texts_inner(inputs: Vec<(String, FileKind, String)>, config: &Config) -> Outcome {
    let files = inputs
        .into_iter()
        .map(|(display, kind, text)| {
            let file = SourceFile::new(display.as_str(), text);
            let key = project::module_key(Path::new(&display));
            analyse(&file, kind, config, Stage::Full, key, true)
        })
        .collect();
    finish(files, Vec::new(), config, Stage::Full)
}

/// Lints one snippet as if it were a file at `display`.
pub fn lint_text(display: &str, kind: FileKind, text: String, config: &Config) -> Vec<Diagnostic> {
    lint_texts(vec![(display.to_string(), kind, text)], config).diagnostics
}

/// Kind of a path for stdin/explicit use.
pub fn kind_of(path: &Path) -> Option<FileKind> {
    discover::kind_by_name(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The skill rule whose findings a skill's cache entry leaves out is a
    /// registered skill rule.
    #[test]
    fn the_skill_rule_rerun_on_hits_exists() {
        let found = rules::all()
            .iter()
            .any(|r| r.meta().id == SKILL_OUTSIDE_RULE);
        assert!(found, "{SKILL_OUTSIDE_RULE} is not a rule");
        assert!(skill_cacheable("s/SKILL.md"));
        assert!(!skill_cacheable("SKILL.md"));
        assert!(!skill_cacheable("../SKILL.md"));
    }
}
