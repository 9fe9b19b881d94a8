//! Which configuration each file gets, the same for `check`, the language
//! server, MCP and the pre-commit hook: the nearest `proclint.toml` at or
//! above the file, up to the repository root (each may `extend` another).
//! In: the paths a run lints. Out: the run's configuration — the outermost
//! one above the first path (the project's: where the cache and the
//! baseline are), with every other one found as a nested configuration
//! ([`Config::scoped`]) — or every error of every file at once.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use crate::engine::discover;
use crate::project::config::{Config, ConfigError};
use crate::project::normalize;

/// The configuration of a run over `paths` (`.` when empty). `explicit`
/// (`--config`) is the one configuration of every file, as with ruff's
/// `--config`: nothing else is looked for.
pub fn resolve(paths: &[PathBuf], explicit: Option<&Path>) -> Result<Config, Vec<ConfigError>> {
    let cwd = std::env::current_dir().unwrap_or_else(|_| PathBuf::from("."));
    if let Some(path) = explicit {
        let mut config = Config::load(path, &crate::rules::Registry)?;
        config.map_paths(&|p| relative_to(&cwd, p));
        return Ok(config);
    }
    let dot = [PathBuf::from(".")];
    let paths = if paths.is_empty() { &dot[..] } else { paths };
    // Nearest first for each path, then the nested ones below folders.
    let mut found: Vec<PathBuf> = Vec::new();
    let mut seen = BTreeSet::new();
    let mut above_first: Vec<PathBuf> = Vec::new();
    for (i, p) in paths.iter().enumerate() {
        let abs = cwd.join(p);
        let is_dir = abs.is_dir();
        let folder = if is_dir {
            abs.clone()
        } else {
            abs.parent().map_or_else(|| abs.clone(), Path::to_path_buf)
        };
        let mut files = Config::discover_all(&normalize(&folder));
        if i == 0 {
            above_first = files.clone();
        }
        if is_dir {
            files.extend(
                discover::find_configs(&abs)
                    .into_iter()
                    .map(|f| normalize(&f)),
            );
        }
        for f in files {
            if seen.insert(f.clone()) {
                found.push(f);
            }
        }
    }
    let mut errors = Vec::new();
    let mut loaded: Vec<Config> = Vec::new();
    for file in &found {
        match Config::load(file, &crate::rules::Registry) {
            Ok(c) => loaded.push(c),
            Err(mut e) => errors.append(&mut e),
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    // The run's own configuration: the outermost one above the first path
    // (the project's), else the defaults at the project root.
    let outermost = above_first.last().cloned();
    let mut base = match outermost
        .as_ref()
        .and_then(|o| loaded.iter().position(|c| c.path.as_ref() == Some(o)))
    {
        Some(i) => loaded.remove(i),
        None => {
            let mut config = Config::default();
            config.root = project_root(&cwd.join(&paths[0])).unwrap_or_else(|| cwd.clone());
            config
        }
    };
    // Deepest folder first: `Config::for_path` takes the first that holds
    // a file.
    loaded.sort_by_key(|c| std::cmp::Reverse(c.root.components().count()));
    base.scoped = loaded.into_iter().map(Arc::new).collect();
    if base.path.is_some() {
        let mut outside = Config::default();
        outside.root = base.root.clone();
        base.outside = Some(Arc::new(outside));
    }
    base.map_paths(&|p| relative_to(&cwd, p));
    Ok(base)
}

/// The repository root (the nearest folder with a `.git`) holding `path`.
fn project_root(path: &Path) -> Option<PathBuf> {
    normalize(path)
        .ancestors()
        .find(|a| std::fs::symlink_metadata(a.join(".git")).is_ok())
        .map(Path::to_path_buf)
}

/// `path` relative to the working directory when it lies in it (`.` for
/// the directory itself): the CLI's display paths, which globs match.
pub fn relative_to(cwd: &Path, path: &Path) -> PathBuf {
    if path.is_relative() {
        return path.to_path_buf();
    }
    match normalize(path).strip_prefix(cwd) {
        Ok(rel) if rel.as_os_str().is_empty() => PathBuf::from("."),
        Ok(rel) => rel.to_path_buf(),
        Err(_) => path.to_path_buf(),
    }
}
