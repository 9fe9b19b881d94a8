//! The owned per-module summary: what the cross-module pass needs of a
//! module (tasks, invocations with their result reads, exports, strings,
//! calls to imported functions), and nothing that pins the tree in memory.
//! Built by [`crate::js::summary::build`], indexed by `crate::project`.

pub mod build;

use serde::{Deserialize, Serialize};
use std::collections::hash_map::Entry;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::Arc;

use crate::source::Location;

// Defined where the result-flow analysis produces them.
pub use crate::js::analysis::results::{ForwardKind, PendingKind, Seg};

/// A string literal an agent may be told, with where it is written.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct StringLit {
    pub text: String,
    pub location: Location,
    /// The flag the literal is conditional on, when it is written under
    /// one (`args.autoCommit ? '…' : …`, `inputs.push && '…'`): the flag's
    /// last name (`autoCommit`). See [`ModuleSummary::flag_defaults`].
    pub guard: Option<Box<str>>,
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
    /// Places among `paths` that read what code may have put there (a
    /// literal's key, an own property next to a spread, an assigned field).
    pub provided: Vec<Location>,
}

impl ReadSet {
    pub fn is_empty(&self) -> bool {
        self.paths.is_empty()
            && self.forwards.is_empty()
            && self.pending.is_empty()
            && self.provided.is_empty()
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub enum TaskRef {
    Local(usize),
    /// Boxed: every module's invocations stay in memory until the
    /// cross-module pass, and most dispatch a local task.
    Imported(Box<ImportedTask>),
    Unknown,
}

/// A task imported by name from another module.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImportedTask {
    pub source: String,
    pub name: String,
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
    /// `outputSchema.properties` names, when resolvable (shared by the
    /// tasks of a module that use one schema).
    pub schema_fields: Option<SchemaFields>,
    /// The names in the `required` list of the task's own `outputSchema`
    /// (empty when it has none, or the schema is imported).
    pub schema_required: Box<[String]>,
    /// `outputSchema` names an imported const: (source, name).
    pub schema_import: Option<(String, String)>,
    /// Strings of `agent.prompt`.
    pub prompt: Option<StringSet>,
    /// Building the definition always throws ([`crate::js::analysis::tasks::build_throws`]):
    /// no call of it records an effect.
    pub build_throws: bool,
    /// `defineTask` is called at the module's top level: the id is
    /// registered when the module loads.
    pub at_load: bool,
    /// Strings of `agent.prompt.outputFormat` and `agent.prompt.instructions`:
    /// the output the prompt asks for in words.
    pub output_request: Option<StringSet>,
    /// The fields an `outputSchema` written inside `agent.prompt` declares:
    /// part of the prompt the agent reads, not the task's schema.
    pub prompt_schema_fields: Option<SchemaFields>,
    /// Whether the definition has an output schema at all.
    pub schema: SchemaState,
    /// Strings of `title`.
    pub title: Option<StringSet>,
    /// A shell task whose every command exits zero
    /// ([`crate::js::analysis::shell::task_never_fails`]).
    pub shell_never_fails: bool,
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
    /// What is read on the result ([`Self::reads`]); none for most calls
    /// of a dense module, so boxed when there is any.
    pub result_reads: Option<Box<ReadSet>>,
    /// Strings of each property of the args object literal.
    pub args: Vec<(String, StringSet)>,
    /// `ctx.task(fixTask, …)` as written, for messages.
    pub call_text: Box<str>,
    /// Why the call may run more than once per iteration (a loop, a batch,
    /// a repeated helper), keyed or not: run-aware reports name the loop a
    /// re-dispatched task ran in. Boxed, like `key_edit`: most calls do not
    /// repeat, and every module's invocations stay in memory until the
    /// cross-module pass.
    pub repeat: Option<Box<RepeatInfo>>,
    /// The call has an invocation key (see [`Self::unkeyed_repeat`]).
    pub keyed: bool,
    /// Every repetition sends args of a new shape, which identifies it as a
    /// key would ([`crate::js::analysis::repeat::args_shape_grows`]).
    pub shape_grows: bool,
    /// The edit that adds a key built from the repetition's variable.
    pub key_edit: Option<Box<crate::diagnostic::Edit>>,
    /// For a call of a local shell task or an imported task whose result
    /// this module does not test: what the process does instead
    /// ([`crate::js::analysis::gates`]). `None` for every other call.
    pub untested: Option<Box<UntestedResult>>,
}

/// A task result no code in its module tests (see
/// [`InvocationSummary::untested`]).
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct UntestedResult {
    /// The `catch` clause of a `try` around the call.
    pub catch: Option<Location>,
    /// What the process does next as if the result were fine, and where.
    pub next: Option<(String, Location)>,
    /// The result (or a field of it) is passed in another task's args.
    pub judged_by_task: bool,
}

impl InvocationSummary {
    /// What is read on the result.
    pub fn reads(&self) -> &ReadSet {
        static NONE: ReadSet = ReadSet {
            paths: Vec::new(),
            forwards: Vec::new(),
            pending: Vec::new(),
            provided: Vec::new(),
        };
        self.result_reads.as_deref().unwrap_or(&NONE)
    }

    /// Why the call repeats, when it does and has no invocation key.
    pub fn unkeyed_repeat(&self) -> Option<&RepeatInfo> {
        self.repeat
            .as_deref()
            .filter(|_| !self.keyed && !self.shape_grows)
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
    /// Names given a boolean default in the module (`{ autoCommit = false }`,
    /// `(push = true) =>`, `const push = inputs.push ?? false`), with the
    /// default: whether a guarded prompt line is there when nobody asks.
    pub flag_defaults: Vec<(Box<str>, bool)>,
}

impl StringSet {
    pub fn is_empty(&self) -> bool {
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
