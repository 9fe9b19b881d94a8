//! Baselines: adopt proclint on an existing codebase without fixing every
//! finding first.
//!
//! `--write-baseline FILE` records the current findings; `--baseline FILE`
//! hides the findings recorded there, so only new ones are reported. An
//! entry is `rule` + `path` + the finding's fingerprint (see
//! [`crate::engine::fingerprint`]: flagged text and enclosing function, no line
//! numbers), so edits elsewhere in a file keep a recorded finding hidden.
//! Entries are a multiset: two identical findings need two entries.
//!
//! Paths are stored relative to the baseline file's directory, so the same
//! baseline works from any working directory. The file is sorted JSON with
//! one entry per line, so a review diff shows one line per finding.
//!
//! A baseline belongs to one tree, whose root it records (`"root"`,
//! relative to the baseline's folder). A run that lints a file outside that
//! root is refused: its findings could never match, and rewriting the file
//! would mix another tree's findings into it (`--write-baseline
//! ../a/base.json` from `b/`).

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::diagnostic::{self, Diagnostic, Location, Severity};
use crate::engine::Outcome;
use crate::project::config::Config;
use crate::rules::RuleSwitches;
use crate::source::{Pos, Span};

/// The largest baseline read (a baseline of 100,000 findings is about
/// 20 MB); a committed FIFO, device or huge file is an error, not a hang.
pub const MAX_BASELINE_SIZE: u64 = 256 << 20;

pub const VERSION: u32 = 1;
pub const STALE_RULE: &str = "baseline-stale";

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Entry {
    pub rule: String,
    pub path: String,
    pub fingerprint: String,
    /// For the humans reading the file; not used for matching.
    pub message: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct File {
    version: u32,
    /// The tree's root, relative to the baseline's folder. Absent in
    /// baselines written before it was recorded: then the root is found
    /// as for a new baseline ([`Baseline::default_root`]).
    #[serde(default)]
    root: Option<String>,
    entries: Vec<Entry>,
}

/// A baseline file's contents.
#[derive(Debug)]
pub struct Recorded {
    /// The recorded root, absolute and normalised, if any.
    root: Option<PathBuf>,
    pub entries: Vec<Entry>,
}

/// A baseline file's location, resolved once against the working directory.
#[derive(Debug, Clone)]
pub struct Baseline {
    /// As the user gave it (for messages and the stale note's location).
    pub display: String,
    /// Absolute, lexically normalised directory holding the file.
    dir: PathBuf,
    cwd: PathBuf,
}

impl Baseline {
    pub fn at(path: &Path) -> std::io::Result<Baseline> {
        let cwd = std::env::current_dir()?;
        let abs = normalise(&cwd.join(path));
        let shown = abs.strip_prefix(&cwd).unwrap_or(path);
        let display = shown.to_string_lossy().replace('\\', "/");
        let dir = abs.parent().map(Path::to_path_buf).unwrap_or(abs);
        Ok(Baseline { display, dir, cwd })
    }

    /// The root of the tree a new baseline is for: the nearest folder at or
    /// above the baseline's with `proclint.toml` or `.git`; without one, the
    /// working directory when the baseline is inside it (a baseline in
    /// `config/` written from the tree's top), else the baseline's folder.
    pub fn default_root(&self) -> PathBuf {
        let marked = self.dir.ancestors().find(|d| {
            d.join(crate::project::config::FILE_NAME).exists() || d.join(".git").exists()
        });
        match marked {
            Some(d) => d.to_path_buf(),
            None if self.dir.starts_with(&self.cwd) => self.cwd.clone(),
            None => self.dir.clone(),
        }
    }

    /// `path` as the user would type it from the working directory.
    fn shown(&self, path: &Path) -> String {
        match relative_to(path, &self.cwd) {
            Some(r) if r.is_empty() => ".".to_string(),
            Some(r) => r,
            None => path.to_string_lossy().into_owned(),
        }
    }

    /// Refuses a run that linted a file outside the baseline's tree: the
    /// baseline was written for another tree (or is about to be).
    fn check_tree(&self, root: &Path, outcome: &Outcome, writing: bool) -> Result<(), String> {
        let outside = outcome
            .files
            .iter()
            .filter(|f| f.report)
            .find(|f| !normalise(&self.cwd.join(&*f.display)).starts_with(root));
        match outside {
            None => Ok(()),
            Some(f) => Err(format!(
                "baseline {} is for the tree at `{}`, and `{}` is outside it: {}",
                self.display,
                self.shown(root),
                f.display,
                if writing {
                    "writing it would mix another tree's findings into it. Give that tree its \
                     own baseline (`--write-baseline FILE` with FILE inside it)"
                } else {
                    "its entries can never match that file. Check files of its tree, give this \
                     tree its own baseline (`--write-baseline FILE` inside it), or pass \
                     --no-baseline"
                }
            )),
        }
    }

    /// A finding's path as stored: relative to the baseline's directory,
    /// with `..` for a file outside it. (A file outside was stored as
    /// displayed, relative to the working directory: the same tree checked
    /// from elsewhere, or a baseline in `config/`, lost or mismatched it,
    /// and `--write-baseline ../a/base.json` from `b/` mixed `b`'s paths
    /// into `a`'s.)
    fn entry_path(&self, display: &str) -> String {
        let abs = normalise(&self.cwd.join(display));
        relative_to(&abs, &self.dir).unwrap_or_else(|| display.to_string())
    }

    fn entry(&self, d: &Diagnostic) -> Entry {
        Entry {
            rule: d.rule.to_string(),
            path: self.entry_path(&d.location.path),
            fingerprint: d
                .fingerprint
                .clone()
                .unwrap_or_else(|| crate::engine::fingerprint::fallback(d)),
            message: d.message.clone(),
        }
    }

    /// The entries for every finding of a run, sorted. proclint's own
    /// failures are not findings to accept, and are left out.
    pub fn entries(&self, outcome: &Outcome) -> Vec<Entry> {
        let mut entries: Vec<Entry> = outcome
            .diagnostics
            .iter()
            .filter(|d| d.rule != "internal-error" && d.rule != STALE_RULE)
            .map(|d| self.entry(d))
            .collect();
        entries.sort();
        entries
    }

    /// Writes the entries as stable, sorted JSON, one entry per line, with
    /// the tree's root relative to the baseline's folder.
    pub fn write(&self, path: &Path, root: &Path, entries: &[Entry]) -> std::io::Result<()> {
        let root = match relative_to(root, &self.dir) {
            Some(r) if r.is_empty() => ".".to_string(),
            Some(r) => r,
            None => root.to_string_lossy().replace('\\', "/"),
        };
        crate::source::output::write_atomic(path, render(&root, entries).as_bytes())
    }

    pub fn read(&self, path: &Path) -> Result<Recorded, String> {
        let text = crate::source::read_small_file(path, MAX_BASELINE_SIZE)?;
        let file: File = serde_json::from_str(&text).map_err(|e| e.to_string())?;
        if file.version != VERSION {
            return Err(format!(
                "unsupported version {} (this proclint reads version {VERSION})",
                file.version
            ));
        }
        let root = file.root.map(|r| normalise(&self.dir.join(r)));
        Ok(Recorded {
            root,
            entries: file.entries,
        })
    }

    /// Hides the findings recorded in `entries`; reports the entries that
    /// matched nothing although their rule ran on their file, as one
    /// `baseline-stale` note. Returns how many findings were hidden.
    pub fn apply(&self, outcome: &mut Outcome, entries: Vec<Entry>, config: &Config) -> usize {
        let mut remaining: BTreeMap<(String, String, String), Vec<Entry>> = BTreeMap::new();
        for e in entries {
            remaining
                .entry((e.rule.clone(), e.path.clone(), e.fingerprint.clone()))
                .or_default()
                .push(e);
        }
        let before = outcome.diagnostics.len();
        let diagnostics = std::mem::take(&mut outcome.diagnostics);
        for d in diagnostics {
            let e = self.entry(&d);
            let key = (e.rule, e.path, e.fingerprint);
            match remaining.get_mut(&key).and_then(Vec::pop) {
                Some(_) => {}
                None => outcome.diagnostics.push(d),
            }
        }
        let hidden = before - outcome.diagnostics.len();

        let linted = self.linted(outcome);
        let stale: Vec<Entry> = remaining
            .into_values()
            .flatten()
            .filter(|e| self.could_find(e, &linted, config))
            .collect();
        if !stale.is_empty() && config.is_enabled(STALE_RULE) {
            outcome.diagnostics.push(self.stale_note(&stale, config));
            diagnostic::sort(&mut outcome.diagnostics);
        }
        hidden
    }

    /// The stored paths of the files this run linted.
    fn linted(&self, outcome: &Outcome) -> BTreeSet<String> {
        outcome
            .files
            .iter()
            .map(|f| self.entry_path(&f.display))
            .collect()
    }

    /// Whether this run would have re-found the entry if it were still
    /// there: its rule ran and its file was linted (or no longer exists). A
    /// pre-commit run over two files must not call the other entries stale,
    /// nor drop them when it rewrites the baseline.
    fn could_find(&self, e: &Entry, linted: &BTreeSet<String>, config: &Config) -> bool {
        config.is_enabled(&e.rule) && (linted.contains(&e.path) || !self.dir.join(&e.path).exists())
    }

    fn stale_note(&self, stale: &[Entry], config: &Config) -> Diagnostic {
        let n = stale.len();
        let message = if n == 1 {
            "1 baseline entry is fixed; run --write-baseline to prune".to_string()
        } else {
            format!("{n} baseline entries are fixed; run --write-baseline to prune")
        };
        const SHOWN: usize = 5;
        let mut help: Vec<String> = stale
            .iter()
            .take(SHOWN)
            .map(|e| format!("{} in {}: {}", e.rule, e.path, e.message))
            .collect();
        if n > SHOWN {
            help.push(format!("and {} more", n - SHOWN));
        }
        let start = Pos { line: 1, column: 1 };
        Diagnostic::new(
            STALE_RULE,
            config.severity_of(STALE_RULE).unwrap_or(Severity::Info),
            Location {
                path: Arc::from(self.display.as_str()),
                span: Span::default(),
                start,
                end: start,
            },
            message,
        )
        .with_help(format!("no longer found: {}", help.join("; ")))
    }
}

/// What `check` was asked to do with baselines.
#[derive(Debug, Default)]
pub struct Options {
    /// `--write-baseline FILE`.
    pub write: Option<PathBuf>,
    /// `--baseline FILE`, else `baseline` in proclint.toml (unless
    /// `--no-baseline`).
    pub read: Option<PathBuf>,
}

/// Applies the baseline options to a finished run. `--write-baseline` wins
/// over `--baseline`: it records every current finding (keeping recorded
/// entries this run could not have re-found, e.g. for files not given) and
/// then reports as if the new baseline were applied. Returns a note for
/// stderr, or an error (exit 2).
pub fn run(
    outcome: &mut Outcome,
    config: &Config,
    options: &Options,
) -> Result<Option<String>, String> {
    if let Some(path) = &options.write {
        let b = Baseline::at(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let old = if path.exists() {
            b.read(path)
                .map_err(|e| format!("baseline {}: {e}", b.display))?
        } else {
            Recorded {
                root: None,
                entries: Vec::new(),
            }
        };
        // An existing baseline keeps the tree it was written for.
        let root = old.root.unwrap_or_else(|| b.default_root());
        b.check_tree(&root, outcome, true)?;
        let linted = b.linted(outcome);
        let mut entries = b.entries(outcome);
        let kept = old
            .entries
            .into_iter()
            .filter(|e| !b.could_find(e, &linted, config));
        entries.extend(kept);
        entries.sort();
        b.write(path, &root, &entries)
            .map_err(|e| format!("cannot write the baseline {}: {e}", b.display))?;
        let n = entries.len();
        b.apply(outcome, entries, config);
        let noun = if n == 1 { "entry" } else { "entries" };
        return Ok(Some(format!(
            "proclint: wrote {n} baseline {noun} to {}",
            b.display
        )));
    }
    if let Some(path) = &options.read {
        let b = Baseline::at(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let recorded = b
            .read(path)
            .map_err(|e| format!("baseline {}: {e}", b.display))?;
        let root = recorded.root.unwrap_or_else(|| b.default_root());
        b.check_tree(&root, outcome, false)?;
        b.apply(outcome, recorded.entries, config);
    }
    Ok(None)
}

/// `{"version":1,"root":"…","entries":[…]}` with one compact entry per
/// line.
pub fn render(root: &str, entries: &[Entry]) -> String {
    let mut sorted: Vec<&Entry> = entries.iter().collect();
    sorted.sort();
    // A string serialises infallibly; the fallback keeps the file readable.
    let root = serde_json::to_string(root).unwrap_or_else(|_| "\".\"".into());
    let mut out = format!("{{\n  \"version\": {VERSION},\n  \"root\": {root},\n  \"entries\": [");
    for (i, e) in sorted.iter().enumerate() {
        out.push_str(if i == 0 { "\n    " } else { ",\n    " });
        // Serialising four strings cannot fail; an empty object would be
        // rejected on reading rather than silently matching.
        out.push_str(&serde_json::to_string(e).unwrap_or_else(|_| "{}".into()));
    }
    out.push_str(if sorted.is_empty() {
        "]\n}\n"
    } else {
        "\n  ]\n}\n"
    });
    out
}

/// Resolves `.` and `..` without touching the file system (the file may
/// not exist, and symlinks should not change a stored path).
/// `path` relative to `base` (both absolute and normalised), `/`-separated,
/// climbing with `..`; `None` when they share no root (other drives).
fn relative_to(path: &Path, base: &Path) -> Option<String> {
    let p: Vec<Component> = path.components().collect();
    let b: Vec<Component> = base.components().collect();
    let common = p.iter().zip(&b).take_while(|(x, y)| x == y).count();
    if common == 0 {
        return None;
    }
    let mut parts: Vec<String> = vec!["..".to_string(); b.len() - common];
    parts.extend(
        p[common..]
            .iter()
            .map(|c| c.as_os_str().to_string_lossy().into_owned()),
    );
    Some(parts.join("/"))
}

fn normalise(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                out.pop();
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(rule: &str, path: &str, fp: &str) -> Entry {
        Entry {
            rule: rule.into(),
            path: path.into(),
            fingerprint: fp.into(),
            message: "m".into(),
        }
    }

    #[test]
    fn renders_sorted_one_entry_per_line() {
        let text = render(".", &[entry("b", "x.js", "2"), entry("a", "y.js", "1")]);
        assert_eq!(
            text,
            "{\n  \"version\": 1,\n  \"root\": \".\",\n  \"entries\": [\n    \
             {\"rule\":\"a\",\"path\":\"y.js\",\"fingerprint\":\"1\",\"message\":\"m\"},\n    \
             {\"rule\":\"b\",\"path\":\"x.js\",\"fingerprint\":\"2\",\"message\":\"m\"}\n  ]\n}\n"
        );
        assert_eq!(
            render("..", &[]),
            "{\n  \"version\": 1,\n  \"root\": \"..\",\n  \"entries\": []\n}\n"
        );
        let parsed: File = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(parsed.entries.len(), 2);
        assert_eq!(parsed.root.as_deref(), Some("."));
    }

    #[test]
    fn paths_are_relative_to_the_baseline() {
        let b = Baseline {
            display: "proclint-baseline.json".into(),
            dir: PathBuf::from("/repo"),
            cwd: PathBuf::from("/repo/process"),
        };
        assert_eq!(b.entry_path("a.js"), "process/a.js");
        assert_eq!(b.entry_path("./sub/../a.js"), "process/a.js");
        assert_eq!(b.entry_path("../other/b.js"), "other/b.js");
        // Outside the baseline's folder too (issue 19): relative, so it
        // matches whatever the working directory.
        assert_eq!(b.entry_path("/elsewhere/c.js"), "../elsewhere/c.js");
        let nested = Baseline {
            display: "config/base.json".into(),
            dir: PathBuf::from("/repo/config"),
            cwd: PathBuf::from("/repo"),
        };
        assert_eq!(nested.entry_path("src/a.js"), "../src/a.js");
    }
}
