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

use crate::diagnostic::Edit;
use crate::source::{Location, Span};

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
    /// One-field paths every read of which is a later link of a `||`/`??`
    /// chain, with the fields the earlier links read on the same object,
    /// nearest first (see `results::Reads::fallbacks`).
    #[serde(default)]
    pub fallbacks: Vec<(String, Vec<String>)>,
    /// Reads through a wrapper (`r.value.x`, `r?.result?.x`): `ctx.task`
    /// resolves to the output itself, so a rule may offer to drop it.
    #[serde(default)]
    pub unwraps: Vec<Unwrap>,
    /// Paths every read of which is an argument of a logging call
    /// (`ctx.log(`${r.count} found`)`), sorted: read for a log line only.
    #[serde(default)]
    pub logged: Vec<Vec<String>>,
}

/// A read of `value`/`result` on the value itself, followed by a field
/// read on it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Unwrap {
    /// `value` or `result`.
    pub wrapper: String,
    /// The read of the wrapper (`r.value`), as in [`ReadSet::paths`].
    pub location: Location,
    /// Removes the wrapper read (`.value`, `?.value`); `None` when it cannot
    /// be dropped (the wrapper read whole, or a comment in the way).
    pub edit: Option<crate::diagnostic::Edit>,
    /// The field read next on it (`x`), if one is.
    pub next: Option<String>,
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

/// Where the fields of an output schema can be written into a definition
/// that declares none: an insertion (or the empty `{}` of `properties`)
/// with the text around it that keeps the object's layout.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SchemaSlot {
    pub span: crate::source::Span,
    pub before: String,
    pub after: String,
    pub what: SlotKind,
    /// The quote the module writes strings with.
    pub quote: char,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum SlotKind {
    /// `agent` has no `outputSchema`: a whole one goes in.
    OutputSchema,
    /// The schema has no `properties`: they go in.
    Properties,
    /// `properties: {}`: the `{}` is replaced.
    PropertiesValue,
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
    /// The properties the task's own `outputSchema` types `boolean`
    /// (empty when it has none, or the schema is imported).
    #[serde(default)]
    pub schema_flags: Box<[String]>,
    /// The properties it types `number` or `integer`: amounts, not a
    /// yes/no or a state (`completed: { type: 'number' }` is a count).
    #[serde(default)]
    pub schema_numbers: Box<[String]>,
    /// The schema fields of two words or more that another task's prompt
    /// in the module talks about (its words, in any case: "the triggering
    /// event" for `triggeringEvent`).
    /// With the index of the first such task in the module.
    #[serde(default)]
    pub fields_asked_elsewhere: Box<[(String, usize)]>,
    /// `outputSchema` names an imported const: (source, name).
    pub schema_import: Option<(String, String)>,
    /// Where the entries of the schema's `properties` and `required` are
    /// written, when the schema is this definition's own literal (see
    /// [`SchemaSlots`]): what removing a field edits. Boxed: most tasks
    /// have none worth keeping until the cross-module pass.
    pub schema_slots: Option<Box<SchemaSlots>>,
    /// Strings of `agent.prompt`.
    pub prompt: Option<StringSet>,
    /// The schema fields the prompt names as words where it describes the
    /// output (`outputFormat: 'JSON with reportPath, summary'`, "Return
    /// the issues found"): what the agent is asked for in words as well.
    pub prompt_names: Box<[Box<str>]>,
    /// `agent.prompt` is written empty: `{ /* … */ }` or `''`.
    pub prompt_empty: bool,
    /// No call of it records an effect: building the definition always
    /// throws, or the definition has no `kind`
    /// ([`crate::js::analysis::tasks::never_records`]).
    pub never_records: bool,
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
    /// Where a schema's fields can be written when it has none.
    #[serde(default)]
    pub schema_slot: Option<Box<SchemaSlot>>,
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

/// The entries of one task's own output schema literal, for removing a
/// field from it: its `properties` object and its `required` array. Only
/// built when the schema belongs to that task alone (written inline, or a
/// module-local `const` read once and not exported): editing a schema other
/// tasks share would change them too.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SchemaSlots {
    pub properties: Option<SlotList>,
    pub required: Option<SlotList>,
}

/// The entries of an object or array literal, with what removing each
/// takes.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct SlotList {
    /// Between the braces (or brackets): emptied when every entry goes.
    pub inner: Span,
    /// Every entry stands on lines of its own (`{\n  a: 1,\n  b: 2,\n}`):
    /// an entry goes with its lines, and the others keep theirs.
    pub lines: bool,
    pub items: Vec<Slot>,
}

/// One entry of a [`SlotList`].
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Slot {
    /// The field it declares: a plain or string key, a string item; `None`
    /// for anything else (a computed key, a method, a spread), which no
    /// fix removes.
    pub name: Option<Box<str>>,
    /// The entry itself.
    pub span: Span,
    /// When the list is in lines: from the start of the entry's first line
    /// to after the end of its last (its comma and a trailing comment
    /// included). Otherwise: from the entry to the next token after its
    /// comma (the next entry, or a comment before it).
    pub extent: Span,
    /// Where the comma after it is, when it has one.
    pub comma: Option<usize>,
}

impl SlotList {
    /// The edits that remove the entries named in `names` and keep the
    /// list's layout: separators stay balanced, a trailing comma stays, and
    /// a list left empty is `{}` (or `[]`). Entries without a plain name
    /// are never removed.
    pub fn removal(&self, names: &[&str]) -> Vec<Edit> {
        let gone: Vec<bool> = self
            .items
            .iter()
            .map(|i| i.name.as_deref().is_some_and(|n| names.contains(&n)))
            .collect();
        if !gone.contains(&true) {
            return Vec::new();
        }
        if gone.iter().all(|g| *g) {
            return vec![Edit {
                span: self.inner,
                replacement: String::new(),
            }];
        }
        if self.lines {
            // Each entry owns whole lines: removing lines leaves the rest
            // valid.
            let mut edits: Vec<Edit> = self
                .items
                .iter()
                .zip(&gone)
                .filter(|(_, g)| **g)
                .map(|(i, _)| Edit {
                    span: i.extent,
                    replacement: String::new(),
                })
                .collect();
            // Without a trailing comma after the last entry, the entry
            // that becomes last loses its comma too.
            let last_gone = gone.last() == Some(&true);
            if last_gone && self.items.last().is_some_and(|i| i.comma.is_none()) {
                let kept = self.items.iter().zip(&gone).rev().find(|(_, g)| !**g);
                if let Some(at) = kept.and_then(|(i, _)| i.comma) {
                    edits.push(Edit {
                        span: Span::new(at, at + 1),
                        replacement: String::new(),
                    });
                }
            }
            edits.sort_by_key(|e| e.span.start);
            return edits;
        }
        let mut edits = Vec::new();
        let mut i = 0;
        while i < self.items.len() {
            if !gone[i] {
                i += 1;
                continue;
            }
            let mut j = i;
            while j + 1 < self.items.len() && gone[j + 1] {
                j += 1;
            }
            let span = if j + 1 < self.items.len() {
                // Up to the entry that follows, which takes the run's place.
                Span::new(self.items[i].span.start, self.items[j].extent.end)
            } else {
                // A run at the end (some entry before it is kept): from the
                // end of the kept entry, taking its comma; a trailing comma
                // after the run stays.
                Span::new(self.items[i - 1].span.end, self.items[j].span.end)
            };
            edits.push(Edit {
                span,
                replacement: String::new(),
            });
            i = j + 1;
        }
        edits
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
    /// Strings of each property of the args object literal (the
    /// properties that hold any).
    pub args: Vec<(String, StringSet)>,
    /// The name of every property of the args object literal.
    pub arg_names: Box<[String]>,
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
    /// The SDK's occurrence count names each repetition as a key from the
    /// loop's counter would
    /// ([`crate::js::analysis::repeat::occurrence_aligned`]).
    pub occurrence_aligned: bool,
    /// The items of a callback make this call in an order that can change
    /// between iterations of unchanged code
    /// ([`crate::js::analysis::repeat::order_varies`]).
    pub order_varies: bool,
    /// The `ctx.parallel.all`/`map` call the invocation runs in, if any
    /// ([`crate::js::analysis::effects::batch_of`]).
    pub batch: Option<Location>,
    /// A breakpoint always follows the invocation
    /// ([`crate::js::analysis::effects::breakpoint_follows`]).
    pub breakpoint_follows: bool,
    /// The later task whose verdict, score or metrics the process reads,
    /// in the call's retry loop, reached through task calls only
    /// (`ctx.task(testSuiteTask, …)` and where it is;
    /// [`crate::js::analysis::gates::checked_after`]).
    pub checked_by: Option<Box<(String, Location)>>,
    /// The function the call is written in (its index among the module's
    /// functions), when that function runs once per run (a named function
    /// referred to once at most): calls in one such function run in the
    /// order written, unless a loop takes them round. `None` at the top
    /// level and in a helper called from several places.
    pub function: Option<u32>,
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
            fallbacks: Vec::new(),
            unwraps: Vec::new(),
            logged: Vec::new(),
        };
        self.result_reads.as_deref().unwrap_or(&NONE)
    }

    /// Why the call repeats, when it does and has no invocation key.
    pub fn unkeyed_repeat(&self) -> Option<&RepeatInfo> {
        self.repeat
            .as_deref()
            .filter(|_| !self.keyed && !self.shape_grows && !self.occurrence_aligned)
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
    /// The names the module reads and never defines (see
    /// [`crate::js::analysis::undefined`]), each at its first use: a read
    /// lost from code (`campaignScore` after its
    /// `const campaignScore = quality.overallScore` went) leaves one.
    pub undefined: Box<[UndefinedName]>,
}

/// A name a module reads and never defines, at its first use.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct UndefinedName {
    pub name: Box<str>,
    pub location: Location,
    /// The module declares the name in a scope that does not enclose the
    /// use (a `const` of another function).
    pub declared: bool,
    /// Some use calls it (`calculateScore(…)`, `new Scorer()`): a missing
    /// function, not a value read from a result.
    pub called: bool,
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
