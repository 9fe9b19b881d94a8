//! `misplaced-breakpoint-option`: routing options written in a breakpoint's
//! payload, where the SDK does not read them.

use super::{Area, Category, JsContext, ReportMeta, Rule, RuleMeta, Sink, Sites};
use crate::diagnostic::{Edit, Fix, Severity};
use crate::js::analysis::tasks::{lacks_property, value_of, Value};
use crate::js::model::objects::{self, properties};
use crate::js::model::Call;
use crate::js::syntax::tree::Node;
use crate::js::syntax::{contains, span, string_value, unparen};
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
    fix: crate::rules::FixAvailability::Sometimes,
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
            let d = d.with_help(help);
            sink.push(match move_fix(m, call, &misplaced) {
                Some(fix) => d.with_fix(fix),
                None => d,
            });
        }
    }
}

/// Moves the routing keys written in an object-literal payload into the
/// options: appended to an object-literal options argument, or a new one
/// after the payload. Offered only when every key is a plain (not
/// computed) property written once in the payload itself, the payload has
/// no spread, and each value is free of side effects (a moved value is
/// evaluated after the payload's other fields). Unsafe: the SDK then
/// routes the breakpoint by them (a new `breakpointId` is a new identity,
/// auto-approval rules start to match), and the human no longer sees them
/// in the payload.
fn move_fix(m: &JsModel, call: &Call, misplaced: &[(String, objects::Prop)]) -> Option<Fix> {
    let payload = unparen(*call.args.first()?);
    if payload.kind_str() != "object" {
        return None;
    }
    let options = match call.args.get(1) {
        None => None,
        Some(o) => Some(unparen(*o)).filter(|o| o.kind_str() == "object"),
    };
    if call.args.len() > 1 && options.is_none() {
        return None;
    }
    let children: Vec<Node> = payload
        .named()
        .filter(|c| c.kind_str() != "comment")
        .collect();
    if children.iter().any(|c| c.kind_str() == "spread_element") {
        return None;
    }
    let mut moved: Vec<Node> = Vec::new();
    for (name, p) in misplaced {
        // The property node written in the payload: a pair or a shorthand.
        let prop = if p.key.id() == p.value.id() {
            p.key
        } else {
            p.key.parent().filter(|pair| pair.kind_str() == "pair")?
        };
        if prop.parent().is_none_or(|o| o != payload)
            || p.key.kind_str() == "computed_property_name"
            || !pure(p.value)
        {
            return None;
        }
        let written = children
            .iter()
            .filter(|c| key_of(m, **c).is_some_and(|k| k == name.as_str()))
            .count();
        if written != 1 {
            return None;
        }
        moved.push(prop);
    }
    let texts: Vec<&str> = moved.iter().map(|p| m.text(*p)).collect();
    let mut edits = removal(m, payload, &moved)?;
    edits.push(match options {
        None => Edit {
            // After the argument's parentheses, if any: inside them the
            // comma would make a sequence expression.
            span: Span::new(call.args[0].end_byte(), call.args[0].end_byte()),
            replacement: format!(", {{ {} }}", texts.join(", ")),
        },
        Some(o) => {
            return append(m, o, &texts).map(|mut add| {
                edits.append(&mut add);
                fix_of(edits, &texts)
            })
        }
    });
    Some(fix_of(edits, &texts))
}

fn fix_of(edits: Vec<Edit>, texts: &[&str]) -> Fix {
    let names: Vec<String> = texts
        .iter()
        .map(|t| format!("`{}`", t.split(':').next().unwrap_or(t).trim()))
        .collect();
    Fix {
        description: format!("move {} into the options argument", join(&names)),
        edits,
        safe: false,
    }
}

/// The key of a payload property written in the object itself.
fn key_of<'a>(m: &JsModel<'a>, prop: Node<'a>) -> Option<String> {
    match prop.kind_str() {
        "shorthand_property_identifier" => Some(m.text(prop).to_string()),
        "pair" => {
            let k = prop.field("key")?;
            match k.kind_str() {
                "property_identifier" => Some(m.text(k).to_string()),
                "string" => string_value(k, m.src()),
                _ => None,
            }
        }
        _ => None,
    }
}

/// A value whose evaluation has no side effect and reads nothing a call
/// could change in between in practice: literals, names, member reads,
/// and arrays, objects and templates of those.
fn pure(n: Node) -> bool {
    let n = unparen(n);
    match n.kind_str() {
        "string"
        | "number"
        | "true"
        | "false"
        | "null"
        | "undefined"
        | "identifier"
        | "shorthand_property_identifier"
        | "regex" => true,
        "template_string" => n
            .named()
            .filter(|c| c.kind_str() == "template_substitution")
            .all(|c| c.named().all(pure)),
        "member_expression" => n.field("object").is_some_and(pure),
        "subscript_expression" => {
            n.field("object").is_some_and(pure) && n.field("index").is_some_and(pure)
        }
        "array" => n.named().all(|c| c.kind_str() == "comment" || pure(c)),
        "object" => n.named().all(|c| match c.kind_str() {
            "comment" | "shorthand_property_identifier" => true,
            "pair" => {
                c.field("key")
                    .is_some_and(|k| k.kind_str() != "computed_property_name")
                    && c.field("value").is_some_and(pure)
            }
            _ => false,
        }),
        "unary_expression" => {
            matches!(
                n.field("operator").map(|o| o.kind_str()),
                Some("-" | "+" | "!")
            ) && n.field("argument").is_some_and(pure)
        }
        _ => false,
    }
}

/// Edits deleting `removed` (properties of `obj`) with their commas: a
/// property alone on its line goes with the line; when the last
/// properties go, so does the comma before them. `None` when a comment
/// sits on a removed property's line (it would be lost or left
/// describing another field).
fn removal(m: &JsModel, obj: Node, removed: &[Node]) -> Option<Vec<Edit>> {
    let src = m.src();
    let all: Vec<Node> = obj.all_children().collect();
    let comments: Vec<Node> = all
        .iter()
        .copied()
        .filter(|c| c.kind_str() == "comment")
        .collect();
    let tokens: Vec<Node> = all
        .into_iter()
        .filter(|c| c.kind_str() != "comment")
        .collect();
    let props: Vec<Node> = tokens.iter().copied().filter(|t| t.is_named()).collect();
    let open = tokens.first().filter(|t| t.kind_str() == "{")?;
    let close = tokens.last().filter(|t| t.kind_str() == "}")?;
    if props.iter().all(|p| removed.contains(p)) {
        if !comments.is_empty() {
            return None;
        }
        return Some(vec![Edit {
            span: Span::new(open.end_byte(), close.start_byte()),
            replacement: String::new(),
        }]);
    }
    let comma_after = |p: Node| {
        let at = tokens.iter().position(|t| *t == p)?;
        tokens.get(at + 1).copied().filter(|t| t.kind_str() == ",")
    };
    let line_start = |at: usize| src[..at].rfind(['\n', '\r']).map_or(0, |i| i + 1);
    // The end of the line holding `at`, past its break.
    let line_end = |at: usize| {
        let rest = &src[at..];
        rest.find(['\n', '\r'])
            .map(|i| at + i + crate::source::break_len(rest, i))
    };
    let mut spans: Vec<(usize, usize)> = Vec::new();
    let last_kept = props.iter().rposition(|p| !removed.contains(p))?;
    // The last properties removed without a trailing comma: from the comma
    // after the last one kept (it would become a trailing one) to the end.
    let suffix = props
        .last()
        .filter(|l| removed.contains(l) && comma_after(**l).is_none());
    let suffix = suffix.map(|&l| {
        let from = comma_after(props[last_kept]).map_or(l.start_byte(), |c| c.start_byte());
        (from, l.end_byte())
    });
    if let Some((from, to)) = suffix {
        if comments
            .iter()
            .any(|c| c.start_byte() < to && c.end_byte() > from)
        {
            return None;
        }
        spans.push((from, to));
    }
    for (i, &p) in props.iter().enumerate() {
        if !removed.contains(&p) || (suffix.is_some() && i > last_kept) {
            continue;
        }
        let comma = comma_after(p);
        let end = comma.map_or(p.end_byte(), |c| c.end_byte());
        let ls = line_start(p.start_byte());
        let alone_before = src[ls..p.start_byte()].trim().is_empty() && ls > 0;
        let le = line_end(end);
        let alone_after = le.is_some_and(|le| src[end..le].trim().is_empty());
        let (from, to) = match le {
            Some(le) if alone_before && alone_after => (ls, le),
            _ if comma.is_some() => {
                let rest = &src[end..];
                (
                    p.start_byte(),
                    end + rest.len() - rest.trim_start_matches([' ', '\t']).len(),
                )
            }
            _ => {
                let head = &src[..p.start_byte()];
                (head.trim_end_matches([' ', '\t']).len(), p.end_byte())
            }
        };
        let line_to = le.unwrap_or(src.len());
        if comments
            .iter()
            .any(|c| c.start_byte() < line_to && c.end_byte() > ls.min(from))
        {
            return None;
        }
        spans.push((from, to));
    }
    spans.sort_unstable();
    let mut merged: Vec<(usize, usize)> = Vec::new();
    for (a, b) in spans {
        match merged.last_mut() {
            Some(last) if a <= last.1 => last.1 = last.1.max(b),
            _ => merged.push((a, b)),
        }
    }
    // Several removed properties sharing a line empty it together: the
    // line goes too, not left holding its indentation.
    let merged = merged.into_iter().map(|(a, b)| {
        let ls = line_start(a);
        match line_end(b) {
            Some(le) if ls > 0 && src[ls..a].trim().is_empty() && src[b..le].trim().is_empty() => {
                (ls, le)
            }
            _ => (a, b),
        }
    });
    Some(
        merged
            .map(|(a, b)| Edit {
                span: Span::new(a, b),
                replacement: String::new(),
            })
            .collect(),
    )
}

/// Edits appending `texts` (whole properties) to the object literal
/// `obj`: on lines of their own, indented like its last property, when
/// that property starts its line; inline otherwise.
fn append(m: &JsModel, obj: Node, texts: &[&str]) -> Option<Vec<Edit>> {
    let src = m.src();
    let tokens: Vec<Node> = obj
        .all_children()
        .filter(|c| c.kind_str() != "comment")
        .collect();
    let props: Vec<Node> = tokens.iter().copied().filter(|t| t.is_named()).collect();
    let Some(&last) = props.last() else {
        if obj.named().next().is_some() {
            // Only comments inside: where the fields go is the author's call.
            return None;
        }
        return Some(vec![Edit {
            span: Span::new(obj.start_byte(), obj.end_byte()),
            replacement: format!("{{ {} }}", texts.join(", ")),
        }]);
    };
    let at = tokens.iter().position(|t| *t == last)?;
    let comma = tokens.get(at + 1).copied().filter(|t| t.kind_str() == ",");
    let ls = src[..last.start_byte()]
        .rfind(['\n', '\r'])
        .map_or(0, |i| i + 1);
    let indent = &src[ls..last.start_byte()];
    let end = comma.map_or(last.end_byte(), |c| c.end_byte());
    let rest = &src[end..];
    let brk = rest.find(['\n', '\r']);
    // Nothing but a line comment may follow on the property's line (not
    // the closing brace).
    let tail_free = brk.is_some_and(|b| {
        let tail = rest[..b].trim();
        tail.is_empty() || tail.starts_with("//")
    });
    let own_line = ls > 0 && indent.chars().all(|c| c == ' ' || c == '\t') && tail_free;
    if !own_line {
        return Some(vec![Edit {
            span: Span::new(last.end_byte(), last.end_byte()),
            replacement: texts.iter().map(|t| format!(", {t}")).collect(),
        }]);
    }
    // After the property (and its comma) and a comment on its line, in
    // the file's line break.
    let brk = brk?;
    let line_end = end + brk;
    let newline = &src[line_end..line_end + crate::source::break_len(rest, brk)];
    let lines: String = texts
        .iter()
        .map(|t| format!("{newline}{indent}{t}"))
        .collect::<Vec<_>>()
        .join(",");
    Some(match comma {
        Some(_) => vec![Edit {
            span: Span::new(line_end, line_end),
            replacement: format!("{lines},"),
        }],
        None => vec![
            Edit {
                span: Span::new(last.end_byte(), last.end_byte()),
                replacement: ",".into(),
            },
            Edit {
                span: Span::new(line_end, line_end),
                replacement: lines,
            },
        ],
    })
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

#[cfg(test)]
mod tests {
    use crate::diagnostic::{Diagnostic, Edit};
    use crate::engine::discover::FileKind;
    use crate::engine::lint_text;
    use crate::project::config::Config;

    fn lint(src: &str) -> Vec<Diagnostic> {
        let mut config = Config::default();
        config.select = Some(vec!["misplaced-breakpoint-option".into()]);
        lint_text("p.js", FileKind::Process, src.to_string(), &config)
    }

    fn in_process(body: &str) -> String {
        format!("export async function process(inputs, ctx) {{\n{body}\n  return {{}};\n}}\n")
    }

    /// The body fixed, and checked: no finding left, and it loads.
    fn fixed(body: &str) -> Option<String> {
        let src = in_process(body);
        let ds = lint(&src);
        assert_eq!(ds.len(), 1, "{ds:#?}");
        let fix = ds[0].fix.as_ref()?;
        assert!(!fix.safe);
        let edits: &[Edit] = &fix.edits;
        let (out, n) = crate::engine::fix::apply(&src, &[edits]);
        assert_eq!(n, 1);
        assert!(lint(&out).is_empty(), "{out}");
        let loads = crate::js::syntax::oxc::loads(&out).unwrap_or_else(|| panic!("unjudged"));
        assert!(loads.module, "{out}");
        let head = "export async function process(inputs, ctx) {\n";
        Some(out[head.len()..out.len() - "\n  return {};\n}\n".len()].to_string())
    }

    #[test]
    fn routing_keys_move_into_a_new_options_argument() {
        assert_eq!(
            fixed("  await ctx.breakpoint({ question: 'Q?', breakpointId: 'a.b', tags: ['x'] });")
                .as_deref(),
            Some(
                "  await ctx.breakpoint({ question: 'Q?' }, { breakpointId: 'a.b', tags: ['x'] });"
            )
        );
        assert_eq!(
            fixed("  await ctx.breakpoint({\n    question: 'Q?',\n    tags: ['x'],\n    context: inputs.c,\n  });").as_deref(),
            Some("  await ctx.breakpoint({\n    question: 'Q?',\n    context: inputs.c,\n  }, { tags: ['x'] });")
        );
        // The last properties, without a trailing comma: the comma before
        // them goes too.
        assert_eq!(
            fixed("  await ctx.breakpoint({\n    question: 'Q?',\n    expert: 'e',\n    tags: ['x']\n  });").as_deref(),
            Some("  await ctx.breakpoint({\n    question: 'Q?'\n  }, { expert: 'e', tags: ['x'] });")
        );
        assert_eq!(
            fixed("  await ctx.breakpoint({ question: 'Q?', expert: 'e', tags: ['x'] });")
                .as_deref(),
            Some("  await ctx.breakpoint({ question: 'Q?' }, { expert: 'e', tags: ['x'] });")
        );
        assert_eq!(
            fixed("  await ctx.breakpoint({ tags: ['x'], question: 'Q?' });").as_deref(),
            Some("  await ctx.breakpoint({ question: 'Q?' }, { tags: ['x'] });")
        );
        assert_eq!(
            fixed("  await ctx.breakpoint({\n    tags: ['x'],\n    question: 'Q?'\n  });")
                .as_deref(),
            Some("  await ctx.breakpoint({\n    question: 'Q?'\n  }, { tags: ['x'] });")
        );
        assert_eq!(
            fixed("  await ctx.breakpoint({ breakpointId: 'x' });").as_deref(),
            Some("  await ctx.breakpoint({}, { breakpointId: 'x' });")
        );
        assert_eq!(
            fixed("  await ctx.breakpoint(({ question: 'Q?', tags: ['x'] }));").as_deref(),
            Some("  await ctx.breakpoint(({ question: 'Q?' }), { tags: ['x'] });")
        );
        // A comment on another line stays.
        assert_eq!(
            fixed("  await ctx.breakpoint({\n    // ask\n    question: 'Q?',\n    tags: ['x'],\n  });").as_deref(),
            Some("  await ctx.breakpoint({\n    // ask\n    question: 'Q?',\n  }, { tags: ['x'] });")
        );
    }

    #[test]
    fn routing_keys_are_appended_to_an_options_literal() {
        assert_eq!(
            fixed("  const tags = ['r'];\n  await ctx.breakpoint({ question: 'Q?', tags }, { label: 'l' });").as_deref(),
            Some("  const tags = ['r'];\n  await ctx.breakpoint({ question: 'Q?' }, { label: 'l', tags });")
        );
        assert_eq!(
            fixed("  await ctx.breakpoint({ question: 'Q?', tags: ['x'] }, {});").as_deref(),
            Some("  await ctx.breakpoint({ question: 'Q?' }, { tags: ['x'] });")
        );
        assert_eq!(
            fixed("  await ctx.breakpoint({ question: 'Q?', expert: 'e' }, {\n    label: 'l',\n  });").as_deref(),
            Some("  await ctx.breakpoint({ question: 'Q?' }, {\n    label: 'l',\n    expert: 'e',\n  });")
        );
        assert_eq!(
            fixed("  await ctx.breakpoint({ question: 'Q?', expert: 'e' }, {\n    label: 'l' // why\n  });").as_deref(),
            Some("  await ctx.breakpoint({ question: 'Q?' }, {\n    label: 'l', // why\n    expert: 'e'\n  });")
        );
        assert_eq!(
            fixed("  await ctx.breakpoint({ question: 'Q?', expert: 'e' }, {\n    label: 'l' });")
                .as_deref(),
            Some("  await ctx.breakpoint({ question: 'Q?' }, {\n    label: 'l', expert: 'e' });")
        );
    }

    #[test]
    fn no_fix_where_moving_is_not_mechanical() {
        for body in [
            // A value with side effects, evaluated later once moved.
            "  await ctx.breakpoint({ question: 'Q?', tags: pick() });",
            // Options the module builds elsewhere, a const payload.
            "  const o = { label: 'l' };\n  await ctx.breakpoint({ question: 'Q?', tags: ['x'] }, o);",
            "  const p = { question: 'Q?', tags: ['x'] };\n  await ctx.breakpoint(p);",
            // A spread, a key written twice, a comment on the key's line.
            "  const b = { title: 't' };\n  await ctx.breakpoint({ ...b, question: 'Q?', tags: ['x'] });",
            "  await ctx.breakpoint({ tags: ['y'], question: 'Q?', tags: ['x'] });",
            "  await ctx.breakpoint({\n    question: 'Q?',\n    tags: ['x'], // routing\n  });",
        ] {
            assert_eq!(fixed(body), None, "{body}");
        }
    }

    /// Two moved keys sharing a line take the line with them.
    #[test]
    fn moved_keys_sharing_a_line_leave_no_blank_line() {
        let body = "  await ctx.breakpoint({\n    question: 'Q?',\n    expert: 'e', tags: ['x'],\n    context: {},\n  });";
        let out = fixed(body).unwrap_or_default();
        assert!(
            out.contains("  await ctx.breakpoint({\n    question: 'Q?',\n    context: {},\n  }, {"),
            "{out}"
        );
    }

    /// With CRLF line breaks the fix is the LF one with CRLF.
    #[test]
    fn the_fix_keeps_the_line_breaks() {
        let body =
            "  await ctx.breakpoint({ question: 'Q?', expert: 'e' }, {\r\n    label: 'l'\r\n  });";
        assert_eq!(
            fixed(body).as_deref(),
            Some("  await ctx.breakpoint({ question: 'Q?' }, {\r\n    label: 'l',\r\n    expert: 'e'\r\n  });")
        );
    }
}
