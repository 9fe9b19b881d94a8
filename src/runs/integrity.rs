//! Journal integrity: checksums, sequence, effect pairing, terminal events,
//! and the files events point at. Every check reports and moves on, so one
//! broken file never hides the state of the rest of the journal.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::{Map, Value};
use sha2::{Digest, Sha256};

use crate::runs::event::{resolve_ref, Event};
use crate::runs::jsjson::{stringify_pretty, stringify_pretty_without};
use crate::runs::time::parse_iso8601_ms;

#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, serde::Serialize)]
pub struct IntegrityIssue {
    /// Path relative to the scanned root, `/`-separated.
    pub file: String,
    pub line: Option<u32>,
    pub message: String,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct IntegrityReport {
    /// Journal files whose checksum matched.
    pub verified: usize,
    pub issues: Vec<IntegrityIssue>,
}

impl IntegrityReport {
    /// Number of failed checks (any kind, not only checksums): a journal with a
    /// missing sequence file must not look clean just because the files that
    /// remain all verify.
    pub fn failed(&self) -> usize {
        self.issues.len()
    }
}

/// A parsed `NNNNNN.<ULID>.json` file name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JournalFileName {
    pub file_name: String,
    pub seq: u64,
    pub seq_digits: usize,
    pub ulid: String,
}

impl JournalFileName {
    pub fn parse(name: &str) -> Option<Self> {
        let stem = name.strip_suffix(".json")?;
        let (seq_part, ulid) = stem.split_once('.')?;
        if seq_part.is_empty() || !seq_part.bytes().all(|b| b.is_ascii_digit()) || ulid.is_empty() {
            return None;
        }
        Some(Self {
            file_name: name.to_string(),
            seq: seq_part.parse().ok()?,
            seq_digits: seq_part.len(),
            ulid: ulid.to_string(),
        })
    }
}

/// SHA-256 hex over the SDK's checksum body: the event without its
/// `checksum` key, as `JSON.stringify(event, null, 2) + "\n"`.
pub fn checksum_of(event: &Value) -> String {
    let body = stringify_pretty_without(event, "checksum") + "\n";
    hex(&Sha256::digest(body.as_bytes()))
}

/// The text the SDK writes for an event: `{type, recordedAt, data, checksum}`.
/// Used by tests and fixtures to produce journals that must verify.
pub fn write_event_text(event_type: &str, recorded_at: &str, data: Value) -> String {
    let mut map = Map::new();
    map.insert("type".into(), Value::String(event_type.into()));
    map.insert("recordedAt".into(), Value::String(recorded_at.into()));
    map.insert("data".into(), data);
    let mut event = Value::Object(map);
    let checksum = checksum_of(&event);
    if let Value::Object(m) = &mut event {
        m.insert("checksum".into(), Value::String(checksum));
    }
    stringify_pretty(&event) + "\n"
}

fn hex(bytes: &[u8]) -> String {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        s.push(HEX[usize::from(b >> 4)] as char);
        s.push(HEX[usize::from(b & 0xf)] as char);
    }
    s
}

pub(crate) fn describe_parse_error(e: &serde_json::Error) -> String {
    if e.is_eof() {
        format!(
            "truncated JSON: unexpected end of file at line {}",
            e.line()
        )
    } else {
        format!("not valid JSON: {e}")
    }
}

pub(crate) struct CheckedEvent {
    pub value: Option<Value>,
    pub verified: bool,
    pub issues: Vec<IntegrityIssue>,
    pub key_lines: BTreeMap<String, u32>,
}

/// Parses one journal file and checks its checksum and shape.
pub(crate) fn verify_event_text(rel: &str, text: &str) -> CheckedEvent {
    let mut out = CheckedEvent {
        value: None,
        verified: false,
        issues: Vec::new(),
        key_lines: data_key_lines(text),
    };
    let issue = |line: Option<u32>, message: String| IntegrityIssue {
        file: rel.to_string(),
        line,
        message,
    };
    let value: Value = match crate::runs::jsjson::parse(text) {
        Ok(v) => v,
        Err(e) => {
            let line = u32::try_from(e.line()).ok().filter(|l| *l > 0);
            out.issues.push(issue(line, describe_parse_error(&e)));
            return out;
        }
    };
    let Some(obj) = value.as_object() else {
        out.issues
            .push(issue(Some(1), "event is not a JSON object".to_string()));
        return out;
    };
    let checksum_line = find_line(text, "\n  \"checksum\":");
    match obj.get("checksum") {
        Some(Value::String(recorded)) => {
            let computed = checksum_of(&value);
            if recorded.eq_ignore_ascii_case(&computed) {
                out.verified = true;
            } else {
                out.issues.push(issue(
                    checksum_line,
                    format!(
                        "checksum mismatch: recorded {}, computed {} (event edited after it was written?)",
                        short(recorded),
                        short(&computed)
                    ),
                ));
            }
        }
        Some(_) => out
            .issues
            .push(issue(checksum_line, "checksum is not a string".to_string())),
        None => out
            .issues
            .push(issue(None, "event has no checksum".to_string())),
    }
    if !obj.get("type").is_some_and(Value::is_string) {
        out.issues
            .push(issue(None, "event has no string `type`".to_string()));
    }
    match obj.get("recordedAt") {
        Some(Value::String(t)) if parse_iso8601_ms(t).is_some() => {}
        Some(Value::String(t)) => out.issues.push(issue(
            find_line(text, "\n  \"recordedAt\":"),
            format!("recordedAt `{t}` is not an ISO-8601 timestamp"),
        )),
        _ => out
            .issues
            .push(issue(None, "event has no string `recordedAt`".to_string())),
    }
    if !obj.get("data").is_none_or(Value::is_object) {
        out.issues.push(issue(
            find_line(text, "\n  \"data\":"),
            "event `data` is not an object".to_string(),
        ));
    }
    out.value = Some(value);
    out
}

fn short(h: &str) -> String {
    h.chars().take(12).collect()
}

/// 1-based line of the line break that starts `needle`'s line.
fn find_line(text: &str, needle: &str) -> Option<u32> {
    let at = text.find(needle)?;
    u32::try_from(text[..=at].matches('\n').count() + 1).ok()
}

/// Lines of the keys directly inside `data` in the writer's layout (four
/// spaces of indent), so reference problems can point at the right line.
fn data_key_lines(text: &str) -> BTreeMap<String, u32> {
    let mut lines = BTreeMap::new();
    for (i, line) in text.lines().enumerate() {
        let Some(rest) = line.strip_prefix("    \"") else {
            continue;
        };
        if rest.starts_with(' ') {
            continue;
        }
        if let (Some((key, _)), Ok(n)) = (rest.split_once("\":"), u32::try_from(i + 1)) {
            lines.entry(key.to_string()).or_insert(n);
        }
    }
    lines
}

/// Sequence numbers start at 1, are contiguous, unique and zero-padded to six
/// digits (so name order is sequence order), and ULIDs increase with them.
pub(crate) fn check_sequence(files: &[(JournalFileName, String)]) -> Vec<IntegrityIssue> {
    let mut issues = Vec::new();
    let mut expected = 1u64;
    let mut prev: Option<&JournalFileName> = None;
    for (name, rel) in files {
        let mut push = |message: String| {
            issues.push(IntegrityIssue {
                file: rel.clone(),
                line: None,
                message,
            })
        };
        if name.seq_digits < 6 {
            push(format!(
                "sequence number `{}` is not zero-padded to 6 digits, so name order and sequence order differ",
                &name.file_name[..name.seq_digits]
            ));
        }
        match prev {
            Some(p) if p.seq == name.seq => push(format!(
                "duplicate sequence number {} (also {})",
                name.seq, p.file_name
            )),
            _ if name.seq > expected => {
                let missing = if name.seq - expected == 1 {
                    format!("{expected}")
                } else {
                    format!("{expected}-{}", name.seq - 1)
                };
                push(format!(
                    "sequence gap: event(s) {missing} missing before {}",
                    name.seq
                ));
            }
            _ if name.seq == 0 => push("sequence numbers start at 1, found 0".to_string()),
            _ => {}
        }
        if !is_ulid(&name.ulid) {
            push(format!("`{}` is not a ULID", name.ulid));
        } else if let Some(p) = prev.filter(|p| is_ulid(&p.ulid)) {
            if name.ulid.to_ascii_uppercase() <= p.ulid.to_ascii_uppercase() && p.seq != name.seq {
                push(format!(
                    "ULID {} does not sort after the previous event's {}: file order and write order disagree",
                    name.ulid, p.ulid
                ));
            }
        }
        expected = expected.max(name.seq.saturating_add(1));
        prev = Some(name);
    }
    issues
}

fn is_ulid(s: &str) -> bool {
    s.len() == 26
        && s.bytes().all(|b| {
            let b = b.to_ascii_uppercase();
            b.is_ascii_digit()
                || (b.is_ascii_uppercase() && !matches!(b, b'I' | b'L' | b'O' | b'U'))
        })
}

/// Effect pairing, terminal events and referenced files.
pub(crate) fn check_events(events: &[Event], run_dir: &Path) -> Vec<IntegrityIssue> {
    struct Requested {
        seq: u64,
        resolved_at: Option<u64>,
    }
    let mut issues = Vec::new();
    let mut requested: BTreeMap<&str, Requested> = BTreeMap::new();
    let mut terminal: Option<&Event> = None;
    for (i, event) in events.iter().enumerate() {
        let line_of = |key: &str| event.key_lines.get(key).copied();
        let mut push = |line: Option<u32>, message: String| {
            issues.push(IntegrityIssue {
                file: event.file.clone(),
                line,
                message,
            })
        };
        if let Some(t) = terminal {
            push(
                None,
                format!(
                    "{} recorded after the terminal {} (event {})",
                    event.event_type, t.event_type, t.seq
                ),
            );
        } else if event.is_terminal() {
            terminal = Some(event);
        }
        let is_request = event.event_type == "EFFECT_REQUESTED";
        let is_resolution = matches!(
            event.event_type.as_str(),
            "EFFECT_RESOLVED" | "EFFECT_CANCELLED"
        );
        if !is_request && !is_resolution {
            continue;
        }
        let Some(effect_id) = event.data_str("effectId").filter(|s| !s.is_empty()) else {
            push(None, format!("{} without an effectId", event.event_type));
            continue;
        };
        if is_request {
            if let Some(first) = requested.get(effect_id) {
                push(
                    line_of("effectId"),
                    format!(
                        "effect {effect_id} requested again (first requested in event {})",
                        first.seq
                    ),
                );
                continue;
            }
            requested.insert(
                effect_id,
                Requested {
                    seq: event.seq,
                    resolved_at: None,
                },
            );
            match event.data_str("taskDefRef") {
                Some(r) => {
                    if let Some(m) = missing_ref(run_dir, r) {
                        push(line_of("taskDefRef"), format!("taskDefRef {m}"));
                    }
                }
                None => push(
                    None,
                    format!("EFFECT_REQUESTED {effect_id} has no taskDefRef"),
                ),
            }
            continue;
        }
        match requested.get_mut(effect_id) {
            None => {
                let later = events[i + 1..].iter().find(|e| {
                    e.event_type == "EFFECT_REQUESTED" && e.data_str("effectId") == Some(effect_id)
                });
                let message = match later {
                    Some(l) => format!(
                        "{} for effect {effect_id} comes before its EFFECT_REQUESTED (event {})",
                        event.event_type, l.seq
                    ),
                    None => format!(
                        "{} for effect {effect_id}, which was never requested",
                        event.event_type
                    ),
                };
                push(line_of("effectId"), message);
            }
            Some(r) if r.resolved_at.is_some() => push(
                line_of("effectId"),
                format!(
                    "effect {effect_id} resolved again (already resolved in event {})",
                    r.resolved_at.unwrap_or_default()
                ),
            ),
            Some(r) => r.resolved_at = Some(event.seq),
        }
        if event.event_type == "EFFECT_RESOLVED" {
            match event.data_str("status") {
                Some("ok" | "error") => {}
                other => push(
                    line_of("status"),
                    format!(
                        "EFFECT_RESOLVED status is {:?}, expected \"ok\" or \"error\"",
                        other.unwrap_or("missing")
                    ),
                ),
            }
            if let Some(m) = event
                .data_str("resultRef")
                .and_then(|r| missing_ref(run_dir, r))
            {
                push(line_of("resultRef"), format!("resultRef {m}"));
            }
        }
    }
    issues
}

/// Why a run-relative reference cannot be used, or `None` when the file exists.
fn missing_ref(run_dir: &Path, reference: &str) -> Option<String> {
    match resolve_ref(run_dir, reference) {
        None => Some(format!("`{reference}` points outside the run directory")),
        // Something is there: whether it can be read (a regular file, inside
        // the run folder) is reported by the reader.
        Some(p) if p.exists() => None,
        Some(_) => Some(format!("`{reference}` does not exist")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn written_events_verify() {
        let text = write_event_text(
            "EFFECT_REQUESTED",
            "2026-01-25T10:00:00.000Z",
            json!({"effectId": "e1", "labels": [], "n": 1.5, "note": "ünïcödé \u{2028} \"q\""}),
        );
        let checked = verify_event_text("j/000001.x.json", &text);
        assert!(checked.verified, "{:?}", checked.issues);
        assert!(checked.issues.is_empty(), "{:?}", checked.issues);
        assert_eq!(checked.key_lines.get("effectId"), Some(&5));
    }

    #[test]
    fn known_sdk_checksum() {
        // Computed with node: crypto.createHash('sha256').update(JSON.stringify(
        //   {type:'RUN_CREATED',recordedAt:'2026-01-01T00:00:00.000Z',data:{runId:'r1'}}, null, 2) + '\n')
        let body = "{\n  \"type\": \"RUN_CREATED\",\n  \"recordedAt\": \"2026-01-01T00:00:00.000Z\",\n  \"data\": {\n    \"runId\": \"r1\"\n  }\n}\n";
        let expected = hex(&Sha256::digest(body.as_bytes()));
        let v = json!({"type": "RUN_CREATED", "recordedAt": "2026-01-01T00:00:00.000Z", "data": {"runId": "r1"}, "checksum": "x"});
        assert_eq!(checksum_of(&v), expected);
    }

    #[test]
    fn tampering_is_reported_with_the_checksum_line() {
        let text = write_event_text("X", "2026-01-25T10:00:00.000Z", json!({"a": 1}))
            .replace("\"a\": 1", "\"a\": 2");
        let checked = verify_event_text("f.json", &text);
        assert!(!checked.verified);
        assert_eq!(checked.issues.len(), 1);
        assert_eq!(checked.issues[0].line, Some(7));
        assert!(checked.issues[0].message.starts_with("checksum mismatch"));
    }

    #[test]
    fn truncated_and_garbage_files_are_issues() {
        let truncated = verify_event_text("f.json", "{\n  \"type\": \"X\",\n  \"reco");
        assert!(truncated.value.is_none());
        assert!(truncated.issues[0].message.starts_with("truncated JSON"));
        let garbage = verify_event_text("f.json", "not json\n");
        assert!(garbage.issues[0].message.starts_with("not valid JSON"));
        assert_eq!(garbage.issues[0].line, Some(1));
        let array = verify_event_text("f.json", "[1]");
        assert_eq!(array.issues[0].message, "event is not a JSON object");
    }

    #[test]
    fn sequence_gaps_duplicates_and_padding() {
        let name = |n: &str| JournalFileName::parse(n).map(|p| (p, n.to_string()));
        let files: Vec<_> = [
            "000001.01JA0000000000000000000001.json",
            "000002.01JA0000000000000000000002.json",
            "000005.01JA0000000000000000000005.json",
            "000005.01JA0000000000000000000006.json",
            "7.01JA0000000000000000000004.json",
        ]
        .iter()
        .filter_map(|n| name(n))
        .collect();
        let messages: Vec<String> = check_sequence(&files)
            .into_iter()
            .map(|i| i.message)
            .collect();
        assert_eq!(messages.len(), 5, "{messages:?}");
        assert!(messages[0].contains("event(s) 3-4 missing before 5"));
        assert!(messages[1].contains("duplicate sequence number 5"));
        assert!(messages[2].contains("not zero-padded"));
        assert!(messages[3].contains("event(s) 6 missing before 7"));
        assert!(messages[4].contains("does not sort after"));
    }

    #[test]
    fn file_names() {
        assert!(JournalFileName::parse("000001.01JA0000000000000000000001.json").is_some());
        assert!(JournalFileName::parse("000001.json").is_none());
        assert!(JournalFileName::parse("abc.01JA.json").is_none());
        assert!(JournalFileName::parse("99999999999999999999999.X.json").is_none());
    }
}
