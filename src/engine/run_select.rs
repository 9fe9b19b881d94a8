//! Which run `check --run [<id|path|latest|latest-failed>]` reads.
//!
//! Runs are looked for under the checked paths (`.a5c/runs/*` at any depth),
//! else under the project root of the first path, so `check src/ --run`
//! still finds the project's `.a5c/runs`. Every failure is a message for a
//! usage error (exit 2): a report about the wrong run is worse than none.

use std::path::{Path, PathBuf};

use crate::runs::journal::{discover_runs, is_run_dir, load_run, Run, RunDir};
use crate::runs::summary::{status_of, RunStatus};
use crate::runs::time::parse_iso8601_ms;

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RunSelector {
    /// `--run` without a value: the most recent failed run, else the most
    /// recent completed one (the runs a retrospective is usually about).
    Default,
    Latest,
    LatestFailed,
    /// A run id, a run directory name, or a path to a run directory.
    Named(String),
}

impl RunSelector {
    pub fn parse(value: Option<&str>) -> RunSelector {
        match value.map(str::trim) {
            None | Some("") => RunSelector::Default,
            Some("latest") => RunSelector::Latest,
            Some("latest-failed") => RunSelector::LatestFailed,
            Some(other) => RunSelector::Named(other.to_string()),
        }
    }
}

/// The chosen run and how it was chosen, for the report.
#[derive(Debug)]
pub struct Selected {
    pub run: Run,
    pub how: &'static str,
}

/// Loads the run `selector` names. Paths in the run (journal files, issues)
/// keep the prefix the user typed, so diagnostics open from the shell.
pub fn select(selector: &RunSelector, paths: &[PathBuf]) -> Result<Selected, String> {
    if let RunSelector::Named(name) = selector {
        let dir = Path::new(name);
        if is_run_dir(dir) {
            return Ok(Selected {
                run: load(dir),
                how: "named by path",
            });
        }
    }
    let (all_dirs, searched) = candidates(paths);
    // Folders without a journal are not runs (`proclint runs` names them).
    let dirs: Vec<RunDir> = all_dirs
        .into_iter()
        .filter(|d| is_run_dir(&d.path))
        .collect();
    let where_ = searched
        .iter()
        .map(|p| format!("`{}`", shown(p)))
        .collect::<Vec<_>>()
        .join(", ");
    if dirs.is_empty() {
        return Err(format!(
            "--run: no recorded runs (.a5c/runs/*) under {where_}"
        ));
    }
    if let RunSelector::Named(name) = selector {
        // Directory names first: loading every journal just to compare ids
        // is wasted work when the folder is named after the run, as the SDK does.
        let named: Vec<&RunDir> = dirs
            .iter()
            .filter(|d| d.path.file_name().is_some_and(|n| n == name.as_str()))
            .collect();
        match named.as_slice() {
            [d] => {
                return Ok(Selected {
                    run: load(&d.path),
                    how: "named by id",
                })
            }
            // Runs are identified by their folder: never pick one of two.
            [_, _, ..] => {
                return Err(format!(
                    "--run {name}: {} runs have that id ({}); name one by its directory",
                    named.len(),
                    named
                        .iter()
                        .map(|d| format!("`{}`", shown(&d.path)))
                        .collect::<Vec<_>>()
                        .join(", ")
                ))
            }
            [] => {}
        }
    }
    let mut runs: Vec<Run> = dirs.iter().map(|d| load(&d.path)).collect();
    // Oldest first; runs without a readable creation time count as oldest.
    runs.sort_by_cached_key(|r| {
        (
            r.created_at().and_then(parse_iso8601_ms),
            r.run_id.clone(),
            r.rel_dir.clone(),
        )
    });
    let latest_with = |runs: &mut Vec<Run>, status: RunStatus| {
        let i = runs.iter().rposition(|r| status_of(r) == status)?;
        Some(runs.swap_remove(i))
    };
    let (run, how) = match selector {
        RunSelector::Named(name) => {
            let same: Vec<&Run> = runs.iter().filter(|r| &r.run_id == name).collect();
            if same.len() > 1 {
                return Err(format!(
                    "--run {name}: {} runs have that id ({}); name one by its directory",
                    same.len(),
                    same.iter()
                        .map(|r| format!("`{}`", shown(&r.dir)))
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
            }
            let Some(i) = runs.iter().position(|r| &r.run_id == name) else {
                let known: Vec<&str> = runs.iter().map(|r| r.run_id.as_str()).collect();
                return Err(format!(
                    "--run: no run `{name}` under {where_} (known runs: {})",
                    known.join(", ")
                ));
            };
            (runs.swap_remove(i), "named by id")
        }
        RunSelector::Latest => match runs.pop() {
            Some(r) => (r, "the most recent run"),
            None => return Err(format!("--run latest: no runs under {where_}")),
        },
        RunSelector::LatestFailed => match latest_with(&mut runs, RunStatus::Failed) {
            Some(r) => (r, "the most recent failed run"),
            None => {
                return Err(format!(
                    "--run latest-failed: none of the {} runs under {where_} failed",
                    runs.len()
                ))
            }
        },
        RunSelector::Default => {
            if let Some(r) = latest_with(&mut runs, RunStatus::Failed) {
                (r, "the most recent failed run")
            } else if let Some(r) = latest_with(&mut runs, RunStatus::Completed) {
                (r, "the most recent completed run (no run failed)")
            } else {
                return Err(format!(
                    "--run: none of the {} runs under {where_} failed or completed; name one with --run <id>",
                    runs.len()
                ));
            }
        }
    };
    Ok(Selected { run, how })
}

/// Run directories under the checked paths, else under the first path's
/// project root; with the roots that were searched.
fn candidates(paths: &[PathBuf]) -> (Vec<RunDir>, Vec<PathBuf>) {
    let mut roots: Vec<PathBuf> = paths
        .iter()
        .map(|p| {
            if p.is_dir() {
                p.clone()
            } else {
                crate::engine::project_root(p).unwrap_or_else(|| PathBuf::from("."))
            }
        })
        .collect();
    roots.dedup();
    let mut dirs: Vec<RunDir> = roots.iter().flat_map(|r| discover_runs(r)).collect();
    if dirs.is_empty() {
        if let Some(up) = paths.first().and_then(|p| crate::engine::project_root(p)) {
            if !roots.contains(&up) {
                dirs = discover_runs(&up);
                roots.push(up);
            }
        }
    }
    dirs.sort();
    dirs.dedup();
    (dirs, roots)
}

fn load(dir: &Path) -> Run {
    // The empty root keeps every path as the user named it.
    load_run(dir, Path::new(""))
}

fn shown(p: &Path) -> String {
    let s = p.to_string_lossy().replace('\\', "/");
    if s.is_empty() {
        ".".into()
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_selectors() {
        assert_eq!(RunSelector::parse(None), RunSelector::Default);
        assert_eq!(RunSelector::parse(Some("latest")), RunSelector::Latest);
        assert_eq!(
            RunSelector::parse(Some("latest-failed")),
            RunSelector::LatestFailed
        );
        assert_eq!(
            RunSelector::parse(Some("run-1")),
            RunSelector::Named("run-1".into())
        );
    }
}
