//! `anonymous-breakpoint`: a breakpoint that ends up with the SDK's default
//! identity, `"breakpoint"`.

use crate::js::syntax::tree::Node;

use super::{
    misplaced_breakpoint_option, Area, Category, JsContext, ReportMeta, Rule, RuleMeta, Sink, Sites,
};
use crate::diagnostic::Severity;
use crate::js::model::objects;
use crate::js::syntax::{span, string_value, unparen};
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
    fix: crate::rules::FixAvailability::Never,
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
        // (call, whether its options carry `tags` or `expert`)
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
            // A call with routing options in its payload is
            // `misplaced-breakpoint-option`'s finding (its fix moves them,
            // a `breakpointId` among them), as is a string payload with the
            // question in the options (its fix names it): not reported twice.
            let misplaced = !misplaced_breakpoint_option::misplaced(m, call).1.is_empty()
                || misplaced_breakpoint_option::payload_fields(m, call).is_some();
            if !misplaced && routes.iter().all(|h| *h == Has::No) {
                let targetable =
                    has(m, options, "tags") == Has::Yes || has(m, options, "expert") == Has::Yes;
                anonymous.push((e.call, targetable));
            }
        }
        // One unnamed breakpoint whose options carry `tags` or `expert` can
        // be selected by an approval rule, and has no sibling to be confused
        // with: nothing to say.
        if anonymous.is_empty() || (anonymous.len() == 1 && anonymous[0].1) {
            return;
        }
        // One finding per module, at the first: naming them is one change.
        let process = process_name(m);
        let total = anonymous.len();
        let untargetable = anonymous.iter().filter(|(_, t)| !t).count();
        let (first, _) = anonymous[0];
        let call = &m.calls[first];
        let payload = call.args.first().copied().and_then(|p| m.object_of_expr(p));
        let field = |k: &str| {
            payload
                .and_then(|o| objects::property(m, o, k))
                .and_then(|v| string_value(v, m.src()))
        };
        let title = field("title");
        // A string payload is often an id the author meant to give (`ctx.breakpoint('plan-review', {…})`).
        let text_payload = call
            .args
            .first()
            .filter(|p| unparen(**p).kind_str() == "string")
            .and_then(|p| string_value(*p, m.src()));
        let gate = title
            .as_deref()
            .or(text_payload.as_deref())
            .or(field("question").as_deref())
            .map(|t| slug(t, 4))
            .filter(|s| !s.is_empty())
            .unwrap_or_else(|| "gate-1".to_string());
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
        let message = if total == 1 {
            let approval = if untargetable == 1 {
                ": an approval rule, a pattern over breakpoint ids, can single it out only by that id, which every unnamed breakpoint of every process shares"
            } else {
                ""
            };
            format!(
                "{named} has no `breakpointId` or `label`, so the SDK gives it the id \"breakpoint\"{title_note}{approval}"
            )
        } else {
            let approval = match untargetable {
                0 => String::new(),
                n if n == total => {
                    ", and an approval rule cannot single one of them out".to_string()
                }
                n => format!(
                    ", and an approval rule cannot single out the {n} without `tags` or `expert`"
                ),
            };
            format!(
                "{named} and {} more breakpoint{} in this module have no `breakpointId` or `label`, so the SDK gives them all the id \"breakpoint\" and tells them apart by call order alone: \
                 a call skipped or moved on a later iteration (an edit during a run, a branch on a value that differs between iterations) shifts which recorded answer each gets{approval}",
                total - 1,
                if total == 2 { "" } else { "s" }
            )
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
        let each = if total > 1 {
            ", and each of the others likewise"
        } else {
            ""
        };
        let string_note = if text_payload.is_some() {
            "a string first argument is the payload, not an id; "
        } else {
            ""
        };
        let mut d = sink
            .diag(span(call.node), message)
            .with_help(format!(
                "{string_note}name it: `{callee}({payload_text}, {{ breakpointId: '{process}.{gate}' }})`{each}"
            ));
        for (other, _) in anonymous.iter().skip(1) {
            d = d.with_related(
                sink.location(span(m.calls[*other].node)),
                "also given the id \"breakpoint\"",
            );
        }
        sink.push(d);
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
