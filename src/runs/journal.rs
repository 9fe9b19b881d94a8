//! Discovering run directories and reading them into typed values.
//!
//! Reading never fails as a whole: a run with a missing `run.json`, a
//! truncated event or a dangling `resultRef` still loads, and what is wrong is
//! recorded in [`Run::integrity`] so the report can say so next to the data.

use std::collections::{BTreeMap, HashMap};
use std::fs;
use std::path::{Component, Path, PathBuf};

use serde_json::{Map, Value};

// Re-exported: readers of a run name its events through the journal.
use crate::runs::event::resolve_ref;
pub use crate::runs::event::{Event, TERMINAL_EVENTS};
use crate::runs::integrity::{self, IntegrityIssue, IntegrityReport, JournalFileName};
use crate::runs::time::parse_iso8601_ms;

/// Journal events and task files are small; anything this large is not
/// something the SDK wrote, and reading it whole would only waste memory.
const MAX_FILE_BYTES: u64 = 64 * 1024 * 1024;

/// Directories that never hold run journals worth reporting and can be huge.
const SKIP_DIRS: &[&str] = &["node_modules", ".git", "target"];

/// Deep enough for any monorepo; bounded so a pathological tree cannot recurse forever.
const MAX_DEPTH: usize = 32;

pub const BREAKPOINT_TASK_ID: &str = "__sdk.breakpoint";

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct RunDir {
    pub path: PathBuf,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct RunMeta {
    pub run_id: Option<String>,
    pub process_id: Option<String>,
    pub created_at: Option<String>,
    pub import_path: Option<String>,
    pub export_name: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EffectStatus {
    Ok,
    Error,
    Cancelled,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    Approved,
    Rejected,
    Pending,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Resolution {
    pub seq: u64,
    pub status: EffectStatus,
    pub recorded_at: Option<String>,
    pub recorded_ms: Option<i64>,
    pub error_message: Option<String>,
    /// The task's result object (`result.json` → `value`, else `result`).
    pub value: Option<Value>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Effect {
    pub effect_id: String,
    pub task_id: String,
    pub kind: Option<String>,
    pub label: Option<String>,
    pub labels: Vec<String>,
    pub invocation_key: Option<String>,
    /// From `task.json`; breakpoints carry their label here.
    pub title: Option<String>,
    pub requested_seq: u64,
    pub requested_at: Option<String>,
    pub requested_ms: Option<i64>,
    pub resolution: Option<Resolution>,
}

impl Effect {
    pub fn is_breakpoint(&self) -> bool {
        self.task_id == BREAKPOINT_TASK_ID || self.kind.as_deref() == Some("breakpoint")
    }

    pub fn status(&self) -> Option<EffectStatus> {
        self.resolution.as_ref().map(|r| r.status)
    }

    pub fn value(&self) -> Option<&Value> {
        self.resolution.as_ref().and_then(|r| r.value.as_ref())
    }

    /// A breakpoint's decision; `None` for other effects. The result value's
    /// `approved` decides; a breakpoint resolved `ok` without that field let the
    /// process continue, so it counts as approved, and one resolved with an
    /// error or cancelled counts as rejected.
    pub fn breakpoint_decision(&self) -> Option<Decision> {
        if !self.is_breakpoint() {
            return None;
        }
        let Some(resolution) = &self.resolution else {
            return Some(Decision::Pending);
        };
        if resolution.status != EffectStatus::Ok {
            return Some(Decision::Rejected);
        }
        let approved = resolution
            .value
            .as_ref()
            .and_then(|v| v.get("approved"))
            .and_then(Value::as_bool);
        Some(if approved == Some(false) {
            Decision::Rejected
        } else {
            Decision::Approved
        })
    }

    /// Milliseconds from request to resolution, when both times are known.
    pub fn wait_ms(&self) -> Option<i64> {
        let resolved = self.resolution.as_ref()?.recorded_ms?;
        Some(resolved - self.requested_ms?)
    }
}

#[derive(Debug, Clone, PartialEq)]
pub struct Run {
    pub dir: PathBuf,
    /// The run directory relative to the scanned root (`""` when it is the root).
    pub rel_dir: String,
    /// `run.json` runId, else the RUN_CREATED event's, else the directory name.
    pub run_id: String,
    pub meta: RunMeta,
    pub inputs: Option<Value>,
    /// Parseable events in sequence order.
    pub events: Vec<Event>,
    /// Effects in request order.
    pub effects: Vec<Effect>,
    pub integrity: IntegrityReport,
    /// Effect ids to their place in `effects` ([`Run::effect`]): readers
    /// that scanned `effects` per effect were quadratic.
    effect_index: HashMap<String, usize>,
}

impl Run {
    /// The effect with this id (the first request, as `effects` keeps it).
    pub fn effect(&self, effect_id: &str) -> Option<&Effect> {
        self.effect_index
            .get(effect_id)
            .and_then(|&i| self.effects.get(i))
    }

    pub fn terminal_event(&self) -> Option<&Event> {
        self.events.iter().find(|e| e.is_terminal())
    }

    pub fn created_at(&self) -> Option<&str> {
        self.meta.created_at.as_deref().or_else(|| {
            self.events
                .iter()
                .find(|e| e.event_type == "RUN_CREATED")
                .and_then(|e| e.recorded_at.as_deref())
        })
    }
}

/// Every run directory under `root`: `.a5c/runs/*` at any depth, or `root`
/// itself when it is a run directory. Sorted by path; unreadable directories
/// are skipped (they cannot be reported on anyway).
pub fn discover_runs(root: &Path) -> Vec<RunDir> {
    let mut found = Vec::new();
    if is_run_dir(root) {
        found.push(RunDir {
            path: root.to_path_buf(),
        });
        return found;
    }
    walk(root, 0, &mut found);
    found.sort();
    found.dedup();
    found
}

/// A run folder has a `journal/`, or a `run.json` inside `.a5c/runs/` (a
/// run whose journal is missing, which its integrity check reports). A
/// `run.json` anywhere else is someone's file (a saved report): taken for
/// a run, it hid the project's runs from `check --run ID` ("no run … known
/// runs: src"), in the project's folder or any folder checked. The one
/// test, shared by `runs`, `check --run` and the walk.
pub fn is_run_dir(dir: &Path) -> bool {
    if dir.join("journal").is_dir() {
        return true;
    }
    // Whatever its type: a `run.json` that is a link to a device is a run
    // whose metadata cannot be read (its integrity check says why), not a
    // folder "without run.json".
    if fs::symlink_metadata(dir.join("run.json")).is_err() {
        return false;
    }
    // Resolved, so `.` and a bare `run-id` have a parent to look at.
    fs::canonicalize(dir)
        .ok()
        .and_then(|d| d.parent().map(is_runs_container))
        .unwrap_or(false)
}

fn is_runs_container(dir: &Path) -> bool {
    let name = |p: &Path| p.file_name().map(|n| n.to_string_lossy().into_owned());
    if name(dir).as_deref() != Some("runs") {
        return false;
    }
    let parent = dir.parent().filter(|p| !p.as_os_str().is_empty());
    match parent {
        Some(p) => name(p).as_deref() == Some(".a5c"),
        // `root` given as a bare relative `runs`: look at the real parent.
        None => {
            fs::canonicalize(dir)
                .ok()
                .and_then(|c| c.parent().and_then(name))
                .as_deref()
                == Some(".a5c")
        }
    }
}

fn walk(dir: &Path, depth: usize, found: &mut Vec<RunDir>) {
    if depth > MAX_DEPTH {
        return;
    }
    let container = is_runs_container(dir);
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    let mut children: Vec<PathBuf> = entries
        .filter_map(Result::ok)
        // file_type() does not follow symlinks, so symlinked trees cannot loop us.
        .filter(|e| e.file_type().map(|t| t.is_dir()).unwrap_or(false))
        .map(|e| e.path())
        .collect();
    children.sort();
    for child in children {
        if container {
            found.push(RunDir { path: child });
            continue;
        }
        let skip = child
            .file_name()
            .map(|n| SKIP_DIRS.contains(&n.to_string_lossy().as_ref()))
            .unwrap_or(true);
        if !skip {
            walk(&child, depth + 1, found);
        }
    }
}

/// `path` relative to `root`, `/`-separated; the path itself when it is not under root.
pub fn rel_path(path: &Path, root: &Path) -> String {
    let Ok(rel) = path.strip_prefix(root) else {
        return path.to_string_lossy().replace('\\', "/");
    };
    let parts: Vec<String> = rel
        .components()
        .filter(|c| !matches!(c, Component::CurDir))
        .map(|c| match c {
            // An empty first part makes the join start with `/`, not `//`
            // (an absolute path under the empty root `check --run` uses).
            Component::RootDir => String::new(),
            c => c.as_os_str().to_string_lossy().into_owned(),
        })
        .collect();
    parts.join("/")
}

fn join_rel(rel_dir: &str, tail: &str) -> String {
    if rel_dir.is_empty() {
        tail.to_string()
    } else {
        format!("{rel_dir}/{tail}")
    }
}

/// Reads a small text file; the error is a short human message. Only a
/// regular file is read, at most [`MAX_FILE_BYTES`] of it (a device reports
/// a size of 0), never through a symbolic link that leaves `within` (the
/// run folder: docs/runs.md promises outside files are never read).
pub(crate) fn read_text(path: &Path, within: Option<&RunFolder>) -> Result<String, String> {
    let within = within.map(|w| (w.real.as_path(), "the run folder"));
    let bytes =
        crate::source::read_regular(path, MAX_FILE_BYTES, within).map_err(|e| io_message(&e))?;
    String::from_utf8(bytes)
        .map_err(|e| format!("not valid UTF-8 (at byte {})", e.utf8_error().valid_up_to()))
}

fn io_message(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => "file not found".to_string(),
        _ => e.to_string(),
    }
}

/// Reads and parses a JSON file.
pub(crate) fn read_json(path: &Path, within: Option<&RunFolder>) -> Result<Value, String> {
    let text = read_text(path, within)?;
    crate::runs::jsjson::parse(&text).map_err(|e| integrity::describe_parse_error(&e))
}

/// A run directory as given, and its real path: what its files' real paths
/// must start with.
pub(crate) struct RunFolder<'a> {
    pub dir: &'a Path,
    real: PathBuf,
    rel_dir: String,
    /// References that exist but were not read (a device, a FIFO, a link
    /// out of the folder), reported with the run's integrity issues.
    refused: std::cell::RefCell<Vec<IntegrityIssue>>,
}

impl<'a> RunFolder<'a> {
    pub(crate) fn new(dir: &'a Path, rel_dir: &str) -> RunFolder<'a> {
        RunFolder {
            dir,
            rel_dir: rel_dir.to_string(),
            refused: Default::default(),
            // A folder that cannot be resolved has no files to read; its
            // own path then matches no real path and every read is refused.
            real: fs::canonicalize(dir).unwrap_or_else(|_| dir.to_path_buf()),
        }
    }

    /// The JSON a run-relative reference names, if it stays in the folder.
    fn read_ref(&self, reference: &str) -> Option<Value> {
        let path = resolve_ref(self.dir, reference)?;
        let within = (self.real.as_path(), "the run folder");
        match crate::source::read_regular(&path, MAX_FILE_BYTES, Some(within)) {
            Ok(bytes) => std::str::from_utf8(&bytes)
                .ok()
                .and_then(|t| crate::runs::jsjson::parse(t).ok()),
            Err(e) => {
                if e.kind() != std::io::ErrorKind::NotFound {
                    self.refused.borrow_mut().push(IntegrityIssue {
                        file: join_rel(&self.rel_dir, reference.trim_start_matches("./")),
                        line: None,
                        message: io_message(&e),
                    });
                }
                None
            }
        }
    }
}

pub fn load_run(dir: &Path, root: &Path) -> Run {
    let rel_dir = rel_path(dir, root);
    let mut report = IntegrityReport::default();
    let folder = RunFolder::new(dir, &rel_dir);

    let meta = match read_json(&dir.join("run.json"), Some(&folder)) {
        Ok(v) if !v.is_object() => {
            // `[1]` parsed and gave no metadata, silently.
            report.issues.push(IntegrityIssue {
                file: join_rel(&rel_dir, "run.json"),
                line: None,
                message: "run.json is not a JSON object".to_string(),
            });
            RunMeta::default()
        }
        Ok(v) => parse_meta(&v),
        Err(message) => {
            report.issues.push(IntegrityIssue {
                file: join_rel(&rel_dir, "run.json"),
                line: None,
                message: format!("run.json unreadable: {message}"),
            });
            RunMeta::default()
        }
    };
    let inputs = match read_json(&dir.join("inputs.json"), Some(&folder)) {
        Ok(v) => Some(v),
        // The SDK itself treats a missing inputs.json as "no inputs".
        Err(m) if m == "file not found" => None,
        Err(message) => {
            report.issues.push(IntegrityIssue {
                file: join_rel(&rel_dir, "inputs.json"),
                line: None,
                message: format!("inputs.json unreadable: {message}"),
            });
            None
        }
    };

    let events = read_journal(&folder, &rel_dir, &mut report);
    report.issues.extend(integrity::check_events(&events, dir));
    let effects = build_effects(&events, &folder);
    report.issues.extend(folder.refused.take());

    let run_id = meta
        .run_id
        .clone()
        .or_else(|| {
            events
                .iter()
                .find(|e| e.event_type == "RUN_CREATED")
                .and_then(|e| e.data_str("runId"))
                .map(str::to_string)
        })
        .or_else(|| dir.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_default();

    let mut meta = meta;
    if meta.process_id.is_none() {
        meta.process_id = events
            .iter()
            .find(|e| e.event_type == "RUN_CREATED")
            .and_then(|e| e.data_str("processId"))
            .map(str::to_string);
    }

    let effect_index = effects
        .iter()
        .enumerate()
        .map(|(i, e)| (e.effect_id.clone(), i))
        .collect();
    Run {
        dir: dir.to_path_buf(),
        rel_dir,
        run_id,
        meta,
        inputs,
        events,
        effects,
        integrity: report,
        effect_index,
    }
}

fn parse_meta(v: &Value) -> RunMeta {
    let s = |key: &str| v.get(key).and_then(Value::as_str).map(str::to_string);
    let entry = v.get("entrypoint");
    let e = |key: &str| {
        entry
            .and_then(|x| x.get(key))
            .and_then(Value::as_str)
            .map(str::to_string)
    };
    RunMeta {
        run_id: s("runId"),
        process_id: s("processId"),
        created_at: s("createdAt"),
        import_path: e("importPath"),
        export_name: e("exportName"),
    }
}

fn read_journal(folder: &RunFolder, rel_dir: &str, report: &mut IntegrityReport) -> Vec<Event> {
    let journal_dir = folder.dir.join("journal");
    let Ok(entries) = fs::read_dir(&journal_dir) else {
        report.issues.push(IntegrityIssue {
            file: join_rel(rel_dir, "journal"),
            line: None,
            message: "journal directory missing or unreadable".to_string(),
        });
        return Vec::new();
    };
    // Every entry, whatever its type: a directory, FIFO or symbolic link
    // where an event belongs is reported by the read (as not a regular
    // file), not skipped and then taken for a gap in the sequence.
    let mut names: Vec<String> = entries
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        // Like the SDK's loader: only *.json counts, which also skips the
        // `*.json.tmp-<pid>-<ms>` leftovers of interrupted atomic writes.
        .filter(|n| n.ends_with(".json"))
        .collect();
    names.sort();

    let mut files = Vec::new();
    for name in names {
        let rel = join_rel(rel_dir, &format!("journal/{name}"));
        match JournalFileName::parse(&name) {
            Some(parsed) => files.push((parsed, rel)),
            None => report.issues.push(IntegrityIssue {
                file: rel,
                line: None,
                message: "journal file name is not NNNNNN.<ULID>.json".to_string(),
            }),
        }
    }
    // Numeric order, so a 7-digit sequence after 999999 still sorts right.
    files.sort_by(|a, b| (a.0.seq, &a.0.ulid).cmp(&(b.0.seq, &b.0.ulid)));
    report.issues.extend(integrity::check_sequence(&files));

    let mut events = Vec::new();
    for (name, rel) in files {
        let path = journal_dir.join(&name.file_name);
        // The SDK writes every event as a file of its own. A link to another
        // event of the run would be read as that event a second time and
        // reported as a repeated request, never as the link it is.
        if let Ok(target) = fs::read_link(&path) {
            report.issues.push(IntegrityIssue {
                file: rel,
                line: None,
                message: format!(
                    "a symbolic link (to {}), not an event file: not read",
                    target.display()
                ),
            });
            continue;
        }
        let text = match read_text(&path, Some(folder)) {
            Ok(t) => t,
            Err(message) => {
                report.issues.push(IntegrityIssue {
                    file: rel,
                    line: None,
                    message,
                });
                continue;
            }
        };
        let checked = integrity::verify_event_text(&rel, &text);
        if checked.verified {
            report.verified += 1;
        }
        report.issues.extend(checked.issues);
        if let Some(value) = checked.value {
            events.push(to_event(&name, rel, value, checked.key_lines));
        }
    }
    events
}

fn to_event(
    name: &JournalFileName,
    file: String,
    value: Value,
    key_lines: BTreeMap<String, u32>,
) -> Event {
    let recorded_at = value
        .get("recordedAt")
        .and_then(Value::as_str)
        .map(str::to_string);
    let event_type = value
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or("UNKNOWN")
        .to_string();
    let data = match value {
        Value::Object(mut map) => map
            .shift_remove("data")
            .unwrap_or(Value::Object(Map::new())),
        _ => Value::Object(Map::new()),
    };
    Event {
        seq: name.seq,
        ulid: name.ulid.clone(),
        file,
        event_type,
        recorded_ms: recorded_at.as_deref().and_then(parse_iso8601_ms),
        recorded_at,
        data,
        key_lines,
    }
}

fn build_effects(events: &[Event], folder: &RunFolder) -> Vec<Effect> {
    let mut effects: Vec<Effect> = Vec::new();
    // Effect ids to their place in `effects`: a run of n effects was
    // quadratic with a scan per event (40k effects: 9 s).
    let mut by_id: HashMap<&str, usize> = HashMap::new();
    for event in events {
        let Some(effect_id) = event.data_str("effectId") else {
            continue;
        };
        match event.event_type.as_str() {
            "EFFECT_REQUESTED" => {
                if by_id.contains_key(effect_id) {
                    continue; // duplicate request: reported by integrity, first one wins
                }
                by_id.insert(effect_id, effects.len());
                effects.push(requested_effect(event, effect_id, folder));
            }
            "EFFECT_RESOLVED" | "EFFECT_CANCELLED" => {
                let Some(effect) = by_id
                    .get(effect_id)
                    .and_then(|&i| effects.get_mut(i))
                    .filter(|e| e.resolution.is_none())
                else {
                    continue;
                };
                effect.resolution = Some(resolution(event, effect_id, folder));
            }
            _ => {}
        }
    }
    effects
}

fn requested_effect(event: &Event, effect_id: &str, folder: &RunFolder) -> Effect {
    let s = |key: &str| event.data_str(key).map(str::to_string);
    let task_ref = event
        .data_str("taskDefRef")
        .map(str::to_string)
        .unwrap_or_else(|| format!("tasks/{effect_id}/task.json"));
    let task = folder.read_ref(&task_ref);
    let task_str = |key: &str| {
        task.as_ref()
            .and_then(|t| t.get(key))
            .and_then(Value::as_str)
            .map(str::to_string)
    };
    let labels = event
        .data
        .get("labels")
        .and_then(Value::as_array)
        .map(|a| {
            a.iter()
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default();
    Effect {
        effect_id: effect_id.to_string(),
        task_id: s("taskId")
            .or_else(|| task_str("taskId"))
            .unwrap_or_else(|| "(unknown task)".to_string()),
        kind: s("kind").or_else(|| task_str("kind")),
        label: s("label"),
        labels,
        invocation_key: s("invocationKey"),
        title: task_str("title"),
        requested_seq: event.seq,
        requested_at: event.recorded_at.clone(),
        requested_ms: event.recorded_ms,
        resolution: None,
    }
}

fn resolution(event: &Event, effect_id: &str, folder: &RunFolder) -> Resolution {
    let status = match (event.event_type.as_str(), event.data_str("status")) {
        ("EFFECT_CANCELLED", _) => EffectStatus::Cancelled,
        (_, Some("ok")) => EffectStatus::Ok,
        _ => EffectStatus::Error,
    };
    let result_ref = event
        .data_str("resultRef")
        .map(str::to_string)
        .unwrap_or_else(|| format!("tasks/{effect_id}/result.json"));
    let result = folder.read_ref(&result_ref);
    let value = result.as_ref().and_then(|r| result_value(r, folder));
    let error_message = error_message(event.data.get("error"))
        .or_else(|| error_message(result.as_ref().and_then(|r| r.get("error"))))
        .or_else(|| {
            (status == EffectStatus::Cancelled)
                .then(|| event.data_str("reason").map(str::to_string))
                .flatten()
        });
    Resolution {
        seq: event.seq,
        status,
        recorded_at: event.recorded_at.clone(),
        recorded_ms: event.recorded_ms,
        error_message,
        value,
    }
}

/// The SDK writes the result object as both `value` and `result`; results over
/// 1 MiB are spilled to a blob named by `resultRef` inside `result.json`.
fn result_value(result: &Value, folder: &RunFolder) -> Option<Value> {
    if let Some(v) = result.get("value").or_else(|| result.get("result")) {
        return Some(v.clone());
    }
    let blob = result.get("resultRef").and_then(Value::as_str)?;
    folder.read_ref(blob)
}

fn error_message(error: Option<&Value>) -> Option<String> {
    match error? {
        Value::String(s) => Some(s.clone()),
        Value::Object(o) => o
            .get("message")
            .and_then(Value::as_str)
            .map(str::to_string)
            .or_else(|| o.get("name").and_then(Value::as_str).map(str::to_string)),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refs_cannot_escape_the_run_dir() {
        let dir = Path::new("/r");
        assert!(resolve_ref(dir, "tasks/e1/result.json").is_some());
        assert!(resolve_ref(dir, "./tasks/e1/result.json").is_some());
        assert!(resolve_ref(dir, "../other/result.json").is_none());
        assert!(resolve_ref(dir, "/etc/passwd").is_none());
        assert!(resolve_ref(dir, "").is_none());
    }

    #[test]
    fn rel_paths_use_forward_slashes() {
        let root = Path::new("/a/b");
        assert_eq!(rel_path(Path::new("/a/b/.a5c/runs/x"), root), ".a5c/runs/x");
        assert_eq!(rel_path(Path::new("/a/b"), root), "");
        assert_eq!(rel_path(Path::new("/elsewhere/x"), root), "/elsewhere/x");
        // The empty root keeps a path as the user named it.
        assert_eq!(
            rel_path(Path::new("./p/.a5c/runs/x"), Path::new("")),
            "p/.a5c/runs/x"
        );
        assert_eq!(
            rel_path(Path::new("/abs/runs/x"), Path::new("")),
            "/abs/runs/x"
        );
    }

    #[test]
    fn garbage_everywhere_never_panics() {
        let tmp = match tempfile::tempdir() {
            Ok(t) => t,
            Err(e) => panic!("tempdir: {e}"),
        };
        let dir = tmp.path().join(".a5c/runs/bad");
        let put = |rel: &str, text: &[u8]| {
            let p = dir.join(rel);
            fs::create_dir_all(p.parent().unwrap_or(&dir)).ok();
            fs::write(p, text).ok();
        };
        fs::create_dir_all(dir.join("run.json")).ok(); // a directory where a file belongs
        put("inputs.json", b"{");
        put("journal/000001.01KF0000000000000000000001.json", b"null");
        put("journal/000002.01KF0000000000000000000002.json", b"[]");
        put(
            "journal/000003.01KF0000000000000000000003.json",
            br#"{"type":5,"recordedAt":"yesterday","data":[1]}"#,
        );
        put(
            "journal/000004.01KF0000000000000000000004.json",
            b"\xff\xfe not utf8",
        );
        put("journal/000005.01KF0000000000000000000005.json", br#"{"type":"EFFECT_RESOLVED","recordedAt":"2026-01-01T00:00:00Z","data":{"effectId":7,"resultRef":"../../x"}}"#);
        put("journal/000006.01KF0000000000000000000006.json", br#"{"type":"EFFECT_REQUESTED","recordedAt":"2026-01-01T00:00:00Z","data":{"effectId":"e","taskDefRef":"/etc/passwd"}}"#);
        put("journal/000007.01KF0000000000000000000007.json", br#"{"type":"EFFECT_RESOLVED","recordedAt":"2026-01-01T00:00:01Z","data":{"effectId":"e","status":"maybe","resultRef":"../../../etc/passwd"}}"#);
        put("journal/notes.json", b"{}");
        put("journal/000008.tmp", b"ignored");
        let found = discover_runs(tmp.path());
        assert_eq!(found.len(), 1);
        let run = load_run(&found[0].path, tmp.path());
        assert_eq!(run.run_id, "bad");
        assert_eq!(run.integrity.verified, 0);
        assert_eq!(run.effects.len(), 1);
        assert_eq!(run.effects[0].task_id, "(unknown task)");
        let messages: Vec<&str> = run
            .integrity
            .issues
            .iter()
            .map(|i| i.message.as_str())
            .collect();
        for needle in [
            "run.json unreadable",
            "inputs.json unreadable",
            "not NNNNNN.<ULID>.json",
            "event is not a JSON object",
            "recordedAt `yesterday`",
            "not valid UTF-8",
            "without an effectId",
            "taskDefRef `/etc/passwd` points outside the run directory",
            "status is \"maybe\"",
            "points outside the run directory",
        ] {
            assert!(
                messages.iter().any(|m| m.contains(needle)),
                "{needle}: {messages:#?}"
            );
        }
    }

    #[test]
    fn missing_directory_loads_as_empty_run_with_issues() {
        let run = load_run(
            Path::new("/nonexistent/proclint/run"),
            Path::new("/nonexistent"),
        );
        assert_eq!(run.run_id, "run");
        assert!(run.events.is_empty());
        assert_eq!(run.integrity.issues.len(), 2, "{:?}", run.integrity.issues);
        assert!(discover_runs(Path::new("/nonexistent/proclint")).is_empty());
    }
}
