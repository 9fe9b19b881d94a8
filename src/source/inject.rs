//! Fault injection for tests: `PROCLINT_INJECT_PANIC=<stage>[:<path-substring>]`
//! makes the named stage panic (on files whose display path contains the
//! substring, when one is given), so tests can prove that a panicking rule or
//! stage becomes an `internal-error` instead of a crash.
//!
//! `<stage>` is a rule id (`unchecked-breakpoint`, run per file and in the
//! cross-module pass, whose path is `<project>`) or an engine stage: `read`,
//! `parser`, `model`, `summary`, `facts`, `markdown-parser`,
//! `manifest-parser`, `fix`. Inert unless the variable is set; it is read
//! once per process, so the check costs one comparison per stage.

use std::sync::OnceLock;

pub const ENV: &str = "PROCLINT_INJECT_PANIC";

struct Target {
    stage: String,
    path: Option<String>,
}

fn target() -> Option<&'static Target> {
    static TARGET: OnceLock<Option<Target>> = OnceLock::new();
    TARGET
        .get_or_init(|| {
            let raw = std::env::var(ENV).ok()?;
            let raw = raw.trim();
            if raw.is_empty() {
                return None;
            }
            let (stage, path) = match raw.split_once(':') {
                Some((s, p)) => (s, Some(p.to_string())),
                None => (raw, None),
            };
            Some(Target {
                stage: stage.to_string(),
                path,
            })
        })
        .as_ref()
}

/// The raw setting, if any: the cache mixes it into its key so an
/// injected run never reuses (or poisons) results of a normal one.
pub fn active() -> Option<String> {
    target().map(|t| format!("{}:{}", t.stage, t.path.as_deref().unwrap_or("")))
}

/// Panics when the injection names `stage` on `path`. Call it inside the
/// `catch_unwind` that guards the stage.
pub fn point(stage: &str, path: &str) {
    if fails(stage, path) {
        panic!("injected panic ({ENV}={stage}) on {path}");
    }
}

/// Whether the injection names `stage` on `path`, for stages where the
/// failure to simulate is an I/O error rather than a panic (`write`: the
/// report or a fixed file fails half-way through being written).
pub fn fails(stage: &str, path: &str) -> bool {
    target().is_some_and(|t| t.stage == stage && t.path.as_deref().is_none_or(|p| path.contains(p)))
}
