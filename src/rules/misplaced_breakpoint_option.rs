//! `misplaced-breakpoint-option`: routing options written in a breakpoint's
//! payload, where the SDK does not read them.

use super::{Area, Category, JsContext, ReportMeta, Rule, RuleMeta, Sink, Sites};
use crate::diagnostic::Severity;
use crate::js::analysis::tasks::{lacks_property, value_of, Value};
use crate::js::model::objects::{self, properties};
use crate::js::model::Call;
use crate::js::syntax::tree::Node;
use crate::js::syntax::{contains, span, string_value};
use crate::js::{EffectKind, JsModel};
use crate::source::Span;

pub struct MisplacedBreakpointOption;

static META: RuleMeta = RuleMeta {
    id: "misplaced-breakpoint-option",
    summary: "Breakpoint routing options written in the payload, or payload fields in the options, where the SDK ignores them.",
    severity: Severity::Warning,
    area: Area::BreakpointDiscipline,
    category: Category::Correctness,
    doc: include_str!("../../rules/misplaced-breakpoint-option.md"),
    builtin: false,
    options: &[],
    fix: crate::rules::FixAvailability::Never,
};

/// Options the SDK reads from `ctx.breakpoint`'s second argument only.
const ROUTING_OPTIONS: &[&str] = &[
    "breakpointId",
    "expert",
    "tags",
    "strategy",
    "autoApproveAfterN",
    "presentAlwaysApprove",
];

impl Rule for MisplacedBreakpointOption {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn report(&self) -> ReportMeta {
        ReportMeta {
            sites: Sites::Breakpoints,
            praise: "Breakpoint routing options are passed as options",
            sdk_hint: "Routing fields in the payload are ignored without a word. Warning on known option names found in the payload would make the mistake visible.",
        }
    }

    fn check_js(&self, cx: &JsContext, sink: &mut Sink) {
        let m = cx.model;
        for e in m.effects_of(EffectKind::Breakpoint) {
            let call = &m.calls[e.call];
            payload_fields_in_options(m, call, sink);
            let (options, misplaced) = misplaced(m, call);
            let Some((_, first)) = misplaced.first() else {
                continue;
            };
            let names: Vec<String> = misplaced.iter().map(|(n, _)| format!("`{n}`")).collect();
            let (they, are) = if names.len() == 1 {
                ("it", "is")
            } else {
                ("them", "are")
            };
            let callee = m.text(call.callee);
            let message = format!(
                "{} {are} written in the payload of `{callee}`, where the SDK does not read {they}: \
                 routing options come from the second argument, so auto-approval rules keyed on \
                 them never match",
                join(&names)
            );
            // Point at the property when it is written in the call itself;
            // at the payload argument when it comes from a const or spread.
            let arg = call.args[0];
            let inline = |p: &objects::Prop| contains(arg, p.key);
            let mut d = if inline(first) {
                sink.diag(prop_span(first), message)
            } else {
                sink.diag(span(arg), message).with_related(
                    sink.location(prop_span(first)),
                    format!("`{}` is written here", misplaced[0].0),
                )
            };
            for (name, p) in misplaced.iter().skip(1) {
                let label = if inline(p) {
                    format!("`{name}` is ignored here too")
                } else {
                    format!("`{name}` is written here")
                };
                d = d.with_related(sink.location(prop_span(p)), label);
            }
            let moved: Vec<String> = misplaced
                .iter()
                .map(|(n, p)| {
                    let v = m.text(p.value);
                    if p.key.id() == p.value.id() || v.len() > 30 || v.contains('\n') {
                        if p.key.id() == p.value.id() {
                            n.clone()
                        } else {
                            format!("{n}: …")
                        }
                    } else {
                        format!("{n}: {v}")
                    }
                })
                .collect();
            let help = match options {
                None => format!(
                    "pass {they} as the second argument: `{callee}({{ question: … }}, {{ {} }})`",
                    moved.join(", ")
                ),
                Some(_) => format!(
                    "move {they} into the options object (the second argument): `{{ …, {} }}`",
                    moved.join(", ")
                ),
            };
            sink.push(d.with_help(help));
        }
    }
}

/// Fields the human is shown when they are in the payload.
const PAYLOAD_FIELDS: &[&str] = &["question", "title", "context", "options"];

/// `ctx.breakpoint('review-analysis', { question, context })`: with a
/// string first argument the string is the whole payload, and the object
/// is read as routing options (`runBreakpointIntrinsic(payload, context,
/// options)` takes only `label`, `breakpointId` and the routing fields from
/// it), so the question and context never reach the reviewer.
fn payload_fields_in_options(m: &JsModel, call: &Call, sink: &mut Sink) {
    let Some((first, second, props)) = payload_fields(m, call) else {
        return;
    };
    // Everything the SDK does not read from the options, the listed payload
    // fields first: they all stay unseen.
    let mut found: Vec<&(String, objects::Prop)> = props
        .iter()
        .filter(|(name, _)| PAYLOAD_FIELDS.contains(&name.as_str()))
        .collect();
    let others: Vec<&(String, objects::Prop)> = props
        .iter()
        .filter(|(name, _)| {
            !PAYLOAD_FIELDS.contains(&name.as_str()) && !OPTION_NAMES.contains(&name.as_str())
        })
        .collect();
    let Some((_, first_prop)) = found.first().copied() else {
        return;
    };
    let listed = found.len();
    found.extend(others);
    let mut names: Vec<String> = found
        .iter()
        .take(5)
        .map(|(n, _)| format!("`{n}`"))
        .collect();
    if found.len() > 5 {
        names.push(format!("{} more", found.len() - 5));
    }
    let (they, are, reach) = if found.len() == 1 {
        ("it", "is", "reaches")
    } else {
        ("they", "are", "reach")
    };
    let callee = m.text(call.callee);
    let payload = short_text(m.text(first));
    let inline = |p: &objects::Prop| contains(second, p.key);
    let message = format!(
        "{} {are} written in the second argument of `{callee}`, which the SDK reads as routing \
         options: the first argument, {payload}, is the whole payload, so {they} never {reach} \
         the reviewer",
        join(&names)
    );
    let mut d = if inline(first_prop) {
        sink.diag(prop_span(first_prop), message)
    } else {
        sink.diag(span(second), message).with_related(
            sink.location(prop_span(first_prop)),
            format!("`{}` is written here", found[0].0),
        )
    };
    for (name, p) in found.iter().take(listed).skip(1) {
        d = d.with_related(
            sink.location(prop_span(p)),
            format!("`{name}` does not reach the reviewer either"),
        );
    }
    // The fields move into the payload. A string that reads as a sentence
    // is the question; one that reads as an id names the breakpoint,
    // unless the options already do.
    let mut moved: Vec<String> = found
        .iter()
        .take(4)
        .map(|(n, p)| {
            let v = m.text(p.value);
            if p.key.id() == p.value.id() {
                n.clone()
            } else if v.len() > 30 || v.contains('\n') {
                format!("{n}: …")
            } else {
                format!("{n}: {v}")
            }
        })
        .collect();
    if found.len() > 4 {
        moved.push("…".into());
    }
    let raw = m.text(first);
    let writable = raw.len() <= 60 && !raw.contains('\n');
    let sentence = string_value(first, m.src()).is_some_and(|t| t.trim().contains(' '));
    let named = props
        .iter()
        .any(|(n, _)| n == "label" || n == "breakpointId");
    let routing = props
        .iter()
        .any(|(n, _)| OPTION_NAMES.contains(&n.as_str()) && n != "label" && n != "breakpointId");
    let mut options: Vec<String> = Vec::new();
    if sentence && !found.iter().any(|(n, _)| n == "question") {
        moved.insert(
            0,
            if writable {
                format!("question: {raw}")
            } else {
                "question: …".into()
            },
        );
    }
    if !named {
        options.push(if writable && !sentence {
            format!("label: {raw}")
        } else {
            "label: …".into()
        });
    }
    if named || routing {
        options.push("…".into());
    }
    sink.push(d.with_help(format!(
        "make the object the payload and keep only routing in the options: \
         `{callee}({{ {} }}, {{ {} }})`",
        moved.join(", "),
        options.join(", ")
    )));
}

/// What the SDK reads from `ctx.breakpoint`'s second argument.
const OPTION_NAMES: &[&str] = &[
    "label",
    "breakpointId",
    "expert",
    "tags",
    "strategy",
    "autoApproveAfterN",
    "presentAlwaysApprove",
];

/// (first argument, second argument, the second's properties).
pub(crate) type PayloadInOptions<'t> = (Node<'t>, Node<'t>, Vec<(String, objects::Prop<'t>)>);

/// A breakpoint call whose first argument is a string and whose second is
/// an object carrying payload fields: (first, second, the second's
/// properties). What this rule reports, and what `anonymous-breakpoint`
/// leaves to it (the fix names the breakpoint).
pub(crate) fn payload_fields<'t>(m: &JsModel<'t>, call: &Call<'t>) -> Option<PayloadInOptions<'t>> {
    let (&first, &second) = (call.args.first()?, call.args.get(1)?);
    if !matches!(
        value_of(m, first),
        Value::Literal("a string literal" | "a template string")
    ) {
        return None;
    }
    let props = properties(m, m.object_of_expr(second)?);
    props
        .iter()
        .any(|(name, _)| PAYLOAD_FIELDS.contains(&name.as_str()))
        .then_some((first, second, props))
}

/// A short source text for messages (`…` when long or multi-line).
fn short_text(t: &str) -> String {
    if t.len() > 40 || t.contains('\n') {
        "…".to_string()
    } else {
        format!("`{t}`")
    }
}

/// `key: value` of a property (the shorthand identifier for `{ tags }`).
/// The routing options written in a breakpoint call's payload and missing
/// from its options, with the options object: what this rule reports, and
/// what `anonymous-breakpoint` leaves to it.
pub(crate) fn misplaced<'t>(
    m: &JsModel<'t>,
    call: &Call<'t>,
) -> (Option<Node<'t>>, Vec<(String, objects::Prop<'t>)>) {
    let Some(payload) = call.args.first().and_then(|p| m.object_of_expr(*p)) else {
        return (None, Vec::new());
    };
    // The options object, when there is one this module resolves.
    let options = match call.args.get(1) {
        None => None,
        Some(o) => match m.object_of_expr(*o) {
            Some(obj) => Some(obj),
            // An options value built elsewhere may hold them.
            None => return (None, Vec::new()),
        },
    };
    let found = properties(m, payload)
        .into_iter()
        .filter(|(name, _)| ROUTING_OPTIONS.contains(&name.as_str()))
        .filter(|(name, _)| options.is_none_or(|o| lacks_property(m, o, name)))
        .collect();
    (options, found)
}

fn prop_span(p: &objects::Prop) -> Span {
    let k = span(p.key);
    let v = span(p.value);
    Span::new(k.start.min(v.start), k.end.max(v.end))
}

fn join(names: &[String]) -> String {
    match names {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} and {last}", init.join(", ")),
    }
}
