//! Which string literals module summaries keep.
//!
//! The prompts, titles and instruction strings a summary records are only
//! read by the phrase-matching project rules (`agent-verification`,
//! `git-in-agent-task`, `unbounded-loop-instruction`), and each of them
//! only looks at a string one of its patterns matches somewhere (a phrase,
//! or for `unbounded-loop-instruction` also a cap). A string none of the
//! enabled rules' patterns match can never contribute to a finding, so the
//! per-file pass drops it instead of holding it until the cross-module
//! pass: most prompt text never reaches memory that lives for the run.
//!
//! The filter depends on the configuration (enabled rules, configured
//! phrases), which the result cache key covers.

use std::sync::{Arc, Mutex};

use regex::Regex;

use super::{agent_verification, git_in_agent_task, unbounded_loop_instruction};
use crate::project::config::Config;
use crate::rules::RuleSwitches;

/// The union of the phrase rules' patterns for one configuration.
pub struct LiteralFilter {
    /// `None`: keep every string (the union did not compile).
    union: Option<Regex>,
    /// No enabled rule reads strings.
    none: bool,
}

impl LiteralFilter {
    fn new(config: &Config) -> LiteralFilter {
        let mut patterns = Vec::new();
        if config.is_enabled("agent-verification") {
            patterns.push(agent_verification::phrase_pattern());
        }
        if config.is_enabled("git-in-agent-task") {
            patterns.push(git_in_agent_task::phrase_pattern(config));
            patterns.push(git_in_agent_task::context_pattern().to_string());
        }
        if config.is_enabled(unbounded_loop_instruction::phrases::RULE_ID) {
            patterns.extend(unbounded_loop_instruction::phrases::patterns(config));
        }
        // A pattern that does not compile leaves its rule matching nothing.
        patterns.retain(|p| Regex::new(p).is_ok());
        if patterns.is_empty() {
            return LiteralFilter {
                union: None,
                none: true,
            };
        }
        let union = patterns
            .iter()
            .map(|p| format!("(?:{p})"))
            .collect::<Vec<_>>()
            .join("|");
        LiteralFilter {
            union: Regex::new(&union).ok(),
            none: false,
        }
    }

    /// Whether a phrase rule may use `text`.
    pub fn keep(&self, text: &str) -> bool {
        match &self.union {
            _ if self.none => false,
            Some(re) => re.is_match(text),
            None => true,
        }
    }
}

/// The filter for `config`, built once per distinct configuration.
pub fn filter(config: &Config) -> Arc<LiteralFilter> {
    static BUILT: Mutex<Vec<(String, Arc<LiteralFilter>)>> = Mutex::new(Vec::new());
    let key = format!(
        "{:?}{:?}{:?}{:?}{:?}",
        config.is_enabled("agent-verification"),
        config.is_enabled("git-in-agent-task"),
        config.is_enabled(unbounded_loop_instruction::phrases::RULE_ID),
        config.rule_options.get("git-in-agent-task"),
        config
            .rule_options
            .get(unbounded_loop_instruction::phrases::RULE_ID),
    );
    let mut built = match BUILT.lock() {
        Ok(b) => b,
        Err(poisoned) => poisoned.into_inner(),
    };
    if let Some((_, f)) = built.iter().find(|(k, _)| *k == key) {
        return f.clone();
    }
    let f = Arc::new(LiteralFilter::new(config));
    // Configurations are few per process; bound the list anyway.
    if built.len() >= 16 {
        built.remove(0);
    }
    built.push((key, f.clone()));
    f
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_what_phrase_rules_match() {
        // Every phrase rule on (agent-verification is pedantic, off by default).
        let mut all = Config::default();
        all.select = Some(vec!["all".into()]);
        let f = LiteralFilter::new(&all);
        assert!(f.keep("Run npm test and report"));
        assert!(f.keep("Then git commit the fix."));
        assert!(f.keep("Repeat until approved."));
        assert!(f.keep("Fix round R of 5"));
        assert!(f.keep("at most 3 attempts"));
        assert!(!f.keep("Review the architecture for coupling."));
        assert!(!f.keep(""));
    }
}
