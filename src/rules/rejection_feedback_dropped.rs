//! `rejection-feedback-dropped`: the branch taken when a human rejects a
//! breakpoint ends the process (return, throw, break, `ctx.halt`) without
//! reading why (babysitter #950: days of tracked work lost).

use crate::js::syntax::tree::Node;

use super::{Area, Category, JsContext, ReportMeta, Rule, RuleMeta, Sink, Sites};
use crate::diagnostic::Severity;
use crate::js::model::scope::BindingId;
use crate::js::syntax::{holds_statements, is_function, span, unparen};
use crate::js::{EffectKind, JsModel};

pub struct RejectionFeedbackDropped;

static META: RuleMeta = RuleMeta {
    id: "rejection-feedback-dropped",
    summary: "A rejected breakpoint ends the process without reading the human's feedback.",
    severity: Severity::Warning,
    area: Area::BreakpointDiscipline,
    category: Category::Suspicious,
    doc: include_str!("../../rules/rejection-feedback-dropped.md"),
    builtin: false,
    options: &[],
    fix: crate::rules::FixAvailability::Never,
};

/// The decision fields a branch may test; every other read carries what the
/// human said (`feedback`, `response`, `option`, or the whole result).
const DECISION_FIELDS: &[&str] = &["approved"];

impl Rule for RejectionFeedbackDropped {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn report(&self) -> ReportMeta {
        ReportMeta {
            sites: Sites::Breakpoints,
            praise: "Every rejection path keeps what the human said",
            sdk_hint: "A rejection's feedback lives only in the breakpoint's result. Recording it in the run's outcome when a process ends right after a rejection would keep it even when the process drops it.",
        }
    }

    fn check_js(&self, cx: &JsContext, sink: &mut Sink) {
        let m = cx.model;
        for e in m.effects_of(EffectKind::Breakpoint) {
            let call = m.calls[e.call].node;
            let Some(b) = result_binding(m, call) else {
                continue;
            };
            // A confirmation gate ("Proceed?", "reject to cancel") ends the
            // process on rejection by design; the reason matters when the
            // gate asks for a revision.
            if !invites_revision(m, &m.calls[e.call]) {
                continue;
            }
            let binding = m.scopes.get(b);
            // Anything but `.approved` read anywhere: the author uses what
            // the human said (the path analysis would add little).
            if binding.reads.iter().any(|r| !decision_read(m, *r)) {
                continue;
            }
            for &read in &binding.reads {
                let Some(branch) = rejection_branch(m, read) else {
                    continue;
                };
                let Some(exit) = first_exit(m, branch) else {
                    continue;
                };
                let name = &binding.name;
                let how = match exit.kind_str() {
                    "return_statement" => "returns",
                    "throw_statement" => "throws",
                    "break_statement" => "breaks out",
                    _ => "halts the run",
                };
                sink.push(
                    sink.diag(
                        span(read),
                        format!(
                            "this gate asks for a revision, but when `{name}` is rejected the \
                             process {how} without reading `{name}.feedback` or `{name}.response`: \
                             the requested changes are neither made nor carried in the process's \
                             outcome (they survive only in the run's journal)"
                        ),
                    )
                    .with_help(format!(
                        "carry it on: return it (`feedback: {name}.feedback`), put it in the \
                         error, or loop back with it to the step that was rejected"
                    ))
                    .with_related(sink.location(span(exit)), "the rejection path ends here"),
                );
                break;
            }
        }
    }
}

/// Phrases in a breakpoint's question or title that ask the human for changes.
const REVISION_WORDS: &[&str] = &[
    "revis",
    "feedback",
    "request changes",
    "requested changes",
    "comment",
    "suggest",
    "what should change",
    "what to change",
    "what to fix",
    "what to improve",
    "reject with",
];

/// Whether the breakpoint's payload (its question, title or message) asks
/// for a revision on rejection.
fn invites_revision(m: &JsModel, call: &crate::js::model::Call) -> bool {
    let Some(payload) = call.args.first() else {
        return false;
    };
    let text = match m.object_of_expr(*payload) {
        Some(obj) => ["question", "title", "message", "description"]
            .iter()
            .filter_map(|k| crate::js::model::objects::property(m, obj, k))
            .map(|v| m.text(v).to_ascii_lowercase())
            .collect::<Vec<_>>()
            .join(" "),
        None => m.text(*payload).to_ascii_lowercase(),
    };
    REVISION_WORDS.iter().any(|w| text.contains(w))
}

/// `const r = await ctx.breakpoint(…)` → `r`.
fn result_binding(m: &JsModel, call: Node) -> Option<BindingId> {
    let mut n = call;
    while let Some(p) = n.parent() {
        match p.kind_str() {
            "await_expression" | "parenthesized_expression" => n = p,
            "variable_declarator" => {
                let name = p.field("name")?;
                return (name.kind_str() == "identifier")
                    .then(|| m.scopes.binding_of(name))
                    .flatten();
            }
            "assignment_expression" => {
                let left = p.field("left")?;
                return (left.kind_str() == "identifier")
                    .then(|| m.scopes.binding_of(left))
                    .flatten();
            }
            _ => return None,
        }
    }
    None
}

/// `r.approved` (or `r?.approved`, `r['approved']`).
fn decision_read(m: &JsModel, read: Node) -> bool {
    read.parent().is_some_and(|p| match p.kind_str() {
        "member_expression" => p
            .field("property")
            .is_some_and(|prop| DECISION_FIELDS.contains(&m.text(prop))),
        "subscript_expression" => p
            .field("index")
            .is_some_and(|i| DECISION_FIELDS.contains(&m.text(i).trim_matches(['"', '\'']))),
        _ => false,
    })
}

/// The statement run on rejection, for `if (!r.approved) S`,
/// `if (r.approved === false) S`, and `if (r.approved) … else S`.
fn rejection_branch<'t>(m: &JsModel<'t>, read: Node<'t>) -> Option<Node<'t>> {
    let member = read.parent()?;
    let mut n = member;
    let mut negated = false;
    loop {
        let p = n.parent()?;
        match p.kind_str() {
            "parenthesized_expression" => n = p,
            "unary_expression" if p.field("operator").is_some_and(|o| m.text(o) == "!") => {
                negated = !negated;
                n = p;
            }
            "binary_expression" => {
                let op = p.field("operator").map(|o| m.text(o))?;
                let other = if p.field("left").map(|l| l.id()) == Some(n.id()) {
                    p.field("right")?
                } else {
                    p.field("left")?
                };
                let lit = m.text(unparen(other));
                let flips = match (op, lit) {
                    ("===" | "==", "false") | ("!==" | "!=", "true") => true,
                    ("===" | "==", "true") | ("!==" | "!=", "false") => false,
                    _ => return None,
                };
                if flips {
                    negated = !negated;
                }
                n = p;
            }
            "if_statement" => {
                if p.field("condition").map(|c| c.id()) != Some(n.id()) {
                    return None;
                }
                return if negated {
                    p.field("consequence")
                } else {
                    p.field("alternative")
                        .map(|a| a.named_child(0).unwrap_or(a))
                };
            }
            _ => return None,
        }
    }
}

/// The first `return`/`throw`/`break`/`ctx.halt(…)` the branch runs at its
/// own level (not inside nested functions or loops, where `break` means
/// something else).
fn first_exit<'t>(m: &JsModel<'t>, stmt: Node<'t>) -> Option<Node<'t>> {
    match stmt.kind_str() {
        "return_statement" | "throw_statement" | "break_statement" => Some(stmt),
        "expression_statement" => {
            let e = unparen(stmt.named_child(0)?);
            let call = match e.kind_str() {
                "await_expression" => e.named_child(0)?,
                _ => e,
            };
            let c = m.call_of_node(call)?;
            (m.effect_of_call(c)?.kind == EffectKind::Halt).then_some(stmt)
        }
        _ if is_function(stmt) || crate::js::syntax::is_loop(stmt) => None,
        "statement_block" => stmt.named().find_map(|s| first_exit(m, s)),
        _ if holds_statements(stmt) => stmt.named().find_map(|s| first_exit(m, s)),
        _ => None,
    }
}
