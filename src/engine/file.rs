//! One file's analysis, by kind: a process module is parsed, modelled,
//! checked by the per-file rules, summarised for the cross-module pass and
//! described for the retrospective; a package.json is parsed and checked;
//! a SKILL.md is parsed and checked. Every stage runs under a panic guard.
//! In: a [`SourceFile`] and its [`FileKind`]. Out: its [`FileOutcome`]
//! (findings, suppression directives, summary, facts).

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};

use super::{FileOutcome, Stage, Summary};
use crate::diagnostic::{Diagnostic, Severity};
use crate::engine::discover::FileKind;
use crate::engine::guard::{internal, panic_message};
use crate::engine::suppress;
use crate::js::syntax::oxc::LoadAs;
use crate::js::syntax::parse::SyntaxErrorKind;
use crate::js::{self, JsModel, ModelOptions};
use crate::manifest::package_json::PackageJson;
use crate::markdown::SkillMarkdown;
use crate::project::config::Config;
use crate::project::facts::Facts;
use crate::project::ModuleSummary;
use crate::rules::{self, JsContext, ManifestContext, RuleSwitches, Sink, SkillContext};
use crate::source::inject;
use crate::source::{SourceFile, Span};

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
    let options = Reparse {
        old: None,
        facts: report,
        keep_tree: false,
    };
    analyse_from(file, kind, config, stage, key, report, options).0
}

/// What an editor's buffer adds to [`analyse`]: the previous tree, already
/// edited, for an incremental parse, and whether to describe the file for
/// the retrospective (an editor never asks).
#[derive(Clone, Copy)]
pub struct Reparse<'a> {
    pub old: Option<&'a tree_sitter::Tree>,
    pub facts: bool,
    /// Give the parser's tree back (an editor re-parses from it); otherwise
    /// it is freed as soon as the analyses' own tree is built from it.
    pub keep_tree: bool,
}

/// [`analyse`] with a previous tree to re-parse from; gives back the new
/// tree of a process module (`None` for other kinds, or if the parse
/// failed), for the next edit.
pub fn analyse_from(
    file: &SourceFile,
    kind: FileKind,
    config: &Config,
    stage: Stage,
    key: PathBuf,
    report: bool,
    reparse: Reparse<'_>,
) -> (FileOutcome, Option<tree_sitter::Tree>) {
    match catch_unwind(AssertUnwindSafe(|| {
        analyse_inner(file, kind, config, stage, key, report, reparse)
    })) {
        Ok(o) => o,
        Err(p) => (
            FileOutcome {
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
                looked_up: Vec::new(),
            },
            None,
        ),
    }
}

fn analyse_inner(
    file: &SourceFile,
    kind: FileKind,
    config: &Config,
    stage: Stage,
    key: PathBuf,
    report: bool,
    reparse: Reparse<'_>,
) -> (FileOutcome, Option<tree_sitter::Tree>) {
    let mut tree = None;
    let mut comments = None;
    let mut looked_up = Vec::new();
    let (mut diagnostics, summary, facts) = match kind {
        FileKind::Process => {
            let (d, s, f, t, c, l) = lint_js(file, config, stage, key, report, reparse);
            tree = t;
            comments = c;
            looked_up = l;
            (d, s, f)
        }
        FileKind::Skill => (lint_skill(file, config, stage), None, Some(Facts::Skill)),
        FileKind::Manifest => {
            let (d, f) = lint_manifest(file, config, stage, &key);
            (d, None, f)
        }
    };
    // Process modules were stamped with their function scopes in lint_js;
    // this covers the notes and the other kinds.
    crate::engine::fingerprint::stamp(file, &[], &mut diagnostics);
    // Kept until the cross-module pass: no spare capacity.
    diagnostics.shrink_to_fit();
    // In a process module only the comments of its tree hold directives
    // (none without a tree); package.json has no comments.
    let directives = match kind {
        _ if stage != Stage::Full => Vec::new(),
        FileKind::Process => comments.map_or_else(Vec::new, |c| suppress::parse(file, Some(&c))),
        FileKind::Skill => suppress::parse(file, None),
        FileKind::Manifest => Vec::new(),
    };
    let outcome = FileOutcome {
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
        looked_up,
    };
    (outcome, tree)
}

type JsAnalysis = (
    Vec<Diagnostic>,
    Option<ModuleSummary>,
    Option<Facts>,
    Option<tree_sitter::Tree>,
    Option<suppress::JsComments>,
    // Paths the rules looked up on disk (`Sink::file_exists`).
    Vec<(PathBuf, bool)>,
);

/// Source size from which the parser's freed arena is returned to the
/// system before the model is built: a one-line 4 MB module's arena is
/// ≈ 16 bytes per source byte; below this size it does not matter.
const RELEASE_AFTER: usize = 1 << 20;

fn lint_js(
    file: &SourceFile,
    config: &Config,
    stage: Stage,
    key: PathBuf,
    report: bool,
    reparse: Reparse<'_>,
) -> JsAnalysis {
    let mut out = Vec::new();
    // The fast front end first, unless the caller re-parses incrementally
    // (the language server keeps tree-sitter's tree): it takes what oxc
    // accepts and writes tree-sitter's tree for it; anything else, and
    // every syntax error, goes to tree-sitter below.
    if !reparse.keep_tree && reparse.old.is_none() {
        let fast = catch_unwind(AssertUnwindSafe(|| {
            inject::point("parser", &file.path);
            js::syntax::oxc::parse(&file.text)
        }));
        if let Ok(Some(flat)) = fast {
            if stage == Stage::ParseOnly {
                return (out, None, None, None, None, Vec::new());
            }
            if file.text.len() >= RELEASE_AFTER {
                crate::engine::release_freed();
            }
            let parsed = Parsed { flat, tree: None };
            return analyse_tree(file, config, key, report, reparse.facts, out, parsed);
        }
    }
    let parsed = catch_unwind(AssertUnwindSafe(|| {
        inject::point("parser", &file.path);
        js::syntax::parse::parse_from(&file.text, reparse.old)
    }));
    let tree = match parsed {
        Ok(Some(tree)) => tree,
        Ok(None) => {
            out.push(internal(
                file,
                "parser",
                "tree-sitter returned no tree".into(),
            ));
            return (out, None, None, None, None, Vec::new());
        }
        Err(p) => {
            out.push(internal(file, "parser", panic_message(&p)));
            return (out, None, None, None, None, Vec::new());
        }
    };
    if stage == Stage::ParseOnly {
        return (out, None, None, Some(tree), None, Vec::new());
    }
    let copied = catch_unwind(AssertUnwindSafe(|| {
        js::syntax::tree::Tree::from_tree_sitter(&tree, &file.text)
    }));
    let flat = match copied {
        Ok(flat) => flat,
        Err(p) => {
            out.push(internal(file, "parser", panic_message(&p)));
            return (
                out,
                None,
                None,
                reparse.keep_tree.then_some(tree),
                None,
                Vec::new(),
            );
        }
    };
    let tree = if reparse.keep_tree {
        Some(tree)
    } else {
        drop(tree);
        None
    };
    let parsed = Parsed { flat, tree };
    analyse_tree(file, config, key, report, reparse.facts, out, parsed)
}

/// The analyses' tree and, when the caller keeps it, the parser's.
struct Parsed {
    flat: js::syntax::tree::Tree,
    tree: Option<tree_sitter::Tree>,
}

/// The model, rules and summary over the analyses' tree, whichever front
/// end wrote it; `tree` is the parser's, handed back to the caller.
fn analyse_tree(
    file: &SourceFile,
    config: &Config,
    key: PathBuf,
    report: bool,
    facts: bool,
    mut out: Vec<Diagnostic>,
    Parsed { flat, tree }: Parsed,
) -> JsAnalysis {
    let comments = suppress::mentions_directive(&file.text).then(|| js_comments(file, &flat));
    let options = ModelOptions {
        context_names: config.context_names.clone(),
    };
    let built = catch_unwind(AssertUnwindSafe(|| {
        inject::point("model", &file.path);
        JsModel::build(file, &flat, &options)
    }));
    let model = match built {
        Ok(m) => m,
        Err(p) => {
            out.push(internal(file, "model", panic_message(&p)));
            return (out, None, None, tree, comments, Vec::new());
        }
    };
    if let Some(d) = parse_error(file, config, &flat, &model) {
        out.push(d);
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
    let mut looked_up = Vec::new();
    if report {
        out.append(&mut run_rules_where(
            file,
            config,
            |_| true,
            &mut looked_up,
            |rule, sink| rule.check_js(&cx, sink),
        ));
    }
    crate::engine::fingerprint::stamp(
        file,
        &crate::engine::fingerprint::js_scopes(&model),
        &mut out,
    );
    let summary = match catch_unwind(AssertUnwindSafe(|| {
        inject::point("summary", &file.path);
        let mut s = js::summary::build::summarize(&model, key, report);
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
    let facts = if report && facts {
        match catch_unwind(AssertUnwindSafe(|| {
            inject::point("facts", &file.path);
            Facts::Process(Box::new(crate::project::facts::process_facts(&model)))
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
    drop(model);
    (out, summary, facts, tree, comments, looked_up)
}

/// Where the comments of a module are, and which of its lines continue the
/// line above (for its suppression directives).
fn js_comments(file: &SourceFile, flat: &js::syntax::tree::Tree) -> suppress::JsComments {
    let comments = flat
        .nodes()
        .filter(|n| n.kind_str() == "comment")
        .map(js::syntax::span)
        .collect();
    let mut continued: Vec<u32> = js::syntax::continued_line_starts(flat, &file.text)
        .into_iter()
        .map(|at| file.pos(at).line)
        .collect();
    continued.dedup();
    suppress::JsComments {
        comments,
        continued,
    }
}

/// The `parse-error` of a process module: what stops Node loading it, as
/// oxc reports it (the parser, then ECMAScript's early errors: a name
/// declared twice, `await` outside async code…), judged as Node would load
/// this file (`load_as`), whichever parser wrote the tree; or, where oxc
/// cannot judge the text, tree-sitter's first syntax error. A syntax error
/// tree-sitter reports in a text Node loads is its grammar's, not Node's.
fn parse_error(
    file: &SourceFile,
    config: &Config,
    flat: &js::syntax::tree::Tree,
    model: &JsModel,
) -> Option<Diagnostic> {
    let severity = config.severity_of("parse-error").unwrap_or(Severity::Error);
    let load_as = super::load_as::load_as(Path::new(&*file.path));
    let load = js::syntax::oxc::load_error(&file.text, load_as);
    let first = model.syntax_errors.first();
    let kind = first.map(|f| js::syntax::parse::describe_syntax_error(flat, &file.text, f.start));
    let error = match load {
        Some(Ok(())) => return None,
        Some(Err(e)) if !matches!(kind, Some(SyntaxErrorKind::TemplateBacktick { .. })) => e,
        _ => {
            let first = first?;
            return Some(tree_sitter_error(file, severity, model, *first, kind?));
        }
    };
    let mut message = error.message.trim_end_matches('.').to_string();
    // oxc does not say which token: the text it points at does.
    let token = file.text.get(error.span.0..error.span.1).unwrap_or("");
    if message == "Unexpected token"
        && !token.is_empty()
        && token.len() <= 20
        && !token.contains('\n')
    {
        message = format!("Unexpected token `{token}`");
    }
    let check = match load_as {
        LoadAs::CommonJs => "`node --check FILE`",
        LoadAs::Module | LoadAs::Either => "`node --input-type=module --check < FILE`",
    };
    let mut d = Diagnostic::new(
        "parse-error",
        severity,
        file.location(Span::new(error.span.0, error.span.1)),
        format!(
            "{message}: Node refuses to load this module, so the process fails before its first \
             effect"
        ),
    )
    .with_help(match &error.help {
        Some(advice) => format!("{}; {check} prints Node's own message", advice.trim_end()),
        None => format!("fix it; {check} prints Node's own message"),
    });
    for ((start, end), label) in error.related {
        let label = label.unwrap_or_else(|| "related".into());
        d = d.with_related(file.location(Span::new(start, end)), label);
    }
    Some(d)
}

/// Tree-sitter's first syntax error, where oxc does not judge the text or
/// a backtick that ended a template literal early explains it better.
fn tree_sitter_error(
    file: &SourceFile,
    severity: Severity,
    model: &JsModel,
    first: Span,
    kind: SyntaxErrorKind,
) -> Diagnostic {
    let more = model.syntax_errors.len() - 1;
    let suffix = if more > 0 {
        format!(" (and {more} more)")
    } else {
        String::new()
    };
    let (message, help) = match kind {
        SyntaxErrorKind::TemplateBacktick { template_line } => {
            let from = if template_line > 0 {
                format!(" that starts on line {template_line}")
            } else {
                String::new()
            };
            (
                format!(
                    "syntax error{suffix}: a backtick ends the template literal{from} early \
                     (Markdown code in a prompt?), so Node cannot load this module and the \
                     process fails before its first effect"
                ),
                "escape backticks inside the template literal as \\` (or build that text with \
                 single quotes)",
            )
        }
        SyntaxErrorKind::Plain => (
            format!(
                "syntax error{suffix}: Node cannot load this module, so the process fails \
                 before its first effect; proclint linted what parsed"
            ),
            "fix the syntax (`node --check FILE` shows Node's own message)",
        ),
    };
    Diagnostic::new("parse-error", severity, file.location(first), message).with_help(help)
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
        crate::project::facts::manifest_facts(
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
pub(super) fn lint_skill_where(
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
    run_rules_where(file, config, select, &mut Vec::new(), |rule, sink| {
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
    run_rules_where(file, config, |_| true, &mut Vec::new(), check)
}

/// [`run_rules`] over the rules `select` accepts.
fn run_rules_where(
    file: &SourceFile,
    config: &Config,
    select: impl Fn(&str) -> bool,
    looked_up: &mut Vec<(PathBuf, bool)>,
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
            Ok(()) => {
                out.append(&mut sink.out);
                looked_up.append(&mut sink.looked_up);
            }
            Err(p) => out.push(internal(file, meta.id, panic_message(&p))),
        }
    }
    out
}
