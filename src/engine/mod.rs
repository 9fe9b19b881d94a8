//! The engine: every stage between the paths a command names and the
//! sorted findings a report prints.
//!
//! In: paths (or in-memory texts), a [`Config`], a [`Stage`], optionally a
//! recorded [`Run`] and a result [`Cache`]. Out: an [`Outcome`]: the files
//! reported on and every diagnostic, in output order.
//!
//! By stage: `schedule` walks and batches the files over the worker pool
//! and loads context modules; `read` reads one candidate (or answers it
//! from the cache, `cached`); `file` is one file's analysis (parse,
//! model, per-file rules, summary, facts); `project_pass` is the
//! cross-module pass, run rules (`runs`), suppressions and ordering;
//! `guard` turns a panic in any stage into an `internal-error` finding.
//! `open` is the same for a buffer open in an editor: re-parsed from its
//! edited tree, and linted with a project held in memory.
//! [`run_select`] picks the recorded run `check --run` reads.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::diagnostic::{Diagnostic, Severity};
use crate::engine::cache::Cache;
use crate::engine::discover::{Candidate, FileKind};
use crate::engine::suppress::Directive;
use crate::project::config::Config;
use crate::project::facts::Facts;
use crate::project::run_analysis::RunAnalysis;
use crate::project::{self, ModuleSummary};
use crate::runs::Run;
use crate::source::SourceFile;

pub mod baseline;
pub mod cache;
mod cached;
pub mod discover;
mod file;
pub mod fingerprint;
pub mod fix;
mod guard;
mod load_as;
pub mod open;
mod project_pass;
mod read;
pub mod run_select;
mod runs;
mod schedule;
pub mod settings;
pub mod suppress;

pub use discover::project_root;
pub use file::{analyse, analyse_from, Reparse};
pub(crate) use guard::{internal, panic_message};
pub use project_pass::{finish, finish_with_run};
pub use read::lint_candidate;

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
    /// Paths whose existence the per-file findings depend on, with whether
    /// each existed (see [`crate::rules::Sink::file_exists`]).
    pub looked_up: Vec<(PathBuf, bool)>,
}

impl FileOutcome {
    /// An outcome with no findings yet: for a file read but not analysed,
    /// or the base the cache and the per-file pass fill in.
    pub(crate) fn empty(c: &Candidate, report: bool) -> FileOutcome {
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
            looked_up: Vec::new(),
        }
    }

    /// The outcome as another module's context: its summary (decoded),
    /// unreported, without findings or directives (which only the reported
    /// file's pass reads).
    pub fn into_context(mut self) -> FileOutcome {
        self.report = false;
        self.diagnostics = Vec::new();
        self.directives = Vec::new();
        self.facts = None;
        self.summary = self.summary.and_then(Summary::into_module).map(|mut s| {
            s.report = false;
            Summary::Built(s)
        });
        self
    }

    /// [`FileOutcome::empty`] for the file of another outcome.
    pub(crate) fn empty_like(f: &FileOutcome) -> FileOutcome {
        FileOutcome {
            display: f.display.clone(),
            path: f.path.clone(),
            kind: f.kind,
            lines: f.lines,
            report: f.report,
            diagnostics: Vec::new(),
            directives: Vec::new(),
            summary: None,
            facts: None,
            hash: f.hash,
            cache_key: f.cache_key,
            looked_up: Vec::new(),
        }
    }
}

/// A process module's summary: built by this run, or read from the result
/// cache and decoded only if the cross-module pass needs it.
#[derive(Debug, Clone)]
pub enum Summary {
    Built(ModuleSummary),
    Stored(crate::engine::cache::StoredSummary),
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
    /// Every module of the run as cross-module context (unreported, with
    /// its summary), when the config asked to keep them
    /// ([`Config::keep_summaries`]): what a fix's re-lint puts beside the
    /// fixed module.
    pub context: Option<Vec<FileOutcome>>,
}

impl Outcome {
    pub fn count(&self, severity: Severity) -> usize {
        self.diagnostics
            .iter()
            .filter(|d| d.severity == severity)
            .count()
    }
}

/// Returns memory the allocator holds freed to the system; set by the
/// binary, which chose the allocator (`main.rs`).
static RELEASE_FREED: std::sync::OnceLock<fn()> = std::sync::OnceLock::new();

/// Sets what [`release_freed`] calls.
pub fn set_release_freed(f: fn()) {
    let _ = RELEASE_FREED.set(f);
}

/// After a large file's parser arena is dropped: mimalloc keeps freed
/// memory for a while before returning it, and the model built next does
/// not reuse the arena's huge blocks, so the two would count at once.
fn release_freed() {
    if let Some(f) = RELEASE_FREED.get() {
        f();
    }
}

/// Lints every file under `paths`.
pub fn run(paths: &[PathBuf], config: &Config, stage: Stage) -> Outcome {
    run_input(paths, None, config, stage)
}

/// Lints `paths`, plus, with `stdin`, a buffer as if it were the file at
/// that path (the same bytes on disk give the same findings). When only files are given (pre-commit, editors), the other
/// process modules of their project are loaded as context so cross-module
/// rules still see them; findings are reported only for the given files.
pub fn run_input(
    paths: &[PathBuf],
    stdin: Option<(PathBuf, Vec<u8>)>,
    config: &Config,
    stage: Stage,
) -> Outcome {
    run_input_with_run(paths, stdin, config, stage, None)
}

/// The worker pool every run uses. Model building and rule walks are
/// depth-bounded ([`crate::js::model::MAX_DEPTH`]), but the bound is sized for a
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
    stdin: Option<(PathBuf, Vec<u8>)>,
    config: &Config,
    stage: Stage,
    run: Option<Run>,
) -> Outcome {
    run_cached(paths, stdin, config, stage, run, None)
}

/// [`run_input_with_run`] with a result cache for process modules.
pub fn run_cached(
    paths: &[PathBuf],
    stdin: Option<(PathBuf, Vec<u8>)>,
    config: &Config,
    stage: Stage,
    run: Option<Run>,
    cache: Option<&Cache>,
) -> Outcome {
    on_pool(|| schedule::run_inner(paths, stdin, config, stage, run, cache))
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
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;

    static RELEASED: AtomicUsize = AtomicUsize::new(0);

    /// The binary's hook returns the parser's freed arena after a module
    /// of 1 MiB or more, and is not paid for on small ones. (The hook is
    /// process-wide: no other unit test lints a module that large.)
    #[test]
    fn freed_memory_is_released_after_a_large_parse_only() {
        set_release_freed(|| {
            RELEASED.fetch_add(1, Ordering::SeqCst);
        });
        let config = Config::default();
        let head = "export async function process(inputs, ctx) {\n";
        lint_text("s.js", FileKind::Process, format!("{head}}}\n"), &config);
        assert_eq!(RELEASED.load(Ordering::SeqCst), 0);
        let body = format!("  // {}\n", "x".repeat(1 << 20));
        assert!(body.len() >= 1 << 20);
        lint_text(
            "l.js",
            FileKind::Process,
            format!("{head}{body}}}\n"),
            &config,
        );
        assert_eq!(RELEASED.load(Ordering::SeqCst), 1);
    }
}
