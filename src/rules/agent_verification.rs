//! `agent-verification`: an agent task asked to do deterministic
//! verification (run the tests, type-check, lint, build).

use regex::Regex;

use super::git_in_agent_task::{find_instruction, reported_agent_tasks, task_strings, NEGATION};
use super::{Area, Category, ProjectSink, ReportMeta, Rule, RuleMeta, Sites};
use crate::config::Config;
use crate::diagnostic::{Location, Severity};
use crate::project::{Project, StringLit};

pub struct AgentVerification;

static META: RuleMeta = RuleMeta {
    id: "agent-verification",
    summary: "An agent task is asked to run tests, type-check, lint or build: deterministic checks belong in shell tasks.",
    severity: Severity::Info,
    area: Area::Determinism,
    category: Category::Pedantic,
    doc: include_str!("../../rules/agent-verification.md"),
    builtin: false,
    options: &[],
};

/// Commands and phrases that describe a deterministic check. Matched
/// case-insensitively on word boundaries; spaces match any whitespace.
const PHRASES: &[&str] = &[
    r"npm (?:run )?test",
    r"npm run (?:lint|build|typecheck|type-check|check)",
    r"(?:yarn|pnpm|bun) (?:run )?(?:test|lint|build|typecheck|type-check)",
    r"npx (?:tsc|eslint|jest|vitest|mocha|playwright test)",
    r"cargo (?:test|build|check|clippy)",
    r"go (?:test|build|vet)",
    r"make (?:test|check|lint)",
    r"pytest",
    r"tsc",
    r"eslint",
    r"vitest",
    r"run (?:the |all (?:the )?)?(?:unit |integration |e2e )?tests?(?: suite)?",
    r"run the test suite",
    r"execute the tests",
    r"type-?check(?:s|ing)?",
    r"run (?:the )?linter",
    r"(?:verify|check|confirm|ensure) (?:that )?(?:it|the (?:code|project|build|app)) (?:compiles|builds)",
    r"(?:verify|check|confirm|ensure) (?:that )?(?:all )?(?:the )?tests pass",
    r"check the exit code",
];

/// Phrases that are themselves commands to put in a shell task.
const COMMAND_PREFIXES: &[&str] = &[
    "npm ", "yarn ", "pnpm ", "bun ", "npx ", "cargo ", "go ", "make ", "pytest", "tsc", "eslint",
    "vitest",
];

/// The phrase pattern (see `crate::rules::literals`: summaries keep only
/// strings it, or another phrase rule's pattern, can match).
pub(crate) fn phrase_pattern() -> String {
    let alts: Vec<String> = PHRASES.iter().map(|p| p.replace(' ', r"\s+")).collect();
    format!(r"(?i)\b(?:{})\b", alts.join("|"))
}

fn phrase_regex() -> Option<Regex> {
    Regex::new(&phrase_pattern()).ok()
}

impl Rule for AgentVerification {
    fn meta(&self) -> &'static RuleMeta {
        &META
    }

    fn report(&self) -> ReportMeta {
        ReportMeta {
            sites: Sites::AgentTasks,
            // Said of the agent tasks it looks at: a process with no shell
            // task must not be praised for running checks in shell tasks.
            praise: "No agent task is asked to run a deterministic check",
            sdk_hint: "",
        }
    }

    fn check_project(&self, p: &Project, _config: &Config, sink: &mut ProjectSink) {
        let (Some(re), Ok(neg)) = (phrase_regex(), Regex::new(NEGATION)) else {
            return;
        };
        for (mi, ti, task) in reported_agent_tasks(p) {
            let mut strings: Vec<(StringLit, Option<Location>)> = Vec::new();
            for set in [&task.title, &task.prompt].into_iter().flatten() {
                strings.extend(task_strings(p, mi, ti, set));
            }
            // The first instruction in source order, so one task gets one
            // finding however many strings repeat it.
            strings.sort_by(|a, b| {
                (&a.0.location.path, a.0.location.span.start)
                    .cmp(&(&b.0.location.path, b.0.location.span.start))
            });
            let Some((lit, site, phrase)) = strings.into_iter().find_map(|(lit, site)| {
                let phrase = find_instruction(&re, &neg, &lit.text)?.to_string();
                Some((lit, site, phrase))
            }) else {
                continue;
            };
            let id = task.id.as_deref().unwrap_or("task");
            let phrase = phrase.split_whitespace().collect::<Vec<_>>().join(" ");
            let lower = phrase.to_lowercase();
            // The command to suggest: this phrase, or another one in the
            // same string (`Type-check the project with tsc` → `tsc`).
            let is_command = |t: &str| {
                let t = t.to_lowercase();
                COMMAND_PREFIXES.iter().any(|c| t.starts_with(c))
            };
            let command = if is_command(&lower) {
                lower.clone()
            } else {
                re.find_iter(&lit.text)
                    .map(|m| m.as_str().split_whitespace().collect::<Vec<_>>().join(" "))
                    .find(|t| is_command(t))
                    .unwrap_or_else(|| "npm test".to_string())
            };
            // A literal in a module that is only context (not reported)
            // is pointed at from the task instead.
            let literal_reported = p
                .modules
                .iter()
                .any(|m| m.report && m.path == lit.location.path);
            let primary = if literal_reported {
                lit.location.clone()
            } else {
                task.id_location.clone()
            };
            let mut d = sink
                .diag(
                    primary,
                    format!(
                        "agent task `{id}` is asked to \"{phrase}\": an agent can report success without running anything, \
                         and its verdict is not a recorded exit code"
                    ),
                )
                .with_help(format!(
                    "run the check in a `kind: 'shell'` task (`shell: {{ command: '{command}', expectedExitCode: 0 }}`) and keep the agent for judgement over its output"
                ));
            if !literal_reported {
                d = d.with_related(lit.location.clone(), "the instruction is written here");
            } else if !task.defines(&lit.location) {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn phrases() {
        let (Some(re), Ok(neg)) = (phrase_regex(), Regex::new(NEGATION)) else {
            panic!("regexes must compile");
        };
        let hit = |t: &str| find_instruction(&re, &neg, t).map(str::to_string);
        assert_eq!(hit("Run npm test and report").as_deref(), Some("npm test"));
        assert_eq!(
            hit("Run the test suite.").as_deref(),
            Some("Run the test suite")
        );
        assert_eq!(
            hit("Verify it compiles").as_deref(),
            Some("Verify it compiles")
        );
        assert_eq!(hit("type-check the project").as_deref(), Some("type-check"));
        assert_eq!(hit("cargo  test --all").as_deref(), Some("cargo  test"));
        assert_eq!(hit("Read tsconfig.json and explain it"), None);
        assert_eq!(hit("Do not run the tests; review the design."), None);
        assert_eq!(hit("Review the architecture"), None);
    }
}
