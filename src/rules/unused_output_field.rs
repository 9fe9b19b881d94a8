//! `unused-output-field`: output schema properties nothing reads.

use std::collections::{BTreeMap, HashMap};

use super::{Area, ProjectSink, ReportMeta, Rule, RuleMeta, Sites};
use crate::config::Config;
use crate::diagnostic::{Location, Severity};
use crate::project::{ExportKind, ForwardKind, PendingKind, Project, ReadSet, Seg, MAX_HOPS};

pub struct UnusedOutputField;

static META: RuleMeta = RuleMeta {
    id: "unused-output-field",
    summary: "An agent task's output schema declares fields that nothing reads.",
    severity: Severity::Warning,
    area: Area::EffectGranularity,
    doc: include_str!("../../rules/unused-output-field.md"),
    builtin: false,
    options: &[],
};

/// What is known about every use of one task's results.
#[derive(Default)]
pub struct ResultUse {
    /// Fields read on the result, with the first place each is read.
    pub fields: BTreeMap<String, Location>,
    /// Distinct places the whole result escapes to.
    pub forwards: Vec<ForwardKind>,
    /// (read set, layers, read prefix) already walked, with the fewest hops
    /// used so far: results fan out through callers and re-exports, and a
    /// combination is walked again only when reached in fewer hops (so it
    /// can go deeper).
    visited: HashMap<(usize, Vec<Seg>, Vec<String>), usize>,
}

impl ResultUse {
    /// Drops what only the walk needed (for callers that keep the uses of
    /// every task at once).
    pub fn release_walk_state(&mut self) {
        self.visited = HashMap::new();
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

/// Collects the fields read on results across modules (shared with
/// `undeclared-output-field` and `missing-output-schema`).
pub fn collect(p: &Project, module: usize, reads: &ReadSet, hops: usize, out: &mut ResultUse) {
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
        }
    }
    for (kind, path) in &reads.forwards {
        // The result escapes whole when the escaping value holds it: the
        // path read before escaping does not go past the result.
        if matches!(first_read(wrap, acc, path), Some(None)) {
            out.forward(kind.clone());
        }
    }
    for q in &reads.pending {
        // The result inside what is passed on: consume q.acc, then q.wrap
        // adds layers outside.
        let Some((mut w, a)) = consume(wrap, acc, &q.acc) else {
            continue;
        };
        w.extend(q.wrap.iter().cloned());
        if hops >= MAX_HOPS {
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

fn forward_key(kind: &ForwardKind) -> (u8, &str) {
    match kind {
        ForwardKind::Task(t) => (0, t),
        ForwardKind::ProcessOutput => (1, ""),
        ForwardKind::Breakpoint => (2, ""),
        ForwardKind::Unknown(u) => (3, u),
    }
}

fn describe(kind: &ForwardKind) -> String {
    match kind {
        ForwardKind::Task(t) => format!("passed in the args of `{t}`"),
        ForwardKind::ProcessOutput => "returned as the process output".into(),
        ForwardKind::Breakpoint => "shown in a breakpoint".into(),
        ForwardKind::Unknown(u) => format!("handed to `{u}`"),
    }
}

impl Rule for UnusedOutputField {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn report(&self) -> ReportMeta {
        ReportMeta {
            sites: Sites::SchemaTasks,
            praise: "Every declared output field is read",
            sdk_hint: "",
        }
    }

    fn check_project(&self, p: &Project, _config: &Config, sink: &mut ProjectSink) {
        for (mi, module) in p.modules.iter().enumerate() {
            if !module.report {
                continue;
            }
            for (ti, task) in module.tasks.iter().enumerate() {
                let Some(fields) = p.schema_fields(mi, ti).filter(|f| !f.is_empty()) else {
                    continue;
                };
                let invocations = p.invocations_of(mi, ti);
                // A task nobody in the linted set dispatches may be used by
                // code proclint did not see.
                if invocations.is_empty() {
                    continue;
                }
                let mut uses = ResultUse::default();
                let mut bound = Vec::new();
                for (mj, ii) in &invocations {
                    let inv = &p.modules[*mj].invocations[*ii];
                    collect(p, *mj, &inv.reads, 0, &mut uses);
                    if let Some(b) = &inv.bound {
                        bound.push(b.clone());
                    }
                }
                let unused: Vec<&(String, Location)> = fields
                    .iter()
                    .filter(|(name, _)| !uses.fields.contains_key(name))
                    .collect();
                let Some(first) = unused.first() else {
                    continue;
                };
                let names: Vec<String> = unused.iter().map(|(n, _)| format!("`{n}`")).collect();
                let id = task.id.as_deref().unwrap_or("task");
                let plural = if unused.len() == 1 { "field" } else { "fields" };
                // Describe each distinct destination once: a task used all
                // over a monorepo collects thousands of identical forwards.
                let mut distinct = std::collections::HashSet::new();
                let mut forwards: Vec<String> = uses
                    .forwards
                    .iter()
                    .filter(|k| distinct.insert(forward_key(k)))
                    .map(describe)
                    .collect();
                forwards.sort();
                forwards.dedup();
                let mut d = if forwards.is_empty() {
                    sink.diag(
                        first.1.clone(),
                        format!(
                            "task `{id}` declares output {plural} {} that nothing reads",
                            names.join(", ")
                        ),
                    )
                    .with_help(
                        "remove the field from `outputSchema` (the agent spends tokens producing it), or use it",
                    )
                } else {
                    sink.diag_at(
                        Severity::Info,
                        first.1.clone(),
                        format!(
                            "task `{id}` declares output {plural} {} that no code reads; the result is only forwarded wholesale ({})",
                            names.join(", "),
                            forwards.join("; ")
                        ),
                    )
                    .with_help(
                        "if the receiver does not need the field, remove it from `outputSchema`; otherwise read it where it matters",
                    )
                };
                for (name, loc) in unused.iter().skip(1) {
                    d = d.with_related(loc.clone(), format!("`{name}` is not read either"));
                }
                for b in bound.into_iter().take(3) {
                    d = d.with_related(b, "the result is bound here");
                }
                sink.push(d);
            }
        }
    }
}
