//! The one diagnostic type every rule, front end and report shares.

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::source::{Pos, Span};
// Locations belong to source text; re-exported because every rule names
// them as diagnostic locations.
pub use crate::source::Location;

#[derive(
    Debug,
    Clone,
    Copy,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    clap::ValueEnum,
)]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Info,
    Warning,
    Error,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Error => "error",
        }
    }

    pub fn parse(s: &str) -> Option<Severity> {
        match s {
            "info" | "note" => Some(Severity::Info),
            "warning" | "warn" => Some(Severity::Warning),
            "error" => Some(Severity::Error),
            _ => None,
        }
    }
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A registered rule's id. (An alias, not `&'static str` written out, so
/// serde's derive does not try to borrow it from the input.)
pub type RuleId = &'static str;

/// A secondary, labelled location (zizmor's "related locations").
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Related {
    pub location: Location,
    pub message: String,
}

/// One text replacement, by byte span, in the diagnostic's file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Edit {
    pub span: Span,
    pub replacement: String,
}

/// A fix a rule offers. Its applicability is ruff's: a *safe* fix keeps
/// what the process does at run time and `--fix` applies it; an *unsafe*
/// one changes run-time behaviour (as most fixes of a finding intend to),
/// so the user reviews it, and it is applied only with `--unsafe-fixes`.
/// Configuration may move a rule's fixes either way (`extend-safe-fixes`,
/// `extend-unsafe-fixes`): rules set `safe`, the sink that collects their
/// findings applies the configuration.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fix {
    pub description: String,
    pub edits: Vec<Edit>,
    pub safe: bool,
}

impl Fix {
    /// `"safe"` or `"unsafe"`, as JSON and SARIF name it.
    pub fn applicability(&self) -> &'static str {
        if self.safe {
            "safe"
        } else {
            "unsafe"
        }
    }

    /// Whether `--fix` applies it: a fix with edits that is safe, or any
    /// with `--unsafe-fixes`.
    pub fn applies(&self, unsafe_fixes: bool) -> bool {
        !self.edits.is_empty() && (self.safe || unsafe_fixes)
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Diagnostic {
    #[serde(with = "rule_id")]
    pub rule: RuleId,
    pub severity: Severity,
    pub location: Location,
    pub message: String,
    pub help: Option<String>,
    pub related: Vec<Related>,
    pub fix: Option<Fix>,
    /// Identity that survives unrelated edits, for baselines; set by the
    /// engine where the file's text is at hand (see `crate::engine::fingerprint`).
    pub fingerprint: Option<String>,
    /// How many sites the finding stands for: hygiene rules report a
    /// module's sites in one finding, the others as its first
    /// `occurrences - 1` related locations, and the retrospective's grades
    /// weigh it by them.
    #[serde(default = "one")]
    pub occurrences: usize,
}

fn one() -> usize {
    1
}

impl Diagnostic {
    /// The locations of the sites the finding stands for: its own, then
    /// its first `occurrences - 1` related locations.
    pub fn sites(&self) -> impl Iterator<Item = &Location> {
        std::iter::once(&self.location).chain(
            self.related
                .iter()
                .take(self.occurrences.saturating_sub(1))
                .map(|r| &r.location),
        )
    }

    pub fn new(
        rule: &'static str,
        severity: Severity,
        location: Location,
        message: impl Into<String>,
    ) -> Self {
        Diagnostic {
            rule,
            severity,
            location,
            message: message.into(),
            help: None,
            related: Vec::new(),
            fix: None,
            fingerprint: None,
            occurrences: 1,
        }
    }

    pub fn with_help(mut self, help: impl Into<String>) -> Self {
        self.help = Some(help.into());
        self
    }

    pub fn with_related(mut self, location: Location, message: impl Into<String>) -> Self {
        self.related.push(Related {
            location,
            message: message.into(),
        });
        self
    }

    pub fn with_fix(mut self, fix: Fix) -> Self {
        self.fix = Some(fix);
        self
    }

    /// Total order used for every output: path, position, rule, message.
    pub fn sort_key(&self) -> (&str, Pos, Pos, &str, &str) {
        (
            &self.location.path,
            self.location.start,
            self.location.end,
            self.rule,
            &self.message,
        )
    }
}

/// Sorts diagnostics into the deterministic output order (stable). A list
/// already in order is left alone: the engine sorts each file's findings
/// and concatenates files in path order, and a stable sort of a large list
/// takes scratch memory the size of half of it.
pub fn sort(diags: &mut [Diagnostic]) {
    if !diags.is_sorted_by(|a, b| a.sort_key() <= b.sort_key()) {
        diags.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
    }
}

/// Maps a rule id read back from the result cache to the registry's id.
pub type RuleLookup = fn(&str) -> Option<RuleId>;

static RULE_LOOKUP: std::sync::OnceLock<RuleLookup> = std::sync::OnceLock::new();

/// Sets how deserialising finds rule ids. The registry lives in `rules`,
/// above this layer (rules build diagnostics), so whoever decodes
/// diagnostics (the result cache) hands it in; it is the same registry for
/// the life of the process, so a second call changes nothing.
pub fn set_rule_lookup(lookup: RuleLookup) {
    let _ = RULE_LOOKUP.set(lookup);
}

/// Rule ids are `&'static str` (every diagnostic names a registered rule);
/// deserialising (the result cache) maps the text back to the registry's
/// id (see [`set_rule_lookup`]), and an id this build does not know is an
/// error, so an entry written by another build is discarded rather than
/// trusted.
mod rule_id {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(id: &&'static str, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(id)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<&'static str, D::Error> {
        let id = String::deserialize(d)?;
        super::RULE_LOOKUP
            .get()
            .and_then(|lookup| lookup(&id))
            .ok_or_else(|| serde::de::Error::custom(format!("unknown rule `{id}`")))
    }
}
