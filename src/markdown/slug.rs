//! GitHub's heading anchors (the `github-slugger` algorithm), so `#anchor` links resolve the
//! way they do when the skill is read on GitHub.

use std::collections::HashMap;

/// The anchor of one heading text, before de-duplication: lowercased, spaces to `-`,
/// punctuation and symbols dropped, letters, digits, `-` and `_` kept.
pub fn slug(text: &str) -> String {
    text.to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            '-' | '_' => Some(c),
            c if c.is_alphanumeric() => Some(c),
            _ => None,
        })
        .collect()
}

/// Hands out anchors for the headings of one document in order: a repeated slug gets `-1`,
/// `-2`, … as on GitHub.
#[derive(Debug, Default)]
pub struct Slugger {
    seen: HashMap<String, usize>,
}

impl Slugger {
    pub fn slug(&mut self, text: &str) -> String {
        let base = slug(text);
        let mut candidate = base.clone();
        while let Some(count) = self.seen.get_mut(&candidate) {
            *count += 1;
            candidate = format!("{base}-{count}");
        }
        self.seen.insert(candidate.clone(), 0);
        candidate
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matches_github() {
        assert_eq!(slug("Review loop"), "review-loop");
        assert_eq!(slug("Step 1: Run `npm test`!"), "step-1-run-npm-test");
        assert_eq!(slug("What's new?"), "whats-new");
        assert_eq!(slug("  Spaces  "), "--spaces--");
        assert_eq!(slug("Über Café"), "über-café");
        assert_eq!(slug("a_b-c"), "a_b-c");
        assert_eq!(slug("🚀 Launch"), "-launch");
    }

    #[test]
    fn duplicates_are_numbered() {
        let mut s = Slugger::default();
        let got: Vec<_> = ["Setup", "Setup", "Setup-1", "Setup"]
            .iter()
            .map(|t| s.slug(t))
            .collect();
        assert_eq!(got, vec!["setup", "setup-1", "setup-1-1", "setup-2"]);
    }
}
