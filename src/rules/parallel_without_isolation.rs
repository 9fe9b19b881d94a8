//! `parallel-without-isolation`: a batch whose peers can fail with no
//! per-peer error capture, so one failure loses every sibling's result.

use super::{Area, Category, JsContext, ReportMeta, Rule, RuleMeta, Sink, Sites};
use crate::diagnostic::Severity;
use crate::js::analysis::isolation::{peers, uncaptured_dispatches};
use crate::js::model::TaskTarget;
use crate::js::syntax::tree::Node;
use crate::js::syntax::{contains, span};
use crate::js::{EffectKind, JsModel};

pub struct ParallelWithoutIsolation;

static META: RuleMeta = RuleMeta {
    id: "parallel-without-isolation",
    summary: "A parallel batch's peers can fail without per-peer error capture, so one failure loses every sibling result.",
    severity: Severity::Warning,
    area: Area::ErrorSurfacing,
    category: Category::Pedantic,
    doc: include_str!("../../rules/parallel-without-isolation.md"),
    builtin: false,
    options: &[],
    fix: crate::rules::FixAvailability::Never,
};

const HELP: &str = "capture each peer's failure as a value, letting the SDK's signals through: \
`async (item) => { try { return { ok: true, value: await ctx.task(…) }; } catch (e) { if (isIntrinsicError(e)) throw e; return { ok: false, error: String(e) }; } }`; \
then triage after the batch (`const failed = results.filter((r) => !r.ok)`: retry, escalate to a breakpoint, or fail with the collected errors)";

impl Rule for ParallelWithoutIsolation {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn report(&self) -> ReportMeta {
        ReportMeta {
            sites: Sites::ParallelSites,
            praise: "Every parallel peer captures its own failure",
            sdk_hint: "Per-peer capture is boilerplate every batch needs: a `ctx.parallel.allSettled` returning `{ ok, value | error }` per peer (passing the SDK's signals through) would make isolation the default.",
        }
    }

    fn check_js(&self, cx: &JsContext, sink: &mut Sink) {
        let m = cx.model;
        let mut flagged = Vec::new();
        for e in &m.effects {
            if !matches!(e.kind, EffectKind::ParallelAll | EffectKind::ParallelMap) {
                continue;
            }
            // A fixed tuple destructured whole (`const [a, b] = await
            // ctx.parallel.all([…])`) needs every result: capturing one
            // peer's failure would only move it.
            if e.kind == EffectKind::ParallelAll && destructured_whole(m.calls[e.call].node) {
                continue;
            }
            // Peers proclint cannot see are not judged.
            let Some(peers) = peers(m, e.call) else {
                continue;
            };
            let mut sites = Vec::new();
            let mut failing_peers = 0;
            for p in &peers {
                // A failed shell task resolves to `{ success: false, … }`
                // (the SDK's `coerceStoredShellFailureResult`): it does not
                // throw, so it cannot reject the batch.
                let s: Vec<Node> = uncaptured_dispatches(m, *p)
                    .into_iter()
                    .filter(|site| !dispatches_shell(m, *site))
                    .collect();
                if !s.is_empty() {
                    failing_peers += 1;
                }
                sites.extend(s);
            }
            if !sites.is_empty() {
                flagged.push((e.call, e.kind, peers.len(), failing_peers, sites));
            }
        }
        for (call, kind, peer_count, failing_peers, sites) in &flagged {
            let batch = &m.calls[*call];
            // A batch inside a flagged batch's peer is part of that one
            // finding: capturing at the outer peer isolates both.
            let inside_other = flagged.iter().any(|(other, _, _, _, other_sites)| {
                other != call
                    && contains(m.calls[*other].node, batch.node)
                    && other_sites
                        .iter()
                        .any(|s| contains(*s, batch.node) || contains(batch.node, *s))
            });
            if inside_other {
                continue;
            }
            let Some(first) = sites.first() else { continue };
            let callee = m.text(batch.callee);
            let first_text = describe_call(m, *first);
            let peers_phrase = match kind {
                EffectKind::ParallelMap => "its peers".to_string(),
                _ if failing_peers == peer_count => "its peers".to_string(),
                _ => format!("{failing_peers} of its {peer_count} peers"),
            };
            let mut d = sink
                .diag(
                    span(batch.callee),
                    format!(
                        "`{callee}(…)` dispatches `{first_text}` in {peers_phrase} without per-peer error capture: \
                         one failing peer rejects the whole batch and the sibling results are lost"
                    ),
                )
                .with_help(HELP);
            for s in sites.iter().take(3) {
                d = d.with_related(
                    sink.location(span(*s)),
                    "can fail; nothing in the peer turns the failure into a value",
                );
            }
            sink.push(d);
        }
    }
}

/// Whether the batch's awaited result is bound by an array pattern.
fn destructured_whole(call: Node) -> bool {
    let mut n = call;
    while let Some(p) = n.parent() {
        match p.kind_str() {
            "await_expression" | "parenthesized_expression" => n = p,
            "variable_declarator" | "assignment_expression" => {
                let target = p.field("name").or_else(|| p.field("left"));
                return target.is_some_and(|t| t.kind_str() == "array_pattern");
            }
            _ => return false,
        }
    }
    false
}

/// Whether `site` is `ctx.task(t, …)` for a task of this module whose every
/// definition has `kind: 'shell'`.
fn dispatches_shell(m: &JsModel, site: Node) -> bool {
    if !site
        .field("function")
        .is_some_and(|f| m.text(f).ends_with(".task"))
    {
        return false;
    }
    let Some(target) = site
        .field("arguments")
        .and_then(|a| a.named().find(|n| n.kind_str() != "comment"))
    else {
        return false;
    };
    let TaskTarget::Local(i) = m.task_target(target) else {
        return false;
    };
    m.task_defs[i].literal_kind() == Some("shell")
}

/// `ctx.task(testTask, …)`: the callee and a short first argument.
fn describe_call(m: &JsModel, call: Node) -> String {
    let callee = call.field("function").map(|f| m.text(f)).unwrap_or("call");
    let args: Vec<Node> = call
        .field("arguments")
        .map(|a| {
            let v: Vec<Node> = a.named().filter(|n| n.kind_str() != "comment").collect();
            v
        })
        .unwrap_or_default();
    match args.first() {
        None => format!("{callee}()"),
        Some(first) => {
            let text = m.text(*first);
            let shown = if text.len() <= 30 && !text.contains('\n') {
                text
            } else {
                "…"
            };
            let more = if args.len() > 1 { ", …" } else { "" };
            format!("{callee}({shown}{more})")
        }
    }
}
