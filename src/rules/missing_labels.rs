//! `missing-labels`: a task definition without labels.

use tree_sitter::Node;

use super::{Area, Category, JsContext, ReportMeta, Rule, RuleMeta, Sink, Sites};
use crate::diagnostic::{Edit, Fix, Severity};
use crate::js::objects;
use crate::js::syntax::{span, string_value, unparen, NodeExt};
use crate::js::JsModel;
use crate::source::Span;

pub struct MissingLabels;

static META: RuleMeta = RuleMeta {
    id: "missing-labels",
    summary: "A task definition has no labels, so dashboards and queries cannot find it.",
    severity: Severity::Warning,
    area: Area::Labels,
    category: Category::Suspicious,
    doc: include_str!("../../rules/missing-labels.md"),
    builtin: false,
    options: &[],
};

impl Rule for MissingLabels {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn report(&self) -> ReportMeta {
        ReportMeta {
            sites: Sites::TaskDefinitions,
            praise: "Labels on every task",
            sdk_hint: "",
        }
    }

    fn check_js(&self, cx: &JsContext, sink: &mut Sink) {
        let m = cx.model;
        // Found once: a fix looks for the line start before each task, and
        // searching backwards on a minified one-line file is linear per task.
        let first_newline = m.src().find('\n');
        for t in &m.task_defs {
            // Definitions proclint cannot see (a factory returning a call)
            // are not judged.
            let Some(problem) = t
                .objects
                .iter()
                .filter(|o| !objects::has_opaque_spread(m, **o))
                .find_map(|o| labels_problem(m, *o))
            else {
                continue;
            };
            let (obj, empty) = problem;
            let kind = objects::property(m, obj, "kind").and_then(|k| string_value(k, m.src()));
            let id = t.id.clone().unwrap_or_else(|| "task".into());
            let suggestion = suggest(kind.as_deref(), &id);
            let message = if empty.is_some() {
                format!("task `{id}` has an empty `labels` array")
            } else {
                format!("task `{id}` has no `labels`")
            };
            let mut d = sink
                .diag(span(t.id_node), message)
                .with_help(format!(
                    "add `labels: {suggestion}` so dashboards and retrospective queries can filter on it"
                ));
            if let Some(fix) = fix(m, first_newline, obj, empty, &suggestion) {
                d = d.with_fix(fix);
            }
            sink.push(d);
        }
    }
}

/// `Some((object, Some(empty_array)))` for `labels: []`, `Some((object,
/// None))` when absent, `None` when labels are present.
fn labels_problem<'t>(m: &JsModel<'t>, obj: Node<'t>) -> Option<(Node<'t>, Option<Node<'t>>)> {
    match objects::property(m, obj, "labels") {
        None => Some((obj, None)),
        Some(v) => {
            let v = unparen(v);
            if v.kind_str() == "array" && v.named_child_count() == 0 {
                Some((obj, Some(v)))
            } else {
                None
            }
        }
    }
}

/// `['agent', 'spec', 'review']` from the kind and the words of the id.
pub fn suggest(kind: Option<&str>, id: &str) -> String {
    let mut words: Vec<String> = Vec::new();
    if let Some(k) = kind {
        words.push(k.to_string());
    }
    let mut current = String::new();
    let mut prev_lower = false;
    for c in id.chars() {
        if !c.is_alphanumeric() {
            if !current.is_empty() {
                words.push(std::mem::take(&mut current));
            }
            prev_lower = false;
            continue;
        }
        if c.is_uppercase() && prev_lower && !current.is_empty() {
            words.push(std::mem::take(&mut current));
        }
        prev_lower = c.is_lowercase() || c.is_ascii_digit();
        current.extend(c.to_lowercase());
    }
    if !current.is_empty() {
        words.push(current);
    }
    let mut seen = Vec::new();
    words.retain(|w| {
        let new = !seen.contains(w);
        seen.push(w.clone());
        new
    });
    let quoted: Vec<String> = words.iter().map(|w| format!("'{w}'")).collect();
    format!("[{}]", quoted.join(", "))
}

/// Inserts a `labels` line after `kind` (or at the top of the object),
/// matching the indentation of the surrounding properties.
fn fix(
    m: &JsModel,
    first_newline: Option<usize>,
    obj: Node,
    empty: Option<Node>,
    suggestion: &str,
) -> Option<Fix> {
    let src = m.src();
    if let Some(array) = empty {
        return Some(Fix {
            description: format!("fill in labels {suggestion}"),
            edits: vec![crate::diagnostic::Edit {
                span: span(array),
                replacement: suggestion.to_string(),
            }],
            safe: true,
        });
    }
    let props: Vec<Node> = m
        .named_children(obj)
        .filter(|n| n.kind_str() != "comment")
        .collect();
    let first = *props.first()?;
    let kind_pair = props
        .iter()
        .copied()
        .find(|p| p.kind_str() == "pair" && p.field("key").is_some_and(|k| m.text(k) == "kind"));
    let anchor = kind_pair.unwrap_or(first);
    // No line start (nothing but the object on the first line): no fix.
    if first_newline.is_none_or(|nl| nl >= anchor.start_byte()) {
        return None;
    }
    // The indentation: spaces and tabs back to a newline. Anything else
    // before `anchor` on its line makes it a one-line object.
    let head = &src.as_bytes()[..anchor.start_byte()];
    let blank = head
        .iter()
        .rev()
        .take_while(|b| **b == b' ' || **b == b'\t')
        .count();
    let line_start = head.len() - blank;
    let indent = &src[line_start..anchor.start_byte()];
    if line_start == 0 || head[line_start - 1] != b'\n' {
        // A one-line object: insert inline after `{`.
        let open = obj.start_byte() + 1;
        return Some(Fix {
            description: format!("add labels {suggestion}"),
            edits: vec![Edit {
                span: Span::new(open, open),
                replacement: format!(" labels: {suggestion},"),
            }],
            safe: true,
        });
    }
    let edit = match kind_pair {
        Some(pair) => {
            // After the pair and its comma, and after a trailing comment on
            // that line, using the file's own line ending.
            let mut end = pair.end_byte();
            let rest = &src[end..];
            let trimmed = rest.trim_start_matches([' ', '\t']);
            let comma = trimmed.starts_with(',');
            if comma {
                end += rest.len() - trimmed.len() + 1;
            }
            let line_end = src[end..]
                .find(['\n', '\r'])
                .map(|i| end + i)
                .unwrap_or(src.len());
            let tail = src[end..line_end].trim();
            let newline = if src[line_end..].starts_with("\r\n") {
                "\r\n"
            } else {
                "\n"
            };
            if comma && (tail.is_empty() || tail.starts_with("//")) {
                Edit {
                    span: Span::new(line_end, line_end),
                    replacement: format!("{newline}{indent}labels: {suggestion},"),
                }
            } else if comma {
                Edit {
                    span: Span::new(end, end),
                    replacement: format!("{newline}{indent}labels: {suggestion},"),
                }
            } else {
                Edit {
                    span: Span::new(end, end),
                    replacement: format!(",{newline}{indent}labels: {suggestion}"),
                }
            }
        }
        None => Edit {
            span: Span::new(line_start, line_start),
            replacement: format!("{indent}labels: {suggestion},\n"),
        },
    };
    Some(Fix {
        description: format!("add labels {suggestion}"),
        edits: vec![edit],
        safe: true,
    })
}

#[cfg(test)]
mod tests {
    use super::suggest;

    #[test]
    fn suggestions_from_kind_and_id() {
        assert_eq!(
            suggest(Some("agent"), "spec-review"),
            "['agent', 'spec', 'review']"
        );
        assert_eq!(suggest(None, "fixIssues"), "['fix', 'issues']");
        assert_eq!(
            suggest(Some("shell"), "shell/run_tests"),
            "['shell', 'run', 'tests']"
        );
    }
}
