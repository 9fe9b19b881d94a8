//! The cross-file index: small, owned per-module summaries (built in the
//! parallel per-file pass) and the lookups cross-module rules need. No tree
//! or source text lives here, so memory stays proportional to what rules
//! need, not to the size of the tree.

use serde::{Deserialize, Serialize};
use std::collections::hash_map::Entry;
use std::collections::{BTreeMap, HashMap};
use std::path::{Component, Path, PathBuf};
use std::sync::{Arc, OnceLock};

use crate::diagnostic::Location;
pub use crate::js::results::{PendingKind, Seg};
use crate::result_uses::ResultUse;

/// A string literal an agent may be told, with where it is written.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct StringLit {
    pub text: String,
    pub location: Location,
}

/// Strings an expression may evaluate to, with references to other modules
/// still to resolve.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct StringSet {
    pub literals: Vec<StringLit>,
    /// (import source, imported name).
    pub pending: Vec<(String, String)>,
    /// Fields of the task factory's `args` that the strings come from.
    pub arg_fields: Vec<String>,
}

/// Where a value goes when it leaves what the analysis follows.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
pub enum ForwardKind {
    /// Passed inside the args of another task (handed to another agent).
    Task(String),
    /// Returned from the exported process function.
    ProcessOutput,
    /// Given to a human in a breakpoint payload.
    Breakpoint,
    /// Anything this analysis does not follow (named by its callee).
    Unknown(String),
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct PendingFlow {
    pub source: String,
    pub name: String,
    pub kind: PendingKind,
    pub wrap: Vec<Seg>,
    pub acc: Vec<String>,
}

/// Where a value (a task result, a parameter) is read.
#[derive(Debug, Clone, Default, Serialize, Deserialize)]
pub struct ReadSet {
    /// Read paths with the first place each is read, sorted by path, each
    /// path once (a sorted list: most sets hold a few paths, and a map
    /// allocates a whole node for them).
    pub paths: Vec<(Vec<String>, Location)>,
    /// Where the value escapes: (to what, the path read on it first — empty
    /// when the value itself escapes), each pair once. Where it escapes is
    /// not kept: findings only name what it escapes to.
    pub forwards: Vec<(ForwardKind, Vec<String>)>,
    pub pending: Vec<PendingFlow>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum TaskRef {
    Local(usize),
    Imported { source: String, name: String },
    Unknown,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TaskSummary {
    pub id: Option<String>,
    /// The id as registered: the literal, or the string a `const` id holds.
    pub static_id: Option<String>,
    pub id_location: Location,
    pub definition: Location,
    /// The variable holding the definition, if any.
    pub local_name: Option<String>,
    pub kind: Option<String>,
    pub has_stable_key: bool,
    /// `outputSchema.properties` names, when resolvable (shared by the
    /// tasks of a module that use one schema).
    pub schema_fields: Option<SchemaFields>,
    /// `outputSchema` names an imported const: (source, name).
    pub schema_import: Option<(String, String)>,
    /// Strings of `agent.prompt`.
    pub prompt: Option<StringSet>,
    /// Whether the definition has an output schema at all.
    pub schema: SchemaState,
    /// Strings of `title`.
    pub title: Option<StringSet>,
}

impl TaskSummary {
    /// Whether `at` starts inside this task's definition.
    pub fn defines(&self, at: &Location) -> bool {
        at.path == self.definition.path
            && (self.definition.span.start..=self.definition.span.end).contains(&at.span.start)
    }
}

/// Declared property names of an output schema, with where each is declared.
pub type SchemaFields = Arc<[(String, Location)]>;

/// What can be said about a task's `agent.outputSchema`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum SchemaState {
    /// No `outputSchema` in a definition proclint can read in full.
    Missing,
    /// An `outputSchema` that declares no properties.
    NoProperties,
    /// Declared properties (see `TaskSummary::schema_fields`).
    Declared,
    /// Not resolvable here (an imported constant, an opaque spread).
    Unknown,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct InvocationSummary {
    pub target: TaskRef,
    pub location: Location,
    /// Where the result is bound (`const review = …`), if it is.
    pub bound: Option<Location>,
    pub reads: ReadSet,
    /// Strings of each property of the args object literal.
    pub args: Vec<(String, StringSet)>,
    /// `ctx.task(fixTask, …)` as written, for messages.
    pub call_text: String,
    /// Why the call may run more than once per iteration (a loop, a batch,
    /// a repeated helper), keyed or not: run-aware reports name the loop a
    /// re-dispatched task ran in. Boxed, like `key_edit`: most calls do not
    /// repeat, and every module's invocations stay in memory until the
    /// cross-module pass.
    pub repeat: Option<Box<RepeatInfo>>,
    /// The call has an invocation key (see [`Self::unkeyed_repeat`]).
    pub keyed: bool,
    /// The edit that adds a key built from the repetition's variable.
    pub key_edit: Option<Box<crate::diagnostic::Edit>>,
}

impl InvocationSummary {
    /// Why the call repeats, when it does and has no invocation key.
    pub fn unkeyed_repeat(&self) -> Option<&RepeatInfo> {
        self.repeat.as_deref().filter(|_| !self.keyed)
    }
}

/// Why a call repeats, for messages: "the `while (!passed)` loop".
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RepeatInfo {
    pub what: String,
    /// The loop header, batch call or self-call.
    pub location: Location,
    /// A variable that differs per repetition (`round`, `item`), if any.
    pub variable: Option<String>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub enum ExportKind {
    Task(usize),
    /// A function, with what each parameter has read on it.
    Function {
        params: Vec<ReadSet>,
    },
    /// A value whose strings are known (instruction arrays, builders).
    Strings(StringSet),
    Other,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ExportSummary {
    pub name: String,
    pub kind: ExportKind,
    pub location: Location,
    /// `export { x } from './y.js'`: (source, name).
    pub reexport: Option<(String, String)>,
    /// Property names when the export is a JSON Schema object literal.
    pub schema_fields: Option<SchemaFields>,
}

/// The reads of the result of a call to an imported function.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ImportedCall {
    pub source: String,
    pub name: String,
    pub reads: ReadSet,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ImportSummary {
    pub source: String,
    pub name: String,
    pub location: Location,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ModuleSummary {
    pub path: Arc<str>,
    /// Lexically normalised absolute path, for resolving imports.
    pub key: PathBuf,
    /// Findings in this module are reported (false for context-only modules).
    pub report: bool,
    pub imports: Vec<ImportSummary>,
    pub tasks: Vec<TaskSummary>,
    pub invocations: Vec<InvocationSummary>,
    pub exports: Vec<ExportSummary>,
    /// The module may export names `exports` does not list (`export *`,
    /// `module.exports = obj`).
    pub opaque_exports: bool,
    pub imported_calls: Vec<ImportedCall>,
}

impl StringSet {
    fn is_empty(&self) -> bool {
        self.literals.is_empty() && self.pending.is_empty() && self.arg_fields.is_empty()
    }

    fn retain_literals(&mut self, keep: &impl Fn(&str) -> bool) {
        self.literals.retain(|l| keep(&l.text));
        self.literals.shrink_to_fit();
    }
}

impl ModuleSummary {
    /// Makes the tasks and exports of this module that declare the same
    /// schema fields (one schema const used by many tasks) share one list.
    pub fn share_schemas(&mut self) {
        let mut seen: HashMap<(usize, Location), SchemaFields> = HashMap::new();
        let lists = self
            .tasks
            .iter_mut()
            .map(|t| &mut t.schema_fields)
            .chain(self.exports.iter_mut().map(|e| &mut e.schema_fields));
        for list in lists.flatten() {
            let Some((_, first)) = list.first() else {
                continue;
            };
            match seen.entry((list.len(), first.clone())) {
                Entry::Occupied(e) => {
                    if e.get() == list {
                        *list = e.get().clone();
                    }
                }
                Entry::Vacant(e) => {
                    e.insert(list.clone());
                }
            }
        }
    }

    /// Drops the string literals no rule can use (see
    /// `crate::rules::literals`) and spare capacity: summaries live until
    /// the cross-module pass, so what they hold is what the run's memory
    /// grows by per module.
    pub fn compact(&mut self, keep: impl Fn(&str) -> bool) {
        for t in &mut self.tasks {
            for set in [&mut t.prompt, &mut t.title].into_iter().flatten() {
                set.retain_literals(&keep);
            }
        }
        for inv in &mut self.invocations {
            for (_, set) in &mut inv.args {
                set.retain_literals(&keep);
            }
            // Rules read an argument's strings only: one with none left
            // adds nothing.
            inv.args.retain(|(_, set)| !set.is_empty());
            inv.args.shrink_to_fit();
        }
        for e in &mut self.exports {
            if let ExportKind::Strings(set) = &mut e.kind {
                set.retain_literals(&keep);
            }
        }
        self.share_schemas();
        self.imports.shrink_to_fit();
        self.tasks.shrink_to_fit();
        self.invocations.shrink_to_fit();
        self.exports.shrink_to_fit();
        self.imported_calls.shrink_to_fit();
    }
}

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
    /// ([`crate::result_uses`]), computed once.
    pub fn result_uses(&self) -> &BTreeMap<(usize, usize), ResultUse> {
        self.result_uses
            .get_or_init(|| crate::result_uses::compute(self))
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
            TaskRef::Imported { source, name } => {
                let from = self.resolve(m, source)?;
                match self.export(from, name)? {
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
/// module's key and its import specifiers. Modules are looked at in
/// parallel (this runs once per round of context loading, over every
/// module), and the answer is sorted.
pub fn unresolved_relative_imports<'a, I>(
    modules: impl Iterator<Item = (&'a Path, I)>,
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
                if let Some(file) = import_candidate_iter(base, source).find(|c| c.is_file()) {
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
