//! `git-in-agent-task`: an agent told to write to git inside a replayable
//! task.

use std::collections::BTreeSet;

use regex::Regex;

use super::{Area, Category, ProjectSink, ReportMeta, Rule, RuleMeta, Sites};
use crate::config::Config;
use crate::diagnostic::Location;
use crate::diagnostic::Severity;
use crate::project::{Project, StringLit, StringSet, TaskSummary};

pub struct GitInAgentTask;

static META: RuleMeta = RuleMeta {
    id: "git-in-agent-task",
    summary: "An agent task's prompt tells the agent to commit, push or otherwise write to git.",
    severity: Severity::Warning,
    area: Area::Idempotency,
    category: Category::Suspicious,
    doc: include_str!("../../rules/git-in-agent-task.md"),
    builtin: false,
    options: &["phrases"],
};

pub const DEFAULT_PHRASES: &[&str] = &[
    "git commit",
    "git push",
    "git tag",
    "git rebase",
    "git reset --hard",
    "git merge",
    "commit your work",
    "commit your changes",
    "commit your fixes",
    "commit the changes",
    "push to (origin|remote|main)",
];

/// A negation earlier in the same sentence (`do not commit`, `never push`).
pub const NEGATION: &str = r"(?i)\b(do not|don't|dont|never|must not|mustn't|should not|shouldn't|avoid|without|no need to|not)\b";

fn phrase_regex(config: &Config) -> Option<Regex> {
    Regex::new(&phrase_pattern(config)).ok()
}

/// The phrase pattern for a configuration (see `crate::rules::literals`).
pub(crate) fn phrase_pattern(config: &Config) -> String {
    let phrases: Vec<String> = config
        .rule_options
        .get(META.id)
        .and_then(|t| t.get("phrases"))
        .and_then(|v| v.as_array())
        .map(|a| {
            a.iter()
                .filter_map(|v| v.as_str().map(String::from))
                .collect()
        })
        .unwrap_or_else(|| DEFAULT_PHRASES.iter().map(|s| s.to_string()).collect());
    // Phrases are regex fragments (so `(origin|remote)` works); spaces
    // match any whitespace run.
    let alts: Vec<String> = phrases
        .iter()
        .map(|p| p.split_whitespace().collect::<Vec<_>>().join(r"\s+"))
        .collect();
    format!(r"(?i)\b(?:{})(?:\b|$)", alts.join("|"))
}

/// The first git write a text instructs, if it is not negated.
pub fn find_instruction<'a>(re: &Regex, neg: &Regex, text: &'a str) -> Option<&'a str> {
    for m in re.find_iter(text) {
        let before = &text[..m.start()];
        let sentence_start = before
            .rfind(['.', '!', '?', ';', '\n'])
            .map(|i| i + 1)
            .unwrap_or(0);
        if !neg.is_match(&before[sentence_start..]) {
            return Some(m.as_str());
        }
    }
    None
}

/// Every string a task's string set (its prompt, its title) can evaluate
/// to, across modules, with the call site that passed it when it comes from
/// the task's args (`instructions: args.instructions`).
pub fn task_strings(
    p: &Project,
    module: usize,
    task: usize,
    set: &StringSet,
) -> Vec<(StringLit, Option<Location>)> {
    let mut strings: Vec<(StringLit, Option<Location>)> = p
        .resolve_strings(module, set)
        .into_iter()
        .map(|s| (s, None))
        .collect();
    if !set.arg_fields.is_empty() {
        for (mj, ii) in p.invocations_of(module, task) {
            let inv = &p.modules[mj].invocations[ii];
            for (key, args) in &inv.args {
                if set.arg_fields.contains(key) {
                    strings.extend(
                        p.resolve_strings(mj, args)
                            .into_iter()
                            .map(|s| (s, Some(inv.location.clone()))),
                    );
                }
            }
        }
    }
    strings
}

/// The agent tasks of the reported modules, with their module and task
/// indices, in source order.
pub fn reported_agent_tasks(p: &Project) -> impl Iterator<Item = (usize, usize, &TaskSummary)> {
    p.modules
        .iter()
        .enumerate()
        .filter(|(_, module)| module.report)
        .flat_map(|(mi, module)| {
            module
                .tasks
                .iter()
                .enumerate()
                .filter(|(_, task)| task.kind.as_deref() == Some("agent"))
                .map(move |(ti, task)| (mi, ti, task))
        })
}

impl Rule for GitInAgentTask {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn report(&self) -> ReportMeta {
        ReportMeta {
            sites: Sites::AgentTasks,
            praise: "No git writes inside agent tasks",
            sdk_hint: "Git writes keep landing in agent prompts: a built-in `git-commit` task kind, keyed by the expected tree, would give processes a replay-safe place for them.",
        }
    }

    fn check_project(&self, p: &Project, config: &Config, sink: &mut ProjectSink) {
        let (Some(re), Ok(neg)) = (phrase_regex(config), Regex::new(NEGATION)) else {
            return;
        };
        for (mi, ti, task) in reported_agent_tasks(p) {
            let Some(prompt) = &task.prompt else { continue };
            let strings = task_strings(p, mi, ti, prompt);
            let id = task.id.as_deref().unwrap_or("task");
            let mut seen = BTreeSet::new();
            for (lit, site) in strings {
                let Some(phrase) = find_instruction(&re, &neg, &lit.text) else {
                    continue;
                };
                let key = (lit.location.path.clone(), lit.location.span);
                if !seen.insert(key) {
                    continue;
                }
                let mut d = sink
                    .diag(
                        lit.location.clone(),
                        format!(
                            "agent task `{id}` is told to \"{phrase}\": a replayed effect re-runs the agent, which writes to git again"
                        ),
                    )
                    .with_help(
                        "drop the git instruction from the prompt and do the git write in a dedicated `kind: 'shell'` task whose key encodes the expected tree",
                    );
                if !task.defines(&lit.location) {
                    d = d.with_related(
                        task.definition.clone(),
                        format!("agent task `{id}` is defined here"),
                    );
                }
                if let Some(site) = site {
                    d = d.with_related(site, "the instruction is passed in the task's args here");
                }
                sink.push(d);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phrases_and_negations() {
        let re = phrase_regex(&Config::default());
        let neg = Regex::new(NEGATION).ok();
        let (Some(re), Some(neg)) = (re, neg) else {
            panic!("regexes must compile");
        };
        let hit = |t: &str| find_instruction(&re, &neg, t).map(str::to_string);
        assert_eq!(
            hit("Then git commit the fix.").as_deref(),
            Some("git commit")
        );
        assert_eq!(
            hit("Commit your changes.").as_deref(),
            Some("Commit your changes")
        );
        assert_eq!(
            hit("push to origin when done").as_deref(),
            Some("push to origin")
        );
        assert_eq!(hit("Do not commit. Run git status."), None);
        assert_eq!(hit("Never run git push."), None);
        assert_eq!(hit("Use git diff and git log; read recent commits."), None);
        assert_eq!(
            hit("Don't git commit. Then git push to origin."),
            Some("git push".into())
        );
    }
}
