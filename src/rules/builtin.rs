//! Notes the engine itself produces; registered so they can be configured,
//! documented and explained like any rule.

use super::{Area, Category, Rule, RuleMeta};
use crate::diagnostic::Severity;

macro_rules! builtin {
    ($ty:ident, $id:literal, $sev:expr, $summary:literal) => {
        builtin!($ty, $id, $sev, $summary, Area::Tooling, Category::Tooling);
    };
    ($ty:ident, $id:literal, $sev:expr, $summary:literal, $area:expr, $category:expr) => {
        pub struct $ty;
        impl $ty {
            pub const META: RuleMeta = RuleMeta {
                id: $id,
                summary: $summary,
                severity: $sev,
                area: $area,
                category: $category,
                doc: include_str!(concat!("../../rules/", $id, ".md")),
                builtin: true,
                options: &[],
                fix: crate::rules::FixAvailability::Never,
            };
        }
        impl Rule for $ty {
            fn meta(&self) -> &'static RuleMeta {
                static M: RuleMeta = $ty::META;
                &M
            }
        }
    };
}

builtin!(
    ParseError,
    "parse-error",
    Severity::Error,
    "The file has a syntax error: it cannot be loaded (proclint lints what parsed).",
    Area::RuntimeCorrectness,
    Category::Correctness
);
builtin!(
    IoError,
    "io-error",
    Severity::Warning,
    "The file could not be read."
);
builtin!(
    SkippedFile,
    "skipped-file",
    Severity::Info,
    "The file was not linted (binary content or larger than max-file-size)."
);
builtin!(
    DepthLimit,
    "depth-limit",
    Severity::Info,
    "Nesting deeper than proclint analyses; code below that depth was not checked."
);
builtin!(
    InternalError,
    "internal-error",
    Severity::Error,
    "A bug in proclint stopped one rule on one file."
);
builtin!(
    UnusedSuppression,
    "unused-suppression",
    Severity::Warning,
    "A proclint-disable comment that suppresses nothing."
);
builtin!(
    BaselineStale,
    "baseline-stale",
    Severity::Info,
    "Baseline entries that no longer match a finding (fixed); rewrite the baseline to prune them."
);
