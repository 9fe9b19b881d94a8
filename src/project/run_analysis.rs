//! A recorded run read against the checked project (`check --run`): the loop
//! trajectories, and where each task id of the journal is defined and
//! invoked in the process modules, so run evidence can point at source lines
//! and the run rules can report at the loop instead of at a journal file.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::sync::Arc;

use crate::diagnostic::Location;
use crate::project::{self, Project, RepeatInfo};
use crate::runs::convergence::{convergence, LoopTrajectory};
use crate::runs::fingerprint::fingerprint;
use crate::runs::journal::{self, Run};
use crate::source::{Pos, Span};

/// A place in a checked module.
#[derive(Debug, Clone)]
pub struct Site {
    pub location: Location,
    /// Findings there are reported (false for modules loaded only as context,
    /// where a diagnostic would be dropped).
    pub reported: bool,
}

/// A `ctx.task` call of a task, with the loop (or batch, or repeated helper)
/// that makes it run more than once.
#[derive(Debug, Clone)]
pub struct InvocationSite {
    pub site: Site,
    pub repeat: Option<RepeatInfo>,
}

/// Where a journal task id lives in the source.
#[derive(Debug, Clone, Default)]
pub struct TaskSites {
    /// `defineTask('<id>', …)` calls, by path.
    pub definitions: Vec<Site>,
    /// Calls dispatching one of those definitions, by path and position.
    pub invocations: Vec<InvocationSite>,
}

impl TaskSites {
    /// The id is defined more than once in the process: the journal records
    /// only the id, so which definition (and which call) ran is unknown.
    pub fn ambiguous(&self) -> bool {
        self.definitions.len() > 1
    }

    /// The one definition of the id, when it has exactly one.
    pub fn definition(&self) -> Option<&Site> {
        match self.definitions.as_slice() {
            [only] => Some(only),
            _ => None,
        }
    }

    /// The first invocation inside a loop (or other repetition), preferring
    /// modules whose findings are reported; none when the id is ambiguous,
    /// since that would be a guess.
    pub fn loop_invocation(&self) -> Option<&InvocationSite> {
        if self.ambiguous() {
            return None;
        }
        let repeated = || self.invocations.iter().filter(|i| i.repeat.is_some());
        repeated()
            .find(|i| i.site.reported)
            .or_else(|| repeated().next())
    }
}

#[derive(Debug, Clone)]
pub struct RunAnalysis {
    pub run: Run,
    /// Identical failing rounds that make a stall.
    pub stall_rounds: usize,
    pub trajectories: Vec<LoopTrajectory>,
    /// Every task id the journal requested (breakpoints excluded), with its
    /// sites; ids not found in the checked modules map to empty sites.
    pub tasks: BTreeMap<String, TaskSites>,
    /// The entry module `run.json` names, as displayed, when it was checked.
    pub entry: Option<Arc<str>>,
    /// The modules of the run's process (the entry and its import closure),
    /// as displayed; `None` when the entry is unknown and every checked
    /// module was searched.
    pub process_modules: Option<BTreeSet<Arc<str>>>,
}

impl RunAnalysis {
    pub fn new(run: Run, project: &Project, stall_rounds: usize) -> RunAnalysis {
        let ids: BTreeSet<&str> = run
            .effects
            .iter()
            .filter(|e| !e.is_breakpoint())
            .map(|e| e.task_id.as_str())
            .collect();
        let mut tasks: BTreeMap<String, TaskSites> = ids
            .iter()
            .map(|id| (id.to_string(), TaskSites::default()))
            .collect();
        // Real projects reuse task ids across processes (five modules define
        // `build-and-verify`): the run's entry and what it imports are the
        // only modules its journal can be about.
        let entry_index = run.meta.import_path.as_deref().and_then(|import| {
            let key = project::module_key(&run.dir.join(import));
            project.modules.iter().position(|m| m.key == key)
        });
        let closure = entry_index.map(|e| project.import_closure(e));
        let in_process = |m: usize| closure.as_ref().is_none_or(|c| c.contains(&m));
        for (mi, module) in project.modules.iter().enumerate() {
            if !in_process(mi) {
                continue;
            }
            for (ti, task) in module.tasks.iter().enumerate() {
                let Some(sites) = task.id.as_deref().and_then(|id| tasks.get_mut(id)) else {
                    continue;
                };
                sites.definitions.push(Site {
                    location: task.definition.clone(),
                    reported: module.report,
                });
                for (mj, ij) in project.invocations_of(mi, ti) {
                    if !in_process(mj) {
                        continue;
                    }
                    let owner = &project.modules[mj];
                    let inv = &owner.invocations[ij];
                    sites.invocations.push(InvocationSite {
                        site: Site {
                            location: inv.location.clone(),
                            reported: owner.report,
                        },
                        repeat: inv.repeat.as_deref().cloned(),
                    });
                }
            }
        }
        for sites in tasks.values_mut() {
            sites
                .definitions
                .sort_by(|a, b| location_key(&a.location).cmp(&location_key(&b.location)));
            sites.invocations.sort_by(|a, b| {
                location_key(&a.site.location).cmp(&location_key(&b.site.location))
            });
            // One call can be reached through two re-exports of one definition.
            sites
                .invocations
                .dedup_by(|a, b| a.site.location == b.site.location);
        }
        let entry = entry_index.map(|e| project.modules[e].path.clone());
        let process_modules = closure.map(|c| {
            c.into_iter()
                .map(|m| project.modules[m].path.clone())
                .collect()
        });
        RunAnalysis {
            trajectories: convergence(&run, stall_rounds),
            stall_rounds,
            tasks,
            entry,
            process_modules,
            run,
        }
    }

    /// The journal file of the event with sequence number `seq`, at the line
    /// of `key` inside its `data` when known.
    pub fn journal_location(&self, seq: u64, key: &str) -> Location {
        match self.run.events.iter().find(|e| e.seq == seq) {
            Some(event) => file_location(&event.file, event.key_lines.get(key).copied()),
            None => file_location(&format!("{}/journal", self.run.rel_dir), None),
        }
    }
}

/// A whole-line location in a file that is not a checked module (a journal
/// event, `run.json`): suppression comments cannot live there, but every
/// report format can point at it. The span covers the line when the file can
/// be read (small journal files; the pretty report shows that line), else it
/// is empty and only the line number is known.
pub fn file_location(path: &str, line: Option<u32>) -> Location {
    let line = line.unwrap_or(1).max(1);
    let span = line_span(Path::new(path), line).unwrap_or_default();
    let pos = Pos { line, column: 1 };
    Location {
        path: Arc::from(path),
        span,
        start: pos,
        end: pos,
    }
}

fn line_span(path: &Path, line: u32) -> Option<Span> {
    let text = journal::read_text(path, None).ok()?;
    let start = if line == 1 {
        0
    } else {
        let skip = usize::try_from(line - 2).ok()?;
        text.match_indices('\n').nth(skip).map(|(i, _)| i + 1)?
    };
    let end = text[start..].find('\n').map_or(text.len(), |i| start + i);
    Some(Span::new(start, end))
}

fn location_key(l: &Location) -> (&str, Pos) {
    (&l.path, l.start)
}

/// "`spec-review` (review round <n>)": the task id with its label as the loop
/// groups its rounds (numbers masked), so round 1's label does not name the loop.
pub fn loop_name(t: &LoopTrajectory) -> String {
    let label = t
        .label
        .as_deref()
        .map(|l| format!(" ({})", fingerprint(l)))
        .filter(|l| l != " ()")
        .unwrap_or_default();
    format!("`{}`{label}", t.task_id)
}
