//! What the journal reader and the integrity checks share: the event type
//! and how a run-relative reference resolves. A module of its own so the
//! reader ([`crate::runs::journal`]) can call the checks ([`crate::runs::integrity`])
//! without the checks importing the reader back.

use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};

use serde_json::Value;

pub const TERMINAL_EVENTS: &[&str] = &["RUN_COMPLETED", "RUN_FAILED", "RUN_HALTED"];

#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    pub seq: u64,
    pub ulid: String,
    /// Path relative to the scanned root, `/`-separated.
    pub file: String,
    pub event_type: String,
    pub recorded_at: Option<String>,
    pub recorded_ms: Option<i64>,
    pub data: Value,
    /// 1-based lines of the keys directly inside `data`, for pointing at them.
    pub key_lines: BTreeMap<String, u32>,
}

impl Event {
    pub fn is_terminal(&self) -> bool {
        TERMINAL_EVENTS.contains(&self.event_type.as_str())
    }

    pub fn data_str(&self, key: &str) -> Option<&str> {
        self.data.get(key).and_then(Value::as_str)
    }
}

/// Resolves a run-relative reference (`tasks/<id>/result.json`) inside the run
/// directory. References that are absolute or climb out with `..` are refused:
/// a linter must not be steered into reading arbitrary files by a journal.
pub(crate) fn resolve_ref(run_dir: &Path, reference: &str) -> Option<PathBuf> {
    let rel = Path::new(reference);
    let safe = rel
        .components()
        .all(|c| matches!(c, Component::Normal(_) | Component::CurDir));
    (safe && !reference.is_empty()).then(|| run_dir.join(rel))
}
