//! `git-in-agent-task`: an agent told to write to git inside a replayable
//! task.

use std::collections::BTreeSet;
use std::sync::{Arc, LazyLock, Mutex};

use regex::Regex;

use super::{Area, Category, ProjectSink, ReportMeta, Rule, RuleMeta, Sites};
use crate::diagnostic::Location;
use crate::diagnostic::Severity;
use crate::project::config::Config;
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
    fix: crate::rules::FixAvailability::Never,
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

/// The phrase regex for a configuration, compiled once per distinct
/// pattern: the language server runs the cross-module pass on every
/// keystroke, and compiling the two regexes was a tenth of it.
fn phrase_regex(config: &Config) -> Option<Arc<Regex>> {
    static BUILT: Mutex<Vec<(String, Arc<Regex>)>> = Mutex::new(Vec::new());
    let pattern = phrase_pattern(config);
    let mut built = BUILT
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    if let Some((_, re)) = built.iter().find(|(p, _)| *p == pattern) {
        return Some(re.clone());
    }
    let re = Arc::new(Regex::new(&pattern).ok()?);
    built.push((pattern, re.clone()));
    Some(re)
}

/// [`NEGATION`], compiled once.
pub(crate) fn negation() -> Option<&'static Regex> {
    static RE: LazyLock<Option<Regex>> = LazyLock::new(|| Regex::new(NEGATION).ok());
    RE.as_ref()
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
    find_instruction_where(re, neg, text, |_, _, _| true).map(|(_, m)| m)
}

/// [`find_instruction`] with the phrase's byte offset in `text`, among the
/// matches `accept(text, start, end)` takes.
pub fn find_instruction_where<'a>(
    re: &Regex,
    neg: &Regex,
    text: &'a str,
    accept: impl Fn(&str, usize, usize) -> bool,
) -> Option<(usize, &'a str)> {
    for m in re.find_iter(text) {
        if !accept(text, m.start(), m.end()) {
            continue;
        }
        let before = &text[..m.start()];
        let sentence_start = before
            .rfind(['.', '!', '?', ';', '\n'])
            .map(|i| i + 1)
            .unwrap_or(0);
        if !neg.is_match(&before[sentence_start..]) {
            return Some((m.start(), m.as_str()));
        }
    }
    None
}

/// Verbs that make a git phrase after them an instruction to perform it
/// ("create an atomic git commit", "run git push").
const PERFORM: &[&str] = &[
    "run", "execute", "perform", "do", "make", "create", "issue", "invoke", "generate", "produce",
    "stage", "use",
];

/// Verbs that make it a topic instead ("scan git commit history",
/// "simulate git commit", "define the git commit strategy").
const TOPIC: &[&str] = &[
    "simulate",
    "describe",
    "explain",
    "document",
    "mention",
    "review",
    "scan",
    "read",
    "check",
    "analyze",
    "analyse",
    "inspect",
    "parse",
    "suggest",
    "recommend",
    "define",
    "plan",
    "design",
    "configure",
    "list",
    "track",
    "count",
    "detect",
    "monitor",
    "validate",
    "verify",
    "show",
    "display",
    "summarize",
    "summarise",
    "report",
    "include",
    "note",
    "consider",
    "about",
    "like",
    "such",
    "via",
    "by",
    "for",
    "of",
    "on",
    "from",
    "with",
    "in",
];

/// Words a git phrase can follow in an instruction without changing it:
/// modals, connectives, articles.
const TRANSPARENT: &[&str] = &[
    "should", "must", "will", "shall", "can", "please", "finally", "now", "next", "also", "and",
    "to", "a", "an", "the", "each", "every", "one", "your", "then",
];

/// Nouns a git phrase can modify ("git commit history", "git merge
/// specialist"): a noun phrase, not an instruction.
const MODIFIED_NOUNS: &[&str] = &[
    "history",
    "strategy",
    "strategies",
    "message",
    "messages",
    "msg",
    "convention",
    "conventions",
    "hash",
    "hashes",
    "hook",
    "hooks",
    "log",
    "logs",
    "specialist",
    "workflow",
    "workflows",
    "trigger",
    "triggers",
    "event",
    "events",
    "access",
    "permission",
    "permissions",
    "policy",
    "policies",
    "rule",
    "rules",
    "format",
    "formats",
    "conflict",
    "conflicts",
    "graph",
    "signing",
    "author",
    "authors",
    "metadata",
    "template",
    "templates",
    "style",
    "guideline",
    "guidelines",
    "frequency",
    "granularity",
    "boundary",
    "boundaries",
    "sha",
    "id",
    "ids",
    "info",
    "information",
    "status",
    "operation",
    "operations",
    "step",
    "steps",
    "stage",
    "phase",
    "count",
];

/// Whether the phrase at `at..end` of `text` tells the agent to perform the
/// git write: written as a command (`git push -u origin`, `git commit -m`),
/// or as an imperative verb phrase ("Commit the changes", "then git tag the
/// release", "create an atomic git commit") — not a noun or a topic ("the
/// git commit strategy", "scan git commit history", "simulate git commit",
/// "triggers (git push, PR creation)").
pub fn is_instruction(text: &str, at: usize, end: usize) -> bool {
    let after = text.get(end..).unwrap_or("");
    let next_word: String = after
        .trim_start_matches([' ', '\t'])
        .chars()
        .take_while(|c| c.is_alphanumeric() || *c == '-')
        .collect::<String>()
        .to_lowercase();
    let command = after.starts_with([' ', '\t'])
        && (after.trim_start().starts_with('-')
            || matches!(next_word.as_str(), "origin" | "upstream" | "head"));
    let before = text.get(..at).unwrap_or("");
    let sentence = before
        .rfind(['.', '!', '?', ';', '\n'])
        .map_or(before, |i| &before[i + 1..]);
    let clause = sentence
        .rfind([',', ':', '(', '`', '\'', '"'])
        .map_or(sentence, |i| &sentence[i + 1..]);
    let words: Vec<String> = clause
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty() && !w.chars().all(|c| c.is_ascii_digit()))
        .map(str::to_lowercase)
        .collect();
    // A verb before the phrase decides; unknown words (adjectives, nouns)
    // are allowed only after a verb that performs it.
    let mut unknown = 0;
    let mut verdict = None;
    for w in words.iter().rev() {
        if TOPIC.contains(&w.as_str()) {
            verdict = Some(false);
            break;
        }
        if PERFORM.contains(&w.as_str()) {
            verdict = Some(true);
            break;
        }
        if TRANSPARENT.contains(&w.as_str()) {
            continue;
        }
        unknown += 1;
        if unknown > 3 {
            verdict = Some(false);
            break;
        }
    }
    let verdict = verdict.unwrap_or(unknown == 0);
    if command {
        return !matches!(
            words.iter().rev().find(|w| TOPIC.contains(&w.as_str()) || PERFORM.contains(&w.as_str())),
            Some(w) if TOPIC.contains(&w.as_str())
        );
    }
    let open = sentence.matches('(').count() > sentence.matches(')').count();
    let noun = MODIFIED_NOUNS.contains(&next_word.as_str());
    verdict && !open && !noun
}

/// The git write a phrase names, for a message and a help that fit it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Operation {
    Commit,
    Push,
    Tag,
    /// `rebase`, `reset --hard`, `merge`: rewrites or moves a branch.
    Rewrite,
    /// A configured phrase that names none of these.
    Other,
}

/// What happens again, and where: the same for every operation.
const RERUN: &str =
    "a retry of the task, or a resumed run whose effect was still pending, runs the agent";

impl Operation {
    fn of(phrase: &str) -> Operation {
        let p = phrase.to_lowercase();
        let has = |w: &str| p.split(|c: char| !c.is_alphanumeric()).any(|x| x == w);
        if has("push") {
            Operation::Push
        } else if has("tag") {
            Operation::Tag
        } else if has("commit") {
            Operation::Commit
        } else if has("rebase") || has("reset") || has("merge") {
            Operation::Rewrite
        } else {
            Operation::Other
        }
    }

    fn consequence(self) -> String {
        match self {
            Operation::Commit => format!(
                "the commit happens inside the agent's effect, where nothing records it, so {RERUN} \
                 and its commit again"
            ),
            // Pushing a branch that has not moved is a no-op: say so, and
            // what is not one.
            Operation::Push => format!(
                "the push happens inside the agent's effect, so {RERUN} and its push again: a no-op \
                 when the branch has not moved since, but a publication of whatever the rerun \
                 committed when it has"
            ),
            Operation::Tag => format!(
                "the tag is created inside the agent's effect, where nothing records it, so {RERUN} \
                 again, and `git tag` of a name that exists fails"
            ),
            Operation::Rewrite => format!(
                "the branch is rewritten inside the agent's effect, where nothing records it, so \
                 {RERUN} and its rewrite again, on a history the first run already changed"
            ),
            Operation::Other => format!(
                "the git write happens inside the agent's effect, where nothing records it, so \
                 {RERUN} and its write again"
            ),
        }
    }

    fn help(self) -> &'static str {
        match self {
            Operation::Commit => {
                "drop the git instruction from the prompt and commit in a `kind: 'shell'` task after \
                 the agent, whose command is recorded and can be made idempotent \
                 (`git diff --cached --quiet || git commit -m …`)"
            }
            Operation::Push => {
                "drop the push from the prompt and push in a `kind: 'shell'` task after the agent \
                 (`git push -u origin <branch>`), whose command and exit code are recorded"
            }
            Operation::Tag => {
                "drop the tag from the prompt and tag in a `kind: 'shell'` task after the agent, \
                 whose command is recorded and can be made idempotent \
                 (`git rev-parse -q --verify refs/tags/v1.2.0 || git tag v1.2.0`)"
            }
            Operation::Rewrite => {
                "drop the instruction from the prompt and run it in a `kind: 'shell'` task after the \
                 agent, whose command and exit code are recorded, guarded so a rerun finds the work \
                 done (e.g. `git merge-base --is-ancestor <branch> HEAD || git merge <branch>`)"
            }
            Operation::Other => {
                "drop the git instruction from the prompt and do the write in a `kind: 'shell'` task \
                 after the agent, whose command and exit code are recorded and which can be made \
                 idempotent"
            }
        }
    }
}

/// The flag a git phrase is conditional on, written in its sentence: "git
/// commit if autoPublish enabled", "If `autoCommit` is true, commit your
/// work", "(when auto_push is set)". The flag must read as an option name
/// (camelCase, snake_case, or in backticks), so "if the tests pass" is
/// not one.
pub fn flag_condition(text: &str, at: usize, end: usize) -> Option<&str> {
    static RE: LazyLock<Option<Regex>> = LazyLock::new(|| {
        Regex::new(
            r"\b(?i:if|when|only\s+if|only\s+when)\s+(?:(?i:the)\s+)?(?:`(?P<quoted>[A-Za-z_][\w.-]*)`|(?P<flag>[a-z][a-z0-9]*(?:[A-Z][A-Za-z0-9]*)+|[a-z][a-z0-9]*(?:_[a-z0-9]+)+))(?:\s+(?i:option|flag|setting|parameter|input))?(?:\s+(?i:is|are))?\s*(?:(?i:enabled|true|set|on|turned\s+on|requested)\b|[:),]|$)",
        )
        .ok()
    });
    let re = RE.as_ref()?;
    // A sentence ends at `!?;`, a line break, or a full stop before a
    // space (`options.push` is one name).
    let ends = |i: usize, c: char| {
        matches!(c, '!' | '?' | ';' | '\n')
            || (c == '.' && text[i + 1..].chars().next().is_none_or(char::is_whitespace))
    };
    let start = text
        .get(..at)?
        .char_indices()
        .rev()
        .find(|&(i, c)| ends(i, c))
        .map_or(0, |(i, _)| i + 1);
    let stop = text
        .get(end..)?
        .char_indices()
        .find(|&(i, c)| ends(end + i, c))
        .map_or(text.len(), |(i, _)| end + i);
    let sentence = text.get(start..stop)?;
    let caps = re.captures(sentence)?;
    let flag = caps.name("quoted").or_else(|| caps.name("flag"))?.as_str();
    Some(flag.rsplit('.').next().unwrap_or(flag))
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
        let (Some(re), Some(neg)) = (phrase_regex(config), negation()) else {
            return;
        };
        for (mi, ti, task) in reported_agent_tasks(p) {
            let Some(prompt) = &task.prompt else { continue };
            let strings = task_strings(p, mi, ti, prompt);
            // A flag is on by default when the task's module, or a module
            // that dispatches it, defaults it to `true`; a flag nobody
            // defaults is off until a caller passes it.
            let mut flag_modules: BTreeSet<usize> = p
                .invocations_of(mi, ti)
                .into_iter()
                .map(|(mj, _)| mj)
                .collect();
            flag_modules.insert(mi);
            let on_by_default = |flag: &str| {
                flag_modules.iter().any(|&mj| {
                    p.modules[mj]
                        .flag_defaults
                        .iter()
                        .any(|(name, value)| &**name == flag && *value)
                })
            };
            let accept = |text: &str, at: usize, end: usize| {
                is_instruction(text, at, end)
                    && flag_condition(text, at, end).is_none_or(&on_by_default)
            };
            let id = task.id.as_deref().unwrap_or("task");
            let mut seen = BTreeSet::new();
            // Every string of the prompt that instructs a git write; one
            // finding per task, at the first, the others related.
            let mut hits = Vec::new();
            for (lit, site) in strings {
                if lit
                    .guard
                    .as_deref()
                    .is_some_and(|flag| !on_by_default(flag))
                {
                    continue;
                }
                let Some((at, phrase)) = find_instruction_where(&re, neg, &lit.text, accept) else {
                    continue;
                };
                let key = (lit.location.path.clone(), lit.location.span);
                if !seen.insert(key) {
                    continue;
                }
                let location = phrase_location(&lit, at, phrase.len());
                hits.push((location, phrase.to_string(), lit.location.clone(), site));
            }
            let Some((location, phrase, lit_location, site)) = hits.first().cloned() else {
                continue;
            };
            let operation = Operation::of(&phrase);
            let mut d = sink
                .diag(
                    location,
                    format!(
                        "agent task `{id}` is told to \"{phrase}\": {}",
                        operation.consequence()
                    ),
                )
                .with_help(operation.help());
            if !task.defines(&lit_location) {
                d = d.with_related(
                    task.definition.clone(),
                    format!("agent task `{id}` is defined here"),
                );
            }
            if let Some(site) = site {
                d = d.with_related(site, "the instruction is passed in the task's args here");
            }
            for (other, phrase, _, _) in hits.iter().skip(1) {
                d = d.with_related(other.clone(), format!("also told to \"{phrase}\" here"));
            }
            sink.push(d);
        }
    }
}

/// Where the phrase at `at` (bytes, `len` long) of a literal's text is in
/// the file, when the literal is written verbatim (its span is its text
/// plus the two quotes); otherwise the whole literal.
fn phrase_location(lit: &StringLit, at: usize, len: usize) -> Location {
    let loc = &lit.location;
    let (Some(head), Some(phrase)) = (lit.text.get(..at), lit.text.get(at..at + len)) else {
        return loc.clone();
    };
    if loc.span.end.saturating_sub(loc.span.start) != lit.text.len() + 2 || phrase.contains('\n') {
        return loc.clone();
    }
    let units = |t: &str| t.chars().map(char::len_utf16).sum::<usize>() as u32;
    let start = match head.rfind('\n') {
        None => crate::source::Pos {
            line: loc.start.line,
            column: loc.start.column + 1 + units(head),
        },
        Some(nl) => crate::source::Pos {
            line: loc.start.line + head.matches('\n').count() as u32,
            column: 1 + units(&head[nl + 1..]),
        },
    };
    let end = crate::source::Pos {
        line: start.line,
        column: start.column + units(phrase),
    };
    let from = loc.span.start + 1 + at;
    Location {
        path: loc.path.clone(),
        span: crate::source::Span::new(from, from + len),
        start,
        end,
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

    #[test]
    fn flag_conditions() {
        let flag = |t: &str| {
            let at = t.to_lowercase().find("commit").unwrap_or(0);
            flag_condition(t, at, at + 6).map(str::to_string)
        };
        assert_eq!(
            flag("Generate git commit if autoPublish enabled:").as_deref(),
            Some("autoPublish")
        );
        assert_eq!(
            flag("If `autoCommit` is true, commit your work.").as_deref(),
            Some("autoCommit")
        );
        assert_eq!(
            flag("Commit the changes (only when auto_commit is set)").as_deref(),
            Some("auto_commit")
        );
        assert_eq!(
            flag("If `options.push` is on, commit and push.").as_deref(),
            Some("push")
        );
        // Conditions that are not option names, or in another sentence.
        assert_eq!(flag("If the tests pass, commit your fixes."), None);
        assert_eq!(flag("When done, commit the changes."), None);
        assert_eq!(
            flag("Skip this if dryRun is set. Commit the changes."),
            None
        );
    }

    #[test]
    fn operations() {
        assert_eq!(Operation::of("git push"), Operation::Push);
        assert_eq!(Operation::of("push to origin"), Operation::Push);
        assert_eq!(Operation::of("Commit your fixes"), Operation::Commit);
        assert_eq!(Operation::of("git tag"), Operation::Tag);
        assert_eq!(Operation::of("git reset --hard"), Operation::Rewrite);
        assert_eq!(Operation::of("publish the release"), Operation::Other);
        assert!(Operation::Push.help().contains("git push"));
        assert!(!Operation::Push.help().contains("git commit"));
        assert!(Operation::Push
            .consequence()
            .contains("no-op when the branch has not moved"));
    }

    #[test]
    fn instructions_not_nouns() {
        let (Some(re), Ok(neg)) = (phrase_regex(&Config::default()), Regex::new(NEGATION)) else {
            panic!("regexes must compile");
        };
        let hit = |t: &str| {
            find_instruction_where(&re, &neg, t, is_instruction).map(|(_, p)| p.to_string())
        };
        for yes in [
            "Commit the changes with a descriptive message",
            "Push branch to remote: git push -u origin main",
            "Use the docs() convention: git commit -m \"docs: x\"",
            "Create atomic git commit for test files",
            "Bump the version, then git tag the release",
            "When done, git commit your work.",
            "Stage the files and git commit them.",
        ] {
            assert!(hit(yes).is_some(), "{yes}");
        }
        for no in [
            "Scan git commit history (if enabled):",
            "Define the git commit strategy (one commit per task)",
            "git merge specialist",
            "Configure scan triggers (git push, PR creation, scheduled)",
            "Simulate git commit (document commit hash)",
            "- Version bump and git tag",
            "Read the git commit message conventions.",
        ] {
            assert_eq!(hit(no), None, "{no}");
        }
    }
}
