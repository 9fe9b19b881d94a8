//! The cross-file index over the small, owned per-module summaries
//! ([`crate::js::summary`], built in the parallel per-file pass) and
//! the lookups cross-module rules need. No tree or source text lives here,
//! so memory stays proportional to what rules need, not to the size of the
//! tree.

pub mod config;
pub mod facts;
pub mod result_uses;
pub mod run_analysis;

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::path::{Component, Path, PathBuf};
use std::sync::OnceLock;

use crate::diagnostic::Location;
// The summaries are built in `js`; re-exported as the index's vocabulary.
pub use crate::js::summary::{
    ExportKind, ExportSummary, ForwardKind, ImportSummary, ImportedCall, InvocationSummary,
    ModuleSummary, PendingFlow, PendingKind, ReadSet, RepeatInfo, SchemaFields, SchemaState, Seg,
    StringLit, StringSet, TaskRef, TaskSummary, UntestedResult,
};
use crate::project::result_uses::ResultUse;

/// (module index, index into one of its lists).
pub type Site = (usize, usize);

pub struct Project {
    pub modules: Vec<ModuleSummary>,
    /// (module, import specifier) → module it resolves to.
    imports: HashMap<(usize, String), usize>,
    /// (module, task) → invocations of it anywhere: (module, invocation).
    invocations: HashMap<(usize, usize), Vec<(usize, usize)>>,
    /// (module, export name) → calls of it from other modules: (module, call).
    callers: HashMap<(usize, String), Vec<(usize, usize)>>,
    /// Computed on first use; three rules share it.
    result_uses: OnceLock<BTreeMap<(usize, usize), ResultUse>>,
}

/// Bounds chains of re-exports and function hops across modules.
pub const MAX_HOPS: usize = 4;

impl Project {
    /// Every dispatched task's result uses, (module, task) → uses
    /// ([`crate::project::result_uses`]), computed once.
    pub fn result_uses(&self) -> &BTreeMap<(usize, usize), ResultUse> {
        self.result_uses
            .get_or_init(|| crate::project::result_uses::compute(self))
    }

    /// Builds the index. Every lookup rules make later is a hash lookup, so
    /// the cross-module pass stays linear in the size of the project.
    pub fn new(mut modules: Vec<ModuleSummary>) -> Project {
        modules.sort_by(|a, b| a.path.cmp(&b.path));
        let by_key: HashMap<PathBuf, usize> = modules
            .iter()
            .enumerate()
            .map(|(i, m)| (m.key.clone(), i))
            .collect();
        let mut imports = HashMap::new();
        for (i, m) in modules.iter().enumerate() {
            let Some(base) = m.key.parent() else { continue };
            let sources = m
                .imports
                .iter()
                .map(|imp| &imp.source)
                .chain(
                    m.exports
                        .iter()
                        .filter_map(|e| e.reexport.as_ref().map(|r| &r.0)),
                )
                .chain(m.imported_calls.iter().map(|c| &c.source));
            for source in sources {
                if imports.contains_key(&(i, source.clone())) {
                    continue;
                }
                let found = import_candidates(base, source)
                    .iter()
                    .find_map(|c| by_key.get(c).copied());
                if let Some(target) = found {
                    imports.insert((i, source.clone()), target);
                }
            }
        }
        let mut project = Project {
            modules,
            imports,
            invocations: HashMap::new(),
            callers: HashMap::new(),
            result_uses: OnceLock::new(),
        };
        let mut invocations: HashMap<(usize, usize), Vec<(usize, usize)>> = HashMap::new();
        let mut callers: HashMap<(usize, String), Vec<(usize, usize)>> = HashMap::new();
        for (mi, m) in project.modules.iter().enumerate() {
            for (ii, inv) in m.invocations.iter().enumerate() {
                if let Some(task) = project.task_of(mi, &inv.target) {
                    invocations.entry(task).or_default().push((mi, ii));
                }
            }
            for (ci, call) in m.imported_calls.iter().enumerate() {
                if let Some(target) = project.resolve(mi, &call.source) {
                    callers
                        .entry((target, call.name.clone()))
                        .or_default()
                        .push((mi, ci));
                }
            }
        }
        project.invocations = invocations;
        project.callers = callers;
        project
    }

    /// `entry` and every checked module it imports, directly or not: the
    /// modules one process is made of.
    pub fn import_closure(&self, entry: usize) -> BTreeSet<usize> {
        let mut seen = BTreeSet::from([entry]);
        let mut work = vec![entry];
        while let Some(m) = work.pop() {
            for (&(from, _), &to) in &self.imports {
                if from == m && seen.insert(to) {
                    work.push(to);
                }
            }
        }
        seen
    }

    /// The module an import specifier of `from` refers to.
    pub fn resolve(&self, from: usize, source: &str) -> Option<usize> {
        self.imports.get(&(from, source.to_string())).copied()
    }

    /// The export `name` of module `m`, following re-exports.
    pub fn export(&self, m: usize, name: &str) -> Option<(usize, &ExportSummary)> {
        let mut module = m;
        let mut name = name.to_string();
        for _ in 0..MAX_HOPS {
            let e = self.modules[module]
                .exports
                .iter()
                .find(|e| e.name == name)?;
            match &e.reexport {
                Some((source, orig)) => {
                    module = self.resolve(module, source)?;
                    name = orig.clone();
                }
                None => return Some((module, e)),
            }
        }
        None
    }

    /// The task an invocation in module `m` dispatches: (module, task index).
    pub fn task_of(&self, m: usize, target: &TaskRef) -> Option<(usize, usize)> {
        match target {
            TaskRef::Local(i) => Some((m, *i)),
            TaskRef::Imported(t) => {
                let from = self.resolve(m, &t.source)?;
                match self.export(from, &t.name)? {
                    (
                        owner,
                        ExportSummary {
                            kind: ExportKind::Task(i),
                            ..
                        },
                    ) => Some((owner, *i)),
                    _ => None,
                }
            }
            TaskRef::Unknown => None,
        }
    }

    /// A task's declared output fields: its own `outputSchema`, or a schema
    /// const imported from another module.
    pub fn schema_fields(&self, module: usize, task: usize) -> Option<&[(String, Location)]> {
        let t = self.modules.get(module)?.tasks.get(task)?;
        if let Some(f) = &t.schema_fields {
            return Some(f);
        }
        let (source, name) = t.schema_import.as_ref()?;
        let target = self.resolve(module, source)?;
        self.export(target, name)?.1.schema_fields.as_deref()
    }

    /// Every invocation of a task across the project: (module, invocation).
    pub fn invocations_of(&self, module: usize, task: usize) -> Vec<(usize, usize)> {
        self.invocations
            .get(&(module, task))
            .cloned()
            .unwrap_or_default()
    }

    /// Calls from other modules to export `name` of `module`:
    /// (calling module, index into its `imported_calls`).
    pub fn callers_of(&self, module: usize, name: &str) -> &[(usize, usize)] {
        self.callers
            .get(&(module, name.to_string()))
            .map(Vec::as_slice)
            .unwrap_or(&[])
    }

    /// Resolves a string set's pending imports into literals.
    pub fn resolve_strings(&self, module: usize, set: &StringSet) -> Vec<StringLit> {
        let mut out = set.literals.clone();
        let mut work: Vec<(usize, String, String, usize)> = set
            .pending
            .iter()
            .map(|(s, n)| (module, s.clone(), n.clone(), 0))
            .collect();
        while let Some((m, source, name, depth)) = work.pop() {
            if depth >= MAX_HOPS {
                continue;
            }
            let Some(target) = self.resolve(m, &source) else {
                continue;
            };
            if let Some((
                owner,
                ExportSummary {
                    kind: ExportKind::Strings(s),
                    ..
                },
            )) = self.export(target, &name)
            {
                out.extend(s.literals.iter().cloned());
                work.extend(
                    s.pending
                        .iter()
                        .map(|(src, n)| (owner, src.clone(), n.clone(), depth + 1)),
                );
            }
        }
        out
    }
}

/// A specifier naming a file (relative or absolute), not a package.
pub fn is_relative(source: &str) -> bool {
    source.starts_with("./") || source.starts_with("../") || source.starts_with('/')
}

/// Paths an import specifier may name, most specific first.
fn import_candidates(base: &Path, source: &str) -> Vec<PathBuf> {
    if !is_relative(source) {
        return Vec::new();
    }
    let joined = normalize(&base.join(source));
    let mut out = vec![joined.clone()];
    for ext in ["js", "mjs", "cjs"] {
        let mut p = joined.clone().into_os_string();
        p.push(format!(".{ext}"));
        out.push(PathBuf::from(p));
        out.push(joined.join(format!("index.{ext}")));
    }
    out
}

#[cfg(test)]
#[test]
fn candidates_made_lazily_are_the_same() {
    for source in ["./a", "../b/c.js", "/abs/x", "pkg", "./", "../../d/index"] {
        let base = Path::new("/p/q/r");
        let lazy: Vec<PathBuf> = import_candidate_iter(base, source).collect();
        assert_eq!(lazy, import_candidates(base, source), "{source}");
    }
}

/// Lexical normalisation (no symlink resolution, no I/O).
pub fn normalize(path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in path.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir => {
                if !out.pop() {
                    out.push("..");
                }
            }
            other => out.push(other.as_os_str()),
        }
    }
    out
}

/// The key a file path gets in the index.
pub fn module_key(path: &Path) -> PathBuf {
    let abs = if path.is_absolute() {
        path.to_path_buf()
    } else {
        std::env::current_dir()
            .map(|d| d.join(path))
            .unwrap_or_else(|_| path.to_path_buf())
    };
    normalize(&abs)
}

/// Files that modules import (relative specifiers) but that are not among
/// them: candidates for loading as context modules. `modules` gives each
/// module's key and its import specifiers; `exists` says whether a
/// candidate file is there to load (on disk, or, in the editor, an open
/// buffer never saved). Modules are looked at in parallel (this runs once
/// per round of context loading, over every module), and the answer is
/// sorted.
pub fn unresolved_relative_imports<'a, I>(
    modules: impl Iterator<Item = (&'a Path, I)>,
    exists: impl Fn(&Path) -> bool + Sync,
) -> Vec<PathBuf>
where
    I: Iterator<Item = &'a str> + Send,
{
    use rayon::prelude::*;
    let modules: Vec<(&Path, I)> = modules.collect();
    let known: std::collections::HashSet<&Path> = modules.iter().map(|(key, _)| *key).collect();
    let mut out: Vec<PathBuf> = modules
        .into_par_iter()
        .flat_map_iter(|(key, imports)| {
            let mut found = Vec::new();
            let Some(base) = key.parent() else {
                return found;
            };
            for source in imports {
                // Candidates are made one at a time: most imports resolve to
                // the first.
                if import_candidate_iter(base, source).any(|c| known.contains(c.as_path())) {
                    continue;
                }
                if let Some(file) = import_candidate_iter(base, source).find(|c| exists(c)) {
                    found.push(file);
                }
            }
            found
        })
        .collect();
    out.sort();
    out.dedup();
    out
}

/// [`import_candidates`], made as they are asked for.
fn import_candidate_iter(base: &Path, source: &str) -> impl Iterator<Item = PathBuf> {
    let joined = is_relative(source).then(|| normalize(&base.join(source)));
    let with_ext = joined.clone().into_iter().flat_map(|joined| {
        ["js", "mjs", "cjs"].into_iter().flat_map(move |ext| {
            let mut p = joined.clone().into_os_string();
            p.push(format!(".{ext}"));
            [PathBuf::from(p), joined.join(format!("index.{ext}"))]
        })
    });
    joined.into_iter().chain(with_ext)
}
