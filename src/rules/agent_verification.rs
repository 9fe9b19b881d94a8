//! `agent-verification`: an agent task asked to do deterministic
//! verification (run the tests, type-check, lint, build).

use std::sync::LazyLock;

use regex::Regex;

use super::{Area, Category, ProjectSink, ReportMeta, Rule, RuleMeta, Sites};
use crate::diagnostic::{Location, Severity};
use crate::project::config::Config;
use crate::project::{Project, StringLit};
use crate::rules::git_in_agent_task::{
    find_instruction_where, negation, reported_agent_tasks, task_strings,
};

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
    fix: crate::rules::FixAvailability::Never,
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
    r"run (?:the |all (?:the )?)?(?:full |complete |entire |whole )?(?:unit |integration |e2e )?(?:tests|test suites?)",
    r"run the (?:new |failing |updated )?test",
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

/// Compiled once (the language server runs the cross-module pass on every
/// keystroke).
fn phrase_regex() -> Option<&'static Regex> {
    static RE: LazyLock<Option<Regex>> = LazyLock::new(|| Regex::new(&phrase_pattern()).ok());
    RE.as_ref()
}

fn implementer_regex() -> Option<&'static Regex> {
    static RE: LazyLock<Option<Regex>> = LazyLock::new(|| Regex::new(IMPLEMENTER).ok());
    RE.as_ref()
}

/// Words of a task that changes code (its id, title or prompt).
const IMPLEMENTER: &str = r"(?i)\b(?:implement\w*|fix(?:es|ing)?|refactor\w*|develop|apply (?:the )?(?:fix|change|patch)\w*|write (?:the )?code|make (?:the )?changes?)\b";

/// Tool names that are also nouns in a prompt ("Configure ESLint", "the
/// TSC category"): an instruction only with a run verb or a command shape.
const BARE_TOOLS: &[&str] = &["tsc", "eslint", "vitest", "pytest"];

/// Verbs that run a tool named after them ("Run ESLint", "execute pytest").
const RUN_VERBS: &[&str] = &["run", "rerun", "re-run", "execute", "invoke", "call"];

/// Words before a phrase that make it a topic, not an instruction to run the
/// check now ("Document how to run tests", "hooks to run tests",
/// "Configure ESLint", "Set up Vitest").
const TOPIC_WORDS: &[&str] = &[
    "how",
    "when",
    "whether",
    "document",
    "describe",
    "explain",
    "guide",
    "hook",
    "hooks",
    "configure",
    "set",
    "select",
    "choose",
    "evaluate",
    "integrate",
    "identify",
    "find",
    "index",
    "parse",
    "define",
    "specify",
    "detect",
    "install",
    "recommend",
    "suggest",
    "compare",
    "review",
    "analyze",
    "analyse",
    "mention",
    "list",
    "reference",
    "using",
    "via",
    "like",
    "such",
];

/// Nouns a command can modify ("go test patterns", "pytest output").
const COMMAND_NOUNS: &[&str] = &[
    "patterns",
    "pattern",
    "files",
    "file",
    "config",
    "configuration",
    "configs",
    "framework",
    "frameworks",
    "output",
    "outputs",
    "results",
    "reports",
    "report",
    "plugin",
    "plugins",
    "rules",
    "setup",
    "category",
    "categories",
    "ref",
    "refs",
    "paths",
    "settings",
    "comments",
    "comment",
    "directives",
    "errors",
    "warnings",
    "version",
    "versions",
];

/// Things an agent writes commands into.
const AUTHORED: &[&str] = &[
    "job",
    "jobs",
    "step",
    "steps",
    "workflow",
    "workflows",
    "dockerfile",
    "makefile",
    "script",
    "scripts",
    "yaml",
    "yml",
];

/// Nouns after "run the test" that make it a test of something else.
const TEST_NOUNS: &[&str] = &[
    "deployment",
    "queries",
    "query",
    "scenarios",
    "scenario",
    "sequences",
    "sequence",
    "cases",
    "case",
    "harness",
    "plan",
    "environment",
    "data",
    "run",
    "load",
    "with",
    "at",
    "on",
];

/// Whether the phrase at `at..end` of `text` asks the agent to run the check:
/// a command with arguments or flags (`tsc --noEmit`, `npx vitest run`), a
/// run verb before a bare tool name ("Run ESLint"), or an imperative that
/// names the run ("Run the full test suite", "Type-check the project") —
/// not a tool named as a topic ("Configure ESLint", "Trust Services
/// Criteria (TSC)", "eslint-disable comments", the title "ESLint Setup").
fn is_run_instruction(text: &str, at: usize, end: usize) -> bool {
    let phrase = text.get(at..end).unwrap_or("").to_lowercase();
    let after = text.get(end..).unwrap_or("");
    // `eslint-disable`, `typecheck-project`: part of a longer name.
    let mut rest = after.chars();
    if matches!(rest.next(), Some('-' | '.' | '/' | '_'))
        && rest.next().is_some_and(char::is_alphanumeric)
    {
        return false;
    }
    let next_word: String = after
        .trim_start_matches([' ', '\t'])
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '-')
        .collect::<String>()
        .to_lowercase();
    if COMMAND_NOUNS.contains(&next_word.as_str()) {
        return false;
    }
    // "Run the test deployment", "run the test queries": a test of something
    // else, not the project's test suite.
    if phrase.ends_with("test") && TEST_NOUNS.contains(&next_word.as_str()) {
        return false;
    }
    let flags = after.starts_with([' ', '\t'])
        && after
            .trim_start()
            .strip_prefix('-')
            .is_some_and(|f| f.starts_with(|c: char| c.is_ascii_alphabetic() || c == '-'));
    let before = text.get(..at).unwrap_or("");
    let sentence = before
        .rfind(['.', '!', '?', ';', '\n'])
        .map_or(before, |i| &before[i + 1..]);
    let clause = sentence
        .rfind([',', ':', '(', '`', '\'', '"', '+', '|'])
        .map_or(sentence, |i| &sentence[i + 1..]);
    let words: Vec<String> = clause
        .split(|c: char| !c.is_alphanumeric() && c != '-')
        .filter(|w| !w.is_empty() && !w.chars().all(|c| c.is_ascii_digit()))
        .map(str::to_lowercase)
        .collect();
    let sentence_words: Vec<String> = sentence
        .split(|c: char| !c.is_alphanumeric() && c != '-')
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    if sentence_words
        .iter()
        .any(|w| TOPIC_WORDS.contains(&w.as_str()))
    {
        return false;
    }
    let open = sentence.matches('(').count() > sentence.matches(')').count();
    let ran = sentence_words
        .iter()
        .any(|w| RUN_VERBS.contains(&w.as_str()));
    let bare = BARE_TOOLS.contains(&phrase.as_str());
    if bare {
        // A tool name alone runs nothing: a run verb before it or flags after.
        return ran || flags;
    }
    if matches!(
        phrase.as_str(),
        "typecheck"
            | "type-check"
            | "typechecking"
            | "type-checking"
            | "typechecks"
            | "type-checks"
    ) {
        // "Type-check the project": the verb itself, starting its clause.
        let object = after.starts_with([' ', '\t'])
            && !next_word.is_empty()
            && !next_word.starts_with("and");
        return ran || (words.is_empty() && object && !open);
    }
    // A Dockerfile step the agent is to write (`RUN npm run build`), not a run.
    if before.trim_end().ends_with("RUN") {
        return false;
    }
    // A command the agent is to write into a CI job, a script or a
    // Dockerfile ("add a step to the test job: npm test --prefix …") runs
    // nothing now, unless the sentence also says to run it.
    if !ran
        && sentence_words
            .iter()
            .any(|w| AUTHORED.contains(&w.as_str()))
    {
        return false;
    }
    // In parentheses a command illustrates ("the validate job: lint, build,
    // test (npm test --prefix …)"); it is an instruction only with a run verb.
    !open || ran
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
        let (Some(re), Some(neg)) = (phrase_regex(), negation()) else {
            return;
        };
        let implementer = implementer_regex();
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
            // An agent that also changes code runs the checks as it works;
            // what it lacks is a recorded gate after it, not a replacement.
            let implements = implementer.is_some_and(|re| {
                task.id.as_deref().is_some_and(|id| re.is_match(id))
                    || strings.iter().any(|(lit, _)| re.is_match(&lit.text))
            });
            let Some((lit, site, phrase)) = strings.into_iter().find_map(|(lit, site)| {
                let (_, phrase) = find_instruction_where(re, neg, &lit.text, is_run_instruction)?;
                let phrase = phrase.to_string();
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
                .with_help(if implements {
                    format!(
                        "keep the agent's own runs as it works, and add a shell gate after it: a `kind: 'shell'` task (`shell: {{ command: '{command}' }}`) whose exit code is recorded and returned for the process to branch on"
                    )
                } else {
                    format!(
                        "run the check in a `kind: 'shell'` task instead (`shell: {{ command: '{command}' }}`): its exit code is recorded and returned for the process to branch on; keep an agent for judgement over its output"
                    )
                });
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
        let (Some(re), Some(neg)) = (phrase_regex(), negation()) else {
            panic!("regexes must compile");
        };
        let hit = |t: &str| {
            find_instruction_where(re, neg, t, is_run_instruction).map(|(_, p)| p.to_string())
        };
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

    #[test]
    fn a_tool_named_is_not_a_tool_run() {
        let (Some(re), Some(neg)) = (phrase_regex(), negation()) else {
            panic!("regexes must compile");
        };
        let hit = |t: &str| {
            find_instruction_where(re, neg, t, is_run_instruction).map(|(_, p)| p.to_string())
        };
        for yes in [
            "Run full test suite",
            "Run the full test suite and report failures",
            "Run ESLint with project configuration",
            "Type-check the project with tsc --noEmit",
            "Run lint, format, and typecheck",
            "Run tests and fix any failures",
            "Create and run tests for the library",
            "tsc --noEmit",
            "Run tests",
            "Run the test and confirm it fails",
            "Validate the pipeline setup and run integration tests",
        ] {
            assert!(hit(yes).is_some(), "{yes}");
        }
        for no in [
            "Phase 3: Assess Availability TSC",
            "Generate Control Matrix (by TSC category)",
            "3. **eslint-disable comments**: what rule was disabled and why?",
            "ESLint Setup - web",
            "Configure ESLint and Prettier",
            "Set up Vitest for frontend",
            "Select and configure test framework (Jest/pytest/go test)",
            "Document how to run tests",
            "Set up pre-commit hooks to run tests before code is committed",
            "Run test queries",
            "Run the test deployment",
            "  - RUN npm run build:sdk",
            "Add a plugin tests step to the test job: npm test --prefix plugins/x",
            "  - The validate job: lint, build, test (npm test --prefix plugins/x)",
            "Quality pipeline: lint + format + typecheck",
            "Parse all error lines from the tsc output.",
            "Detect test runner: check for vitest.config, jest.config, pytest.ini, go test patterns",
        ] {
            assert_eq!(hit(no), None, "{no}");
        }
    }
}
