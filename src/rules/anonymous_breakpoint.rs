//! `anonymous-breakpoint`: a breakpoint that ends up with the SDK's default
//! identity, `"breakpoint"`.

use tree_sitter::Node;

use super::{Area, Category, JsContext, ReportMeta, Rule, RuleMeta, Sink, Sites};
use crate::diagnostic::Severity;
use crate::js::objects;
use crate::js::syntax::{span, string_value, unparen, NodeExt};
use crate::js::{EffectKind, JsModel};

pub struct AnonymousBreakpoint;

static META: RuleMeta = RuleMeta {
    id: "anonymous-breakpoint",
    summary: "A breakpoint has no breakpointId or label, so it gets the default identity and cannot be targeted.",
    severity: Severity::Info,
    area: Area::BreakpointDiscipline,
    category: Category::Pedantic,
    doc: include_str!("../../rules/anonymous-breakpoint.md"),
    builtin: false,
    options: &[],
};

/// What an object argument says about a property.
#[derive(Debug, PartialEq, Eq)]
enum Has {
    Yes,
    No,
    /// Not an object proclint can read (a parameter, an opaque spread).
    Unknown,
}

fn has(m: &JsModel, arg: Option<Node>, name: &str) -> Has {
    let Some(arg) = arg.map(unparen) else {
        return Has::No;
    };
    if matches!(arg.kind_str(), "string" | "template_string") {
        return Has::No;
    }
    let Some(obj) = m.object_of_expr(arg) else {
        return Has::Unknown;
    };
    if objects::property(m, obj, name).is_some() {
        Has::Yes
    } else if objects::has_opaque_spread(m, obj) {
        Has::Unknown
    } else {
        Has::No
    }
}

impl Rule for AnonymousBreakpoint {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn report(&self) -> ReportMeta {
        ReportMeta {
            sites: Sites::Breakpoints,
            praise: "Every breakpoint is named",
            sdk_hint: "The SDK could warn when two breakpoints in one run fall back to the default `breakpoint` identity.",
        }
    }

    fn check_js(&self, cx: &JsContext, sink: &mut Sink) {
        let m = cx.model;
        let mut anonymous = Vec::new();
        for e in m.effects_of(EffectKind::Breakpoint) {
            let call = &m.calls[e.call];
            let payload = call.args.first().copied();
            let options = call.args.get(1).copied();
            // The SDK's order: options.breakpointId, options.label, payload.label.
            let routes = [
                has(m, options, "breakpointId"),
                has(m, options, "label"),
                has(m, payload, "label"),
            ];
            // A `breakpointId` written in the payload is
            // `misplaced-breakpoint-option`'s finding (its fix names the
            // breakpoint): not reported twice.
            let misplaced = has(m, payload, "breakpointId") == Has::Yes;
            if !misplaced && routes.iter().all(|h| *h == Has::No) {
                anonymous.push(e.call);
            }
        }
        let process = process_name(m);
        let total = anonymous.len();
        for (i, ci) in anonymous.into_iter().enumerate() {
            let call = &m.calls[ci];
            let payload = call.args.first().copied().and_then(|p| m.object_of_expr(p));
            let field = |k: &str| {
                payload
                    .and_then(|o| objects::property(m, o, k))
                    .and_then(|v| string_value(v, m.src()))
            };
            let title = field("title");
            let gate = title
                .as_deref()
                .or(field("question").as_deref())
                .map(|t| slug(t, 4))
                .filter(|s| !s.is_empty())
                .unwrap_or_else(|| format!("gate-{}", i + 1));
            let callee = m.text(call.callee);
            let named = match &title {
                Some(t) => format!("`{callee}(…)` (\"{}\")", short(t)),
                None => format!("`{callee}(…)`"),
            };
            let title_note = if title.is_some() {
                " (its `title` does not name it)"
            } else {
                ""
            };
            let crowd = if total > 1 {
                format!(
                    "; the {total} anonymous breakpoints in this module are told apart only by call order"
                )
            } else {
                String::new()
            };
            let payload_text = call
                .args
                .first()
                .map(|p| short(m.text(*p)))
                .unwrap_or_else(|| "payload".into());
            let payload_text = if payload_text.chars().count() > 30 {
                "payload".to_string()
            } else {
                payload_text
            };
            sink.push(
                sink.diag(
                    span(call.node),
                    format!(
                        "{named} has no `breakpointId` or `label`, so the SDK names it \"breakpoint\"{title_note}: \
                         approval rules and dashboards cannot target it{crowd}"
                    ),
                )
                .with_help(format!(
                    "name it: `{callee}({payload_text}, {{ breakpointId: '{process}.{gate}' }})`"
                )),
            );
        }
    }
}

/// The last segment of the JSDoc `@process` id (`acme/feature-delivery` →
/// `feature-delivery`), else the file's stem.
fn process_name(m: &JsModel) -> String {
    let from_doc = m.src().lines().take(200).find_map(|l| {
        let rest = l.split("@process").nth(1)?;
        let id = rest.split_whitespace().next()?;
        id.rsplit('/').next().map(str::to_string)
    });
    let stem = || {
        std::path::Path::new(&*m.file.path)
            .file_stem()
            .and_then(|s| s.to_str())
            .map(|s| slug(s, 6))
            .filter(|s| !s.is_empty())
            .unwrap_or_else(|| "process".into())
    };
    from_doc
        .map(|s| slug(&s, 6))
        .filter(|s| !s.is_empty())
        .unwrap_or_else(stem)
}

/// `Review failed. Accept anyway?` → `review-failed-accept-anyway`, at most
/// `words` words.
fn slug(text: &str, words: usize) -> String {
    text.split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .take(words)
        .map(|w| w.to_lowercase())
        .collect::<Vec<_>>()
        .join("-")
}

fn short(t: &str) -> String {
    let one: String = t.split_whitespace().collect::<Vec<_>>().join(" ");
    if one.chars().count() > 60 {
        format!("{}…", one.chars().take(57).collect::<String>())
    } else {
        one
    }
}

#[cfg(test)]
mod tests {
    use super::slug;

    #[test]
    fn slugs() {
        assert_eq!(slug("Final gate", 4), "final-gate");
        assert_eq!(
            slug("Review failed 3 times. Accept anyway?", 4),
            "review-failed-3-times"
        );
        assert_eq!(slug("acme/feature-delivery", 6), "acme-feature-delivery");
    }
}
