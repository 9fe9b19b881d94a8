//! `unchecked-breakpoint`: a breakpoint whose decision is never looked at.

use super::{Area, Category, JsContext, ReportMeta, Rule, RuleMeta, Sink, Sites};
use crate::diagnostic::{Edit, Fix, Severity};
use std::sync::LazyLock;

use regex::Regex;

use crate::js::analysis::flow::{uses_of, Use};
use crate::js::analysis::strings::{literal_text, strings_of, ArgsParam};
use crate::js::model::objects;
use crate::js::syntax::tree::Node;
use crate::js::syntax::{next_statement, span, string_value, unparen};
use crate::js::{EffectKind, JsModel};
use crate::source::Span;

pub struct UncheckedBreakpoint;

static META: RuleMeta = RuleMeta {
    id: "unchecked-breakpoint",
    summary: "A breakpoint's result is never checked for the human's decision.",
    severity: Severity::Error,
    area: Area::BreakpointDiscipline,
    category: Category::Correctness,
    doc: include_str!("../../rules/unchecked-breakpoint.md"),
    builtin: false,
    options: &[],
    fix: crate::rules::FixAvailability::Sometimes,
};

/// Result fields that carry the decision. `feedback` and `respondedBy`
/// describe it but do not decide anything.
pub(super) const DECISION_FIELDS: &[&str] =
    &["approved", "option", "response", "allResponses", "decision"];

/// The fix, spelled with the call's own context and variable names.
fn help(callee: &str, var: &str) -> String {
    format!(
        "bind the result and branch on the decision: `const {var} = await {callee}(…); \
         if (!{var}.approved) {{ … }}` — on rejection feed `{var}.feedback` back into the \
         loop or stop the run"
    )
}

/// A gate whose question only tells the human how to go on ("resolve to
/// continue") and, perhaps, how to stop ("cancel the run to abort").
struct Acknowledge {
    /// The question says to resolve it to go on.
    resolve: bool,
    /// The question names cancelling the run as the way to stop.
    cancel: bool,
}

impl Acknowledge {
    /// What the SDK does with the answer the question does not mention: a
    /// rejection resolves the breakpoint with `approved: false` (returned,
    /// not thrown; only a cancelled effect makes the call throw).
    fn consequence(&self) -> String {
        let asks = match (self.resolve, self.cancel) {
            (true, true) => "to resolve it to go on and to cancel the run to stop",
            (false, true) => "to cancel the run to stop",
            _ => "to resolve it to go on",
        };
        format!(
            "its question says {asks}, but a human who rejects it instead gets \
             `approved: false` back, which nothing reads, and the run carries on as if approved"
        )
    }
}

/// "Resolve (this breakpoint) to continue/proceed/accept …", "resolve to
/// skip it and continue" (one sentence), or "cancel the run" as the way to
/// abort.
static RESOLVE_TO_GO_ON: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\bresolve\b[^.\n?]{0,60}?\b(?:continue|proceed|accept|approve|go\s+on|move\s+on|start|begin|resume)\b",
    )
    .ok()
});
static CANCEL_THE_RUN: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(r"(?i)\bcancel(?:l?ing)?\s+(?:the|this)\s+run\b").ok());

/// Whether the payload's `question` reads as an acknowledge gate (see
/// [`Acknowledge`]), through consts, arrays and `.join`.
fn acknowledge_gate(m: &JsModel, payload: Option<Node>) -> Option<Acknowledge> {
    let question = payload
        .and_then(|p| m.object_of_expr(p))
        .and_then(|o| objects::property(m, o, "question"))?;
    let texts: Vec<String> = strings_of(m, question, &ArgsParam::default())
        .literals
        .iter()
        .map(|n| literal_text(m, *n))
        .collect();
    let matches = |re: &LazyLock<Option<Regex>>| {
        re.as_ref()
            .is_some_and(|re| texts.iter().any(|t| re.is_match(t)))
    };
    let cancel = matches(&CANCEL_THE_RUN);
    let resolve = matches(&RESOLVE_TO_GO_ON);
    (cancel || resolve).then_some(Acknowledge { resolve, cancel })
}

/// The fix for an acknowledge gate: the same guard, said for the case.
fn acknowledge_help(callee: &str, var: &str) -> String {
    format!(
        "bind the result and stop on a rejection even if the gate only asks for an \
         acknowledgement: `const {var} = await {callee}(…); if (!{var}.approved) {{ throw new \
         Error(…) }}` — a rejection is returned as a value; only cancelling the breakpoint's \
         effect makes the call throw"
    )
}

impl Rule for UncheckedBreakpoint {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn report(&self) -> ReportMeta {
        ReportMeta {
            sites: Sites::Breakpoints,
            praise: "Every breakpoint branches on the decision",
            sdk_hint: "`ctx.breakpoint` returns a rejection as an ordinary value, so ignoring it looks like approval. An opt-in that throws on rejection (`{ rejectThrows: true }`) or a result type that must be inspected would make this mistake impossible.",
        }
    }

    fn check_js(&self, cx: &JsContext, sink: &mut Sink) {
        // Names the fixes of this module declare, per scope: two unbound
        // breakpoints in one function must not both become `decision`.
        let mut handed_out: std::collections::HashSet<(usize, String)> = Default::default();
        let m = cx.model;
        for effect in m.effects_of(EffectKind::Breakpoint) {
            let call = &m.calls[effect.call];
            let uses = uses_of(m, call.node);
            if uses.iter().any(decides) {
                if let Some(t) = text_only(m, &uses) {
                    let what = describe(m, call.node, call.args.first().copied());
                    report_text_only(m, call, &what, &t, sink);
                }
                continue;
            }
            let what = describe(m, call.node, call.args.first().copied());
            let callee = call
                .callee
                .utf8_text(m.src().as_bytes())
                .unwrap_or("ctx.breakpoint");
            let call_span = span(call.node);
            let gate = acknowledge_gate(m, call.args.first().copied());
            if let Some(stmt) = uses.iter().find_map(|u| match u {
                Use::Discarded { stmt } => Some(*stmt),
                _ => None,
            }) {
                if let Some(next) = failure_follows(m, stmt) {
                    let ends = if next.kind_str() == "throw_statement" {
                        "throws"
                    } else {
                        "returns a failure"
                    };
                    // Approve and reject end the same way: nothing goes on
                    // as if approved, but the answer is still asked for and
                    // never read. No fix: a guard that throws would only
                    // replace one failure with another.
                    sink.push(
                        sink.diag_at(
                            Severity::Warning,
                            call_span,
                            format!(
                                "the result of {what} is discarded and the next statement {ends} whichever way it is answered: the answer, and any response typed with it, is never read"
                            ),
                        )
                        .with_related(sink.location(span(next)), format!("{ends} either way"))
                        .with_help(
                            "read the answer (for example, try again on approval with `decision.response` passed on to the next attempt), or, if the breakpoint only informs, log the failure and return it without asking",
                        ),
                    );
                    continue;
                }
                let mut d = match success_overwrite(m, stmt) {
                    Some((next, target)) => sink
                        .diag(
                            call_span,
                            format!(
                                "the result of {what} is discarded and the next statement \
                                 unconditionally sets `{target}`: a rejection is treated as an approval"
                            ),
                        )
                        .with_related(
                            sink.location(span(next)),
                            "marks success whatever the human decided",
                        ),
                    None => match &gate {
                        Some(gate) => sink.diag(
                            call_span,
                            format!("the result of {what} is discarded: {}", gate.consequence()),
                        ),
                        None => sink.diag(
                            call_span,
                            format!(
                                "the result of {what} is discarded: a rejection is treated as an approval"
                            ),
                        ),
                    },
                };
                d = d.with_help(match &gate {
                    Some(_) => acknowledge_help(callee, "decision"),
                    None => help(callee, "decision"),
                });
                let stmt = if stmt.kind_str() == "expression_statement" {
                    Some(stmt)
                } else {
                    stmt.parent()
                        .filter(|p| p.kind_str() == "expression_statement")
                };
                if let Some(fix) = stmt.and_then(|st| guard_fix(m, call, st, None, &mut handed_out))
                {
                    d = d.with_fix(fix);
                }
                sink.push(d);
                continue;
            }
            if let Some(b) = uses.iter().find_map(|u| match u {
                Use::Unread { binding } => Some(*binding),
                _ => None,
            }) {
                let binding = m.scopes.get(b);
                let consequence = gate.as_ref().map_or_else(
                    || "a rejection is treated as an approval".to_string(),
                    Acknowledge::consequence,
                );
                let mut d = sink
                    .diag(
                        call_span,
                        format!(
                            "the result of {what} is assigned to `{}` but never read: {consequence}",
                            binding.name
                        ),
                    )
                    .with_related(sink.location(span(binding.node)), "assigned here")
                    .with_help(match &gate {
                        Some(_) => acknowledge_help(callee, &binding.name),
                        None => help(callee, &binding.name),
                    });
                if let Some(fix) = declaration_statement(binding.node)
                    .and_then(|st| guard_fix(m, call, st, Some(&binding.name), &mut handed_out))
                {
                    d = d.with_fix(fix);
                }
                sink.push(d);
                continue;
            }
            let mut read: Vec<String> = uses
                .iter()
                .filter_map(|u| match u {
                    Use::Property { name, .. } => Some(format!("`.{name}`")),
                    _ => None,
                })
                .collect();
            read.sort();
            read.dedup();
            let message = if read.is_empty() {
                format!(
                    "the result of {what} is only tested for truthiness, which is always true: \
                     its decision (`.approved`) is never read"
                )
            } else {
                format!(
                    "the result of {what} is read only for {}, never for its decision (`.approved`)",
                    read.join(", ")
                )
            };
            sink.push(
                sink.diag(call_span, message)
                    .with_help(help(callee, "decision")),
            );
        }
    }
}

/// A decision read only through its reply text, where every test of the
/// text stops on particular replies and the code after them proceeds.
struct TextOnly<'t> {
    /// `response`, `option`: the fields read.
    fields: Vec<String>,
    /// The `if` statements that stop on a matching reply, in source order.
    denies: Vec<Node<'t>>,
    /// The replies they stop on (literals and patterns, as written).
    words: Vec<String>,
    /// The statement after the last of them: what a plain rejection runs.
    after: Node<'t>,
}

/// `const reply = String(decision.response || ''); if (/abort/.test(reply))
/// return …; merge();` — `approved` is never read, and a rejection whose
/// reply matches none of the tested texts (a plain rejection has none:
/// `response` is optional in the SDK's `BreakpointResult`) falls through.
/// `None` (checked, as far as this rule can tell) whenever the text is
/// used in a way not recognised: another test, a variable derived from a
/// test, a call, an `else`.
fn text_only<'t>(m: &JsModel<'t>, uses: &[Use<'t>]) -> Option<TextOnly<'t>> {
    let mut fields: Vec<String> = Vec::new();
    let mut subjects: Vec<Node<'t>> = Vec::new();
    for u in uses {
        match u {
            Use::Property { name, node } if name == "response" || name == "option" => {
                fields.push(name.clone());
                let holder = match node.kind_str() {
                    "shorthand_property_identifier_pattern" => Some(*node),
                    "pair_pattern" => Some(
                        node.field("value")
                            .filter(|v| v.kind_str() == "identifier")?,
                    ),
                    "member_expression" | "subscript_expression" => {
                        let top = through_text_wrappers(m, *node);
                        match top.parent() {
                            Some(p)
                                if p.kind_str() == "variable_declarator"
                                    && p.field("value") == Some(top) =>
                            {
                                Some(p.field("name").filter(|n| n.kind_str() == "identifier")?)
                            }
                            _ => {
                                subjects.push(*node);
                                None
                            }
                        }
                    }
                    _ => return None,
                };
                if let Some(h) = holder {
                    let b = m.scopes.binding_of(h)?;
                    subjects.extend(m.scopes.get(b).reads.iter().copied());
                }
            }
            Use::Property { name, .. } if name == "feedback" || name == "respondedBy" => {}
            _ => return None,
        }
    }
    if subjects.is_empty() {
        return None;
    }
    let ids: std::collections::HashSet<usize> = subjects.iter().map(|n| n.id()).collect();
    let mut denies: Vec<Node<'t>> = Vec::new();
    for s in &subjects {
        match landing(m, *s) {
            Landing::Condition(stmt) => {
                if !denies_on_match(m, stmt, &ids) {
                    return None;
                }
                if !denies.iter().any(|d| d.id() == stmt.id()) {
                    denies.push(stmt);
                }
            }
            Landing::Data => {}
            Landing::Other => return None,
        }
    }
    denies.sort_by_key(|d| d.start_byte());
    let last = *denies.last()?;
    let after = next_statement(last)?;
    let mut words: Vec<String> = Vec::new();
    for d in &denies {
        if let Some(c) = d.field("condition") {
            literals_in(m, c, &mut words);
        }
    }
    words.dedup();
    fields.sort();
    fields.dedup();
    Some(TextOnly {
        fields,
        denies,
        words,
        after,
    })
}

fn report_text_only(
    m: &JsModel,
    call: &crate::js::model::Call,
    what: &str,
    t: &TextOnly,
    sink: &mut Sink,
) {
    let fields = t
        .fields
        .iter()
        .map(|f| format!("`.{f}`"))
        .collect::<Vec<_>>()
        .join(" and ");
    let tested = if t.words.is_empty() {
        String::new()
    } else {
        let shown: Vec<&str> = t.words.iter().take(4).map(String::as_str).collect();
        format!(", tested for {}", shown.join(", "))
    };
    let var = call
        .node
        .parent()
        .map(|p| {
            if p.kind_str() == "await_expression" {
                p.parent()
            } else {
                Some(p)
            }
        })
        .and_then(|p| p.filter(|p| p.kind_str() == "variable_declarator"))
        .and_then(|p| p.field("name"))
        .filter(|n| n.kind_str() == "identifier")
        .map_or("decision", |n| m.text(n));
    let mut d = sink
        .diag(
            span(call.node),
            format!(
                "the decision of {what} is read only through its reply text ({fields}){tested}: \
                 every test stops on a particular reply and anything else proceeds, so a plain \
                 rejection (`approved: false` with no reply text, or with other text) runs what \
                 follows as if approved"
            ),
        )
        .with_help(format!(
            "branch on the decision first — `if (!{var}.approved) {{ … }}` (the SDK's result \
             always carries `approved`; `response` and `option` are optional) — then read the reply"
        ));
    for deny in &t.denies {
        d = d.with_related(
            sink.location(span(deny.field("condition").unwrap_or(*deny))),
            "stops only on this reply",
        );
    }
    d = d.with_related(
        sink.location(span(t.after)),
        "runs on any other reply, a rejection included",
    );
    sink.push(d);
}

/// `String(x || '').toLowerCase().trim()` around `x`: the same text.
fn through_text_wrappers<'t>(m: &JsModel<'t>, node: Node<'t>) -> Node<'t> {
    let mut node = node;
    while let Some(p) = node.parent() {
        let up = match p.kind_str() {
            "parenthesized_expression" => true,
            "binary_expression" => {
                matches!(bin_op(m, p), "||" | "??") && p.field("left") == Some(node)
            }
            "arguments" => p
                .parent()
                .is_some_and(|c| c.field("function").is_some_and(|f| m.text(f) == "String")),
            "call_expression" => {
                p.field("arguments").is_some_and(|a| a.id() == node.id())
                    && p.field("function").is_some_and(|f| m.text(f) == "String")
            }
            "member_expression" => {
                p.field("object") == Some(node)
                    && p.field("property").is_some_and(|q| {
                        matches!(
                            m.text(q),
                            "toLowerCase" | "toUpperCase" | "trim" | "trimStart" | "trimEnd"
                        )
                    })
                    && p.parent().is_some_and(|c| {
                        c.kind_str() == "call_expression" && c.field("function") == Some(p)
                    })
            }
            _ => false,
        };
        if !up {
            break;
        }
        // A text method's member goes up to its call.
        node = if p.kind_str() == "member_expression" {
            p.parent().unwrap_or(p)
        } else {
            p
        };
    }
    node
}

enum Landing<'t> {
    /// In the condition of this `if` statement.
    Condition(Node<'t>),
    /// Shown, logged or stored as data: decides nothing.
    Data,
    /// Anything else.
    Other,
}

/// Where a read of the reply text ends up.
fn landing<'t>(m: &JsModel<'t>, read: Node<'t>) -> Landing<'t> {
    let mut node = read;
    while let Some(p) = node.parent() {
        match p.kind_str() {
            "parenthesized_expression" => {
                if let Some(stmt) = p.parent() {
                    if stmt.kind_str() == "if_statement" && stmt.field("condition") == Some(p) {
                        return Landing::Condition(stmt);
                    }
                }
            }
            "binary_expression" | "unary_expression" | "call_expression" => {}
            "member_expression" if p.field("object") == Some(node) => {}
            "arguments" => {
                let logged = p
                    .parent()
                    .and_then(|c| c.field("function"))
                    .is_some_and(|f| {
                        let t = m.text(f);
                        t.starts_with("console.")
                            || t == "ctx.log"
                            || [".log", ".info", ".warn", ".debug"]
                                .iter()
                                .any(|s| t.ends_with(s))
                    });
                if logged {
                    return Landing::Data;
                }
            }
            "template_substitution" | "pair" | "array" | "shorthand_property_identifier" => {
                return Landing::Data
            }
            _ => return Landing::Other,
        }
        node = p;
    }
    Landing::Other
}

/// An `if` without `else` whose branch always leaves (return, throw,
/// break, continue) and whose condition is false for an empty reply: it
/// stops on particular replies only.
fn denies_on_match(m: &JsModel, stmt: Node, subjects: &std::collections::HashSet<usize>) -> bool {
    if stmt.field("alternative").is_some() {
        return false;
    }
    let Some(then) = stmt.field("consequence") else {
        return false;
    };
    let last = if then.kind_str() == "statement_block" {
        then.named().filter(|n| n.kind_str() != "comment").last()
    } else {
        Some(then)
    };
    let leaves = last.is_some_and(|l| {
        matches!(
            l.kind_str(),
            "return_statement" | "throw_statement" | "break_statement" | "continue_statement"
        )
    });
    leaves
        && stmt
            .field("condition")
            .is_some_and(|c| false_on_empty(m, c, subjects))
}

/// Whether `cond` is false when the reply is empty: a positive match of
/// the reply (`/abort/.test(r)`, `r.includes('drop')`, `r === 'Cancel'`),
/// or those joined so that every way to be true needs one.
fn false_on_empty(m: &JsModel, cond: Node, subjects: &std::collections::HashSet<usize>) -> bool {
    let cond = unparen(cond);
    let is_subject = |n: Node| subjects.contains(&text_inside(m, n).id());
    let nonempty_string = |n: Node| string_value(n, m.src()).is_some_and(|s| !s.is_empty());
    match cond.kind_str() {
        "binary_expression" => {
            let (Some(l), Some(r)) = (cond.field("left"), cond.field("right")) else {
                return false;
            };
            match bin_op(m, cond) {
                "||" => false_on_empty(m, l, subjects) && false_on_empty(m, r, subjects),
                "&&" => false_on_empty(m, l, subjects) || false_on_empty(m, r, subjects),
                "===" | "==" => {
                    (is_subject(l) && nonempty_string(r)) || (is_subject(r) && nonempty_string(l))
                }
                _ => false,
            }
        }
        "call_expression" => {
            let Some(f) = cond
                .field("function")
                .filter(|f| f.kind_str() == "member_expression")
            else {
                return false;
            };
            let (Some(obj), Some(method)) = (f.field("object"), f.field("property")) else {
                return false;
            };
            let args: Vec<Node> = cond
                .field("arguments")
                .map(|a| a.named().filter(|n| n.kind_str() != "comment").collect())
                .unwrap_or_default();
            let [arg] = args.as_slice() else {
                return false;
            };
            match m.text(method) {
                "test" => {
                    unparen(obj).kind_str() == "regex"
                        && needs_text(m, unparen(obj))
                        && is_subject(*arg)
                }
                "match" => is_subject(obj) && arg.kind_str() == "regex" && needs_text(m, *arg),
                "includes" | "startsWith" | "endsWith" => is_subject(obj) && nonempty_string(*arg),
                _ => false,
            }
        }
        _ => false,
    }
}

/// The node a text wrapper (`String(…)`, `.toLowerCase()`, `?? ''`) wraps.
fn text_inside<'t>(m: &JsModel<'t>, n: Node<'t>) -> Node<'t> {
    let mut n = unparen(n);
    loop {
        let inner = match n.kind_str() {
            "binary_expression" if matches!(bin_op(m, n), "||" | "??") => n.field("left"),
            "call_expression" => match n.field("function") {
                Some(f) if m.text(f) == "String" => n
                    .field("arguments")
                    .and_then(|a| a.named().find(|c| c.kind_str() != "comment")),
                Some(f) if f.kind_str() == "member_expression" => f
                    .field("property")
                    .filter(|p| {
                        matches!(
                            m.text(*p),
                            "toLowerCase" | "toUpperCase" | "trim" | "trimStart" | "trimEnd"
                        )
                    })
                    .and_then(|_| f.field("object")),
                _ => None,
            },
            _ => None,
        };
        match inner {
            Some(i) => n = unparen(i),
            None => return n,
        }
    }
}

/// A regular expression that cannot match the empty string, as far as a
/// plain reading shows: each top-level alternative of a pattern without
/// groups requires a letter outside a class that no quantifier makes
/// optional (`/abort/i`, `/^(no|stop)/` is not judged).
fn needs_text(m: &JsModel, regex: Node) -> bool {
    let Some(pattern) = regex.field("pattern").map(|p| m.text(p)) else {
        return false;
    };
    if pattern.contains(['(', ')']) {
        return false;
    }
    pattern.split('|').all(|alt| {
        let chars: Vec<char> = alt.chars().collect();
        let mut in_class = false;
        let mut escaped = false;
        chars.iter().enumerate().any(|(i, c)| {
            if escaped {
                escaped = false;
                return false;
            }
            match c {
                '\\' => {
                    escaped = true;
                    false
                }
                '[' => {
                    in_class = true;
                    false
                }
                ']' => {
                    in_class = false;
                    false
                }
                c => {
                    c.is_alphabetic()
                        && !in_class
                        && !chars
                            .get(i + 1)
                            .is_some_and(|n| matches!(n, '*' | '?' | '{'))
                }
            }
        })
    })
}

/// The string literals and regular expressions a condition compares with.
fn literals_in(m: &JsModel, node: Node, out: &mut Vec<String>) {
    match node.kind_str() {
        "string" => {
            if let Some(s) = string_value(node, m.src()) {
                let s = format!("\"{s}\"");
                if !out.contains(&s) {
                    out.push(s);
                }
            }
        }
        "regex" => {
            let s = format!("`{}`", m.text(node));
            if !out.contains(&s) {
                out.push(s);
            }
        }
        _ => {
            for c in node.named() {
                literals_in(m, c, out);
            }
        }
    }
}

fn bin_op<'a>(m: &JsModel<'a>, node: Node<'a>) -> &'a str {
    node.field("operator").map(|o| m.text(o)).unwrap_or("")
}

/// A rewrite that binds the decision and stops on rejection. Not safe to
/// apply blindly (what a rejection should do is the author's call), but it
/// is the concrete edit the retrospective shows.
fn guard_fix(
    m: &JsModel,
    call: &crate::js::model::Call,
    stmt: Node,
    bind: Option<&str>,
    handed_out: &mut std::collections::HashSet<(usize, String)>,
) -> Option<Fix> {
    let src = m.src();
    let line_start = src[..stmt.start_byte()].rfind('\n').map_or(0, |i| i + 1);
    let indent = &src[line_start..stmt.start_byte()];
    if !indent.chars().all(|c| c == ' ' || c == '\t') {
        return None;
    }
    let nl = if src[stmt.end_byte()..].starts_with("\r\n") {
        "\r\n"
    } else {
        "\n"
    };
    let guard = |var: &str| {
        format!(
            "{nl}{indent}if (!{var}.approved) {{{nl}{indent}  throw new Error(`Rejected at the breakpoint: ${{{var}.feedback ?? 'no feedback'}}`);{nl}{indent}}}"
        )
    };
    let edit = match bind {
        Some(var) => Edit {
            span: Span::new(stmt.end_byte(), stmt.end_byte()),
            replacement: guard(var),
        },
        None => {
            let in_async = call.func.is_none_or(|f| m.functions[f].is_async);
            if !in_async {
                return None;
            }
            let var = fresh_name(m, call.scope, "decision", handed_out);
            Edit {
                span: span(stmt),
                replacement: format!("const {var} = await {};{}", m.text(call.node), guard(&var)),
            }
        }
    };
    Some(Fix {
        description: "bind the decision and stop on rejection".into(),
        edits: vec![edit],
        safe: false,
    })
}

/// `decision`, or `decision2`, … when the name is taken in scope or
/// handed to another fix in the same scope.
fn fresh_name(
    m: &JsModel,
    scope: usize,
    base: &str,
    handed_out: &mut std::collections::HashSet<(usize, String)>,
) -> String {
    let mut name = base.to_string();
    let mut n = 2;
    while m.scopes.lookup(scope, &name).is_some() || handed_out.contains(&(scope, name.clone())) {
        name = format!("{base}{n}");
        n += 1;
    }
    handed_out.insert((scope, name.clone()));
    name
}

/// The statement declaring a variable (`const bp = await …;`).
fn declaration_statement(node: Node) -> Option<Node> {
    let mut n = node;
    while let Some(p) = n.parent() {
        if matches!(p.kind_str(), "lexical_declaration" | "variable_declaration") {
            return Some(p);
        }
        if crate::js::syntax::is_function(p) {
            return None;
        }
        n = p;
    }
    None
}

/// Whether this rule counts the use as looking at the decision; a breakpoint
/// none of whose uses does is one it reports.
pub(super) fn decides(u: &Use) -> bool {
    match u {
        Use::Property { name, .. } => DECISION_FIELDS.contains(&name.as_str()),
        Use::Passed { .. } | Use::Returned { .. } | Use::Escaped { .. } => true,
        Use::Discarded { .. } | Use::Unread { .. } | Use::Tested { .. } => false,
    }
}

/// `ctx.breakpoint('Final gate')` — names the gate by its title or question
/// when the payload has one.
fn describe(m: &JsModel, call: Node, payload: Option<Node>) -> String {
    let callee = call
        .field("function")
        .map(|f| m.text(f))
        .unwrap_or("ctx.breakpoint");
    let title = payload
        .and_then(|p| m.object_of_expr(p))
        .and_then(|o| {
            ["title", "label", "question"]
                .iter()
                .find_map(|k| objects::property(m, o, k))
        })
        .and_then(|v| string_value(v, m.src()));
    match title {
        Some(t) => {
            let t: String = t.chars().take(60).collect();
            format!("`{callee}` (\"{t}\")")
        }
        None => format!("`{callee}(…)`"),
    }
}

/// The statement after a discarded breakpoint, when it fails either way:
/// `throw …`, or `return { success: false, … }` (also `ok`/`passed`/
/// `approved: false`).
fn failure_follows<'t>(m: &JsModel<'t>, stmt: Node<'t>) -> Option<Node<'t>> {
    let stmt = if stmt.kind_str() == "expression_statement" {
        stmt
    } else {
        stmt.parent()?
    };
    let next = next_statement(stmt)?;
    match next.kind_str() {
        "throw_statement" => Some(next),
        "return_statement" => {
            let value = unparen(next.named_child(0)?);
            let failed = value.kind_str() == "object"
                && ["success", "ok", "passed", "approved"].iter().any(|k| {
                    crate::js::model::objects::property(m, value, k)
                        .is_some_and(|v| unparen(v).kind_str() == "false")
                });
            failed.then_some(next)
        }
        _ => None,
    }
}

/// `await ctx.breakpoint(…); passed = true;` — the statement after a
/// discarded breakpoint assigns `true` to a flag.
fn success_overwrite<'t>(m: &JsModel<'t>, stmt: Node<'t>) -> Option<(Node<'t>, String)> {
    // `void ctx.breakpoint()` is a unary expression inside a statement.
    let stmt = if stmt.kind_str() == "expression_statement" {
        stmt
    } else {
        stmt.parent()?
    };
    let next = next_statement(stmt)?;
    if next.kind_str() != "expression_statement" {
        return None;
    }
    let assign = unparen(next.named_child(0)?);
    if assign.kind_str() != "assignment_expression" {
        return None;
    }
    let right = unparen(assign.field("right")?);
    let marks_success = right.kind_str() == "true"
        || string_value(right, m.src()).is_some_and(|s| {
            matches!(
                s.as_str(),
                "approved" | "passed" | "done" | "success" | "accepted"
            )
        });
    if !marks_success {
        return None;
    }
    let target = m.text(assign.field("left")?).to_string();
    Some((next, format!("{target} = {}", m.text(right))))
}

#[cfg(test)]
mod tests {
    use crate::diagnostic::Edit;
    use crate::engine::discover::FileKind;
    use crate::engine::fix;
    use crate::engine::lint_text;
    use crate::project::config::Config;

    /// An acknowledge gate is worded for what its question offers; the
    /// question may be built from consts.
    #[test]
    fn acknowledge_gates_say_what_a_rejection_does() {
        let src = "const STOP = 'To abort, cancel the run.';\n\
            export async function process(inputs, ctx) {\n\
            \x20 await ctx.breakpoint({ question: ['Tests failed.', STOP].join('\\n') });\n\
            \x20 await ctx.breakpoint({ question: `Resolve to continue with ${inputs.mode} mode` });\n\
            \x20 await ctx.breakpoint({ question: 'Continue?' });\n}\n";
        let mut config = Config::default();
        config.select = Some(vec!["unchecked-breakpoint".into()]);
        let found = lint_text("p.js", FileKind::Process, src.to_string(), &config);
        let messages: Vec<&str> = found.iter().map(|d| d.message.as_str()).collect();
        assert_eq!(messages.len(), 3, "{messages:?}");
        assert!(messages[0].contains("says to cancel the run to stop, but a human who rejects it instead gets `approved: false` back"), "{}", messages[0]);
        assert!(
            messages[1].contains("says to resolve it to go on, but"),
            "{}",
            messages[1]
        );
        assert!(
            messages[2].ends_with("a rejection is treated as an approval"),
            "{}",
            messages[2]
        );
    }

    /// Two unbound breakpoints in one function both became `const decision`:
    /// applied together, the module no longer loaded.
    #[test]
    fn fixes_in_one_scope_declare_distinct_names() {
        let src = "export async function process(inputs, ctx) {\n  await ctx.breakpoint({ question: 'A?', title: 'a' });\n  await ctx.breakpoint({ question: 'B?', title: 'b' });\n}\n";
        let mut config = Config::default();
        config.select = Some(vec!["unchecked-breakpoint".into()]);
        let found = lint_text("p.js", FileKind::Process, src.to_string(), &config);
        let edits: Vec<&[Edit]> = found
            .iter()
            .filter_map(|d| d.fix.as_ref().map(|f| f.edits.as_slice()))
            .collect();
        assert_eq!(edits.len(), 2, "{found:?}");
        let (fixed, applied) = fix::apply(src, &edits);
        assert_eq!(applied, 2);
        assert!(
            fixed.contains("const decision = ") && fixed.contains("const decision2 = "),
            "{fixed}"
        );
        let loads = crate::js::syntax::oxc::loads(&fixed).unwrap_or_else(|| panic!("unjudged"));
        assert!(loads.module, "{fixed}");
    }

    /// A test true for an empty reply stops a plain rejection: not
    /// reported; a pattern that needs a letter is.
    #[test]
    fn only_tests_false_for_an_empty_reply_let_a_rejection_through() {
        let lint = |cond: &str| {
            let src = format!(
                "export async function process(inputs, ctx) {{\n  const d = await ctx.breakpoint({{ question: 'Go?' }}, {{ breakpointId: 'p.go' }});\n  const reply = String(d.response ?? '').trim();\n  if ({cond}) return {{ ok: false }};\n  await ctx.task(next, {{}});\n}}\n"
            );
            let mut config = Config::default();
            config.select = Some(vec!["unchecked-breakpoint".into()]);
            lint_text("p.js", FileKind::Process, src, &config).len()
        };
        assert_eq!(lint("/abort|stop/i.test(reply)"), 1);
        assert_eq!(lint("reply === 'no' || reply.startsWith('abort')"), 1);
        assert_eq!(lint("/^\\s*$/.test(reply)"), 0);
        assert_eq!(lint("/^(abort)?$/.test(reply)"), 0);
        assert_eq!(lint("!reply || reply === 'no'"), 0);
        assert_eq!(lint("reply !== 'yes'"), 0);
        assert_eq!(lint("reply.includes('abort') || inputs.force"), 0);
    }
}
