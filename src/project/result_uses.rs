//! Result uses across modules: for each task of the project, which fields
//! of its results are read anywhere (through variables, wrappers, helper
//! functions and re-exports in other modules) and where whole results
//! escape to. Computed once per project ([`Project::result_uses`]) and
//! shared by `unused-output-field`, `undeclared-output-field` and
//! `missing-output-schema`; [`of_invocation`] answers for one call.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use crate::diagnostic::Location;
use crate::js::analysis::results::push_layer;
use crate::project::{ExportKind, ForwardKind, PendingKind, Project, ReadSet, Seg, MAX_HOPS};

/// How many layers (fields, elements) around a result the walk follows
/// before it counts the result as escaping.
const MAX_LAYERS: usize = 12;

/// Every dispatched task's result uses: (module, task) → uses. Tasks
/// nothing in the project dispatches have no entry.
pub(crate) fn compute(p: &Project) -> BTreeMap<(usize, usize), ResultUse> {
    let mut out = BTreeMap::new();
    for (mi, module) in p.modules.iter().enumerate() {
        for ti in 0..module.tasks.len() {
            let invocations = p.invocations_of(mi, ti);
            if invocations.is_empty() {
                continue;
            }
            let mut uses = ResultUse::default();
            for (mj, ii) in invocations {
                collect(p, mj, p.modules[mj].invocations[ii].reads(), 0, &mut uses);
            }
            uses.release_walk_state();
            out.insert((mi, ti), uses);
        }
    }
    out
}

/// The uses of one invocation's result, across modules
/// (`unchecked-shell-result` asks per call, not per task).
pub fn of_invocation(p: &Project, module: usize, invocation: usize) -> ResultUse {
    let mut uses = ResultUse::default();
    if let Some(inv) = p
        .modules
        .get(module)
        .and_then(|m| m.invocations.get(invocation))
    {
        collect(p, module, inv.reads(), 0, &mut uses);
    }
    uses.release_walk_state();
    uses
}

/// What is known about every use of one task's results.
#[derive(Default)]
pub struct ResultUse {
    /// Fields read on the result, with the first place each is read.
    pub fields: BTreeMap<String, Location>,
    /// Distinct places the whole result escapes to.
    pub forwards: Vec<ForwardKind>,
    /// Read places that may read what code put there rather than the
    /// task's output.
    pub provided: HashSet<Location>,
    /// Fields every read of which (in every module) is a later link of a
    /// `||`/`??` chain, with the fields its earlier links read on the
    /// result, nearest first (`v.remainingGaps || v.gaps`: `gaps` after
    /// `remainingGaps`).
    pub fallbacks: BTreeMap<String, Vec<String>>,
    /// Fields whose value reaches a breakpoint (`files: [r.reportPath]`):
    /// a person is shown them.
    pub shown: BTreeSet<String>,
    /// Fields whose value is returned as the process output.
    pub returned: BTreeSet<String>,
    /// Fields every read of which (in every module) is an argument of a
    /// logging call: read for a log line only.
    pub logged: BTreeSet<String>,
    /// Fields read other than as a later link: never in `fallbacks`.
    direct: HashSet<String>,
    /// Fields read other than in a log line: never in `logged`.
    unlogged: HashSet<String>,
    /// (read set, layers, read prefix) already walked, with the fewest hops
    /// used so far: results fan out through callers and re-exports, and a
    /// combination is walked again only when reached in fewer hops (so it
    /// can go deeper).
    visited: HashMap<(usize, Vec<Seg>, Vec<String>), usize>,
}

impl ResultUse {
    /// Drops what only the walk needed (the uses of every task are kept).
    fn release_walk_state(&mut self) {
        self.visited = HashMap::new();
        self.unlogged = HashSet::new();
    }

    fn forward(&mut self, kind: ForwardKind) {
        // A result escapes to a handful of distinct places: a scan beats
        // formatting a key on every call.
        let key = forward_key(&kind);
        if !self.forwards.iter().any(|k| forward_key(k) == key) {
            self.forwards.push(kind);
        }
    }
}

fn collect(p: &Project, module: usize, reads: &ReadSet, hops: usize, out: &mut ResultUse) {
    collect_wrapped(p, module, reads, &[], &[], hops, out);
}

/// `reads` are relative to a value that holds the result at `wrap`
/// (outermost layer last) with `acc` already read.
fn collect_wrapped(
    p: &Project,
    module: usize,
    reads: &ReadSet,
    wrap: &[Seg],
    acc: &[String],
    hops: usize,
    out: &mut ResultUse,
) {
    let id = reads as *const ReadSet as usize;
    match out.visited.entry((id, wrap.to_vec(), acc.to_vec())) {
        std::collections::hash_map::Entry::Occupied(mut e) => {
            if *e.get() <= hops {
                return;
            }
            e.insert(hops);
        }
        std::collections::hash_map::Entry::Vacant(e) => {
            e.insert(hops);
        }
    }
    for (path, location) in &reads.paths {
        if let Some(Some(first)) = first_read(wrap, acc, path) {
            if !out.fields.contains_key(first) {
                out.fields.insert(first.clone(), location.clone());
            }
            if reads.logged.binary_search(path).is_ok() {
                if !out.unlogged.contains(first) {
                    out.logged.insert(first.clone());
                }
            } else if out.unlogged.insert(first.clone()) {
                out.logged.remove(first);
            }
            // A field is a fallback only where every read of it is;
            // relative to the result only where the read set's value is
            // the result.
            let link = (wrap.is_empty() && acc.is_empty())
                .then(|| reads.fallbacks.iter().find(|(f, _)| f == first))
                .flatten();
            match link {
                Some((_, earlier)) if !out.direct.contains(first) => {
                    out.fallbacks
                        .entry(first.clone())
                        .or_insert_with(|| earlier.clone());
                }
                Some(_) => {}
                None => {
                    out.direct.insert(first.clone());
                    out.fallbacks.remove(first);
                }
            }
        }
    }
    out.provided.extend(reads.provided.iter().cloned());
    for (kind, path) in &reads.forwards {
        // The result escapes whole when the escaping value holds it: the
        // path read before escaping does not go past the result.
        match first_read(wrap, acc, path) {
            Some(None) => out.forward(kind.clone()),
            Some(Some(field)) if *kind == ForwardKind::Breakpoint => {
                out.shown.insert(field.clone());
            }
            Some(Some(field)) if *kind == ForwardKind::ProcessOutput => {
                out.returned.insert(field.clone());
            }
            _ => {}
        }
    }
    for q in &reads.pending {
        // The result inside what is passed on: consume q.acc, then q.wrap
        // adds layers outside.
        let Some((mut w, a)) = consume(wrap, acc, &q.acc) else {
            continue;
        };
        for seg in &q.wrap {
            push_layer(&mut w, seg.clone());
        }
        // Each hop may put the result inside more layers (an object, an
        // array, a spread); without a bound, flows that go round between
        // modules (`report = await phase(…, { report })`) made a new walk
        // state per path, exponentially many. Code reads through a few
        // layers at most.
        if hops >= MAX_HOPS || w.len() > MAX_LAYERS {
            out.forward(ForwardKind::Unknown(q.name.clone()));
            continue;
        }
        follow(p, module, q, &w, &a, hops + 1, out);
    }
}

fn follow(
    p: &Project,
    module: usize,
    q: &crate::project::PendingFlow,
    wrap: &[Seg],
    acc: &[String],
    hops: usize,
    out: &mut ResultUse,
) {
    // A field of the result leaving the module was read already; only the
    // whole result (or something holding it) escaping is a forward.
    let whole = acc.is_empty();
    let forward = |out: &mut ResultUse, what: String| {
        if whole {
            out.forward(ForwardKind::Unknown(what));
        }
    };
    match q.kind {
        PendingKind::Param(i) => {
            let target = p
                .resolve(module, &q.source)
                .and_then(|t| p.export(t, &q.name));
            match target {
                Some((owner, e)) => match &e.kind {
                    ExportKind::Function { params } => {
                        if let Some(reads) = params.get(i) {
                            collect_wrapped(p, owner, reads, wrap, acc, hops, out);
                        }
                    }
                    _ => forward(out, q.name.clone()),
                },
                None => forward(out, q.name.clone()),
            }
        }
        PendingKind::ReturnOf => {
            let callers = p.callers_of(module, &q.name);
            for &(mi, ci) in callers {
                let call = &p.modules[mi].imported_calls[ci];
                collect_wrapped(p, mi, &call.reads, wrap, acc, hops, out);
            }
            if callers.is_empty() {
                forward(out, format!("export `{}`", q.name));
            }
        }
    }
}

/// Reads `path` through the layers around the result: `None` when the
/// path leaves the result; otherwise the remaining layers and what has been
/// read on the result itself.
fn consume(wrap: &[Seg], acc: &[String], path: &[String]) -> Option<(Vec<Seg>, Vec<String>)> {
    let mut w = wrap.to_vec();
    let mut a = acc.to_vec();
    for seg in path {
        match w.last() {
            Some(Seg::Field(k)) if k == seg => {
                w.pop();
            }
            Some(_) => return None,
            None => a.push(seg.clone()),
        }
    }
    Some((w, a))
}

/// [`consume`] without building the remainders, for the hot loops: `None`
/// when the path leaves the result, else the first field read on the result
/// itself (`None` when nothing is).
fn first_read<'a>(
    wrap: &[Seg],
    acc: &'a [String],
    path: &'a [String],
) -> Option<Option<&'a String>> {
    let mut layers = wrap.iter().rev();
    for (i, seg) in path.iter().enumerate() {
        match layers.next() {
            Some(Seg::Field(k)) if k == seg => {}
            Some(_) => return None,
            None => return Some(acc.first().or(Some(&path[i]))),
        }
    }
    Some(acc.first())
}

/// What tells two escape destinations apart.
pub fn forward_key(kind: &ForwardKind) -> (u8, &str) {
    match kind {
        ForwardKind::Task(t) => (0, t),
        ForwardKind::ProcessOutput => (1, ""),
        ForwardKind::Breakpoint => (2, ""),
        ForwardKind::Unknown(u) => (3, u),
    }
}
