//! The one diagnostic type every rule, front end and report shares.

use std::fmt;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::source::{Pos, Span};

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

/// A resolved place in a file.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Location {
    #[serde(with = "crate::cache::interned_path")]
    pub path: Arc<str>,
    pub span: Span,
    pub start: Pos,
    pub end: Pos,
}

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

/// A suggested (and, when `safe`, automatically applicable) fix.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fix {
    pub description: String,
    pub edits: Vec<Edit>,
    pub safe: bool,
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
    /// engine where the file's text is at hand (see `crate::fingerprint`).
    pub fingerprint: Option<String>,
}

impl Diagnostic {
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

/// A diagnostic paired with its file text, for miette's graphical reports.
pub struct Rendered<'a> {
    pub diag: &'a Diagnostic,
    pub source: miette::NamedSource<crate::report::Snippet>,
}

impl fmt::Debug for Rendered<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.diag, f)
    }
}

impl fmt::Display for Rendered<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.diag.message)
    }
}

impl std::error::Error for Rendered<'_> {}

impl miette::Diagnostic for Rendered<'_> {
    fn code<'b>(&'b self) -> Option<Box<dyn fmt::Display + 'b>> {
        Some(Box::new(self.diag.rule))
    }

    fn severity(&self) -> Option<miette::Severity> {
        Some(match self.diag.severity {
            Severity::Error => miette::Severity::Error,
            Severity::Warning => miette::Severity::Warning,
            Severity::Info => miette::Severity::Advice,
        })
    }

    fn help<'b>(&'b self) -> Option<Box<dyn fmt::Display + 'b>> {
        self.diag
            .help
            .as_ref()
            .map(|h| Box::new(h) as Box<dyn fmt::Display>)
    }

    fn source_code(&self) -> Option<&dyn miette::SourceCode> {
        Some(&self.source)
    }

    fn labels(&self) -> Option<Box<dyn Iterator<Item = miette::LabeledSpan> + '_>> {
        let len = self.source.inner().len();
        let clamp = move |s: Span| {
            let start = s.start.min(len);
            miette::SourceSpan::from((start, s.end.min(len).saturating_sub(start)))
        };
        let primary = miette::LabeledSpan::new_primary_with_span(
            Some(self.diag.rule.to_string()),
            clamp(self.diag.location.span),
        );
        // miette draws one source per report: related spans in other files
        // are listed in the help text by the pretty reporter instead.
        let same_file = self
            .diag
            .related
            .iter()
            .filter(|r| r.location.path == self.diag.location.path)
            .map(move |r| {
                miette::LabeledSpan::new_with_span(Some(r.message.clone()), clamp(r.location.span))
            });
        Some(Box::new(std::iter::once(primary).chain(same_file)))
    }
}

/// Rule ids are `&'static str` (every diagnostic names a registered rule);
/// deserialising (the result cache) maps the text back to the registry's
/// id, and an id this build does not know is an error, so an entry written
/// by another build is discarded rather than trusted.
mod rule_id {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(id: &&'static str, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(id)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<&'static str, D::Error> {
        let id = String::deserialize(d)?;
        crate::rules::meta(&id)
            .map(|m| m.id)
            .ok_or_else(|| serde::de::Error::custom(format!("unknown rule `{id}`")))
    }
}
