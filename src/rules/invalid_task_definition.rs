//! `invalid-task-definition`: `defineTask` calls the SDK rejects, or whose
//! built definition has no `kind`.

use std::collections::{BTreeMap, BTreeSet};

use super::{Area, Category, JsContext, ProjectSink, ReportMeta, Rule, RuleMeta, Sink, Sites};
use crate::diagnostic::{Diagnostic, Severity};
use crate::js::analysis::tasks::{
    factory_returns, lacks_property, task_id, value_of, Returns, TaskId, Value,
};
use crate::js::model::objects;
use crate::js::model::TaskDef;
use crate::js::summary::TaskSummary;
use crate::js::syntax::tree::Node;
use crate::js::syntax::{span, unparen};
use crate::js::JsModel;
use crate::project::config::Config;
use crate::project::Project;
use crate::source::Location;

pub struct InvalidTaskDefinition;

static META: RuleMeta = RuleMeta {
    id: "invalid-task-definition",
    summary: "A defineTask call the SDK rejects, or whose definition has no kind.",
    severity: Severity::Error,
    area: Area::RuntimeCorrectness,
    category: Category::Correctness,
    doc: include_str!("../../rules/invalid-task-definition.md"),
    builtin: false,
    options: &[],
    fix: crate::rules::FixAvailability::Never,
};

const FACTORY_HELP: &str = "pass a factory: `defineTask('my-task', (args, taskCtx) => ({ kind: 'agent', title: …, agent: { … } }))`, or use the single-object form `defineTask({ id: 'my-task', kind: 'agent', … })`";

impl Rule for InvalidTaskDefinition {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn report(&self) -> ReportMeta {
        ReportMeta {
            sites: Sites::TaskDefinitions,
            praise: "Every task definition is well-formed, with a unique id",
            sdk_hint: "",
        }
    }

    fn check_js(&self, cx: &JsContext, sink: &mut Sink) {
        let m = cx.model;
        let mut at_load = AtLoad::default();
        let mut per_iteration = PerIteration::default();
        for td in &m.task_defs {
            check_shape(m, td, sink, &mut at_load);
            check_id(m, td, sink, &mut at_load, &mut per_iteration);
            check_kind(m, td, sink);
        }
        at_load.report(sink);
        per_iteration.report(sink);
    }

    /// Duplicate ids among modules that are loaded together: the SDK's task
    /// registry is global to the process that runs them.
    fn check_project(&self, project: &Project, _config: &Config, sink: &mut ProjectSink) {
        // Every pair of definition sites that clash in some load set.
        let mut clashes: BTreeMap<(usize, usize), BTreeSet<(usize, usize)>> = BTreeMap::new();
        let edges = import_edges(project);
        for set in load_sets(&edges) {
            let mut by_id: BTreeMap<&str, Vec<(usize, usize)>> = BTreeMap::new();
            for &mi in &set {
                for (ti, t) in project.modules[mi].tasks.iter().enumerate() {
                    if let Some(id) = registered_id(t) {
                        by_id.entry(id).or_default().push((mi, ti));
                    }
                }
            }
            for sites in by_id.values().filter(|s| s.len() > 1) {
                for &a in sites {
                    clashes
                        .entry(a)
                        .or_default()
                        .extend(sites.iter().copied().filter(|b| *b != a));
                }
            }
        }
        // Every site is reported, so linting either module alone (the
        // other loaded for context) still shows the clash.
        for ((mi, ti), others) in clashes {
            let here = &project.modules[mi].tasks[ti];
            let id = here.static_id.as_deref().unwrap_or("").trim();
            let where_ = others
                .iter()
                .map(|&(om, ot)| {
                    let l = &project.modules[om].tasks[ot].id_location;
                    if om == mi {
                        format!("line {}", l.start.line)
                    } else {
                        format!("{}:{}", l.path, l.start.line)
                    }
                })
                .collect::<Vec<_>>()
                .join(", ");
            let (together, load) = if others.iter().any(|&(om, _)| om != mi) {
                (
                    ", in a module loaded together with this one",
                    "the modules load",
                )
            } else {
                ("", "the module loads")
            };
            let mut d = sink.diag(
                here.id_location.clone(),
                format!(
                    "task id `{id}` is also defined at {where_}{together}: the SDK's task \
                     registry rejects the second definition when {load}"
                ),
            );
            for &(om, ot) in &others {
                d = d.with_related(
                    project.modules[om].tasks[ot].id_location.clone(),
                    format!("`{id}` defined here too"),
                );
            }
            sink.push(d.with_help(UNIQUE_ID_HELP));
        }
        check_loaders(project, &edges, sink);
    }
}

const UNIQUE_ID_HELP: &str = "give every task a unique id (prefix it with the process or phase, \
     e.g. `delivery.spec-review`), or import the one definition where it is needed";

/// A module whose imports load two modules that define one id at their top
/// level: loading it throws, whichever of them is linted. Reported at its
/// import statements, so a workflow linted alone (pre-commit passes only
/// the changed files, the definitions are context) still shows the clash.
/// A module that defines the id itself is reported at its definition.
fn check_loaders(project: &Project, edges: &[Vec<usize>], sink: &mut ProjectSink) {
    // id → (module, task) of the first top-level definition in each module.
    let mut by_id: BTreeMap<&str, BTreeMap<usize, usize>> = BTreeMap::new();
    for (mi, m) in project.modules.iter().enumerate() {
        for (ti, t) in m.tasks.iter().enumerate() {
            if !t.at_load {
                continue;
            }
            if let Some(id) = registered_id(t) {
                by_id.entry(id).or_default().entry(mi).or_insert(ti);
            }
        }
    }
    by_id.retain(|_, defs| defs.len() > 1);
    if by_id.is_empty() {
        return;
    }
    let mut reach: Vec<Option<BTreeSet<usize>>> = vec![None; project.modules.len()];
    for (mi, m) in project.modules.iter().enumerate() {
        if !m.report {
            continue;
        }
        // Each import source once, at its first binding, with its module.
        let mut imports: Vec<(&str, &Location, usize)> = Vec::new();
        for i in &m.imports {
            if imports.iter().any(|(s, _, _)| *s == i.source) {
                continue;
            }
            if let Some(t) = project.resolve(mi, &i.source).filter(|&t| t != mi) {
                imports.push((&i.source, &i.location, t));
            }
        }
        for (id, defs) in &by_id {
            if defs.contains_key(&mi) {
                continue;
            }
            let mut through = Vec::new();
            let mut loaded = BTreeSet::new();
            for &(source, at, t) in &imports {
                let r = reach[t].get_or_insert_with(|| closure(edges, t));
                let hit: Vec<usize> = defs.keys().copied().filter(|d| r.contains(d)).collect();
                if !hit.is_empty() {
                    through.push((source, at));
                    loaded.extend(hit);
                }
            }
            if loaded.len() < 2 {
                continue;
            }
            let sites: Vec<(usize, usize)> = loaded.iter().map(|&d| (d, defs[&d])).collect();
            let names = through
                .iter()
                .map(|(s, _)| format!("`{s}`"))
                .collect::<Vec<_>>()
                .join(" and ");
            let (imports_, load) = if through.len() == 1 {
                ("the import of", "loads")
            } else {
                ("the imports of", "load")
            };
            let where_ = sites
                .iter()
                .map(|&(om, ot)| {
                    let l = &project.modules[om].tasks[ot].id_location;
                    format!("{}:{}", l.path, l.start.line)
                })
                .collect::<Vec<_>>()
                .join(", ");
            let mut d = sink.diag(
                through[0].1.clone(),
                format!(
                    "{imports_} {names} {load} {} definitions of task id `{id}` ({where_}): the \
                     SDK's task registry throws `DuplicateTaskIdError` (Task id \"{id}\" is already \
                     registered) at the second `defineTask`, so this module fails to load",
                    if sites.len() == 2 { "two".to_string() } else { sites.len().to_string() },
                ),
            );
            for (source, at) in through.iter().skip(1) {
                d = d.with_related((*at).clone(), format!("`{source}` imported here"));
            }
            for &(om, ot) in &sites {
                d = d.with_related(
                    project.modules[om].tasks[ot].id_location.clone(),
                    format!("`{id}` defined here"),
                );
            }
            sink.push(d.with_help(UNIQUE_ID_HELP));
        }
    }
}

/// The id the SDK registers (it trims ids), when one is known.
fn registered_id(t: &TaskSummary) -> Option<&str> {
    t.static_id
        .as_deref()
        .map(str::trim)
        .filter(|i| !i.is_empty())
}

/// Every module loading `root` loads, `root` included.
fn closure(edges: &[Vec<usize>], root: usize) -> BTreeSet<usize> {
    let mut seen = BTreeSet::from([root]);
    let mut stack = vec![root];
    while let Some(m) = stack.pop() {
        for &t in &edges[m] {
            if seen.insert(t) {
                stack.push(t);
            }
        }
    }
    seen
}

/// The sets of modules loaded together: the transitive imports of every
/// module no other module imports (an entry), plus, for import cycles no
/// entry reaches, of each module left over. Processes that never import
/// each other's modules do not share a task registry.
fn load_sets(edges: &[Vec<usize>]) -> Vec<Vec<usize>> {
    let n = edges.len();
    let mut imported = vec![false; n];
    for targets in edges {
        for &t in targets {
            imported[t] = true;
        }
    }
    let mut covered = vec![false; n];
    let mut sets = Vec::new();
    for root in (0..n).filter(|&m| !imported[m]) {
        let set = closure(edges, root);
        for &m in &set {
            covered[m] = true;
        }
        sets.push(set.into_iter().collect());
    }
    for m in 0..n {
        if !covered[m] {
            let set = closure(edges, m);
            for &c in &set {
                covered[c] = true;
            }
            sets.push(set.into_iter().collect());
        }
    }
    sets
}

/// Each module's imports that resolve to another module of the project.
fn import_edges(project: &Project) -> Vec<Vec<usize>> {
    (0..project.modules.len())
        .map(|mi| {
            let mut out: Vec<usize> = project.modules[mi]
                .imports
                .iter()
                .filter_map(|i| project.resolve(mi, &i.source))
                .filter(|&t| t != mi)
                .collect();
            out.sort_unstable();
            out.dedup();
            out
        })
        .collect()
}

/// The consequence of a definition `defineTask` refuses: it throws on the
/// call, which for a top-level definition means the module cannot load.
fn throws(m: &JsModel, td: &TaskDef) -> &'static str {
    if at_top_level(m, td) {
        "`defineTask` throws, so the module fails to load"
    } else {
        "`defineTask` throws when this line runs"
    }
}

fn at_top_level(m: &JsModel, td: &TaskDef) -> bool {
    m.calls[td.call].func.is_none()
}

/// Top-level definitions `defineTask` throws on. The module stops loading
/// at the first one it evaluates, so the later ones never run: one finding
/// at the first, the others as its related locations (a module written
/// against the wrong form has one per task, all alike).
#[derive(Default)]
struct AtLoad {
    /// Each finding, with what is wrong in a few words for the others'
    /// related locations.
    found: Vec<(Diagnostic, String)>,
}

impl AtLoad {
    /// `d` when the definition runs whenever its line does; held back when
    /// it throws at module load.
    fn push(&mut self, m: &JsModel, td: &TaskDef, sink: &mut Sink, d: Diagnostic, what: String) {
        if at_top_level(m, td) {
            self.found.push((d, what));
        } else {
            sink.push(d);
        }
    }

    fn report(mut self, sink: &mut Sink) {
        self.found.sort_by_key(|(d, _)| d.location.span.start);
        let mut found = self.found.into_iter();
        let Some((mut first, _)) = found.next() else {
            return;
        };
        let others: Vec<(Diagnostic, String)> = found.collect();
        if !others.is_empty() {
            let n = others.len();
            let calls = if n == 1 { "call" } else { "calls" };
            first.message.push_str(&format!(
                "; {n} other `defineTask` {calls} below would throw too, but the module stops at this one"
            ));
            for (d, what) in others {
                first = first.with_related(
                    d.location,
                    format!("would throw here too ({what}), but is never reached"),
                );
            }
        }
        sink.push(first);
    }
}

/// `defineTask('id', <not a function>)` and `defineTask('id')`.
fn check_shape(m: &JsModel, td: &TaskDef, sink: &mut Sink, at_load: &mut AtLoad) {
    let call = &m.calls[td.call];
    let Some(first) = call.args.first() else {
        let d = sink
            .diag(
                span(call.node),
                format!(
                    "`defineTask()` without arguments defines no task: {}",
                    throws(m, td)
                ),
            )
            .with_help(FACTORY_HELP);
        at_load.push(m, td, sink, d, "no arguments".to_string());
        return;
    };
    if unparen(*first).kind_str() == "object" {
        return;
    }
    let Some(factory) = call.args.get(1) else {
        let d = sink
            .diag(
                span(call.node),
                format!(
                    "`{}` has no factory (the positional form needs a function that builds \
                     the task definition): {}",
                    short(m.text(call.node)),
                    throws(m, td)
                ),
            )
            .with_help(FACTORY_HELP);
        at_load.push(m, td, sink, d, "no factory".to_string());
        return;
    };
    let what = match value_of(m, *factory) {
        Value::Function(_) | Value::Unknown => return,
        Value::Literal(what) => what.to_string(),
        Value::Class => "a class".to_string(),
        Value::TaskDef(_) => "a task definition".to_string(),
        Value::Unbound => format!("`{}`, which is not declared", m.text(*factory)),
    };
    let shown = m.text(unparen(*factory));
    let short_what = format!("the second argument is {what}");
    let what = if shown.len() <= 30 && !what.contains('`') {
        format!("{what} (`{shown}`)")
    } else {
        what
    };
    let d = sink
        .diag(
            span(*factory),
            format!(
                "the second argument of `defineTask` must be a factory function, \
                 but it is {what}: {}",
                throws(m, td)
            ),
        )
        .with_help(FACTORY_HELP);
    at_load.push(m, td, sink, d, short_what);
}

fn check_id<'t>(
    m: &JsModel<'t>,
    td: &TaskDef<'t>,
    sink: &mut Sink,
    at_load: &mut AtLoad,
    per_iteration: &mut PerIteration<'t>,
) {
    let (message, what) = match task_id(m, td) {
        TaskId::Literal(s) | TaskId::Const(s) if s.trim().is_empty() => (
            format!("the task id is an empty string: {}", throws(m, td)),
            "an empty id",
        ),
        TaskId::Literal(s) | TaskId::Const(s) => {
            return check_repeated(m, td, s.trim(), sink, per_iteration)
        }
        // A task factory (`(id) => defineTask(id, …)`) registers whatever
        // id it is given: valid as long as each is unique.
        TaskId::Computed => return,
        TaskId::Missing => {
            // `defineTask()` is reported by the shape check.
            if m.calls[td.call].args.is_empty() {
                return;
            }
            (
                format!(
                    "the task definition has no `id` (or `name`): {}",
                    throws(m, td)
                ),
                "no `id`",
            )
        }
    };
    let d = sink.diag(span(td.id_node), message).with_help(
        "use a non-empty string literal that is unique in the project, e.g. `'delivery.spec-review'`",
    );
    at_load.push(m, td, sink, d, what.to_string());
}

/// `defineTask('fixed-id', …)` that runs more than once in one Node
/// process: the SDK's task registry is global and throws
/// `DuplicateTaskIdError` on the second registration of an id.
fn check_repeated<'t>(
    m: &JsModel<'t>,
    td: &TaskDef<'t>,
    id: &str,
    sink: &mut Sink,
    per_iteration: &mut PerIteration<'t>,
) {
    let call = &m.calls[td.call];
    let Some(f) = call.func else {
        return;
    };
    let in_process = |f: usize| m.exports_of_fn(f).any(|e| m.is_process_export(&e.name));
    let error = |why: String| {
        sink.diag_at(
            Severity::Error,
            span(td.id_node),
            format!(
                "{why}: the SDK's task registry is global to the Node process, so the second \
                 registration throws `DuplicateTaskIdError` (Task id \"{id}\" is already registered)"
            ),
        )
        .with_help("define the task once, at module top level, and dispatch it as often as needed")
    };
    if !call.loops.is_empty() {
        sink.push(error(format!(
            "`defineTask('{id}', …)` runs on every pass of the enclosing loop"
        )));
        return;
    }
    let sites = m.call_sites_of(f).len();
    if sites >= 2 {
        let name = m.functions[f]
            .name
            .as_deref()
            .unwrap_or("the enclosing function");
        sink.push(error(format!(
            "`defineTask('{id}', …)` runs each time `{name}` is called ({sites} call sites)"
        )));
        return;
    }
    // A process function without the context parameter cannot dispatch an
    // effect, so it completes in its first iteration: there is no second
    // registration to throw.
    let takes_context = m.functions[f]
        .node
        .field("parameters")
        .is_some_and(|p| p.named().filter(|n| n.kind_str() != "comment").count() >= 2);
    if in_process(f) && takes_context {
        per_iteration
            .by_function
            .entry(f)
            .or_default()
            .push((td.id_node, id.to_string()));
    }
}

/// The definitions each process function makes on every iteration: one
/// cause, so one finding per function naming them all (as
/// `missing-labels` names a module's unlabelled tasks once).
#[derive(Default)]
struct PerIteration<'t> {
    by_function: BTreeMap<usize, Vec<(Node<'t>, String)>>,
}

impl<'t> PerIteration<'t> {
    fn report(self, sink: &mut Sink) {
        for defs in self.by_function.into_values() {
            let Some((first, first_id)) = defs.first() else {
                continue;
            };
            let what = if defs.len() == 1 {
                format!("`defineTask('{first_id}', …)` runs")
            } else {
                let ids: Vec<String> = defs.iter().map(|(_, id)| format!("`{id}`")).collect();
                format!(
                    "{} task definitions ({}) run",
                    defs.len(),
                    super::prose_list(&ids, 8)
                )
            };
            let mut d = sink
                .diag_at(
                    Severity::Warning,
                    span(*first),
                    format!(
                        "{what} on every iteration of the process function: that works only \
                         where each iteration is a fresh Node process (the CLI); hosts that \
                         iterate in-process (the MCP server, the testing harness) throw \
                         `DuplicateTaskIdError` on the second iteration"
                    ),
                )
                .with_help(
                    "define the tasks once, at module top level, and dispatch them from the process",
                );
            d.occurrences = defs.len();
            for (node, id) in &defs[1..] {
                d = d.with_related(
                    sink.location(span(*node)),
                    format!("`defineTask('{id}', …)` also runs on every iteration"),
                );
            }
            sink.push(d);
        }
    }
}

/// A factory whose returned definition has no `kind` on any path.
fn check_kind(m: &JsModel, td: &TaskDef, sink: &mut Sink) {
    let Some(f) = td.factory else {
        return check_object_kind(m, td, sink);
    };
    let call = &m.calls[td.call];
    // `defineTask('x', f, { kind: 'agent' })`: a common misreading.
    let options = call.args.get(2).and_then(|o| m.object_of_expr(*o));
    let kind_in_options = options.and_then(|o| objects::property(m, o, "kind"));
    // Labels beside a misplaced kind are the same misreading; said here
    // once rather than again by missing-labels, which skips such tasks.
    let labels_in_options = options
        .and_then(|o| objects::property(m, o, "labels"))
        .filter(|_| kind_in_options.is_some());
    // A factory whose objects hold none of a task definition's fields
    // (`TaskDef` in `tasks/types.ts`) returns the work's result: it does
    // the work itself when the definition is built.
    let mut computes = false;
    let (primary, what) = match factory_returns(m, f) {
        Returns::Objects(objs) => {
            if objs.is_empty() || !objs.iter().all(|o| lacks_property(m, *o, "kind")) {
                return;
            }
            // (A lone `return { decomposition: args }` is a stub that
            // stands for the definition the options describe.)
            // Nor fields of a definition written in the wrong place
            // (`{ prompt, command }` outside `agent`/`shell`); and the body
            // calls something it imports (`readdirSync`, `execSync`).
            computes = objs.iter().all(|o| {
                TASK_DEF_FIELDS
                    .iter()
                    .chain(MISPLACED_FIELDS)
                    .all(|k| lacks_property(m, *o, k))
            }) && m.functions[f]
                .node
                .field("body")
                .is_some_and(|b| b.kind_str() == "statement_block" && calls_an_import(m, b));
            (
                objs[0],
                "the task definition returned by the factory has no `kind`",
            )
        }
        Returns::Nothing => (
            m.functions[f].node,
            "the factory returns nothing, so the task definition has no `kind`",
        ),
        Returns::Unknown => return,
    };
    let mut message = format!("{what}: the SDK cannot run a task without one");
    let mut d;
    if let Some(k) = kind_in_options {
        message.push_str(if labels_in_options.is_some() {
            " (`kind` and `labels` in `defineTask`'s third argument, the options, do not set them on the built definition)"
        } else {
            " (`kind` in `defineTask`'s third argument, the options, does not set it on the built definition)"
        });
        d = sink.diag(span(primary), message);
        d = d.with_related(sink.location(span(k)), "not read as the task's kind");
        if let Some(l) = labels_in_options {
            d = d.with_related(
                sink.location(span(l)),
                "reaches the task registry, not the effects",
            );
        }
    } else {
        d = sink.diag(span(primary), message);
    }
    if computes {
        sink.push(d.with_help(
            "the factory returns what the orchestrator performs, not the work's result, and this \
             one returns the result itself: do the computation in the process function, or \
             describe the work as a task — a script run by `kind: 'node'` (`node: { entry: \
             'scripts/scan.js' }`), or `(args, taskCtx) => ({ kind: 'agent', title: …, agent: { \
             prompt: … } })`",
        ));
        return;
    }
    sink.push(d.with_help(if labels_in_options.is_some() {
        "return `kind` and `labels` from the factory: `(args, taskCtx) => ({ kind: 'agent', title: …, labels: […], agent: { … } })` \
         (or `'shell'`, `'skill'`, `'breakpoint'`, `'sleep'`)"
    } else {
        "return `kind` from the factory: `(args, taskCtx) => ({ kind: 'agent', title: …, agent: { … } })` \
         (or `'shell'`, `'skill'`, `'breakpoint'`, `'sleep'`)"
    }));
}

/// The fields of a task definition the SDK reads (`TaskDef` in
/// `tasks/types.ts`), but `kind`.
const TASK_DEF_FIELDS: &[&str] = &[
    "title",
    "description",
    "labels",
    "inputSchema",
    "outputSchema",
    "io",
    "metadata",
    "execution",
    "agent",
    "node",
    "shell",
    "skill",
    "breakpoint",
    "orchestratorTask",
    "sleep",
    "subprocess",
];

/// Fields of an agent, shell or node task's own part, returned at the top
/// level by mistake: the object is a definition, not a result.
const MISPLACED_FIELDS: &[&str] = &[
    "prompt",
    "instructions",
    "outputFormat",
    "role",
    "command",
    "script",
    "entry",
    "cwd",
    "timeout",
    "question",
];

/// Whether `body` calls a function it imports (`readdirSync(…)`,
/// `fs.readFileSync(…)`): work done when the definition is built.
fn calls_an_import(m: &JsModel, body: crate::js::syntax::tree::Node) -> bool {
    let mut stack = vec![body];
    while let Some(n) = stack.pop() {
        if n.kind_str() == "call_expression" {
            let root = n
                .field("function")
                .and_then(crate::js::analysis::loops::member_root);
            if root.and_then(|r| m.binding_of_expr(r)).is_some_and(|b| {
                m.scopes.get(b).kind == crate::js::model::scope::BindingKind::Import
            }) {
                return true;
            }
        }
        stack.extend(n.named());
    }
    false
}

/// The single-object form without `run`, `defineTask({ id, title, agent })`:
/// its other fields are the static definition, so it needs a `kind` too.
fn check_object_kind(m: &JsModel, td: &TaskDef, sink: &mut Sink) {
    let call = &m.calls[td.call];
    let Some(obj) = call.args.first().and_then(|a| m.object_of_expr(*a)) else {
        return;
    };
    if objects::property(m, obj, "run").is_some() || !lacks_property(m, obj, "kind") {
        return;
    }
    // `{ id, execute() {…} }`: a body the SDK never calls. Without `run`
    // the object's other fields are the static definition (defineTask.ts,
    // flavor 1), which is written to task.json as JSON and loses functions:
    // adding `kind` alone would dispatch a task without the body.
    let body = objects::properties(m, obj)
        .into_iter()
        .find(|(name, p)| name != "run" && is_function(p.value));
    let Some((name, body)) = body else {
        sink.push(
            sink.diag(
                span(obj),
                "the task definition has no `kind`: dispatching it fails with the SDK's \
                 \"did not provide a kind\" error",
            )
            .with_help("add `kind: 'agent'` (or `'shell'`, `'skill'`, `'breakpoint'`, `'sleep'`)"),
        );
        return;
    };
    sink.push(
        sink.diag(
            span(obj),
            format!(
                "the task definition has no `kind` (dispatching it fails with the SDK's \
                 \"did not provide a kind\" error), and the SDK never calls `{name}`: without \
                 `run`, the object's fields are the task definition itself, written to \
                 `task.json` as JSON, which drops functions, so adding `kind` would dispatch a \
                 task without this body"
            ),
        )
        .with_related(
            sink.location(span(body.key)),
            format!("`{name}` is never called"),
        )
        .with_help(
            "the object form calls `run(args, taskCtx)`, which returns what the orchestrator \
             performs, not the work's result: do a plain computation in the process function, \
             or describe the work as a task, e.g. `run: (args) => ({ kind: 'agent', title: …, \
             agent: { prompt: … } })` (or `kind: 'shell'` running a script)",
        ),
    );
}

/// A function value: `execute() {…}`, `execute: async () => …`.
fn is_function(value: crate::js::syntax::tree::Node) -> bool {
    matches!(
        unparen(value).kind_str(),
        "method_definition" | "arrow_function" | "function_expression" | "function"
    )
}

/// The first line of a snippet, cut to a readable length.
fn short(s: &str) -> String {
    let line = s.lines().next().unwrap_or("");
    let cut: String = line.chars().take(50).collect();
    if cut.len() < s.len() {
        format!("{cut}…")
    } else {
        cut
    }
}

#[cfg(test)]
mod tests {
    use crate::diagnostic::Diagnostic;
    use crate::engine::discover::FileKind;
    use crate::engine::lint_text;
    use crate::project::config::Config;

    fn lint(src: &str) -> Vec<Diagnostic> {
        let mut config = Config::default();
        config.select = Some(vec!["invalid-task-definition".into()]);
        lint_text("p.js", FileKind::Process, src.to_string(), &config)
            .into_iter()
            .filter(|d| d.rule == "invalid-task-definition")
            .collect()
    }

    const HEAD: &str = "import { defineTask } from '@a5c-ai/babysitter-sdk';\n";

    /// Without `run`, the object's fields are the static definition: the
    /// SDK never calls `execute`, and adding `kind` runs a task without it
    /// (task.json is JSON, which drops functions).
    #[test]
    fn an_execute_body_is_never_run() {
        for body in [
            "async execute(params, ctx) { return { ok: true }; }",
            "execute: async (params) => ({ ok: true })",
        ] {
            let src = format!(
                "{HEAD}export const t = defineTask({{\n  name: 'scan',\n  description: 'Scan',\n  {body},\n}});\n"
            );
            let ds = lint(&src);
            assert_eq!(ds.len(), 1, "{ds:#?}");
            let d = &ds[0];
            assert!(d.message.contains("never calls `execute`"), "{}", d.message);
            let help = d.help.as_deref().unwrap_or("");
            assert!(!help.starts_with("add `kind"), "{help}");
            assert!(help.contains("`run(args, taskCtx)`"), "{help}");
        }
    }

    /// The SDK throws at the first top-level definition it rejects, so the
    /// module stops loading there: one finding, the rest as related.
    #[test]
    fn a_module_fails_to_load_once() {
        let src = format!(
            "{HEAD}export const a = defineTask('a', {{ kind: 'agent' }});\nexport const b = defineTask('b', {{ kind: 'agent' }});\nexport const c = defineTask('c', {{ kind: 'agent' }});\nexport const ok = defineTask('ok', () => ({{ kind: 'agent' }}));\n"
        );
        let ds = lint(&src);
        assert_eq!(ds.len(), 1, "{ds:#?}");
        let d = &ds[0];
        assert_eq!(d.location.start.line, 2);
        assert!(
            d.message.contains("2 other `defineTask` calls below"),
            "{}",
            d.message
        );
        assert_eq!(d.related.len(), 2, "{:#?}", d.related);
        // Inside a function, each call throws where it runs: one each.
        let inside = format!(
            "{HEAD}export function make() {{\n  return [defineTask('a', {{ kind: 'agent' }}), defineTask('b', {{ kind: 'agent' }})];\n}}\n"
        );
        assert_eq!(lint(&inside).len(), 2);
    }
}
