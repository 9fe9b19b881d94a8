//! The engine: read → classify → parse → model → rules → suppressions, per
//! file in parallel, then deterministic ordering.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use rayon::prelude::*;

use crate::config::Config;
use crate::diagnostic::{self, Diagnostic, Severity};
use crate::discover::{self, Candidate, FileKind};
use crate::js::{self, JsModel, ModelOptions};
use crate::rules::{self, JsContext, Sink};
use crate::source::{self, SourceFile, Span};
use crate::suppress;

/// How far to take each file (the benchmark compares the two).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Stage {
    /// Read and parse only.
    ParseOnly,
    #[default]
    Full,
}

/// What linting one file produced.
#[derive(Debug, Clone)]
pub struct FileOutcome {
    pub display: Arc<str>,
    pub path: PathBuf,
    pub kind: FileKind,
    pub lines: usize,
    pub diagnostics: Vec<Diagnostic>,
}

/// The result of a whole run.
#[derive(Debug, Default)]
pub struct Outcome {
    /// Files linted (process modules, skills, manifests), by path.
    pub files: Vec<FileOutcome>,
    /// All diagnostics, sorted.
    pub diagnostics: Vec<Diagnostic>,
}

impl Outcome {
    pub fn count(&self, severity: Severity) -> usize {
        self.diagnostics
            .iter()
            .filter(|d| d.severity == severity)
            .count()
    }
}

/// Lints every file under `paths`.
pub fn run(paths: &[PathBuf], config: &Config, stage: Stage) -> Outcome {
    let (candidates, walk_errors) = discover::discover(paths, config);
    let mut files: Vec<FileOutcome> = candidates
        .par_iter()
        .filter_map(|c| lint_candidate(c, config, stage))
        .collect();
    let mut diagnostics: Vec<Diagnostic> = files
        .iter_mut()
        .flat_map(|f| std::mem::take(&mut f.diagnostics))
        .collect();
    for e in walk_errors {
        let path: Arc<str> = Arc::from(e.path.as_str());
        diagnostics.push(Diagnostic::new(
            "io-error",
            config.severity_of("io-error").unwrap_or(Severity::Warning),
            whole_file(path),
            format!("cannot read: {}", e.message),
        ));
    }
    diagnostics.retain(|d| config.is_enabled(d.rule));
    diagnostic::sort(&mut diagnostics);
    Outcome { files, diagnostics }
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
/// out not to be process code.
pub fn lint_candidate(c: &Candidate, config: &Config, stage: Stage) -> Option<FileOutcome> {
    let note = |rule: &'static str, msg: String| FileOutcome {
        display: c.display.clone(),
        path: c.path.clone(),
        kind: c.kind,
        lines: 0,
        diagnostics: vec![Diagnostic::new(
            rule,
            config.severity_of(rule).unwrap_or(Severity::Info),
            whole_file(c.display.clone()),
            msg,
        )],
    };
    let size = std::fs::metadata(&c.path).map(|m| m.len()).unwrap_or(0);
    if size > config.max_file_size {
        return Some(note(
            "skipped-file",
            format!(
                "not linted: {} bytes is over max-file-size ({} bytes)",
                size, config.max_file_size
            ),
        ));
    }
    let bytes = match std::fs::read(&c.path) {
        Ok(b) => b,
        Err(e) => return Some(note("io-error", format!("cannot read: {e}"))),
    };
    if c.kind == FileKind::Process && !c.explicit && !discover::looks_like_process(&bytes) {
        return None;
    }
    if memchr::memchr(0, &bytes).is_some() {
        return Some(note(
            "skipped-file",
            "not linted: the file contains NUL bytes (binary content)".into(),
        ));
    }
    let (text, invalid_at) = source::decode(bytes);
    let file = SourceFile::new(c.display.clone(), text);
    let mut diagnostics = lint_source(&file, c.kind, config, stage);
    if let Some(at) = invalid_at {
        diagnostics.push(Diagnostic::new(
            "parse-error",
            config.severity_of("parse-error").unwrap_or(Severity::Info),
            file.location(Span::new(at, at + 1)),
            "invalid UTF-8; the bad bytes were read as `?` for analysis",
        ));
    }
    Some(FileOutcome {
        display: c.display.clone(),
        path: c.path.clone(),
        kind: c.kind,
        lines: file.lines.line_count(&file.text),
        diagnostics,
    })
}

/// Lints one file's text (also used for stdin and the rule-doc examples).
pub fn lint_source(
    file: &SourceFile,
    kind: FileKind,
    config: &Config,
    stage: Stage,
) -> Vec<Diagnostic> {
    let mut diagnostics = match kind {
        FileKind::Process => lint_js(file, config, stage),
        FileKind::Skill => lint_markdown(file, config, stage),
        FileKind::Manifest => Vec::new(),
    };
    if stage == Stage::ParseOnly {
        return diagnostics;
    }
    diagnostics.retain(|d| config.is_enabled(d.rule));
    let mut directives = suppress::parse(file);
    let mut kept = suppress::apply(diagnostics, &mut directives);
    kept.extend(suppress::unused(&directives, file, config));
    kept
}

fn lint_js(file: &SourceFile, config: &Config, stage: Stage) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    let parsed = catch_unwind(AssertUnwindSafe(|| js::parse::parse(&file.text)));
    let tree = match parsed {
        Ok(Some(tree)) => tree,
        Ok(None) => {
            out.push(internal(
                file,
                "parser",
                "tree-sitter returned no tree".into(),
            ));
            return out;
        }
        Err(p) => {
            out.push(internal(file, "parser", panic_message(&p)));
            return out;
        }
    };
    if stage == Stage::ParseOnly {
        return out;
    }
    let options = ModelOptions {
        context_names: config.context_names.clone(),
    };
    let built = catch_unwind(AssertUnwindSafe(|| JsModel::build(file, &tree, &options)));
    let model = match built {
        Ok(m) => m,
        Err(p) => {
            out.push(internal(file, "process model", panic_message(&p)));
            return out;
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
    for rule in rules::all() {
        let meta = rule.meta();
        if meta.builtin || !config.is_enabled(meta.id) {
            continue;
        }
        let mut sink = Sink::new(meta, config, file);
        match catch_unwind(AssertUnwindSafe(|| rule.check_js(&cx, &mut sink))) {
            Ok(()) => out.append(&mut sink.out),
            Err(p) => out.push(internal(file, meta.id, panic_message(&p))),
        }
    }
    out
}

fn lint_markdown(file: &SourceFile, config: &Config, stage: Stage) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    if stage == Stage::ParseOnly {
        return out;
    }
    for rule in rules::all() {
        let meta = rule.meta();
        if meta.builtin || !config.is_enabled(meta.id) {
            continue;
        }
        let mut sink = Sink::new(meta, config, file);
        match catch_unwind(AssertUnwindSafe(|| {
            rule.check_markdown(file, config, &mut sink)
        })) {
            Ok(()) => out.append(&mut sink.out),
            Err(p) => out.push(internal(file, meta.id, panic_message(&p))),
        }
    }
    out
}

fn internal(file: &SourceFile, stage: &str, message: String) -> Diagnostic {
    Diagnostic::new(
        "internal-error",
        Severity::Error,
        file.location(Span::default()),
        format!("internal error in {stage} on this file: {message}"),
    )
    .with_help("this is a bug in proclint; please report it with the file")
}

fn panic_message(p: &Box<dyn std::any::Any + Send>) -> String {
    if let Some(s) = p.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = p.downcast_ref::<String>() {
        s.clone()
    } else {
        "panic".into()
    }
}

/// Lints a snippet as if it were a file at `display` (stdin, rule docs).
pub fn lint_text(display: &str, kind: FileKind, text: String, config: &Config) -> Vec<Diagnostic> {
    let file = SourceFile::new(display, text);
    let mut d = lint_source(&file, kind, config, Stage::Full);
    diagnostic::sort(&mut d);
    d
}

/// Kind of a path for stdin/explicit use.
pub fn kind_of(path: &Path) -> Option<FileKind> {
    discover::kind_by_name(path)
}
