//! The loop-instruction phrases and the caps that make them safe.
//!
//! Both are case-insensitive regular expressions. The loop phrases can be
//! replaced in `proclint.toml`:
//!
//! ```toml
//! [rules.unbounded-loop-instruction]
//! phrases = ["repeat until \\w+", "keep polishing until"]
//! ```

use std::ops::Range;
use std::sync::{Arc, LazyLock, Mutex, PoisonError};

use regex::Regex;

use crate::project::config::Config;

pub const RULE_ID: &str = "unbounded-loop-instruction";

/// A number a cap can name: digits or a word.
const N: &str =
    r"(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|fifteen|twenty)";

/// The object of an open-ended "until": an optional ✅ and a determiner,
/// then one word and its verb when it has one (`until approved`,
/// `until ✅ approved`, `until the reviewer approves`, `until no findings
/// remain`).
const OBJECT: &str = r"(?:\s+(?:✅\s*)?(?:(?:the|all|no|every)\s+)?[\w'’-]+(?:\s+(?:approves?|pass(?:es)?|remains?))?)?";

/// Default loop phrases.
pub fn default_phrases() -> Vec<String> {
    vec![
        format!(r"\brepeat(?:ing)?\s+until\b{OBJECT}"),
        format!(r"\b(?:loop|iterate)\s+until\b{OBJECT}"),
        format!(r"\bkeep\s+(?:fixing|iterating|reviewing)\b[^.;:\n]{{0,60}}?\buntil\b{OBJECT}"),
        format!(r"\bre-?review(?:ing)?\s+until\b{OBJECT}"),
        r"\buntil\s+(?:the\s+)?reviewers?\s+approves?\b".to_string(),
        r"\buntil\s+all\s+(?:the\s+)?(?:tests|checks)\s+pass(?:es)?\b".to_string(),
        r"\buntil\s+no\s+(?:more\s+)?(?:issues|findings)\s+remain\b".to_string(),
    ]
}

/// Statements of a cap or a breaker.
fn cap_patterns() -> Vec<String> {
    vec![
        format!(r"\bup\s+to\s+{N}\b"),
        format!(r"\bat\s+most\s+{N}\b"),
        format!(r"\bmax(?:imum)?\b[\s.:=]*(?:of\s+)?{N}\b"),
        format!(
            r"\b{N}\s+(?:\w+\s+)?(?:rounds?|attempts?|iterations?|times|tries|cycles|passes)\b"
        ),
        format!(r"\b{N}-(?:round|attempt|iteration|pass|try|cycle)s?\b"),
        format!(
            r"\bafter\s+{N}\s+(?:\w+\s+)?(?:failures?|failed\s+\w+|attempts?|rounds?|tries|iterations?)\b"
        ),
        r"\bcircuit[- ]?breakers?\b".to_string(),
        r"\bescalat\w*\s+after\b".to_string(),
        format!(r"\bround\s+\w+\s+of\s+{N}\b"),
    ]
}

/// Conditions that end a loop by themselves: an algorithm's convergence
/// ("until convergence", "until ranks stabilise"), or a clause naming both
/// end states ("until verified or a real counterexample is found").
static SELF_BOUNDED: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r"(?i)\b(?:converge[ds]?|convergence|converging|stabili[sz]\w*|fixpoint|fixed[- ]point)\b|\bor\b",
    )
    .ok()
});

/// Conditions a reviewer's judgement decides ("approved", "no new
/// issues", "the reviewer is satisfied"): fresh reviews keep finding
/// something, so these loops need a cap even inside one agent.
static REVIEW_SHAPED: LazyLock<Option<Regex>> = LazyLock::new(|| {
    Regex::new(
        r"(?i)approv|review|satisf|accept|happy|lgtm|sign(?:ed)?[- ]?off|objection|critique|feedback|concerns?\b|\bissues?\b|\bfindings?\b|\bcomments?\b|\bproblems?\b",
    )
    .ok()
});

/// Whether a condition is a measurable target the agent checks itself
/// ("compliant", "QoR targets met", "clean", "all tests pass"), not a
/// reviewer's verdict.
pub fn measurable(condition: &str) -> bool {
    REVIEW_SHAPED
        .as_ref()
        .is_some_and(|re| !re.is_match(condition))
}

/// Whether the loop phrase at `hit` is a step of a method, written as an
/// imperative of its own: "Iterate until …", "4. Iterate until …", "Fix
/// the errors. Repeat until clean.", "…, then repeat until …" — a
/// `repeat`/`iterate`/`loop until` that starts its sentence, list item or
/// clause (after a list marker and a "then"/"and"). "Keep fixing until",
/// "re-review until" and "until the reviewer approves" are never steps of
/// this kind: they name a review loop.
pub fn method_step(text: &str, hit: &Range<usize>) -> bool {
    let Some(phrase) = text.get(hit.clone()) else {
        return false;
    };
    let lower = phrase.to_ascii_lowercase();
    if !["repeat", "iterate", "loop"]
        .iter()
        .any(|w| lower.starts_with(w))
    {
        return false;
    }
    let before = text.get(..hit.start).unwrap_or("");
    let lead = before
        .char_indices()
        .rev()
        .find(|(_, c)| matches!(c, '.' | '!' | '?' | ';' | ':' | ',' | '\n' | '—'))
        .map_or(before, |(i, c)| &before[i + c.len_utf8()..]);
    let words: Vec<String> = lead
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty() && !w.chars().all(|c| c.is_ascii_digit()))
        .map(str::to_lowercase)
        .collect();
    words.iter().all(|w| matches!(w.as_str(), "then" | "and"))
}

/// At most this many words of a condition are quoted.
const CONDITION_WORDS: usize = 8;

/// What an "until" phrase waits for, as a range of `text`: from the word
/// after the phrase's last `until` to the end of its clause, at most
/// [`CONDITION_WORDS`] words. `None` for a phrase without `until` (a
/// configured one) or an empty condition.
pub fn condition(text: &str, hit: &Range<usize>) -> Option<Range<usize>> {
    let phrase = text.get(hit.clone())?;
    // ASCII lowercasing keeps byte offsets.
    let at = phrase.to_ascii_lowercase().rfind("until")?;
    let after = hit.start + at + "until".len();
    let rest = text.get(after..)?;
    let trimmed = rest.trim_start_matches(|c: char| c.is_whitespace() || c == '✅');
    let start = after + (rest.len() - trimmed.len());
    let clause_len = trimmed
        .find(|c: char| {
            matches!(
                c,
                '.' | ';' | ',' | ':' | '\n' | '(' | ')' | '—' | '!' | '?' | '"' | '`' | '*'
            )
        })
        .unwrap_or(trimmed.len());
    let clause = trimmed.get(..clause_len)?;
    let mut end = 0;
    let mut words = 0;
    let mut in_word = false;
    for (i, c) in clause.char_indices() {
        if c.is_whitespace() {
            if in_word {
                words += 1;
                in_word = false;
                if words == CONDITION_WORDS {
                    break;
                }
            }
        } else {
            in_word = true;
            end = i + c.len_utf8();
        }
    }
    (end > 0).then(|| start..start + end)
}

/// Whether the match at `start` is "loop" used as a noun ("the feedback
/// loop until approved", describing a process) rather than an instruction
/// ("Loop until approved", "then loop until …"): a word other than a
/// connective or a modal right before it.
fn noun_loop(text: &str, start: usize) -> bool {
    let Some(rest) = text.get(start..) else {
        return false;
    };
    if !rest
        .get(..4)
        .is_some_and(|w| w.eq_ignore_ascii_case("loop"))
    {
        return false;
    }
    let before = text
        .get(..start)
        .unwrap_or("")
        .trim_end_matches([' ', '\t']);
    let word: String = before
        .chars()
        .rev()
        .take_while(|c| c.is_alphanumeric() || *c == '-')
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .collect();
    !word.is_empty()
        && !matches!(
            word.to_lowercase().as_str(),
            "then"
                | "and"
                | "to"
                | "or"
                | "should"
                | "must"
                | "will"
                | "please"
                | "always"
                | "just"
        )
}

/// Whether a condition ends the loop by itself (see [`SELF_BOUNDED`]).
pub fn self_bounded(condition: &str) -> bool {
    SELF_BOUNDED
        .as_ref()
        .is_some_and(|re| re.is_match(condition))
}

/// What the message says is missing besides a cap, worded for the phrase.
pub fn missing_exit(condition: Option<&str>) -> String {
    match condition {
        Some(c) if c.to_lowercase().contains("approv") => {
            "what happens when approval never comes".to_string()
        }
        Some(c) => format!("what happens if \"{c}\" never holds"),
        None => "when to stop".to_string(),
    }
}

// Shared, never cloned: a cloned `Regex` starts with empty caches, so each
// SKILL.md would rebuild the lazy DFA from scratch.
static DEFAULT_PHRASES: LazyLock<Option<Arc<Regex>>> =
    LazyLock::new(|| combine(&default_phrases()).ok().map(Arc::new));
static CAPS: LazyLock<Option<Regex>> = LazyLock::new(|| combine(&cap_patterns()).ok());

/// One case-insensitive alternation, so overlapping phrases match once.
fn combine(patterns: &[String]) -> Result<Regex, regex::Error> {
    Regex::new(&alternation(patterns))
}

fn alternation(patterns: &[String]) -> String {
    let alternation = patterns
        .iter()
        .map(|p| format!("(?:{p})"))
        .collect::<Vec<_>>()
        .join("|");
    format!("(?i){alternation}")
}

/// The configured phrases (or the defaults) and the caps, as patterns
/// (see `crate::rules::literals`); a configured list that does not compile
/// matches nothing, like in [`Matchers`].
pub(crate) fn patterns(config: &Config) -> Vec<String> {
    let phrases = configured(config).unwrap_or_else(default_phrases);
    vec![alternation(&phrases), alternation(&cap_patterns())]
}

fn configured(config: &Config) -> Option<Vec<String>> {
    config.rule_options.get(RULE_ID).and_then(|t| {
        let items = t.get("phrases")?.as_array()?;
        Some(
            items
                .iter()
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect(),
        )
    })
}

/// Validates the `phrases` option of `[rules.unbounded-loop-instruction]`.
pub fn validate(options: &toml::Table) -> Result<(), String> {
    match options.get("phrases") {
        None => Ok(()),
        Some(toml::Value::Array(items)) => {
            let mut patterns = Vec::new();
            for item in items {
                match item {
                    toml::Value::String(s) => {
                        Regex::new(s)
                            .map_err(|e| format!("invalid regular expression `{s}`: {e}"))?;
                        patterns.push(s.clone());
                    }
                    _ => return Err("`phrases` must be an array of strings".into()),
                }
            }
            combine(&patterns)
                .map(|_| ())
                .map_err(|e| format!("invalid `phrases`: {e}"))
        }
        Some(_) => Err("`phrases` must be an array of strings".into()),
    }
}

/// The configured phrases compiled once per distinct list (a run lints
/// every SKILL.md with the same one).
fn configured_regex(patterns: Vec<String>) -> Option<Arc<Regex>> {
    type Built = Vec<(Vec<String>, Option<Arc<Regex>>)>;
    static BUILT: Mutex<Built> = Mutex::new(Vec::new());
    let mut built = BUILT.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some((_, re)) = built.iter().find(|(p, _)| *p == patterns) {
        return re.clone();
    }
    // Validated when the config was loaded; a bad list disables matching
    // rather than panicking.
    let re = combine(&patterns).ok().map(Arc::new);
    built.push((patterns, re.clone()));
    re
}

/// The matchers for one run: configured phrases (or the defaults) and caps.
pub struct Matchers {
    phrases: Option<Arc<Regex>>,
}

impl Matchers {
    pub fn new(config: &Config) -> Matchers {
        Matchers {
            phrases: match configured(config) {
                Some(patterns) => configured_regex(patterns),
                None => DEFAULT_PHRASES.clone(),
            },
        }
    }

    /// Loop phrases in `text`, as byte ranges.
    pub fn phrases(&self, text: &str) -> Vec<Range<usize>> {
        match &self.phrases {
            Some(re) => re
                .find_iter(text)
                .filter(|m| !m.is_empty() && !noun_loop(text, m.start()))
                .map(|m| m.range())
                .collect(),
            None => Vec::new(),
        }
    }

    /// Statements of a cap or a breaker in `text`, as byte ranges.
    pub fn caps(&self, text: &str) -> Vec<Range<usize>> {
        match CAPS.as_ref() {
            Some(re) => re.find_iter(text).map(|m| m.range()).collect(),
            None => Vec::new(),
        }
    }

    #[cfg(test)]
    fn has_cap(&self, text: &str) -> bool {
        !self.caps(text).is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn found(text: &str) -> Vec<&str> {
        let m = Matchers::new(&Config::default());
        m.phrases(text)
            .into_iter()
            .filter_map(|r| text.get(r))
            .collect()
    }

    #[test]
    fn loop_phrases() {
        assert_eq!(
            found("Repeat until approved."),
            vec!["Repeat until approved"]
        );
        assert_eq!(
            found("repeat until ✅ approved"),
            vec!["repeat until ✅ approved"]
        );
        assert_eq!(found("Loop until all green"), vec!["Loop until all green"]);
        assert_eq!(found("then loop until green"), vec!["loop until green"]);
        assert!(found("Iterates with the feedback loop until approved").is_empty());
        assert_eq!(
            found("keep fixing the code until it passes"),
            vec!["keep fixing the code until it passes"]
        );
        assert_eq!(
            found("Keep fixing until the reviewer approves."),
            vec!["Keep fixing until the reviewer approves"]
        );
        assert_eq!(
            found("Re-review until no findings remain."),
            vec!["Re-review until no findings remain"]
        );
        assert_eq!(
            found("Re-review until clean, then merge"),
            vec!["Re-review until clean"]
        );
        assert_eq!(
            found("fix it until the reviewer approves"),
            vec!["until the reviewer approves"]
        );
        assert_eq!(found("until all tests pass"), vec!["until all tests pass"]);
        assert_eq!(
            found("until no findings remain"),
            vec!["until no findings remain"]
        );
        assert!(found("Wait until the build finishes").is_empty());
    }

    fn cond(text: &str) -> Option<&str> {
        let m = Matchers::new(&Config::default());
        let hit = m.phrases(text).into_iter().next()?;
        condition(text, &hit).and_then(|r| text.get(r))
    }

    #[test]
    fn conditions_run_to_the_clause_end() {
        assert_eq!(
            cond("Iterate until QoR targets met. Then ship"),
            Some("QoR targets met")
        );
        assert_eq!(cond("Repeat until ✅ approved"), Some("approved"));
        assert_eq!(
            cond("Iterate until the attacker has no new findings at all in any of the areas"),
            Some("the attacker has no new findings at all")
        );
        assert_eq!(cond("Repeat until"), None);
        assert_eq!(condition("keep polishing", &(0..4)), None);
    }

    #[test]
    fn convergence_and_named_end_states_are_bounded() {
        for yes in [
            "convergence",
            "ranks stabilize",
            "the estimate stabilises",
            "it converges",
            "a fixed point is reached",
            "verified or real counterexample",
            "property is proved or a counterexample found",
        ] {
            assert!(self_bounded(yes), "{yes}");
        }
        for no in [
            "approved",
            "compliant",
            "QoR targets met",
            "no new issues",
            "the reviewer is satisfied",
        ] {
            assert!(!self_bounded(no), "{no}");
        }
    }

    #[test]
    fn method_steps_with_measurable_targets() {
        let step = |text: &str| {
            let m = Matchers::new(&Config::default());
            let Some(hit) = m.phrases(text).into_iter().next() else {
                return false;
            };
            let c = condition(text, &hit).and_then(|r| text.get(r));
            method_step(text, &hit) && c.is_some_and(measurable)
        };
        for yes in [
            "5. Iterate until compliant",
            "Iterate until QoR targets met",
            "Run the type check. Fix any errors found. Repeat until clean.",
            "Fix the failures, then repeat until all tests pass",
            "- **Loop until green**",
            "Fix the failures — then loop until green",
        ] {
            assert!(step(yes), "{yes}");
        }
        for no in [
            "Iterate until no new issues",
            "Iterate until the attacker has no new findings",
            "Then repeat until the reviewer approves.",
            "Keep fixing the code until it passes",
            "Re-review until clean",
            "The reviewer reviews again and we repeat until clean",
        ] {
            assert!(!step(no), "{no}");
        }
    }

    #[test]
    fn the_missing_exit_is_worded_for_the_phrase() {
        assert_eq!(
            missing_exit(Some("the reviewer approves")),
            "what happens when approval never comes"
        );
        assert_eq!(
            missing_exit(Some("compliant")),
            "what happens if \"compliant\" never holds"
        );
        assert_eq!(missing_exit(None), "when to stop");
    }

    #[test]
    fn caps() {
        let m = Matchers::new(&Config::default());
        for yes in [
            "up to 3 rounds",
            "at most five",
            "max 3",
            "maximum of 4",
            "3 rounds",
            "five fix attempts",
            "a 3-round loop",
            "after 2 failures",
            "after three failed reviews",
            "use a circuit breaker",
            "escalate after the third",
            "Fix round R of 5",
        ] {
            assert!(m.has_cap(yes), "{yes}");
        }
        for no in ["repeat until approved", "round after round", "many times"] {
            assert!(!m.has_cap(no), "{no}");
        }
    }

    #[test]
    fn configured_phrases() {
        let mut t = toml::Table::new();
        t.insert(
            "phrases".into(),
            toml::Value::Array(vec![toml::Value::String("keep polishing".into())]),
        );
        assert!(validate(&t).is_ok());
        let mut c = Config::default();
        c.rule_options.insert(RULE_ID.into(), t);
        let m = Matchers::new(&c);
        assert_eq!(m.phrases("Keep polishing it").len(), 1);
        assert!(m.phrases("repeat until approved").is_empty());
        let mut bad = toml::Table::new();
        bad.insert(
            "phrases".into(),
            toml::Value::Array(vec![toml::Value::String("(".into())]),
        );
        assert!(validate(&bad).is_err());
    }
}
