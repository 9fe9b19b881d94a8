//! `undeclared-output-field`: code reads a field of a task result that the
//! task's output schema does not declare.

use std::collections::HashMap;
use std::sync::Arc;

use super::{Area, Category, ProjectSink, ReportMeta, Rule, RuleMeta, Sites};
use crate::config::Config;
use crate::diagnostic::{Location, Severity};
use crate::project::Project;

pub struct UndeclaredOutputField;

static META: RuleMeta = RuleMeta {
    id: "undeclared-output-field",
    summary: "Code reads a field of a task result that the task's output schema does not declare.",
    severity: Severity::Warning,
    area: Area::EffectGranularity,
    category: Category::Suspicious,
    doc: include_str!("../../rules/undeclared-output-field.md"),
    builtin: false,
    options: &[],
};

/// Names read on any value that are not data fields: promise chaining and
/// `Object.prototype`.
const NOT_FIELDS: &[&str] = &[
    "then",
    "catch",
    "finally",
    "hasOwnProperty",
    "toString",
    "valueOf",
    "toJSON",
    "constructor",
    "propertyIsEnumerable",
];

impl Rule for UndeclaredOutputField {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn report(&self) -> ReportMeta {
        ReportMeta {
            sites: Sites::SchemaTasks,
            praise: "Every field read on a task result is declared in its output schema",
            sdk_hint: "",
        }
    }

    fn check_project(&self, p: &Project, _config: &Config, sink: &mut ProjectSink) {
        let uses = p.result_uses();
        // A read of one variable that carries several tasks' results
        // (`r = await ctx.task(a); … r = await ctx.task(b)`) is fine when any
        // of them declares the field (or has a schema proclint cannot read).
        let mut readers: HashMap<(Location, &str), Vec<(usize, usize)>> = HashMap::new();
        for (task, u) in uses {
            for (field, loc) in &u.fields {
                readers
                    .entry((loc.clone(), field.as_str()))
                    .or_default()
                    .push(*task);
            }
        }
        // Tasks whose schema is unknown (or absent) may produce anything.
        let declares = |(mi, ti): (usize, usize), field: &str| {
            p.schema_fields(mi, ti)
                .filter(|f| !f.is_empty())
                .is_none_or(|f| f.iter().any(|(n, _)| n == field))
        };
        let reported: HashMap<Arc<str>, bool> = p
            .modules
            .iter()
            .map(|m| (m.path.clone(), m.report))
            .collect();
        for (&(mi, ti), u) in uses {
            let task = &p.modules[mi].tasks[ti];
            // The schema may live in a shared module (`outputSchema: reviewSchema`).
            let Some(fields) = p.schema_fields(mi, ti).filter(|f| !f.is_empty()) else {
                continue;
            };
            let declared: Vec<&str> = fields.iter().map(|(n, _)| n.as_str()).collect();
            for (field, loc) in &u.fields {
                if declared.contains(&field.as_str()) || NOT_FIELDS.contains(&field.as_str()) {
                    continue;
                }
                if !reported.get(&loc.path).copied().unwrap_or(false) {
                    continue;
                }
                let shared = readers
                    .get(&(loc.clone(), field.as_str()))
                    .is_some_and(|ts| ts.iter().any(|t| declares(*t, field)));
                if shared {
                    continue;
                }
                let id = task.id.as_deref().unwrap_or("task");
                let list: Vec<String> = declared.iter().map(|n| format!("`{n}`")).collect();
                let help = match closest(field, &declared) {
                    Some(near) => format!(
                        "did you mean `{near}`? Otherwise declare `{field}` in the schema's `properties` (declared: {})",
                        list.join(", ")
                    ),
                    None => format!(
                        "read one of the declared fields ({}), or declare `{field}` in the schema's `properties` so the agent produces it",
                        list.join(", ")
                    ),
                };
                let mut d = sink
                    .diag(
                        loc.clone(),
                        format!(
                            "`{field}` is read on the result of task `{id}`, whose `outputSchema` does not declare it: the read gets `undefined`"
                        ),
                    )
                    .with_help(help);
                if let Some((_, first)) = fields.first() {
                    d = d.with_related(
                        first.clone(),
                        format!("task `{id}` declares its output fields here"),
                    );
                }
                sink.push(d);
            }
        }
    }
}

/// The declared name closest to `name`, when it is close enough to be a
/// typo or a rename (case-insensitive, edit distance at most a third of
/// the length, and at least 1).
pub fn closest<'a>(name: &str, candidates: &[&'a str]) -> Option<&'a str> {
    let lower = name.to_lowercase();
    candidates
        .iter()
        .map(|c| (edit_distance(&lower, &c.to_lowercase()), *c))
        .filter(|(d, _)| *d <= (name.chars().count() / 3).max(1))
        .min_by_key(|(d, c)| (*d, *c))
        .map(|(_, c)| c)
}

/// Levenshtein distance over chars.
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut cur = Vec::with_capacity(b.len() + 1);
        cur.push(i + 1);
        for (j, cb) in b.iter().enumerate() {
            let sub = prev[j] + usize::from(ca != *cb);
            cur.push(sub.min(prev[j + 1] + 1).min(cur[j] + 1));
        }
        prev = cur;
    }
    prev[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn near_misses() {
        let declared = ["passed", "issues", "filesChanged"];
        assert_eq!(closest("pased", &declared), Some("passed"));
        assert_eq!(closest("issue", &declared), Some("issues"));
        assert_eq!(closest("fileschanged", &declared), Some("filesChanged"));
        assert_eq!(closest("approved", &declared), None);
        assert_eq!(closest("ok", &declared), None);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
    }
}
