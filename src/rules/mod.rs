//! The rule registry. Each rule lives in its own file and declares its
//! metadata and its checks; the engine hands every rule the models built
//! once per file.

use std::fmt;

use crate::diagnostic::{Diagnostic, Location, Severity};
use crate::js::JsModel;
use crate::manifest::package_json::PackageJson;
use crate::markdown::SkillMarkdown;
use crate::project::config::{Config, KnownRules};
use crate::project::Project;
pub use crate::source::names::name_words;
use crate::source::{SourceFile, Span};

pub mod agent_verification;
pub mod anonymous_breakpoint;
pub mod builtin;
pub mod colliding_effect_key;
pub mod convergence;
pub mod exhausted_retry_unhandled;
pub mod git_in_agent_task;
pub mod invalid_task_definition;
pub mod invalid_task_invocation;
pub mod journal_integrity;
pub mod literals;
pub mod misplaced_breakpoint_option;
pub mod missing_labels;
pub mod missing_output_schema;
pub mod missing_stable_key;
pub mod node_task_kind;
pub mod non_convergent_loop;
pub mod nondeterministic_process;
pub mod parallel_map_index;
pub mod parallel_thunk;
pub mod parallel_without_isolation;
pub mod parallelizable_tasks;
pub mod promise_combinator_effect;
pub mod rejection_feedback_dropped;
pub mod retry_without_history;
pub mod shadowed_process_global;
pub mod side_effect_outside_task;
pub mod skill_broken_link;
pub mod skill_frontmatter;
pub mod swallowed_effect_signal;
pub mod unbounded_loop;
pub mod unbounded_loop_instruction;
pub mod unchecked_breakpoint;
pub mod unchecked_shell_result;
pub mod undeclared_output_field;
pub mod undefined_reference;
pub mod unknown_context_method;
pub mod unpinned_sdk;
pub mod unresolved_placeholder;
pub mod unused_output_field;

/// The process-quality criteria a retrospective grades.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Area {
    RuntimeCorrectness,
    Determinism,
    EffectGranularity,
    Idempotency,
    BreakpointDiscipline,
    ErrorSurfacing,
    Labels,
    ReUse,
    SkillHygiene,
    Dependencies,
    /// proclint's own notes (parse errors, suppressions).
    Tooling,
    /// What a recorded run shows (`check --run`): journal integrity, loop
    /// convergence. Not graded: one run is evidence about that run, and a
    /// process-only report must not claim a criterion it never looked at.
    Run,
}

impl Area {
    pub const GRADED: [Area; 10] = [
        Area::RuntimeCorrectness,
        Area::Determinism,
        Area::EffectGranularity,
        Area::Idempotency,
        Area::BreakpointDiscipline,
        Area::ErrorSurfacing,
        Area::Labels,
        Area::ReUse,
        Area::SkillHygiene,
        Area::Dependencies,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Area::RuntimeCorrectness => "Runtime correctness",
            Area::Determinism => "Determinism",
            Area::EffectGranularity => "Effect granularity",
            Area::Idempotency => "Idempotency",
            Area::BreakpointDiscipline => "Breakpoint discipline",
            Area::ErrorSurfacing => "Error surfacing",
            Area::Labels => "Labels",
            Area::ReUse => "Re-use",
            Area::SkillHygiene => "Skill hygiene",
            Area::Dependencies => "Dependencies",
            Area::Tooling => "Tooling",
            Area::Run => "Run evidence",
        }
    }
}

impl fmt::Display for Area {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// What kind of problem a rule finds, which decides whether it runs by
/// default (oxlint's categories, zizmor's personas). The default set is what
/// is worth acting on; the rest is one `--select`/`extend-select` away.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Category {
    /// The process will not load, will throw, or does the wrong thing. On.
    Correctness,
    /// Very likely wrong or fragile; worth a look. On.
    Suspicious,
    /// Opinionated or lower-precision checks for a review. Off by default.
    Pedantic,
    /// Findings about a recorded run (`check --run`). On (silent without a run).
    Run,
    /// proclint's own notes (parse errors, suppressions). Always on.
    Tooling,
}

impl Category {
    pub const ALL: [Category; 5] = [
        Category::Correctness,
        Category::Suspicious,
        Category::Pedantic,
        Category::Run,
        Category::Tooling,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Category::Correctness => "correctness",
            Category::Suspicious => "suspicious",
            Category::Pedantic => "pedantic",
            Category::Run => "run",
            Category::Tooling => "tooling",
        }
    }

    pub fn on_by_default(self) -> bool {
        !matches!(self, Category::Pedantic)
    }

    pub fn parse(name: &str) -> Option<Category> {
        Category::ALL.into_iter().find(|c| c.name() == name)
    }
}

/// `all` and the category names, accepted by `--select`, `--extend-select`,
/// `--ignore` and `extend-select` besides rule ids.
pub fn is_group(name: &str) -> bool {
    name == "all" || Category::parse(name).is_some()
}

/// Whether a selector (a rule id, a category name or `all`) names a rule.
fn selects(selector: &str, m: &RuleMeta) -> bool {
    selector == "all" || selector == m.id || Category::parse(selector) == Some(m.category)
}

/// Static description of a rule.
#[derive(Debug)]
pub struct RuleMeta {
    /// Kebab-case id that reads as the bad pattern.
    pub id: &'static str,
    /// One sentence, used as the SARIF short description.
    pub summary: &'static str,
    pub severity: Severity,
    pub area: Area,
    pub category: Category,
    /// The Markdown doc, compiled in from `rules/<id>.md`.
    pub doc: &'static str,
    /// Built-in notes produced by the engine rather than a check.
    pub builtin: bool,
    /// Option keys accepted in `[rules.<id>]` besides `severity`.
    pub options: &'static [&'static str],
    /// Whether its findings carry a fix (`proclint rules`' Fix column);
    /// tests/fix_availability.rs holds it to what the fixtures show.
    pub fix: FixAvailability,
}

/// Whether a rule's findings carry a fix, as ruff's rule table says it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FixAvailability {
    /// No finding of the rule has a fix.
    Never,
    /// Some findings do: the fix is offered only where the code determines
    /// it (the rule's doc says when).
    Sometimes,
    /// Every finding does.
    Always,
}

impl FixAvailability {
    pub fn name(self) -> &'static str {
        match self {
            FixAvailability::Never => "never",
            FixAvailability::Sometimes => "sometimes",
            FixAvailability::Always => "always",
        }
    }
}

/// What a rule sees of one process module.
pub struct JsContext<'a, 't> {
    pub model: &'a JsModel<'t>,
    pub file: &'a SourceFile,
    pub config: &'a Config,
}

/// What a rule sees of one package.json that parsed as JSON.
pub struct ManifestContext<'a> {
    pub manifest: &'a PackageJson,
    pub file: &'a SourceFile,
    pub config: &'a Config,
}

/// What a rule sees of a recorded run (`check --run`): the journal, the
/// loop trajectories and where each task id lives in the checked source.
pub struct RunContext<'a> {
    pub analysis: &'a crate::project::run_analysis::RunAnalysis,
    pub config: &'a Config,
}

/// What a rule sees of one Markdown file (a `SKILL.md` or another `.md`).
pub struct SkillContext<'a> {
    pub skill: &'a SkillMarkdown,
    pub file: &'a SourceFile,
    pub config: &'a Config,
}

impl SkillContext<'_> {
    /// Whether the file is a skill definition (`SKILL.md`, or `skill.md` as the reference
    /// validator also accepts), not some other Markdown file.
    pub fn is_skill_file(&self) -> bool {
        let name = std::path::Path::new(&*self.file.path)
            .file_name()
            .and_then(|n| n.to_str());
        matches!(name, Some("SKILL.md" | "skill.md"))
    }
}

/// A configured severity replaces whatever the rule chose per finding.
fn pick(overridden: bool, configured: Severity, chosen: Severity) -> Severity {
    if overridden {
        configured
    } else {
        chosen
    }
}

/// Whether configuration makes a rule's fixes safe (`Some(true)`, from
/// `extend-safe-fixes`) or unsafe (`Some(false)`, `extend-unsafe-fixes`).
/// The most specific selector wins — the rule's id over its category over
/// `all` — and unsafe at a tie, as in ruff.
pub fn fix_safety(config: &Config, m: &RuleMeta) -> Option<bool> {
    let rank = |s: &String| {
        if s == m.id {
            3
        } else if Category::parse(s) == Some(m.category) {
            2
        } else if s == "all" {
            1
        } else {
            0
        }
    };
    let safe = config.extend_safe_fixes.iter().map(rank).max().unwrap_or(0);
    let not = config
        .extend_unsafe_fixes
        .iter()
        .map(rank)
        .max()
        .unwrap_or(0);
    match (safe, not) {
        (0, 0) => None,
        (s, u) => Some(s > u),
    }
}

/// Applies [`fix_safety`]'s answer to a finding's fix.
fn set_safety(d: &mut Diagnostic, safety: Option<bool>) {
    if let (Some(safe), Some(fix)) = (safety, d.fix.as_mut()) {
        fix.safe = safe;
    }
}

/// Collects one rule's diagnostics for one file.
pub struct Sink<'a> {
    meta: &'static RuleMeta,
    /// See [`fix_safety`].
    safety: Option<bool>,
    /// Whether this rule's notes (info findings) are wanted: see
    /// [`RuleSwitches::wants_notes`].
    notes: bool,
    severity: Severity,
    /// Set when the config overrides the rule's severity: the override then
    /// also replaces severities the rule picks per finding.
    overridden: bool,
    file: &'a SourceFile,
    pub out: Vec<Diagnostic>,
    /// Paths whose existence the findings depend on, with whether each
    /// existed: the result cache holds an entry only while they still do.
    pub looked_up: Vec<(std::path::PathBuf, bool)>,
}

impl<'a> Sink<'a> {
    pub fn new(meta: &'static RuleMeta, config: &Config, file: &'a SourceFile) -> Self {
        let over = config.severity_override(meta.id);
        Sink {
            meta,
            safety: fix_safety(config, meta),
            notes: config.wants_notes(meta.id),
            severity: over.unwrap_or(meta.severity),
            overridden: over.is_some(),
            file,
            out: Vec::new(),
            looked_up: Vec::new(),
        }
    }

    /// Whether `path` is a file, recorded: a finding that depends on
    /// another file must not outlive a change to it in the result cache.
    pub fn file_exists(&mut self, path: &std::path::Path) -> bool {
        let found = path.is_file();
        self.looked_up.push((path.to_path_buf(), found));
        found
    }

    /// A diagnostic at the rule's effective severity.
    pub fn diag(&self, span: Span, message: impl Into<String>) -> Diagnostic {
        Diagnostic::new(
            self.meta.id,
            self.severity,
            self.file.location(span),
            message,
        )
    }

    /// A diagnostic at a severity the rule chose for this finding.
    pub fn diag_at(
        &self,
        severity: Severity,
        span: Span,
        message: impl Into<String>,
    ) -> Diagnostic {
        let severity = pick(self.overridden, self.severity, severity);
        Diagnostic::new(self.meta.id, severity, self.file.location(span), message)
    }

    pub fn location(&self, span: Span) -> crate::diagnostic::Location {
        self.file.location(span)
    }

    /// Keeps a finding; a note (info) only when notes are wanted, so the
    /// default output holds what is worth acting on.
    pub fn push(&mut self, mut d: Diagnostic) {
        if d.severity != Severity::Info || self.notes {
            set_safety(&mut d, self.safety);
            self.out.push(d);
        }
    }
}

/// What a rule's findings are counted against in the retrospective.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
pub enum Sites {
    #[default]
    None,
    Breakpoints,
    Invocations,
    RepeatedInvocations,
    TaskDefinitions,
    AgentTasks,
    /// Task definitions of `kind: 'shell'`.
    ShellTasks,
    /// Tasks that declare an `outputSchema`.
    SchemaTasks,
    RetryLoops,
    EffectLoops,
    ParallelSites,
    ProcessModules,
    SkillFiles,
    SdkDependencies,
}

impl Sites {
    /// "breakpoints", "invocation sites", … for sentences.
    pub fn noun(self) -> &'static str {
        match self {
            Sites::None => "sites",
            Sites::Breakpoints => "breakpoints",
            Sites::Invocations => "invocation sites",
            Sites::RepeatedInvocations => "repeated invocation sites",
            Sites::TaskDefinitions => "task definitions",
            Sites::AgentTasks => "agent tasks",
            Sites::ShellTasks => "shell tasks",
            Sites::SchemaTasks => "tasks with an output schema",
            Sites::RetryLoops => "open-ended loops",
            Sites::EffectLoops => "loops that dispatch effects",
            Sites::ParallelSites => "parallel batches",
            Sites::ProcessModules => "process modules",
            Sites::SkillFiles => "SKILL.md files",
            Sites::SdkDependencies => "SDK dependencies",
        }
    }

    /// "1 breakpoint", "3 breakpoints".
    pub fn count(self, n: usize) -> String {
        if n != 1 {
            return format!("{n} {}", self.noun());
        }
        let one = match self {
            Sites::None => "site",
            Sites::Breakpoints => "breakpoint",
            Sites::Invocations => "invocation site",
            Sites::RepeatedInvocations => "repeated invocation site",
            Sites::TaskDefinitions => "task definition",
            Sites::AgentTasks => "agent task",
            Sites::ShellTasks => "shell task",
            Sites::SchemaTasks => "task with an output schema",
            Sites::RetryLoops => "open-ended loop",
            Sites::EffectLoops => "loop that dispatches effects",
            Sites::ParallelSites => "parallel batch",
            Sites::ProcessModules => "process module",
            Sites::SkillFiles => "SKILL.md file",
            Sites::SdkDependencies => "SDK dependency",
        };
        format!("1 {one}")
    }
}

/// How a rule appears in the retrospective: what its findings are counted
/// against, the strength its silence proves, and what a recurring finding
/// suggests for the SDK upstream. Empty strings mean "nothing to say".
#[derive(Debug, Clone, Copy, Default)]
pub struct ReportMeta {
    pub sites: Sites,
    /// "Every breakpoint branches on the decision".
    pub praise: &'static str,
    pub sdk_hint: &'static str,
}

pub trait Rule: Sync + Send {
    fn meta(&self) -> &'static RuleMeta;

    /// Retrospective metadata (defaults to none).
    fn report(&self) -> ReportMeta {
        ReportMeta::default()
    }

    /// Checks one process module.
    fn check_js(&self, _cx: &JsContext, _sink: &mut Sink) {}

    /// Checks one package.json.
    fn check_manifest(&self, _cx: &ManifestContext, _sink: &mut Sink) {}

    /// Checks one Markdown file.
    fn check_skill(&self, _cx: &SkillContext, _sink: &mut Sink) {}

    /// Validates the `[rules.<id>]` options (keys are already checked against
    /// `RuleMeta::options`); an error message becomes a config error at the table.
    fn validate_options(&self, _options: &toml::Table) -> Result<(), String> {
        Ok(())
    }

    /// Checks the whole project over per-module summaries (runs once,
    /// after every file).
    fn check_project(&self, _project: &Project, _config: &Config, _sink: &mut ProjectSink) {}

    /// Whether [`Rule::merge_across_files`] has anything to do: the engine
    /// hands a rule its findings of the whole run only if it asks.
    fn merges_across_files(&self) -> bool {
        false
    }

    /// Rewrites the rule's findings of the whole run (after suppression, in
    /// output order), for findings that are one fact about the project
    /// rather than one per file: the same unknown frontmatter key in two
    /// thousand skills is one decision for the user. It runs on every run,
    /// after the result cache, so per-file cache entries keep every finding.
    fn merge_across_files(&self, found: Vec<Diagnostic>, _cx: &MergeContext) -> Vec<Diagnostic> {
        found
    }

    /// Checks a recorded run against the project (runs once, only when
    /// `check --run` selected a run).
    fn check_run(&self, _cx: &RunContext, _sink: &mut ProjectSink) {}

    /// Whether the rule reports only from `check_run`: its findings need a
    /// run, so its doc examples are journals rather than lintable code.
    fn needs_run(&self) -> bool {
        false
    }
}

/// What [`Rule::merge_across_files`] may consult besides the findings.
pub struct MergeContext<'a> {
    pub config: &'a Config,
    /// The facts of each file reported in the run, by display path.
    pub facts: &'a [(&'a str, &'a crate::project::facts::Facts)],
    /// The project a file (by display path) belongs to: the nearest
    /// ancestor with `proclint.toml`, `package.json` or `.git`.
    pub project_of: &'a dyn Fn(&str) -> Option<std::path::PathBuf>,
}

/// Collects one rule's cross-module diagnostics.
pub struct ProjectSink {
    meta: &'static RuleMeta,
    safety: Option<bool>,
    notes: bool,
    severity: Severity,
    overridden: bool,
    pub out: Vec<Diagnostic>,
}

impl ProjectSink {
    pub fn new(meta: &'static RuleMeta, config: &Config) -> Self {
        let over = config.severity_override(meta.id);
        ProjectSink {
            meta,
            safety: fix_safety(config, meta),
            notes: config.wants_notes(meta.id),
            severity: over.unwrap_or(meta.severity),
            overridden: over.is_some(),
            out: Vec::new(),
        }
    }

    pub fn diag(&self, location: Location, message: impl Into<String>) -> Diagnostic {
        Diagnostic::new(self.meta.id, self.severity, location, message)
    }

    pub fn diag_at(
        &self,
        severity: Severity,
        location: Location,
        message: impl Into<String>,
    ) -> Diagnostic {
        let severity = pick(self.overridden, self.severity, severity);
        Diagnostic::new(self.meta.id, severity, location, message)
    }

    pub fn push(&mut self, mut d: Diagnostic) {
        if d.severity != Severity::Info || self.notes {
            set_safety(&mut d, self.safety);
            self.out.push(d);
        }
    }
}

/// Checks a rule option that must be a list of strings (`extra-methods`,
/// `globals`); `example` completes "e.g. …" in the error.
/// "a, b and c" for a message, at most `shown` items then "and N more".
pub fn prose_list(items: &[String], shown: usize) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        _ if items.len() > shown => {
            format!(
                "{} and {} more",
                items[..shown].join(", "),
                items.len() - shown
            )
        }
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

pub fn validate_string_list(options: &toml::Table, key: &str, example: &str) -> Result<(), String> {
    match options.get(key) {
        None => Ok(()),
        Some(toml::Value::Array(items)) if items.iter().all(|v| v.as_str().is_some()) => Ok(()),
        Some(_) => Err(format!("`{key}` must be an array of names, e.g. {example}")),
    }
}

/// The strings of a list option; a library caller's odd entries (the
/// config loader rejects them) are skipped.
pub fn string_list(config: &Config, rule: &str, key: &str) -> Vec<String> {
    config
        .rule_options
        .get(rule)
        .and_then(|t| t.get(key))
        .and_then(|v| v.as_array())
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str())
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

/// Every rule, in id order.
pub fn all() -> &'static [&'static dyn Rule] {
    static RULES: &[&dyn Rule] = &[
        &agent_verification::AgentVerification,
        &anonymous_breakpoint::AnonymousBreakpoint,
        &builtin::BaselineStale,
        &colliding_effect_key::CollidingEffectKey,
        &builtin::DepthLimit,
        &exhausted_retry_unhandled::ExhaustedRetryUnhandled,
        &git_in_agent_task::GitInAgentTask,
        &builtin::InternalError,
        &invalid_task_definition::InvalidTaskDefinition,
        &invalid_task_invocation::InvalidTaskInvocation,
        &builtin::IoError,
        &journal_integrity::JournalIntegrity,
        &misplaced_breakpoint_option::MisplacedBreakpointOption,
        &missing_labels::MissingLabels,
        &missing_output_schema::MissingOutputSchema,
        &missing_stable_key::MissingStableKey,
        &node_task_kind::NodeTaskKind,
        &non_convergent_loop::NonConvergentLoop,
        &nondeterministic_process::NondeterministicProcess,
        &parallel_map_index::ParallelMapIndex,
        &parallel_thunk::ParallelThunk,
        &parallel_without_isolation::ParallelWithoutIsolation,
        &parallelizable_tasks::ParallelizableTasks,
        &builtin::ParseError,
        &promise_combinator_effect::PromiseCombinatorEffect,
        &rejection_feedback_dropped::RejectionFeedbackDropped,
        &retry_without_history::RetryWithoutHistory,
        &shadowed_process_global::ShadowedProcessGlobal,
        &side_effect_outside_task::SideEffectOutsideTask,
        &skill_broken_link::SkillBrokenLink,
        &skill_frontmatter::SkillFrontmatter,
        &builtin::SkippedFile,
        &swallowed_effect_signal::SwallowedEffectSignal,
        &unbounded_loop::UnboundedLoop,
        &unbounded_loop_instruction::UnboundedLoopInstruction,
        &unchecked_breakpoint::UncheckedBreakpoint,
        &unchecked_shell_result::UncheckedShellResult,
        &undeclared_output_field::UndeclaredOutputField,
        &undefined_reference::UndefinedReference,
        &unknown_context_method::UnknownContextMethod,
        &unpinned_sdk::UnpinnedSdk,
        &unresolved_placeholder::UnresolvedPlaceholder,
        &unused_output_field::UnusedOutputField,
        &builtin::UnusedSuppression,
    ];
    RULES
}

pub fn find(id: &str) -> Option<&'static dyn Rule> {
    all().iter().copied().find(|r| r.meta().id == id)
}

pub fn meta(id: &str) -> Option<&'static RuleMeta> {
    find(id).map(|r| r.meta())
}

/// The registry as configuration loading sees it (see
/// [`crate::project::config::KnownRules`]).
pub struct Registry;

impl KnownRules for Registry {
    fn ids(&self) -> Vec<&'static str> {
        all().iter().map(|r| r.meta().id).collect()
    }

    fn options(&self, id: &str) -> Option<&'static [&'static str]> {
        meta(id).map(|m| m.options)
    }

    fn validate_options(&self, id: &str, options: &toml::Table) -> Result<(), String> {
        find(id).map_or(Ok(()), |rule| rule.validate_options(options))
    }

    fn is_group(&self, name: &str) -> bool {
        is_group(name)
    }
}

/// The answers of a configuration that need the registry: whether a rule
/// runs (built-in notes ignore `--select`) and its effective severity. They
/// live here rather than in `config` because the registry sits above it.
pub trait RuleSwitches {
    fn is_enabled(&self, id: &str) -> bool;
    /// Effective severity of a rule's default findings.
    fn severity_of(&self, id: &str) -> Option<Severity>;
    /// Whether a rule's notes (info findings) are reported: for pedantic
    /// and built-in rules always, for the others only when asked for
    /// (`--select`/`extend-select` naming the rule, `pedantic` or `all`, or
    /// a severity set for it in `[rules]`).
    fn wants_notes(&self, id: &str) -> bool;
    /// Whether the rule runs for the file at `path`: enabled in the
    /// configuration the file gets (the nearest one, see
    /// `Config::for_path`) and not named by its `[per-file-ignores]` (a
    /// group there never drops proclint's own notes; naming one does, as
    /// with `--ignore`).
    fn is_enabled_for(&self, path: &std::path::Path, id: &str) -> bool;
}

impl RuleSwitches for Config {
    fn is_enabled(&self, id: &str) -> bool {
        let Some(m) = meta(id) else {
            return self.allows(id, || false);
        };
        if self.is_off(id) {
            return false;
        }
        if m.builtin {
            return true;
        }
        if let Some(select) = &self.select {
            return select.iter().any(|s| selects(s, m));
        }
        m.category.on_by_default()
            || self.extend_select.iter().any(|s| selects(s, m))
            || self.is_configured(id)
    }

    fn severity_of(&self, id: &str) -> Option<Severity> {
        self.severity_override(id)
            .or_else(|| meta(id).map(|m| m.severity))
    }

    fn is_enabled_for(&self, path: &std::path::Path, id: &str) -> bool {
        let config = self.for_path(path);
        if !config.is_enabled(id) {
            return false;
        }
        let ignored = config.ignored_for(path);
        if ignored.is_empty() {
            return true;
        }
        let Some(m) = meta(id) else {
            return !ignored.contains(&id);
        };
        !ignored
            .iter()
            .any(|s| *s == m.id || (!m.builtin && selects(s, m)))
    }

    fn wants_notes(&self, id: &str) -> bool {
        let Some(m) = meta(id) else {
            return true;
        };
        // A severity set in `[rules]` is an explicit request too.
        if m.builtin || m.category == Category::Pedantic || self.severity_override(id).is_some() {
            return true;
        }
        let asks = |s: &String| s == "all" || s == "pedantic" || s == m.id;
        self.select
            .iter()
            .flatten()
            .chain(&self.extend_select)
            .any(asks)
    }
}

/// The registered rule id nearest to a misspelling.
pub fn closest_rule(id: &str) -> Option<&'static str> {
    crate::project::config::closest_rule(id, &Registry)
}

/// What rule tests share: a process module around a body, linted with one
/// rule selected.
#[cfg(test)]
pub mod testing {
    use crate::diagnostic::Diagnostic;
    use crate::engine::discover::FileKind;
    use crate::engine::lint_text;
    use crate::project::config::Config;

    /// `body` inside `process(inputs, ctx)`, with two labelled agent tasks
    /// in scope (`reviewTask` with id `review`, `fixTask` with id `fix`);
    /// the findings of `rule` only.
    pub fn lint_process_body(rule: &str, body: &str) -> Vec<Diagnostic> {
        let src = format!(
            "import {{ defineTask }} from '@a5c-ai/babysitter-sdk';\n\
             const reviewTask = defineTask('review', () => ({{ kind: 'agent', labels: ['r'] }}));\n\
             const fixTask = defineTask('fix', () => ({{ kind: 'agent', labels: ['f'] }}));\n\
             export async function process(inputs, ctx) {{\n{body}\n}}\n"
        );
        lint_source(rule, &src)
    }

    /// A whole module `src` (as `p.js`) linted with `rule` selected; the
    /// findings of `rule` only.
    pub fn lint_source(rule: &str, src: &str) -> Vec<Diagnostic> {
        let mut config = Config::default();
        config.select = Some(vec![rule.to_string()]);
        lint_text("p.js", FileKind::Process, src.to_string(), &config)
            .into_iter()
            .filter(|d| d.rule == rule)
            .collect()
    }
}
