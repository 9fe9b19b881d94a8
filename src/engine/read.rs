//! One discovered file, read: its type and size checked before reading,
//! the byte scan that skips JavaScript that is not process code, then
//! either the result cache's answer or the per-file pass.
//! In: a [`Candidate`]. Out: its [`FileOutcome`], or `None` when it is not
//! process code.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::Path;

use super::{analyse, cached, FileOutcome, Stage};
use crate::diagnostic::{Diagnostic, Severity};
use crate::engine::cache::Cache;
use crate::engine::discover::{self, Candidate, FileKind};
use crate::engine::guard::{internal, panic_message, whole_file};
use crate::project;
use crate::project::config::Config;
use crate::rules::RuleSwitches;
use crate::source::inject;
use crate::source::{self, SourceFile, Span};

/// Reads and lints one discovered file. `None` for JavaScript that turns
/// out not to be process code. Never panics: every stage is guarded, and
/// this outer guard turns anything left (reading, decoding, the cache) into
/// an `internal-error` on the file.
pub fn lint_candidate(
    c: &Candidate,
    config: &Config,
    stage: Stage,
    report: bool,
) -> Option<FileOutcome> {
    lint_candidate_cached(c, config, stage, report, None)
}

pub(super) fn lint_candidate_cached(
    c: &Candidate,
    config: &Config,
    stage: Stage,
    report: bool,
    cache: Option<&Cache>,
) -> Option<FileOutcome> {
    match catch_unwind(AssertUnwindSafe(|| {
        lint_candidate_inner(c, config, stage, report, cache)
    })) {
        Ok(o) => o,
        Err(p) => {
            let file = SourceFile::new(c.display.clone(), String::new());
            Some(FileOutcome {
                diagnostics: vec![internal(&file, "read", panic_message(&p))],
                ..FileOutcome::empty(c, report)
            })
        }
    }
}

fn lint_candidate_inner(
    c: &Candidate,
    config: &Config,
    stage: Stage,
    report: bool,
    cache: Option<&Cache>,
) -> Option<FileOutcome> {
    // Each file is linted with its own configuration: the nearest one.
    let config = config.for_path(Path::new(&*c.display));
    let note = |rule: &'static str, msg: String| note(c, config, report, rule, msg);
    // The type is checked before reading: reading a FIFO (or a device)
    // would block forever or never end. Vanished files fail here or at the
    // read below and become an `io-error` note.
    let meta = match std::fs::metadata(&c.path) {
        Ok(m) => m,
        Err(e) => return Some(note("io-error", format!("cannot read: {e}"))),
    };
    if !meta.is_file() {
        return Some(note(
            "io-error",
            "cannot read: not a regular file".to_string(),
        ));
    }
    let size = meta.len();
    if size > config.max_file_size {
        return Some(note(
            "skipped-file",
            format!(
                "not linted: {} bytes is over max-file-size ({} bytes)",
                size, config.max_file_size
            ),
        ));
    }
    let bytes = match read_limited(&c.path, size, config.max_file_size) {
        Ok(b) => b,
        Err(e) => return Some(note("io-error", format!("cannot read: {e}"))),
    };
    inject::point("read", &c.display);
    lint_bytes(c, bytes, config, stage, report, cache)
}

/// A buffer given on stdin (`--stdin-filename`), linted as the same bytes
/// on disk at `c.path` are: `max-file-size`, the NUL check and invalid UTF-8
/// (read as U+FFFD, with a `parse-error`) apply alike. `over_limit` says the
/// buffer was cut at `max-file-size`. Never cached.
pub(super) fn lint_stdin(
    c: &Candidate,
    bytes: Vec<u8>,
    over_limit: bool,
    config: &Config,
    stage: Stage,
) -> Option<FileOutcome> {
    let config = config.for_path(Path::new(&*c.display));
    if over_limit {
        return Some(note(
            c,
            config,
            true,
            "skipped-file",
            format!(
                "not linted: stdin is over max-file-size ({} bytes)",
                config.max_file_size
            ),
        ));
    }
    match catch_unwind(AssertUnwindSafe(|| {
        lint_bytes(c, bytes, config, stage, true, None)
    })) {
        // No content hash: `--fix` plans only files whose bytes on disk it
        // linted, and these were not read from disk.
        Ok(o) => o.map(|o| FileOutcome { hash: None, ..o }),
        Err(p) => {
            let file = SourceFile::new(c.display.clone(), String::new());
            Some(FileOutcome {
                diagnostics: vec![internal(&file, "read", panic_message(&p))],
                ..FileOutcome::empty(c, true)
            })
        }
    }
}

/// A note on the whole file instead of its findings (not read, skipped).
pub(super) fn note(
    c: &Candidate,
    config: &Config,
    report: bool,
    rule: &'static str,
    msg: String,
) -> FileOutcome {
    FileOutcome {
        diagnostics: vec![Diagnostic::new(
            rule,
            config.severity_of(rule).unwrap_or(Severity::Info),
            whole_file(c.display.clone()),
            msg,
        )],
        ..FileOutcome::empty(c, report)
    }
}

/// One file's bytes, read: the process-code scan, the NUL check, the cache
/// or the per-file pass.
fn lint_bytes(
    c: &Candidate,
    bytes: Vec<u8>,
    config: &Config,
    stage: Stage,
    report: bool,
    cache: Option<&Cache>,
) -> Option<FileOutcome> {
    let note = |rule: &'static str, msg: String| note(c, config, report, rule, msg);
    let scan = !c.explicit || (config.scan_named_files && report);
    if c.kind == FileKind::Process && scan && !discover::looks_like_process(&bytes) {
        return None;
    }
    if memchr::memchr(0, &bytes).is_some() {
        return Some(note(
            "skipped-file",
            "not linted: the file contains NUL bytes (binary content)".into(),
        ));
    }
    let hash = source::content_hash(&bytes);
    let key = project::module_key(&c.path);
    let cached = cached::entry(cache, c, stage, report, &key, &bytes);
    if let Some((cache, k)) = &cached {
        if let Some(hit) = cache.get(k) {
            return Some(cached::outcome_of_hit(
                hit,
                c,
                config,
                report,
                bytes,
                hash,
                k.full(),
            ));
        }
    }
    let (text, invalid_at) = source::decode(bytes);
    let file = SourceFile::new(c.display.clone(), text);
    let mut outcome = analyse(&file, c.kind, config, stage, key, report);
    outcome.path = c.path.clone();
    outcome.hash = Some(hash);
    if let Some(at) = invalid_at {
        outcome.diagnostics.push(Diagnostic::new(
            "parse-error",
            config
                .severity_override("parse-error")
                .unwrap_or(Severity::Warning),
            file.location(Span::new(at, at + 1)),
            "invalid UTF-8: Node reads the bad bytes as U+FFFD (`\u{fffd}`), so strings there \
             are not what the file says; proclint read them as `?`",
        ));
    }
    if let Some((cache, k)) = &cached {
        cached::store(cache, k, c.kind, &mut outcome);
    }
    Some(outcome)
}

/// Reads a regular file, giving up past `limit` bytes (a file that grew
/// after its size was checked is still bounded). `size` is its size when
/// checked: the buffer is allocated once for it (growing it from empty
/// cost a reallocation, a copy and a read per doubling).
fn read_limited(path: &Path, size: u64, limit: u64) -> std::io::Result<Vec<u8>> {
    use std::io::Read;
    let capacity = usize::try_from(size.min(limit)).map_or(0, |n| n.saturating_add(1));
    let mut bytes = Vec::with_capacity(capacity);
    std::fs::File::open(path)?
        .take(limit.saturating_add(1))
        .read_to_end(&mut bytes)?;
    if bytes.len() as u64 > limit {
        return Err(std::io::Error::other(format!(
            "the file grew past max-file-size ({limit} bytes) while being read"
        )));
    }
    Ok(bytes)
}
