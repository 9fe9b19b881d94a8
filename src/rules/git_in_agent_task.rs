//! `git-in-agent-task`: an agent told to write to git inside its own
//! effect, where no breakpoint can precede the write and only the agent's
//! output can report it.

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
    "push (the |your )?(changes|commits|branch|work|it)",
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

    /// Whether what the write does stays in the local repository, so that
    /// an output reporting it leaves nothing the process could not act on.
    /// A push publishes, and a rewrite loses or moves work, whatever the
    /// output says afterwards.
    fn local(self) -> bool {
        matches!(self, Operation::Commit | Operation::Tag | Operation::Other)
    }

    /// What differs from a write in a task of its own. `reported`: the
    /// task's output declares a field for the git result (a sha, a hash,
    /// the commits).
    fn consequence(self, reported: bool) -> String {
        let unreported = |what: &str| {
            if reported {
                String::new()
            } else {
                format!(
                    ", and nothing in the task's output reports it (no sha, hash or commit \
                     field): its result does not say {what}"
                )
            }
        };
        match self {
            Operation::Commit => format!(
                "the commit is made inside the agent's effect, so the process cannot ask a \
                 breakpoint between the agent's changes and the commit{}",
                unreported("whether the agent committed, or what")
            ),
            Operation::Push => format!(
                "the push publishes inside the agent's effect, with whatever the agent changed \
                 in that task: no breakpoint can come between those changes and their \
                 publication{}",
                unreported("whether the agent pushed, or what")
            ),
            Operation::Tag => format!(
                "the tag is created inside the agent's effect, so the process cannot ask a \
                 breakpoint before it{}",
                unreported("whether the agent tagged, or what")
            ),
            Operation::Rewrite => format!(
                "the branch is rewritten inside the agent's effect, so the process cannot ask a \
                 breakpoint before the rewrite{}",
                unreported("where the branch ended up")
            ),
            Operation::Other => format!(
                "the git write happens inside the agent's effect, so the process cannot ask a \
                 breakpoint before it{}",
                unreported("whether it happened")
            ),
        }
    }

    fn help(self) -> &'static str {
        match self {
            Operation::Commit => {
                "commit in a task of its own after the agent — a `kind: 'shell'` task (`git diff \
                 --cached --quiet || git commit -m …`), which a breakpoint can precede and whose \
                 failure comes back as `{ success: false, exitCode, stderr }` — or keep the \
                 commit in the agent and have its output report it (`outputSchema` with a \
                 `commitSha` field)"
            }
            Operation::Push => {
                "drop the push from the prompt and push in a `kind: 'shell'` task of its own \
                 (`git push -u origin <branch>`), after the breakpoint that approves the agent's \
                 changes"
            }
            Operation::Tag => {
                "tag in a `kind: 'shell'` task of its own after the agent \
                 (`git rev-parse -q --verify refs/tags/v1.2.0 || git tag v1.2.0`), or have the \
                 agent's output report the tag and its sha"
            }
            Operation::Rewrite => {
                "drop the instruction from the prompt and run it in a `kind: 'shell'` task of its \
                 own after a breakpoint, guarded so a rerun finds the work done (e.g. \
                 `git merge-base --is-ancestor <branch> HEAD || git merge <branch>`)"
            }
            Operation::Other => {
                "do the git write in a `kind: 'shell'` task of its own, which a breakpoint can \
                 precede, or have the agent's output report it"
            }
        }
    }
}

/// Output field names that report a git write: `sha`, `commitHash`,
/// `commits`, `committed`, `pushed`, `tag`.
fn reports_git_result(field: &str) -> bool {
    let mut words = Vec::new();
    let mut cur = String::new();
    let mut prev_lower = false;
    for ch in field.chars() {
        if !ch.is_alphanumeric() {
            words.extend((!cur.is_empty()).then(|| std::mem::take(&mut cur)));
            prev_lower = false;
            continue;
        }
        if ch.is_uppercase() && prev_lower && !cur.is_empty() {
            words.push(std::mem::take(&mut cur));
        }
        prev_lower = ch.is_lowercase() || ch.is_ascii_digit();
        cur.extend(ch.to_lowercase());
    }
    words.extend((!cur.is_empty()).then_some(cur));
    words.iter().any(|w| {
        matches!(
            w.as_str(),
            "sha"
                | "sha1"
                | "hash"
                | "hashes"
                | "commit"
                | "commits"
                | "committed"
                | "pushed"
                | "tag"
                | "tagged"
        )
    })
}

/// A field for the git result named in the output the prompt asks for in
/// words (`outputFormat: 'JSON with commitHash (string)'`, "return the
/// commit sha").
fn asks_for_git_result(text: &str) -> bool {
    static RE: LazyLock<Option<Regex>> = LazyLock::new(|| {
        Regex::new(
            r"\b[a-z]+(?:Sha|SHA|Hash)e?s?\b|(?i:\b(?:sha1?|commit[_-]?(?:hash|sha|id)(?:es|s)?|commits?\s+(?:hash|sha)(?:es|s)?)\b)",
        )
        .ok()
    });
    RE.as_ref().is_some_and(|re| re.is_match(text))
}

/// Whether a task's output reports its git result: a declared field (in
/// `outputSchema`, or a schema written into the prompt), or one the prompt's
/// `outputFormat`/instructions ask for by name.
fn output_reports_git(p: &Project, module: usize, task: &TaskSummary) -> bool {
    let declared = [&task.schema_fields, &task.prompt_schema_fields]
        .into_iter()
        .flatten()
        .any(|fields| fields.iter().any(|(name, _)| reports_git_result(name)));
    declared
        || task.output_request.as_ref().is_some_and(|set| {
            p.resolve_strings(module, set)
                .iter()
                .any(|s| asks_for_git_result(&s.text))
        })
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
            sdk_hint: "Git writes keep landing in agent prompts: a built-in `git-commit` task kind, whose result records the commit it made, would give processes a place for them that a breakpoint can precede.",
        }
    }

    fn check_project(&self, p: &Project, config: &Config, sink: &mut ProjectSink) {
        let (Some(re), Some(neg)) = (phrase_regex(config), negation()) else {
            return;
        };
        // (task, finding, whether its write stays local): a local write's
        // severity depends on the other tasks' findings.
        let mut pending = Vec::new();
        for (mi, ti, task) in reported_agent_tasks(p) {
            let Some(prompt) = &task.prompt else { continue };
            let strings = task_strings(p, mi, ti, prompt);
            let texts: Vec<String> = strings.iter().map(|(lit, _)| lit.text.clone()).collect();
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
            // An output that reports the git result leaves a local write
            // nothing the process cannot see and act on before anything
            // is published: only a push or a rewrite is still reported.
            let reported = output_reports_git(p, mi, task);
            let accept = |text: &str, at: usize, end: usize| {
                is_instruction(text, at, end)
                    && flag_condition(text, at, end).is_none_or(&on_by_default)
                    && !(reported
                        && text
                            .get(at..end)
                            .is_some_and(|phrase| Operation::of(phrase).local()))
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
                // One literal often holds a whole release: "git commit …,
                // then git push …". Its first push or rewrite counts too.
                let publishing = Operation::of(phrase).local().then(|| {
                    find_instruction_where(&re, neg, &lit.text, |t, a, e| {
                        accept(t, a, e) && t.get(a..e).is_some_and(|p| !Operation::of(p).local())
                    })
                });
                let location = phrase_location(&lit, at, phrase.len());
                hits.push((
                    location,
                    phrase.to_string(),
                    lit.location.clone(),
                    site.clone(),
                ));
                if let Some((at, phrase)) = publishing.flatten() {
                    let location = phrase_location(&lit, at, phrase.len());
                    hits.push((location, phrase.to_string(), lit.location.clone(), site));
                }
            }
            // A push or a rewrite has the consequences a commit lacks: the
            // finding names it when the prompt asks for one.
            if let Some(i) = hits.iter().position(|h| !Operation::of(&h.1).local()) {
                let primary = hits.remove(i);
                hits.insert(0, primary);
            }
            let Some((location, phrase, lit_location, site)) = hits.first().cloned() else {
                continue;
            };
            if pushes_only_new_branch(&texts) {
                continue;
            }
            let operation = Operation::of(&phrase);
            let mut d = sink
                .diag(
                    location,
                    format!(
                        "agent task `{id}` is told to \"{phrase}\": {}",
                        operation.consequence(reported)
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
            pending.push(((mi, ti), d, operation.local()));
        }
        let writing: BTreeSet<(usize, usize)> = pending.iter().map(|(t, _, _)| *t).collect();
        for ((mi, ti), mut d, local) in pending {
            if let Some(peer) = batch_peer_writing(p, (mi, ti), &writing) {
                let peer = p.modules[peer.0].tasks[peer.1]
                    .id
                    .as_deref()
                    .unwrap_or("task");
                d.message.push_str(&format!(
                    "; agent task `{peer}`, which also writes to git, runs in the same \
                     `ctx.parallel` batch: two agents write to one repository at once (the \
                     index lock, each other's staged files)"
                ));
            }
            if local && !commit_meets_review(p, (mi, ti), &writing) {
                d.severity = Severity::Info;
                d.message.push_str(
                    "; no breakpoint follows the task and no task in its batch writes to git, so \
                     nothing is reviewed after the commit or races it: a note",
                );
            }
            sink.push(d);
        }
    }
}

/// Whether a local git write of task `task` (a commit, a tag) matters to
/// the process: some call of the task is always followed by a breakpoint
/// (which the commit then got ahead of), or runs in a `ctx.parallel` batch
/// beside a call of another task in `writing` (two agents writing to one
/// repository at once). A task nothing in the linted set calls is judged
/// as if it were.
fn commit_meets_review(
    p: &Project,
    task: (usize, usize),
    writing: &BTreeSet<(usize, usize)>,
) -> bool {
    let calls = p.invocations_of(task.0, task.1);
    if calls.is_empty() {
        return true;
    }
    calls
        .iter()
        .any(|&(mj, ii)| p.modules[mj].invocations[ii].breakpoint_follows)
        || batch_peer_writing(p, task, writing).is_some()
}

/// Another task in `writing` that some call of `task` runs beside in one
/// `ctx.parallel` batch, the first in source order.
fn batch_peer_writing(
    p: &Project,
    task: (usize, usize),
    writing: &BTreeSet<(usize, usize)>,
) -> Option<(usize, usize)> {
    p.invocations_of(task.0, task.1)
        .iter()
        .find_map(|&(mj, ii)| {
            let batch = p.modules[mj].invocations[ii].batch.as_ref()?;
            p.modules[mj].invocations.iter().find_map(|peer| {
                (peer.batch.as_ref() == Some(batch))
                    .then(|| p.task_of(mj, &peer.target))
                    .flatten()
                    .filter(|t| *t != task && writing.contains(t))
            })
        })
}

/// A branch a prompt creates (`git checkout -b X`, `git switch -c X`).
const CREATED_BRANCH_PATTERN: &str =
    r"(?i)\b(?:checkout\s+-b|switch\s+-c|git\s+branch)\s+([^\s`'\x22]+)";

/// What module summaries must keep of a prompt besides its git phrases:
/// the branch it creates, which [`pushes_only_new_branch`] compares with
/// the pushes.
pub(crate) fn context_pattern() -> &'static str {
    CREATED_BRANCH_PATTERN
}

static CREATED_BRANCH: LazyLock<Option<Regex>> =
    LazyLock::new(|| Regex::new(CREATED_BRANCH_PATTERN).ok());
static PUSHED_BRANCH: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(r"(?i)\bgit\s+push\s+(?:(?:-u|--set-upstream)\s+)?origin\s+([^\s`'\x22]+)").ok()
});
static WRITES_WORK: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\b(commit|commits|write|edit|modify|implement|fix|update|change|changes|refactor|add|apply|amend|merge|rebase|tag)\b",
    )
    .ok()
});

/// Whether the prompt only creates a branch and pushes it: it creates a
/// branch, every push that names one names a branch the same prompt creates (`git checkout -b X` … `git push -u
/// origin X`), and none of the prompt's strings that name git asks for a
/// change, a commit or another git write (a push carries commits only:
/// edits never committed are not published). Such a push publishes a copy of the base branch, no work of the
/// agent's, so no review could come between changes and their publication.
fn pushes_only_new_branch(texts: &[String]) -> bool {
    let (Some(created), Some(pushed), Some(writes)) = (
        CREATED_BRANCH.as_ref(),
        PUSHED_BRANCH.as_ref(),
        WRITES_WORK.as_ref(),
    ) else {
        return false;
    };
    let names: BTreeSet<&str> = texts
        .iter()
        .flat_map(|t| created.captures_iter(t))
        .filter_map(|c| c.get(1).map(|m| m.as_str()))
        .collect();
    // A push in words ("push the branch to the fork") pushes the branch
    // the prompt is about: the one it creates.
    !names.is_empty()
        && texts
            .iter()
            .flat_map(|t| pushed.captures_iter(t))
            .filter_map(|c| c.get(1).map(|m| m.as_str()))
            .all(|b| names.contains(b))
        && !texts.iter().any(|t| writes.is_match(t))
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
    fn a_push_of_a_branch_the_prompt_just_created() {
        let t = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert!(pushes_only_new_branch(&t(&[
            "Create and checkout the branch: git checkout -b ${args.b}",
            "Push branch to remote: git push -u origin ${args.b}",
        ])));
        assert!(pushes_only_new_branch(&t(&[
            "Use `git checkout -b <name>`",
            "Push the branch to the fork",
        ])));
        // Another branch, a commit, or no branch created: the push publishes work.
        assert!(!pushes_only_new_branch(&t(&[
            "git checkout -b feat",
            "git push -u origin main",
        ])));
        assert!(!pushes_only_new_branch(&t(&[
            "git checkout -b feat",
            "Commit the changes",
            "git push -u origin feat",
        ])));
        assert!(!pushes_only_new_branch(&t(&["git push -u origin feat"])));
    }

    #[test]
    fn push_phrases_in_words() {
        let re = Regex::new(&phrase_pattern(&Config::default())).unwrap_or_else(|e| panic!("{e}"));
        let neg = negation().unwrap_or_else(|| panic!("negation"));
        for text in [
            "Push changes to the branch",
            "Then push the commits.",
            "Push your work.",
        ] {
            assert!(find_instruction(&re, neg, text).is_some(), "{text}");
        }
        assert_eq!(Operation::of("Push changes"), Operation::Push);
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
            .consequence(true)
            .contains("no breakpoint can come between those changes"));
        assert!(!Operation::Push.consequence(true).contains("does not say"));
        assert!(Operation::Commit
            .consequence(false)
            .contains("does not say"));
        assert!(Operation::Commit.local() && !Operation::Push.local());
    }

    #[test]
    fn git_results_in_outputs() {
        for yes in [
            "sha",
            "commitHash",
            "commit_sha",
            "commits",
            "committed",
            "pushed",
            "tag",
        ] {
            assert!(reports_git_result(yes), "{yes}");
        }
        for no in ["summary", "filesChanged", "shape", "tags"] {
            assert!(!reports_git_result(no), "{no}");
        }
        assert!(asks_for_git_result(
            "JSON with success (boolean), commitHash (string)"
        ));
        assert!(asks_for_git_result("Return the commit sha."));
        assert!(!asks_for_git_result(
            "Commit the changes and return the files changed"
        ));
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
