//! `proclint.toml`: rule severities, include/exclude globs, context names.
//!
//! Every error (bad TOML, unknown key, unknown rule id, bad severity, bad
//! glob) points at its place in the file and exits with code 2.

use std::collections::BTreeMap;
use std::fmt;
use std::ops::Range;
use std::path::{Path, PathBuf};

use globset::{Glob, GlobSet, GlobSetBuilder};
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

#[derive(Debug, Clone)]
pub struct Config {
    /// The file this came from, if any.
    pub path: Option<PathBuf>,
    /// Directory globs are relative to.
    pub root: PathBuf,
    rules: BTreeMap<String, RuleLevel>,
    /// Per-rule option tables (`[rules.<id>]` keys other than `severity`).
    pub rule_options: BTreeMap<String, toml::Table>,
    exclude: GlobSet,
    include: Option<GlobSet>,
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
}

impl Default for Config {
    fn default() -> Self {
        Config {
            path: None,
            root: PathBuf::from("."),
            rules: BTreeMap::new(),
            rule_options: BTreeMap::new(),
            exclude: GlobSet::empty(),
            include: None,
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
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields, rename_all = "kebab-case")]
struct RawConfig {
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
    /// Finds `proclint.toml` walking up from `start`.
    pub fn discover(start: &Path) -> Option<PathBuf> {
        let mut dir = Some(start);
        while let Some(d) = dir {
            let candidate = d.join(FILE_NAME);
            // Anything at that name is this folder's configuration: a
            // dangling link, a folder or an unreadable file is an error
            // when loaded, never a silent fall-back to one further up.
            if std::fs::symlink_metadata(&candidate).is_ok() {
                return Some(candidate);
            }
            dir = d.parent();
        }
        None
    }

    /// Reads and parses a configuration file, with every error in it.
    pub fn load(path: &Path, known: &dyn KnownRules) -> Result<Config, Vec<ConfigError>> {
        let text = crate::source::read_small_file(path, MAX_CONFIG_SIZE).map_err(|message| {
            vec![ConfigError {
                path: path.to_path_buf(),
                text: String::new(),
                span: None,
                message,
            }]
        })?;
        let root = path
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_else(|| PathBuf::from("."));
        Config::parse_all(&text, path, root, known)
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
        let config = Config::parse_into(text, path, root, known, &mut errors);
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
    /// TOML.
    fn parse_into(
        text: &str,
        path: &Path,
        root: PathBuf,
        known: &dyn KnownRules,
        errors: &mut Vec<ConfigError>,
    ) -> Option<Config> {
        let err = |span: Option<Range<usize>>, message: String| ConfigError {
            path: path.to_path_buf(),
            text: text.to_string(),
            span,
            message,
        };
        let raw: RawConfig = match toml::from_str(text) {
            Ok(raw) => raw,
            Err(e) => {
                errors.push(err(e.span(), e.message().to_string()));
                return None;
            }
        };
        let mut config = Config {
            path: Some(path.to_path_buf()),
            root,
            ..Config::default()
        };
        if let Some(names) = raw.context_names {
            config.context_names = names;
        }
        if let Some(size) = raw.max_file_size {
            config.max_file_size = size;
        }
        if let Some(baseline) = raw.baseline {
            config.baseline = Some(PathBuf::from(baseline));
        }
        if let Some(dir) = raw.cache_dir {
            if dir.get_ref().trim().is_empty() {
                errors.push(err(
                    Some(dir.span()),
                    "`cache-dir` must not be empty".into(),
                ));
            } else {
                config.cache_dir = Some(PathBuf::from(dir.into_inner()));
            }
        }
        if let Some(globs) = raw.exclude {
            match build_globs(&globs) {
                Ok(g) => config.exclude = g,
                Err((s, m)) => errors.push(err(Some(s), m)),
            }
        }
        if let Some(globs) = raw.include {
            match build_globs(&globs) {
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
        config.extend_select = selectors("extend-select", raw.extend_select);
        config.extend_safe_fixes = selectors("extend-safe-fixes", raw.extend_safe_fixes);
        config.extend_unsafe_fixes = selectors("extend-unsafe-fixes", raw.extend_unsafe_fixes);
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
    pub fn fingerprint(&self) -> String {
        format!(
            "rules={:?};options={:?};context={:?};select={:?};extend={:?};safe={:?};unsafe={:?}",
            self.rules,
            self.rule_options,
            self.context_names,
            self.select,
            self.extend_select,
            self.extend_safe_fixes,
            self.extend_unsafe_fixes
        )
    }

    /// The cache directory: `cache-dir` relative to the config file's
    /// directory, else `.proclint_cache` there (or in the working
    /// directory when no config file was found).
    pub fn cache_dir(&self) -> PathBuf {
        let dir = self
            .cache_dir
            .clone()
            .unwrap_or_else(|| PathBuf::from(DEFAULT_CACHE_DIR));
        if dir.is_absolute() || self.path.is_none() {
            dir
        } else {
            self.root.join(dir)
        }
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
        let rel = self.relative(path);
        if self.exclude.is_match(&rel) {
            return true;
        }
        match &self.include {
            Some(inc) => !inc.is_match(&rel),
            None => false,
        }
    }

    pub fn excludes_dir(&self, path: &Path) -> bool {
        self.exclude.is_match(self.relative(path))
    }

    fn relative(&self, path: &Path) -> PathBuf {
        let stripped = path.strip_prefix("./").unwrap_or(path);
        let root = self.root.strip_prefix("./").unwrap_or(&self.root);
        if root.as_os_str().is_empty() || root == Path::new(".") {
            return stripped.to_path_buf();
        }
        stripped
            .strip_prefix(root)
            .map(Path::to_path_buf)
            .unwrap_or_else(|_| stripped.to_path_buf())
    }
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

fn build_globs(globs: &[Spanned<String>]) -> Result<GlobSet, (Range<usize>, String)> {
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
    b.build().map_err(|e| (0..0, e.to_string()))
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

/// Levenshtein distance over chars.
pub fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let cost = usize::from(ca != *cb);
            cur.push((prev[j] + cost).min(prev[j + 1] + 1).min(cur[j] + 1));
        }
        prev = cur;
    }
    prev[b.len()]
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
