//! `nondeterministic-process`: wall clock, randomness and environment reads
//! in code that re-runs on every replay.

use crate::js::syntax::tree::Node;

use super::{Area, Category, JsContext, ReportMeta, Rule, RuleMeta, Sink, Sites};
use crate::diagnostic::{Diagnostic, Related, Severity};
use crate::js::analysis::dates::always_rejected;
use crate::js::analysis::effects::effect_of_call;
use crate::js::analysis::replay::{origin, Origin, Replay};
use crate::js::analysis::results::enclosing_function;
use crate::js::analysis::taint::{clock_sinks_of, sinks_of, SinkKind};
use crate::js::syntax::span;
use crate::js::{EffectKind, JsModel};

pub struct NondeterministicProcess;

static META: RuleMeta = RuleMeta {
    id: "nondeterministic-process",
    summary: "Process code that re-runs on replay reads the clock, randomness or the environment.",
    severity: Severity::Warning,
    area: Area::Determinism,
    category: Category::Suspicious,
    doc: include_str!("../../rules/nondeterministic-process.md"),
    builtin: false,
    options: &[],
    fix: crate::rules::FixAvailability::Never,
};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Source {
    Clock,
    Random,
    Env,
    ContextNow,
}

impl Source {
    fn what(self) -> &'static str {
        match self {
            Source::Clock => "reads the clock",
            Source::Random => "is random",
            Source::Env => "reads the environment",
            Source::ContextNow => "reads the wall clock (the SDK's default clock)",
        }
    }

    fn help(self) -> &'static str {
        match self {
            Source::Env => {
                "pass the setting in the process inputs (or read it inside a task) so every replay sees the same value"
            }
            Source::ContextNow => {
                "take the time from the process inputs or a task result, so every replay sees the same value"
            }
            _ => {
                "derive the value from the process inputs or a task result (a task can return a timestamp or an id once; replay then reuses it)"
            }
        }
    }
}

/// Calls that return a different value on every run: (module or global,
/// path, kind).
const CALLS: &[(Option<&str>, &[&str], Source)] = &[
    (None, &["Date", "now"], Source::Clock),
    (None, &["Date"], Source::Clock),
    (None, &["performance", "now"], Source::Clock),
    (None, &["process", "hrtime"], Source::Clock),
    (None, &["process", "hrtime", "bigint"], Source::Clock),
    (None, &["process", "uptime"], Source::Clock),
    (None, &["Math", "random"], Source::Random),
    (None, &["crypto", "randomUUID"], Source::Random),
    (None, &["crypto", "getRandomValues"], Source::Random),
    (Some("crypto"), &["randomUUID"], Source::Random),
    (Some("crypto"), &["randomBytes"], Source::Random),
    (Some("crypto"), &["randomInt"], Source::Random),
    (Some("crypto"), &["getRandomValues"], Source::Random),
    (
        Some("crypto"),
        &["webcrypto", "getRandomValues"],
        Source::Random,
    ),
    (Some("crypto"), &["webcrypto", "randomUUID"], Source::Random),
    (Some("perf_hooks"), &["performance", "now"], Source::Clock),
    (Some("uuid"), &["v1"], Source::Random),
    (Some("uuid"), &["v4"], Source::Random),
    (Some("uuid"), &["v7"], Source::Random),
    (Some("nanoid"), &["nanoid"], Source::Random),
];

fn classify(o: &Origin) -> Option<Source> {
    CALLS
        .iter()
        .find(|(module, path, _)| o.is(*module, path))
        .map(|(_, _, s)| *s)
}

impl Rule for NondeterministicProcess {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn report(&self) -> ReportMeta {
        ReportMeta {
            sites: Sites::ProcessModules,
            praise: "No clock, randomness or environment reads in replayed process code",
            sdk_hint: "Processes keep reaching for the clock and randomness: replay-safe `ctx.now()` / `ctx.random()` that record their first value in the journal would make them deterministic by construction.",
        }
    }

    fn check_js(&self, cx: &JsContext, sink: &mut Sink) {
        let m = cx.model;
        let replay = Replay::of(m);
        let mut found: Vec<(Node, Source, String)> = Vec::new();
        for (ci, c) in m.calls.iter().enumerate() {
            if let Some(e) = effect_of_call(m, ci) {
                // A clock every use of which fails a `Number` test is
                // `unknown-context-method`'s bug, not nondeterminism.
                if e.kind == EffectKind::Now && !always_rejected(m, c.node) {
                    found.push((
                        c.node,
                        Source::ContextNow,
                        format!("{}()", m.text(c.callee)),
                    ));
                }
                continue;
            }
            if let Some(s) = origin(m, c.callee).as_ref().and_then(classify) {
                found.push((c.node, s, shorten(m.text(c.node))));
            }
        }
        // `new Date()` without arguments is now.
        for &node in &m.new_expressions {
            let ctor = node.field("constructor");
            let no_args = node
                .field("arguments")
                .is_none_or(|a| a.named_child_count() == 0);
            if no_args
                && ctor
                    .and_then(|c| origin(m, c))
                    .is_some_and(|o| o.is(None, &["Date"]))
            {
                found.push((node, Source::Clock, "new Date()".into()));
            }
        }
        // `process.env` under the module's own `function process` is
        // `shadowed-process-global`'s finding (a TypeError, not an env read).
        let shadow = crate::rules::shadowed_process_global::module_process_binding(m);
        for &node in &m.env_members {
            if is_env_read(m, node) && !rooted_at(m, node, shadow) {
                // `process.env.CI` reads better than `process.env`.
                let shown = node
                    .parent()
                    .filter(|p| p.kind_str() == "member_expression")
                    .unwrap_or(node);
                found.push((node, Source::Env, shorten(m.text(shown))));
            }
        }
        found.sort_by_key(|(n, _, _)| n.start_byte());
        let mut out = Findings::default();
        for (node, source, shown) in found {
            if !replay.covers(m, node) {
                continue;
            }
            classify_one(m, sink, &mut out, node, source, &shown);
        }
        for (_, d) in out.grouped {
            sink.push(d);
        }
    }
}

/// Findings grouped by construct: reads whose values reach the very same
/// sinks (`startTime`, `endTime` and `duration` of one return value; the
/// start and the test of one deadline loop) are one finding.
/// The sinks (kind, node id) a finding is about.
type GroupKey = Vec<(SinkKind, usize)>;

#[derive(Default)]
struct Findings<'t> {
    grouped: Vec<(GroupKey, Diagnostic)>,
    /// Clock reads that reach only a process function's return value, not
    /// (yet) as a duration.
    pending: Vec<(GroupKey, Node<'t>, String)>,
}

impl Findings<'_> {
    /// Adds `node` to the finding for `key` if there is one; `false` if not.
    fn join(&mut self, sink: &Sink, key: &[(SinkKind, usize)], node: Node, shown: &str) -> bool {
        let Some((_, d)) = self.grouped.iter_mut().find(|(k, _)| k == key) else {
            return false;
        };
        d.related.push(Related {
            location: sink.location(span(node)),
            message: format!("`{shown}` reaches the same place"),
        });
        true
    }
}

fn classify_one<'t>(
    m: &JsModel<'t>,
    sink: &mut Sink,
    out: &mut Findings<'t>,
    node: Node<'t>,
    source: Source,
    shown: &str,
) {
    let sinks = match source {
        Source::Clock | Source::ContextNow => clock_sinks_of(m, node),
        _ => sinks_of(m, node),
    };
    let steering: Vec<_> = sinks.iter().filter(|s| s.kind.steers()).collect();
    let head = format!(
        "`{shown}` {} in process code, which re-runs on every replay",
        source.what()
    );
    if let Some(first) = steering.first() {
        let key: Vec<_> = steering.iter().map(|s| (s.kind, s.node.id())).collect();
        if out.join(sink, &key, node, shown) {
            return;
        }
        let mut kinds: Vec<&str> = steering.iter().map(|s| s.kind.describe()).collect();
        kinds.dedup();
        let (severity, why, help) = match first.kind {
            SinkKind::SleepTarget => (
                Severity::Error,
                ": the SDK names such a sleep after its target time, so every iteration requests a new sleep and the wait never ends",
                "give the sleep a name that does not change: `ctx.sleepUntil(target, { label: 'wait-for-window' })` (the SDK then compares the recorded target with the clock)",
            ),
            SinkKind::Key => (
                Severity::Warning,
                ", which the SDK uses as the effect's identity: each iteration computes another one, so the effect is requested again instead of replayed",
                source.help(),
            ),
            SinkKind::ArgsShape => (
                Severity::Warning,
                ", which the SDK hashes into the effect's identity when no key is given: an iteration that computes another shape requests the effect again instead of replaying it",
                source.help(),
            ),
            _ => (
                Severity::Warning,
                ", so a replay can take another path than the iteration that requested the recorded effects",
                source.help(),
            ),
        };
        let mut d = sink.diag_at(
            severity,
            span(node),
            format!("{head}: its value reaches {}{why}", join(&kinds)),
        );
        for s in steering.iter().take(3) {
            d = d.with_related(
                sink.location(span(s.node)),
                format!("the value reaches {} here", s.kind.describe()),
            );
        }
        out.grouped.push((key, d.with_help(help)));
        return;
    }
    let returns: Vec<_> = sinks
        .iter()
        .filter(|s| s.kind == SinkKind::ProcessReturn)
        .collect();
    if let Some(first) = returns.first() {
        // The output is written once, by the iteration that completes the
        // run: a timestamp there is that iteration's, which is what it says;
        // a duration, though, measures only that last replay. One note per
        // process function, for its start, end and duration together.
        if !matches!(source, Source::Clock | Source::ContextNow) {
            return;
        }
        let function =
            enclosing_function(m, first.node).map_or(usize::MAX, |f| m.functions[f].node.id());
        let key = vec![(SinkKind::ProcessReturn, function)];
        if out.join(sink, &key, node, shown) {
            return;
        }
        if !returns.iter().any(|s| s.difference) {
            // Parked until a read of the same function shows a duration.
            out.pending.push((key, node, shown.to_string()));
            return;
        }
        let d = sink.diag_at(
            Severity::Info,
            span(node),
            format!("{head}; its value reaches only the process return value, as a duration: the return value is written once, by the iteration that completes the run, so the duration measures only that final replay, not the whole run"),
        );
        let mut d = d.with_help("to time the whole run, record the start once: take it from the process inputs or from a task's result");
        // Earlier reads of the same construct (the start time).
        for (k, n, shown) in std::mem::take(&mut out.pending) {
            if k == key {
                d.related.push(Related {
                    location: sink.location(span(n)),
                    message: format!("`{shown}` reaches the same place"),
                });
            } else {
                out.pending.push((k, n, shown));
            }
        }
        out.grouped.push((key, d));
    }
    // What is left reaches effect args only as values (the SDK hashes the
    // args' shape, not their values, so the effect that received the value
    // is replayed whatever it is now), `ctx.log` (deduplicated by sequence,
    // not content), or nothing: no replay differs.
}

/// `a`, `a and b`, `a, b and c`.
fn join(items: &[&str]) -> String {
    match items {
        [] => String::new(),
        [one] => (*one).to_string(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    }
}

/// Keeps messages to one short line.
fn shorten(text: &str) -> String {
    let one_line: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    if one_line.chars().count() > 60 {
        let cut: String = one_line.chars().take(57).collect();
        format!("{cut}…")
    } else {
        one_line
    }
}

/// `process.env` that is read (not assigned to).
fn is_env_read(m: &JsModel, node: Node) -> bool {
    let is_env = node.field("property").is_some_and(|p| m.text(p) == "env")
        && node
            .field("object")
            .and_then(|o| origin(m, o))
            .is_some_and(|o| o.is(None, &["process"]));
    if !is_env {
        return false;
    }
    // `process.env.X = …` writes.
    let mut n = node;
    while let Some(p) = n.parent() {
        match p.kind_str() {
            "member_expression" | "subscript_expression" => n = p,
            "assignment_expression" | "augmented_assignment_expression" => {
                return p.field("left") != Some(n);
            }
            _ => return true,
        }
    }
    true
}

/// Whether a member chain's root identifier is the binding `b`.
fn rooted_at(m: &JsModel, node: Node, b: Option<crate::js::model::scope::BindingId>) -> bool {
    let Some(b) = b else {
        return false;
    };
    let mut n = node;
    while matches!(n.kind_str(), "member_expression" | "subscript_expression") {
        match n.field("object") {
            Some(o) => n = crate::js::syntax::unparen(o),
            None => return false,
        }
    }
    n.kind_str() == "identifier" && m.scopes.binding_of(n) == Some(b)
}
