//! `proclint.toml`: rule severities, include/exclude globs, context names,
//! per-file ignores, and `extend` (a configuration built on another one).
//!
//! Every error (bad TOML, unknown key, unknown rule id, bad severity, bad
//! glob, a missing or circular `extend`) points at its place in the file
//! and exits with code 2.

use crate::source::names::edit_distance;
use std::collections::BTreeMap;
use std::fmt;
use std::ops::Range;
use std::path::{Path, PathBuf};

use std::sync::Arc;

use globset::{Glob, GlobMatcher, GlobSet, GlobSetBuilder};
use serde::Deserialize;
use toml::Spanned;

use crate::diagnostic::Severity;

pub const FILE_NAME: &str = "proclint.toml";
pub const DEFAULT_MAX_FILE_SIZE: u64 = 5 * 1024 * 1024;
/// The result cache's default directory, relative to the configuration
/// file's directory (or the working directory when there is none).
pub const DEFAULT_CACHE_DIR: &str = ".proclint_cache";

/// What reading a configuration needs to know of the rule registry. The
/// registry (`rules`) sits above this layer, since rules read the
/// configuration, so whoever loads one hands it in (`rules::Registry`).
pub trait KnownRules {
    /// Every registered rule id.
    fn ids(&self) -> Vec<&'static str>;
    /// The option keys `[rules.<id>]` accepts besides `severity`; `None`
    /// for an id no rule has.
    fn options(&self, id: &str) -> Option<&'static [&'static str]>;
    /// The rule's own check of its option table.
    fn validate_options(&self, id: &str, options: &toml::Table) -> Result<(), String>;
    /// Whether a name selects a group of rules (a category, or `all`).
    fn is_group(&self, name: &str) -> bool;
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RuleLevel {
    Off,
    On(Option<Severity>),
}

/// Globs and the folder they are relative to (that of the file that wrote
/// them: a configuration's `extend` keeps its parent's globs anchored in
/// the parent's folder, as ruff does).
#[derive(Debug, Clone)]
pub struct Globs {
    pub root: PathBuf,
    set: GlobSet,
    pub patterns: Vec<String>,
}

impl Default for Globs {
    fn default() -> Self {
        Globs {
            root: PathBuf::from("."),
            set: GlobSet::empty(),
            patterns: Vec::new(),
        }
    }
}

/// One `[per-file-ignores]` entry: files matching `pattern` (relative to
/// `root`, or by file name when it has no `/`) get no finding of `rules`
/// (rule ids, categories or `all`).
#[derive(Debug, Clone)]
pub struct PerFileIgnore {
    pub root: PathBuf,
    pub pattern: String,
    glob: GlobMatcher,
    pub rules: Vec<String>,
}

#[derive(Debug, Clone)]
pub struct Config {
    /// The file this came from, if any.
    pub path: Option<PathBuf>,
    /// The files it was read from: `path`, then what it extends, in order.
    pub sources: Vec<PathBuf>,
    /// The configuration's folder: the project root of the run for the
    /// configuration the run starts from.
    pub root: PathBuf,
    rules: BTreeMap<String, RuleLevel>,
    /// Per-rule option tables (`[rules.<id>]` keys other than `severity`).
    pub rule_options: BTreeMap<String, toml::Table>,
    pub exclude: Globs,
    pub include: Option<Globs>,
    pub per_file_ignores: Vec<PerFileIgnore>,
    /// The nested configurations of the run (each a folder's own
    /// `proclint.toml` below this one's), deepest folder first: a file gets
    /// the nearest one at or above it ([`Config::for_path`]). Empty in the
    /// nested ones themselves.
    pub scoped: Vec<Arc<Config>>,
    /// What a file outside every configuration's folder gets (the defaults,
    /// with the command line's overrides), when this configuration is a
    /// file's: a run from `sub/` over `../top.js` must not give `top.js`
    /// the configuration of `sub/`.
    pub outside: Option<Arc<Config>>,
    pub context_names: Vec<String>,
    pub max_file_size: u64,
    /// `--select`: only these rules (ids, categories or `all`) run
    /// (built-in notes always do).
    pub select: Option<Vec<String>>,
    /// `extend-select` / `--extend-select`: rules or categories turned on
    /// besides the default set.
    pub extend_select: Vec<String>,
    /// `baseline = "…"`: a baseline file, relative to the config's directory.
    pub baseline: Option<PathBuf>,
    /// `--only-process-code`: named JavaScript files get the same byte scan
    /// as walked ones.
    pub scan_named_files: bool,
    /// `cache-dir`, relative to the config file's directory.
    pub cache_dir: Option<PathBuf>,
    /// `unsafe-fixes = true`: `--fix` applies unsafe fixes too (what
    /// `--unsafe-fixes` does; `--no-unsafe-fixes` overrides it).
    pub unsafe_fixes: bool,
    /// `extend-safe-fixes`: rules or categories whose unsafe fixes count as
    /// safe.
    pub extend_safe_fixes: Vec<String>,
    /// `extend-unsafe-fixes`: rules or categories whose safe fixes count as
    /// unsafe.
    pub extend_unsafe_fixes: Vec<String>,
    /// Not a setting: the run keeps every module's summary in
    /// [`crate::engine::Outcome::context`], for the fix verification's
    /// re-lint (`--fix`, the editor's and MCP's fixes).
    pub keep_summaries: bool,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            path: None,
            sources: Vec::new(),
            root: PathBuf::from("."),
            rules: BTreeMap::new(),
            rule_options: BTreeMap::new(),
            exclude: Globs::default(),
            include: None,
            per_file_ignores: Vec::new(),
            scoped: Vec::new(),
            outside: None,
            context_names: vec!["ctx".into(), "context".into()],
            max_file_size: DEFAULT_MAX_FILE_SIZE,
            select: None,
            extend_select: Vec::new(),
            baseline: None,
            scan_named_files: false,
            cache_dir: None,
            unsafe_fixes: false,
            extend_safe_fixes: Vec::new(),
            extend_unsafe_fixes: Vec::new(),
            keep_summaries: false,
        }
    }
}

#[derive(Deserialize)]
#[serde(rename_all = "kebab-case")]
struct RawConfig {
    extend: Option<Spanned<String>>,
    per_file_ignores: Option<BTreeMap<Spanned<String>, Vec<Spanned<String>>>>,
    exclude: Option<Vec<Spanned<String>>>,
    include: Option<Vec<Spanned<String>>>,
    context_names: Option<Vec<String>>,
    max_file_size: Option<u64>,
    baseline: Option<String>,
    cache_dir: Option<Spanned<String>>,
    rules: Option<BTreeMap<Spanned<String>, Spanned<toml::Value>>>,
    extend_select: Option<Vec<Spanned<String>>>,
    unsafe_fixes: Option<bool>,
    extend_safe_fixes: Option<Vec<Spanned<String>>>,
    extend_unsafe_fixes: Option<Vec<Spanned<String>>>,
}

/// The top-level keys of `proclint.toml`.
const KEYS: &[&str] = &[
    "extend",
    "per-file-ignores",
    "exclude",
    "include",
    "context-names",
    "max-file-size",
    "baseline",
    "cache-dir",
    "rules",
    "extend-select",
    "unsafe-fixes",
    "extend-safe-fixes",
    "extend-unsafe-fixes",
];

/// A configuration error with its place in the file.
#[derive(Debug)]
pub struct ConfigError {
    pub path: PathBuf,
    pub text: String,
    pub span: Option<Range<usize>>,
    pub message: String,
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "invalid configuration {}: {}",
            self.path.display(),
            self.message
        )
    }
}

impl std::error::Error for ConfigError {}

impl miette::Diagnostic for ConfigError {
    fn code<'a>(&'a self) -> Option<Box<dyn fmt::Display + 'a>> {
        Some(Box::new("config-error"))
    }
    fn source_code(&self) -> Option<&dyn miette::SourceCode> {
        Some(&self.text)
    }
    fn labels(&self) -> Option<Box<dyn Iterator<Item = miette::LabeledSpan> + '_>> {
        let span = self.span.clone()?;
        let start = span.start.min(self.text.len());
        let len = span.end.min(self.text.len()).saturating_sub(start);
        Some(Box::new(std::iter::once(
            miette::LabeledSpan::new_primary_with_span(Some("here".into()), (start, len)),
        )))
    }
}

impl ConfigError {
    /// `path:line:col: message`, for non-graphical output.
    pub fn one_line(&self) -> String {
        match &self.span {
            Some(s) => {
                let idx = crate::source::LineIndex::new(&self.text);
                let p = idx.pos(&self.text, s.start);
                format!(
                    "{}:{}:{}: {}",
                    self.path.display(),
                    p.line,
                    p.column,
                    self.message
                )
            }
            None => format!("{}: {}", self.path.display(), self.message),
        }
    }
}

/// The largest `proclint.toml` read: a configuration is a few hundred
/// bytes; a committed multi-gigabyte one must not be loaded.
pub const MAX_CONFIG_SIZE: u64 = 1 << 20;

impl Config {
    /// Finds `proclint.toml` walking up from `start`, up to the repository
    /// root (the nearest folder with a `.git`) when there is one.
    pub fn discover(start: &Path) -> Option<PathBuf> {
        Config::discover_all(start).into_iter().next()
    }

    /// Every `proclint.toml` at or above `start`, nearest first, up to the
    /// repository root: a configuration above the repository is not the
    /// project's (and, in CI, not the pull request's to choose either).
    pub fn discover_all(start: &Path) -> Vec<PathBuf> {
        let mut found = Vec::new();
        for d in start.ancestors() {
            let candidate = d.join(FILE_NAME);
            // Anything at that name is this folder's configuration: a
            // dangling link, a folder or an unreadable file is an error
            // when loaded, never a silent fall-back to one further up.
            if std::fs::symlink_metadata(&candidate).is_ok() {
                found.push(candidate);
            }
            if std::fs::symlink_metadata(d.join(".git")).is_ok() {
                break;
            }
        }
        found
    }

    /// Reads and parses a configuration file, with every error in it and
    /// in the files it extends.
    pub fn load(path: &Path, known: &dyn KnownRules) -> Result<Config, Vec<ConfigError>> {
        let mut errors = Vec::new();
        let chain = vec![std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())];
        let config = Config::load_chain(path, known, &chain, &mut errors);
        match config {
            Some(c) if errors.is_empty() => Ok(c),
            _ if errors.is_empty() => Err(vec![ConfigError {
                path: path.to_path_buf(),
                text: String::new(),
                span: None,
                message: "invalid configuration".into(),
            }]),
            _ => Err(errors),
        }
    }

    /// [`Config::load`] of one file of an `extend` chain (`chain`: the
    /// files on the way to it, resolved, itself last).
    fn load_chain(
        path: &Path,
        known: &dyn KnownRules,
        chain: &[PathBuf],
        errors: &mut Vec<ConfigError>,
    ) -> Option<Config> {
        let text = match crate::source::read_small_file(path, MAX_CONFIG_SIZE) {
            Ok(text) => text,
            Err(message) => {
                errors.push(ConfigError {
                    path: path.to_path_buf(),
                    text: String::new(),
                    span: None,
                    message,
                });
                return None;
            }
        };
        let root = path
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_else(|| PathBuf::from("."));
        Config::parse_into(&text, path, root, known, chain, errors)
    }

    /// The configuration `extend` names, loaded, or its error: the path is
    /// relative to the extending file; a file already on the chain (a
    /// cycle), a missing file, or one outside the repository holding the
    /// extending file (the configuration may be a pull request's: it must
    /// not make proclint read, and quote in an error, a file of the
    /// machine's) is an error.
    fn load_extended(
        spanned: &Spanned<String>,
        err: &dyn Fn(Option<Range<usize>>, String) -> ConfigError,
        path: &Path,
        known: &dyn KnownRules,
        chain: &[PathBuf],
        errors: &mut Vec<ConfigError>,
    ) -> Option<Config> {
        let written = spanned.get_ref();
        let span = Some(spanned.span());
        let folder = match path.parent() {
            Some(p) if !p.as_os_str().is_empty() => p,
            _ => Path::new("."),
        };
        let target = folder.join(written);
        let Ok(resolved) = std::fs::canonicalize(&target) else {
            errors.push(err(
                span,
                format!("`extend`: cannot read `{written}`: no such file"),
            ));
            return None;
        };
        let repository = std::fs::canonicalize(folder).ok().and_then(|f| {
            f.ancestors()
                .find(|a| std::fs::symlink_metadata(a.join(".git")).is_ok())
                .map(Path::to_path_buf)
        });
        if let Some(repo) = repository.filter(|r| !resolved.starts_with(r)) {
            errors.push(err(
                span,
                format!(
                    "`extend`: `{written}` is outside the repository ({}): not read",
                    repo.display()
                ),
            ));
            return None;
        }
        if let Some(at) = chain.iter().position(|c| *c == resolved) {
            let cycle: Vec<String> = chain[at..]
                .iter()
                .chain(std::iter::once(&resolved))
                .map(|c| c.display().to_string())
                .collect();
            errors.push(err(
                span,
                format!("`extend` makes a cycle: {}", cycle.join(" → ")),
            ));
            return None;
        }
        let mut longer = chain.to_vec();
        longer.push(resolved);
        Config::load_chain(&target, known, &longer, errors)
    }

    /// Parses a configuration, stopping at its first error (see
    /// [`Config::parse_all`]).
    pub fn parse(
        text: &str,
        path: &Path,
        root: PathBuf,
        known: &dyn KnownRules,
    ) -> Result<Config, ConfigError> {
        Config::parse_all(text, path, root, known).map_err(|mut errors| errors.remove(0))
    }

    /// Parses a configuration and reports every error in it, not only the
    /// first, so one edit fixes them all. A TOML syntax error is one error
    /// (nothing after it can be read). The error list is never empty.
    pub fn parse_all(
        text: &str,
        path: &Path,
        root: PathBuf,
        known: &dyn KnownRules,
    ) -> Result<Config, Vec<ConfigError>> {
        let mut errors: Vec<ConfigError> = Vec::new();
        let chain = vec![std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf())];
        let config = Config::parse_into(text, path, root, known, &chain, &mut errors);
        match config {
            Some(c) if errors.is_empty() => Ok(c),
            _ if errors.is_empty() => Err(vec![ConfigError {
                path: path.to_path_buf(),
                text: text.to_string(),
                span: None,
                message: "invalid configuration".into(),
            }]),
            _ => Err(errors),
        }
    }

    /// The body of [`Config::parse_all`]: errors are pushed to `errors` and
    /// parsing goes on with the next setting; `None` when the text is not
    /// TOML. What the file sets overrides what it extends (`[rules]` and
    /// rule options key by key; `extend-select` and the fix lists add to
    /// the parent's; the rest replaces it).
    fn parse_into(
        text: &str,
        path: &Path,
        root: PathBuf,
        known: &dyn KnownRules,
        chain: &[PathBuf],
        errors: &mut Vec<ConfigError>,
    ) -> Option<Config> {
        let err = |span: Option<Range<usize>>, message: String| ConfigError {
            path: path.to_path_buf(),
            text: text.to_string(),
            span,
            message,
        };
        // The top-level keys with their places: a syntax error is the one
        // error (nothing after it can be read); an unknown key is one error
        // each; a value of the wrong type is reported and its `key = value`
        // blanked (spaces, so every span stays put), and the rest read again.
        let keys: BTreeMap<Spanned<String>, Spanned<toml::Value>> = match toml::from_str(text) {
            Ok(keys) => keys,
            Err(e) => {
                errors.push(err(e.span(), e.message().to_string()));
                return None;
            }
        };
        for key in keys.keys() {
            if !KEYS.contains(&key.get_ref().as_str()) {
                let expected: Vec<String> = KEYS.iter().map(|k| format!("`{k}`")).collect();
                errors.push(err(
                    Some(key.span()),
                    format!(
                        "unknown field `{}`, expected one of {}",
                        key.get_ref(),
                        expected.join(", ")
                    ),
                ));
            }
        }
        let mut work = text.to_string();
        let raw: RawConfig = loop {
            match toml::from_str(&work) {
                Ok(raw) => break raw,
                Err(e) => {
                    errors.push(err(e.span(), e.message().to_string()));
                    let at = e.span()?.start;
                    let (_, value) = keys
                        .iter()
                        .find(|(k, v)| k.span().start <= at && at <= v.span().end)?;
                    if value.get_ref().is_table() {
                        return None;
                    }
                    let (start, end) = keys
                        .iter()
                        .find(|(k, v)| k.span().start <= at && at <= v.span().end)
                        .map(|(k, v)| (k.span().start, v.span().end))?;
                    let blank: String = work
                        .get(start..end)?
                        .chars()
                        .map(|c| if c == '\n' { c } else { ' ' })
                        .collect();
                    if blank.len() != end - start || work.get(start..end) == Some(blank.as_str()) {
                        return None;
                    }
                    work.replace_range(start..end, &blank);
                }
            }
        };
        let base = match &raw.extend {
            Some(target) => Config::load_extended(target, &err, path, known, chain, errors),
            None => None,
        }
        .unwrap_or_default();
        let mut sources = vec![path.to_path_buf()];
        sources.extend(base.sources.iter().cloned());
        let mut config = Config {
            path: Some(path.to_path_buf()),
            sources,
            root: root.clone(),
            ..base
        };
        if let Some(names) = raw.context_names {
            config.context_names = names;
        }
        if let Some(size) = raw.max_file_size {
            config.max_file_size = size;
        }
        // Paths are relative to the file that names them.
        if let Some(baseline) = raw.baseline {
            config.baseline = Some(root.join(baseline));
        }
        if let Some(dir) = raw.cache_dir {
            if dir.get_ref().trim().is_empty() {
                errors.push(err(
                    Some(dir.span()),
                    "`cache-dir` must not be empty".into(),
                ));
            } else {
                config.cache_dir = Some(root.join(dir.into_inner()));
            }
        }
        if let Some(globs) = raw.exclude {
            match build_globs(&globs, &root) {
                Ok(g) => config.exclude = g,
                Err((s, m)) => errors.push(err(Some(s), m)),
            }
        }
        if let Some(globs) = raw.include {
            match build_globs(&globs, &root) {
                Ok(g) => config.include = Some(g),
                Err((s, m)) => errors.push(err(Some(s), m)),
            }
        }
        if let Some(on) = raw.unsafe_fixes {
            config.unsafe_fixes = on;
        }
        let mut selectors = |key: &str, names: Option<Vec<Spanned<String>>>| {
            let mut out = Vec::new();
            for name in names.unwrap_or_default() {
                let span = name.span();
                let name = name.into_inner();
                if known.options(&name).is_none() && !known.is_group(&name) {
                    let hint = closest_rule(&name, known)
                        .map(|c| format!(" (did you mean `{c}`?)"))
                        .unwrap_or_default();
                    errors.push(err(
                        Some(span),
                        format!(
                            "unknown rule or category `{name}` in `{key}`{hint} \
                             (categories: correctness, suspicious, pedantic, run, tooling, all)"
                        ),
                    ));
                    continue;
                }
                out.push(name);
            }
            out
        };
        let mut ignores = Vec::new();
        let mut glob_errors = Vec::new();
        for (pattern, names) in raw.per_file_ignores.unwrap_or_default() {
            let glob = Glob::new(pattern.get_ref()).map(|g| g.compile_matcher());
            let rules = selectors("per-file-ignores", Some(names));
            match glob {
                Ok(glob) => ignores.push(PerFileIgnore {
                    root: root.clone(),
                    pattern: pattern.into_inner(),
                    glob,
                    rules,
                }),
                Err(e) => glob_errors.push(err(
                    Some(pattern.span()),
                    format!("invalid glob: {}", e.kind()),
                )),
            }
        }
        let extend_select = selectors("extend-select", raw.extend_select);
        let safe = selectors("extend-safe-fixes", raw.extend_safe_fixes);
        let unsafe_ = selectors("extend-unsafe-fixes", raw.extend_unsafe_fixes);
        config.per_file_ignores.extend(ignores);
        config.extend_select.extend(extend_select);
        config.extend_safe_fixes.extend(safe);
        config.extend_unsafe_fixes.extend(unsafe_);
        errors.append(&mut glob_errors);
        for (id, value) in raw.rules.unwrap_or_default() {
            let id_span = id.span();
            let id = id.into_inner();
            let Some(options) = known.options(&id) else {
                let hint = closest_rule(&id, known)
                    .map(|c| format!(" (did you mean `{c}`?)"))
                    .unwrap_or_default();
                errors.push(err(Some(id_span), format!("unknown rule `{id}`{hint}")));
                continue;
            };
            let value_span = value.span();
            let level = (|| -> Result<RuleLevel, ConfigError> {
                Ok(match value.into_inner() {
                    toml::Value::String(s) => parse_level(&s)
                        .ok_or_else(|| err(Some(value_span.clone()), bad_level(&s)))?,
                    toml::Value::Table(mut t) => {
                        // Errors inside a `[rules.X]` table point at the key.
                        let level = match t.remove("severity") {
                            Some(toml::Value::String(s)) => parse_level(&s).ok_or_else(|| {
                                err(Some(key_in(text, &value_span, "severity")), bad_level(&s))
                            })?,
                            Some(_) => {
                                return Err(err(
                                    Some(key_in(text, &value_span, "severity")),
                                    "`severity` must be a string".into(),
                                ))
                            }
                            None => RuleLevel::On(None),
                        };
                        if let Some(unknown) = t.keys().find(|k| !options.contains(&k.as_str())) {
                            let keys = if options.is_empty() {
                                "it takes only `severity`".to_string()
                            } else {
                                format!("known: severity, {}", options.join(", "))
                            };
                            return Err(err(
                                Some(key_in(text, &value_span, unknown)),
                                format!("unknown option `{unknown}` for rule `{id}` ({keys})"),
                            ));
                        }
                        // Each key alone first, so an error points at the
                        // key it is about (it pointed at the table's
                        // header); then the table, for checks across keys.
                        for (key, v) in &t {
                            let alone: toml::Table =
                                [(key.clone(), v.clone())].into_iter().collect();
                            known.validate_options(&id, &alone).map_err(|m| {
                                err(
                                    Some(key_in(text, &value_span, key)),
                                    format!("rule `{id}`: {m}"),
                                )
                            })?;
                        }
                        known.validate_options(&id, &t).map_err(|m| {
                            err(Some(value_span.clone()), format!("rule `{id}`: {m}"))
                        })?;
                        config.rule_options.insert(id.clone(), t);
                        level
                    }
                    _ => {
                        return Err(err(
                            Some(value_span),
                            "expected a severity string or a table".into(),
                        ))
                    }
                })
            })();
            match level {
                Ok(level) => {
                    config.rules.insert(id, level);
                }
                Err(e) => errors.push(e),
            }
        }
        Some(config)
    }

    /// Everything in the configuration that can change a file's per-file
    /// results (the result cache keys on it). Globs and `max-file-size` only
    /// decide which files are linted, which happens before the cache;
    /// `unsafe-fixes` only what `--fix` applies.
    /// With the nested configurations, each with its folder and the files
    /// it came from: a changed file of any of them (a parent one included)
    /// changes the fingerprint. Per-file ignores are in it too, although
    /// they are applied after the cache, so that a changed one never reuses
    /// another configuration's cross-module entry.
    pub fn fingerprint(&self) -> String {
        let mut out = self.own_fingerprint();
        for nested in &self.scoped {
            out.push_str(&format!(
                ";nested[{}]={}",
                nested.root.display(),
                nested.own_fingerprint()
            ));
        }
        out
    }

    fn own_fingerprint(&self) -> String {
        let ignores: Vec<(&str, &Vec<String>)> = self
            .per_file_ignores
            .iter()
            .map(|p| (p.pattern.as_str(), &p.rules))
            .collect();
        format!(
            "rules={:?};options={:?};context={:?};select={:?};extend={:?};safe={:?};unsafe={:?};ignores={:?};sources={:?}",
            self.rules,
            self.rule_options,
            self.context_names,
            self.select,
            self.extend_select,
            self.extend_safe_fixes,
            self.extend_unsafe_fixes,
            ignores,
            self.sources
        )
    }

    /// The cache directory: `cache-dir` (relative to the file that set it),
    /// else `.proclint_cache` in the configuration's root (the project
    /// root, for the configuration a run starts from).
    pub fn cache_dir(&self) -> PathBuf {
        match &self.cache_dir {
            Some(dir) => dir.clone(),
            None if self.root == Path::new(".") => PathBuf::from(DEFAULT_CACHE_DIR),
            None => self.root.join(DEFAULT_CACHE_DIR),
        }
    }

    /// The configuration a file (or folder) gets: the nested one of the
    /// nearest folder at or above it, else this one.
    pub fn for_path(&self, path: &Path) -> &Config {
        if let Some(nested) = self.scoped.iter().find(|c| under(&c.root, path).is_some()) {
            return nested;
        }
        match &self.outside {
            Some(outside) if under(&self.root, path).is_none() => outside,
            _ => self,
        }
    }

    /// Whether some configuration of the run (this one or a nested one)
    /// passes `test`: a cross-module rule runs when some file wants it.
    pub fn any(&self, test: impl Fn(&Config) -> bool) -> bool {
        test(self) || self.scoped.iter().any(|c| test(c))
    }

    /// Applies `change` to this configuration and every nested one (the
    /// command line's overrides apply to every file).
    pub fn each_mut(&mut self, change: impl Fn(&mut Config)) {
        change(self);
        for nested in self.scoped.iter_mut().chain(&mut self.outside) {
            change(Arc::make_mut(nested));
        }
    }

    /// Rewrites every folder of the configuration (its root, its globs',
    /// its paths) with `map`, nested ones included: the CLI shows paths
    /// relative to the working directory, and globs match those.
    pub fn map_paths(&mut self, map: &dyn Fn(&Path) -> PathBuf) {
        self.root = map(&self.root);
        if let Some(p) = &mut self.path {
            *p = map(p);
        }
        for s in &mut self.sources {
            *s = map(s);
        }
        self.exclude.root = map(&self.exclude.root);
        if let Some(inc) = &mut self.include {
            inc.root = map(&inc.root);
        }
        for p in &mut self.per_file_ignores {
            p.root = map(&p.root);
        }
        if let Some(b) = &mut self.baseline {
            *b = map(b);
        }
        if let Some(c) = &mut self.cache_dir {
            *c = map(c);
        }
        for nested in self.scoped.iter_mut().chain(&mut self.outside) {
            Arc::make_mut(nested).map_paths(map);
        }
    }

    /// The `[per-file-ignores]` names (rule ids, categories, `all`) that
    /// apply to the file at `path`; `matches` says whether one names a rule.
    pub fn ignored_for(&self, path: &Path) -> Vec<&str> {
        self.per_file_ignores
            .iter()
            .filter(|p| {
                let rel = under(&p.root, path).unwrap_or_else(|| strip_dot(path).to_path_buf());
                p.glob.is_match(&rel)
                    || (!p.pattern.contains('/')
                        && path.file_name().is_some_and(|n| p.glob.is_match(n)))
            })
            .flat_map(|p| p.rules.iter().map(String::as_str))
            .collect()
    }

    /// Whether the configuration lets a rule run. `builtin` says whether the
    /// rule is a built-in note, which `--select` never turns off; it comes
    /// from the registry (see `rules::RuleSwitches`) and is asked only under
    /// `--select`.
    pub fn allows(&self, id: &str, builtin: impl FnOnce() -> bool) -> bool {
        if let Some(select) = &self.select {
            if !builtin() && !select.iter().any(|s| s == id) {
                return false;
            }
        }
        !matches!(self.rules.get(id), Some(RuleLevel::Off))
    }

    /// Whether `[rules]` or `--ignore` turned the rule off.
    pub fn is_off(&self, id: &str) -> bool {
        matches!(self.rules.get(id), Some(RuleLevel::Off))
    }

    /// Whether `[rules]` names the rule with a level other than `off`
    /// (which turns on a rule outside the default set).
    pub fn is_configured(&self, id: &str) -> bool {
        matches!(self.rules.get(id), Some(RuleLevel::On(_)))
    }

    pub fn severity_override(&self, id: &str) -> Option<Severity> {
        match self.rules.get(id) {
            Some(RuleLevel::On(s)) => *s,
            _ => None,
        }
    }

    pub fn set_level(&mut self, id: &str, level: RuleLevel) {
        self.rules.insert(id.to_string(), level);
    }

    /// Whether a walked path is excluded (globs match the path relative to
    /// the config's directory, or as given when it lies outside it).
    pub fn excludes(&self, path: &Path) -> bool {
        if self.exclude.matches(path) {
            return true;
        }
        match &self.include {
            Some(inc) => !inc.matches(path),
            None => false,
        }
    }

    pub fn excludes_dir(&self, path: &Path) -> bool {
        self.exclude.matches(path)
    }
}

impl Globs {
    /// Whether the path, relative to the globs' folder (or as given when
    /// it lies outside it), matches.
    fn matches(&self, path: &Path) -> bool {
        let rel = under(&self.root, path).unwrap_or_else(|| strip_dot(path).to_path_buf());
        self.set.is_match(rel)
    }
}

fn strip_dot(path: &Path) -> &Path {
    path.strip_prefix("./").unwrap_or(path)
}

/// `path` relative to `root` when it lies at or below it (`.` holds every
/// relative path).
fn under(root: &Path, path: &Path) -> Option<PathBuf> {
    let path = strip_dot(path);
    let root = strip_dot(root);
    if root.as_os_str().is_empty() || root == Path::new(".") {
        return (path.is_relative() && !path.starts_with("..")).then(|| path.to_path_buf());
    }
    path.strip_prefix(root).ok().map(Path::to_path_buf)
}

fn parse_level(s: &str) -> Option<RuleLevel> {
    if s == "off" {
        return Some(RuleLevel::Off);
    }
    Severity::parse(s).map(|sev| RuleLevel::On(Some(sev)))
}

fn bad_level(s: &str) -> String {
    format!("invalid severity `{s}` (expected off, info, warning or error)")
}

fn build_globs(globs: &[Spanned<String>], root: &Path) -> Result<Globs, (Range<usize>, String)> {
    let mut b = GlobSetBuilder::new();
    for g in globs {
        let glob = Glob::new(g.get_ref())
            .map_err(|e| (g.span(), format!("invalid glob: {}", e.kind())))?;
        b.add(glob);
        // `dir/**` should also exclude the directory itself while walking.
        if let Some(dir) = g.get_ref().strip_suffix("/**") {
            if let Ok(glob) = Glob::new(dir) {
                b.add(glob);
            }
        }
    }
    let set = b.build().map_err(|e| (0..0, e.to_string()))?;
    Ok(Globs {
        root: root.to_path_buf(),
        set,
        patterns: globs.iter().map(|g| g.get_ref().clone()).collect(),
    })
}

/// The registered rule id nearest to a misspelling.
pub fn closest_rule(id: &str, known: &dyn KnownRules) -> Option<&'static str> {
    known
        .ids()
        .into_iter()
        .map(|c| (edit_distance(id, c), c))
        .filter(|(d, c)| *d <= c.len() / 3 + 1)
        .min()
        .map(|(_, c)| c)
}

/// Where `key` is written inside a rule's table (`span`, as toml reports
/// it): errors about one key of `[rules.X]` pointed at the table, or at 1:1.
/// The whole table when the key is not found as written (quoted oddly).
fn key_in(text: &str, span: &Range<usize>, key: &str) -> Range<usize> {
    // A `[rules.X]` table's span is its header: its keys follow, up to the
    // next header.
    let end = text
        .get(span.end..)
        .and_then(|rest| rest.find("\n[").map(|i| span.end + i))
        .unwrap_or(text.len())
        .max(span.end);
    let Some(table) = text.get(span.start..end) else {
        return span.clone();
    };
    for (at, _) in table.match_indices(key) {
        let before = table[..at].chars().next_back();
        let after = table[at + key.len()..].trim_start_matches([' ', '\t', '"', '\'']);
        let starts = before.is_none_or(|c| matches!(c, '\n' | ' ' | '\t' | '{' | ',' | '"' | '\''));
        if starts && after.starts_with('=') {
            let start = span.start + at;
            return start..start + key.len();
        }
    }
    span.clone()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{Registry, RuleSwitches};

    fn parse(text: &str) -> Result<Config, ConfigError> {
        Config::parse(
            text,
            Path::new("proclint.toml"),
            PathBuf::from("."),
            &Registry,
        )
    }

    #[test]
    fn severities_and_off() {
        let c = parse("[rules]\nunchecked-breakpoint = \"warning\"\n").unwrap_or_default();
        assert_eq!(
            c.severity_of("unchecked-breakpoint"),
            Some(Severity::Warning)
        );
        let c = parse("[rules]\nunchecked-breakpoint = \"off\"\n").unwrap_or_default();
        assert!(!c.is_enabled("unchecked-breakpoint"));
    }

    #[test]
    fn unknown_rule_points_at_key() {
        let text = "[rules]\nunchecked-breakpiont = \"error\"\n";
        let e = parse(text).err();
        let e = e.as_ref();
        assert_eq!(
            e.map(|e| e.message.as_str()),
            Some("unknown rule `unchecked-breakpiont` (did you mean `unchecked-breakpoint`?)")
        );
        assert_eq!(
            e.map(|e| e.one_line()),
            Some("proclint.toml:2:1: unknown rule `unchecked-breakpiont` (did you mean `unchecked-breakpoint`?)".into())
        );
    }

    #[test]
    fn unknown_key_and_bad_values() {
        assert!(parse("colour = true\n").is_err());
        assert!(parse("[rules]\nunchecked-breakpoint = \"loud\"\n").is_err());
        assert!(parse("exclude = [\"[\"]\n").is_err());
        assert!(
            parse("[rules]\nunchecked-breakpoint = { severity = \"error\", x = 1 }\n").is_err()
        );
        assert!(parse("not toml").is_err());
    }

    #[test]
    fn excludes_relative_to_root() {
        let c = Config::parse(
            "exclude = [\"vendor/**\"]\n",
            Path::new("proj/proclint.toml"),
            PathBuf::from("proj"),
            &Registry,
        )
        .unwrap_or_default();
        assert!(c.excludes(Path::new("proj/vendor/a.js")));
        assert!(c.excludes_dir(Path::new("proj/vendor")));
        assert!(!c.excludes(Path::new("proj/src/a.js")));
    }
}
