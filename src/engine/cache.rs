//! The result cache (`.proclint_cache/`): per-file results of process
//! modules and skills, and the cross-module findings, so a re-run over a
//! mostly unchanged tree costs little more than reading and hashing the
//! files.
//!
//! What is cached is everything the per-file pass produces for a process
//! module (or a skill, see below) — diagnostics, suppression directives,
//! the module summary and the retrospective facts. The summary is a part of
//! the entry of its own, left encoded when the entry is read
//! ([`StoredSummary`]): only the module's relative import specifiers, which
//! loading context modules needs, are decoded with the rest, and the
//! summary itself is decoded (in parallel) only when the cross-module pass
//! has to run. Entries are keyed by:
//! - the build (crate version plus the executable's size and mtime, so a
//!   rebuilt binary with changed rules never reuses results of the old one;
//!   `PROCLINT_CACHE_VERSION` replaces this, for tests),
//! - the effective configuration (severities, rule options, context names,
//!   `--select`), as a fingerprint,
//! - the display path and the absolute module path (diagnostics carry the
//!   first, the summary the second),
//! - whether findings are reported for the file (context modules differ),
//! - the SHA-256 of the file's bytes.
//!
//! The cross-module pass's findings are cached too, in one more entry
//! (`project`): they are a function of the build and configuration and of
//! the module summaries in the order the pass reads them, and each summary
//! is a function of its entry's key. So when every summary of a run came
//! from (or went into) an entry, the pass is keyed by the SHA-256 of the
//! salt and, per module in display-path order, its display path and entry
//! key; on a hit the project index is not built at all. It is not used with
//! a recorded run (`--run` needs the project index itself), for the stdin
//! buffer (never cached, so it has no entry key), or when the pass hit a
//! bug. One such entry is kept, for the last tree linted: linting another
//! set of files replaces it.
//!
//! SKILL.md files are cached like process modules (no summary), except for
//! the findings of `skill-broken-link`, which depend on other files (whether
//! link targets exist, their headings): they are left out of the entry and
//! that one rule is rerun on every hit (the Markdown is parsed again; the
//! other skill rules, the costly part, are not). A SKILL.md named without
//! its folder is not cached (`skill-frontmatter` then finds the folder's
//! name on disk). Manifests are not cached: their findings depend on
//! lockfiles the key does not cover.
//!
//! One entry per (display path, module path, report) is kept, its name
//! derived from those; the rest of the key is stored in the entry and
//! compared on load, so a changed file overwrites its entry and the cache
//! does not grow with edits. Entries are written to a temporary file and
//! renamed into place, so concurrent runs only ever see whole entries; a
//! corrupt or truncated entry fails its length or checksum checks (each
//! part has a 64-bit checksum: it only has to detect damage, the SHA-256
//! key is what identifies the content), counts as a miss and is rewritten.

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::diagnostic::Diagnostic;
use crate::engine::suppress::Directive;
use crate::project::config::Config;
use crate::project::facts::Facts;
use crate::project::ModuleSummary;
use crate::source::interned_path;

/// The largest cross-module entry read (its findings for a very large
/// project are a few megabytes): a committed multi-gigabyte file there is a
/// miss, not an allocation of its size.
const MAX_PROJECT_ENTRY: u64 = 512 << 20;

/// Replaces the build identity in the key (tests simulate an upgrade).
pub const VERSION_ENV: &str = "PROCLINT_CACHE_VERSION";
/// Bumped when the entry layout changes; old entries are then misses.
const MAGIC: &[u8; 8] = b"PLCACHE9";
/// A file's entry: magic, key, the lengths of its two parts (the head: what
/// is decoded on every hit; the summary, kept encoded) and a checksum of
/// each, then the two parts. Each part is read into a buffer of its own
/// size, so a hit keeps only the summary's bytes.
const ENTRY_HEADER: usize = MAGIC.len() + 32 + 4 * 8;
/// The cross-module pass's entry: its magic and file name. Its layout:
/// magic, key, payload length, payload, checksum.
const PROJECT_MAGIC: &[u8; 8] = b"PLPROJ01";
const PROJECT_ENTRY: &str = "project";
/// The salt of the last run that used the directory (see [`Cache::get`]).
const SALT_ENTRY: &str = "salt";
const HEADER: usize = MAGIC.len() + 32 + 8;
/// A fast 64-bit checksum of the payload ([`crate::source::content_hash`]):
/// it only has to catch a damaged or truncated entry (the SHA-256 key is
/// what identifies the content), and hashing every entry with SHA-256 was a
/// noticeable share of a warm run.
const CHECKSUM: usize = 8;

/// What one process module's per-file pass produced, as read from an
/// entry. The module summary is kept encoded: a warm run whose
/// cross-module pass is a hit never needs it.
#[derive(Debug)]
pub struct Cached {
    pub lines: usize,
    pub diagnostics: Vec<Diagnostic>,
    pub directives: Vec<Directive>,
    pub summary: Option<StoredSummary>,
    pub facts: Option<Facts>,
}

/// What is stored of an outcome: what it needs to be written.
pub struct CachedRef<'a> {
    pub lines: usize,
    pub diagnostics: &'a [Diagnostic],
    pub directives: &'a [Directive],
    pub summary: Option<&'a ModuleSummary>,
    pub facts: Option<&'a Facts>,
    /// Paths whose existence the findings depend on, with whether each
    /// existed: the entry holds only while each still does.
    pub looked_up: &'a [(PathBuf, bool)],
}

/// An entry's payload is a length-prefixed `Head`, then the module summary
/// on its own (empty when there is none), so reading an entry does not
/// decode the summary.
#[derive(Deserialize)]
struct Head {
    lines: usize,
    diagnostics: Vec<Diagnostic>,
    directives: Vec<Directive>,
    facts: Option<Facts>,
    /// The summary's relative import specifiers (what loading context
    /// modules needs), present exactly when there is a summary.
    imports: Option<Vec<String>>,
    looked_up: Vec<(PathBuf, bool)>,
}

/// The borrowed twin of [`Head`] (same encoding).
#[derive(Serialize)]
struct HeadRef<'a> {
    lines: usize,
    diagnostics: &'a [Diagnostic],
    directives: &'a [Directive],
    facts: Option<&'a Facts>,
    imports: Option<Vec<&'a str>>,
    looked_up: &'a [(PathBuf, bool)],
}

/// A module summary still encoded in the entry it was read from.
#[derive(Clone)]
pub struct StoredSummary {
    /// The encoded summary (checked when the entry was read).
    bytes: Vec<u8>,
    display: Arc<str>,
    /// The module's key ([`ModuleSummary::key`]).
    pub key: PathBuf,
    /// Its relative import specifiers.
    pub imports: Vec<String>,
}

impl std::fmt::Debug for StoredSummary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StoredSummary")
            .field("display", &self.display)
            .field("key", &self.key)
            .field("bytes", &self.bytes.len())
            .finish_non_exhaustive()
    }
}

impl StoredSummary {
    /// Decodes the summary; `None` only if the entry, although intact, does
    /// not decode (a bug: entries are checked when read).
    pub fn decode(&self) -> Option<ModuleSummary> {
        let mut summary: ModuleSummary =
            interned_path::with(&self.display, || postcard::from_bytes(&self.bytes).ok())?;
        // An entry stores each task's schema fields on their own.
        summary.share_schemas();
        Some(summary)
    }
}

/// Where an entry lives and what it must have been written for.
pub struct Key {
    name: String,
    full: [u8; 32],
    /// The file's display path (see [`interned_path`]).
    display: Arc<str>,
    /// The module's key in the project index.
    module: PathBuf,
}

impl Key {
    /// The whole key: what an entry must have been written for.
    pub fn full(&self) -> [u8; 32] {
        self.full
    }
}

#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct Stats {
    pub hits: usize,
    pub misses: usize,
    pub writes: usize,
    /// The cross-module pass's entry ([`Cache::get_project`]).
    pub project_hits: usize,
    pub project_misses: usize,
    pub project_writes: usize,
}

pub struct Cache {
    dir: PathBuf,
    /// The project directory `dir` must lie in: no component of `dir` below
    /// it may be a symbolic link or other than a directory.
    root: PathBuf,
    /// The build and the configuration; [`Ready`] adds the directory's
    /// identity.
    salt: [u8; 32],
    ready: OnceLock<Result<Ready, String>>,
    /// The last run had another salt (another configuration or build): no
    /// entry can be for this one, so none is opened until this run's own
    /// are written (the end of its first pass).
    stale: std::sync::atomic::AtomicBool,
    /// While `stale`: the entries this run wrote (which may be read back).
    written: std::sync::Mutex<std::collections::HashSet<String>>,
    hits: AtomicUsize,
    misses: AtomicUsize,
    writes: AtomicUsize,
    project_hits: AtomicUsize,
    project_misses: AtomicUsize,
    project_writes: AtomicUsize,
}

/// A cache directory that is safe to use, and the salt of its keys.
struct Ready {
    salt: [u8; 32],
}

impl Cache {
    /// A cache in `dir` for results of build `version` under `config`,
    /// which must lie in the configuration's root directory (the project).
    /// Nothing touches the disk until the first key, lookup or write.
    pub fn new(dir: PathBuf, version: &str, config: &Config) -> Cache {
        crate::diagnostic::set_rule_lookup(|id| crate::rules::meta(id).map(|m| m.id));
        let mut h = Sha256::new();
        for part in [
            version,
            &config.fingerprint(),
            &crate::source::inject::active().unwrap_or_default(),
        ] {
            h.update((part.len() as u64).to_le_bytes());
            h.update(part.as_bytes());
        }
        Cache {
            dir,
            root: config.root.clone(),
            salt: h.finalize().into(),
            ready: OnceLock::new(),
            stale: std::sync::atomic::AtomicBool::new(false),
            written: Default::default(),
            hits: AtomicUsize::new(0),
            misses: AtomicUsize::new(0),
            writes: AtomicUsize::new(0),
            project_hits: AtomicUsize::new(0),
            project_misses: AtomicUsize::new(0),
            project_writes: AtomicUsize::new(0),
        }
    }

    /// The identity of this build: `PROCLINT_CACHE_VERSION` if set, else
    /// the crate version plus the executable's size and modification time
    /// (a rebuilt binary may have changed rules under the same version).
    pub fn build_id() -> String {
        if let Ok(v) = std::env::var(VERSION_ENV) {
            return v;
        }
        let exe = std::env::current_exe()
            .and_then(std::fs::metadata)
            .ok()
            .map(|m| {
                let mtime = m
                    .modified()
                    .ok()
                    .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                    .map_or(0, |d| d.as_nanos());
                format!("{}-{}", m.len(), mtime)
            })
            .unwrap_or_default();
        format!("{}+{exe}", env!("CARGO_PKG_VERSION"))
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    pub fn key(&self, display: &Arc<str>, module: &Path, report: bool, bytes: &[u8]) -> Key {
        self.key_with(display, module, report, &[], bytes)
    }

    /// [`Cache::key`] for results that also depend on `outside`, what the
    /// file's own bytes do not say (how Node loads a process module, from
    /// the nearest package.json).
    pub fn key_with(
        &self,
        display: &Arc<str>,
        module: &Path,
        report: bool,
        outside: &[u8],
        bytes: &[u8],
    ) -> Key {
        let mut place = Sha256::new();
        for part in [display.as_bytes(), module.as_os_str().as_encoded_bytes()] {
            place.update((part.len() as u64).to_le_bytes());
            place.update(part);
        }
        place.update([u8::from(report)]);
        place.update(outside);
        let place: [u8; 32] = place.finalize().into();
        let mut full = Sha256::new();
        full.update(self.salt());
        full.update(place);
        full.update(Sha256::digest(bytes));
        Key {
            name: hex(&place[..16]),
            full: full.finalize().into(),
            display: display.clone(),
            module: module.to_path_buf(),
        }
    }

    /// The entry for `key`, if one was written for exactly this key and is
    /// intact.
    ///
    /// After a configuration change every lookup misses: the run is a cold
    /// one, and opening thousands of entries only to find another salt in
    /// each made it slower than `--no-cache`. The salt of the last run is
    /// kept in one small entry, so those lookups are not made.
    pub fn get(&self, key: &Key) -> Option<Cached> {
        let stale = self.prepare()
            && self.stale.load(Ordering::Relaxed)
            && !self
                .written
                .lock()
                .is_ok_and(|w| w.contains(key.name.as_str()));
        let found = (!stale)
            .then(|| self.open_entry(&key.name))
            .flatten()
            .and_then(|(mut f, size)| read_entry(&mut f, size, &key.full))
            .and_then(|(head, summary)| decode(&head, summary, key));
        let counter = if found.is_some() {
            &self.hits
        } else {
            &self.misses
        };
        counter.fetch_add(1, Ordering::Relaxed);
        found
    }

    /// Stores an entry (best effort: a read-only or full disk only costs
    /// the speed-up, never the run).
    pub fn put(&self, key: &Key, value: &CachedRef<'_>) {
        if !self.prepare() {
            return;
        }
        let Some((head, summary)) = encode(key, value) else {
            return;
        };
        let header = entry_header(&key.full, &head, &summary);
        if self.write_entry(&key.name, &[&header, &head, &summary]) {
            if self.stale.load(Ordering::Relaxed) {
                if let Ok(mut w) = self.written.lock() {
                    w.insert(key.name.clone());
                }
            }
            self.writes.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// The key of the cross-module pass over `modules` — every module
    /// summary of the run, in the order the pass sees them, each given by
    /// its display path and the key of the entry it came from. The pass's
    /// findings are a function of the configuration and build (the salt)
    /// and of those summaries, and each summary of its entry's key.
    pub fn project_key<'a>(
        &self,
        modules: impl Iterator<Item = (&'a str, &'a [u8; 32])>,
    ) -> [u8; 32] {
        let mut h = Sha256::new();
        h.update(PROJECT_MAGIC);
        h.update(self.salt());
        let mut count: u64 = 0;
        for (display, full) in modules {
            h.update((display.len() as u64).to_le_bytes());
            h.update(display.as_bytes());
            h.update(full);
            count += 1;
        }
        h.update(count.to_le_bytes());
        h.finalize().into()
    }

    /// The cross-module findings stored for `key`, if the entry is intact
    /// and was written for exactly this key. `paths` gives the run's own
    /// display paths, so the findings share them instead of each holding a
    /// copy.
    pub fn get_project(
        &self,
        key: &[u8; 32],
        paths: &HashMap<&str, Arc<str>>,
    ) -> Option<Vec<Diagnostic>> {
        // The end of a pass: its entries are written, a later pass (`--fix`)
        // may hit them.
        let stale = self.prepare() && self.stale.swap(false, Ordering::Relaxed);
        let found = (!stale)
            .then(|| self.open_entry(PROJECT_ENTRY))
            .flatten()
            .filter(|(_, size)| *size <= MAX_PROJECT_ENTRY)
            .and_then(|(f, size)| {
                let mut bytes = Vec::with_capacity(usize::try_from(size).ok()?);
                std::io::Read::read_to_end(&mut std::io::Read::take(f, size), &mut bytes).ok()?;
                Some(bytes)
            })
            .and_then(|bytes| decode_project(&bytes, key, paths));
        let counter = if found.is_some() {
            &self.project_hits
        } else {
            &self.project_misses
        };
        counter.fetch_add(1, Ordering::Relaxed);
        found
    }

    /// Stores the cross-module findings for `key` (best effort), replacing
    /// the previous run's.
    pub fn put_project(&self, key: &[u8; 32], found: &[Diagnostic]) {
        if !self.prepare() {
            return;
        }
        let Some(payload) = encode_project(found) else {
            return;
        };
        let (header, sum) = seal(PROJECT_MAGIC, key, &payload);
        if self.write_entry(PROJECT_ENTRY, &[&header, &payload, &sum]) {
            self.project_writes.fetch_add(1, Ordering::Relaxed);
        }
    }

    /// Writes `parts` one after the other as entry `name`: to a temporary
    /// file, renamed into place.
    fn write_entry(&self, name: &str, parts: &[&[u8]]) -> bool {
        // Created new (`O_EXCL`) under an unpredictable name, so a file or
        // link planted in the directory cannot redirect the write; the
        // rename replaces whatever is at `name` (a link itself, never its
        // target) in one step, and concurrent runs never share a temporary
        // file. Dropped (removed) on any error.
        let written = tempfile::Builder::new()
            .prefix(&format!(".{name}."))
            .suffix(".tmp")
            .tempfile_in(&self.dir)
            .and_then(|mut tmp| {
                // One write: thousands of entries are written by a cold run.
                tmp.write_all(&parts.concat())?;
                tmp.persist(self.dir.join(name)).map_err(|e| e.error)?;
                Ok(())
            });
        written.is_ok()
    }

    /// Entry `name` opened for reading with its size, if it is a regular
    /// file: never through a symbolic link, and never a FIFO or device
    /// (opening a FIFO would wait for a writer).
    fn open_entry(&self, name: &str) -> Option<(std::fs::File, u64)> {
        self.ready().ok()?;
        self.open_entry_unchecked(name)
    }

    /// [`Cache::open_entry`] in a directory known to be ready.
    fn open_entry_unchecked(&self, name: &str) -> Option<(std::fs::File, u64)> {
        let mut options = std::fs::OpenOptions::new();
        options.read(true);
        #[cfg(unix)]
        {
            use std::os::unix::fs::OpenOptionsExt;
            options.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
        }
        let path = self.dir.join(name);
        #[cfg(not(unix))]
        if std::fs::symlink_metadata(&path)
            .ok()?
            .file_type()
            .is_symlink()
        {
            return None;
        }
        let file = options.open(path).ok()?;
        let meta = file.metadata().ok()?;
        meta.is_file().then_some((file, meta.len()))
    }

    /// Why the cache is not used this run, if it is not: its directory is
    /// outside the project, a symbolic link, or not a directory, or cannot
    /// be created. Known after the first key, lookup or write.
    pub fn refusal(&self) -> Option<&str> {
        match self.ready.get() {
            Some(Err(why)) => Some(why),
            _ => None,
        }
    }

    pub fn stats(&self) -> Stats {
        Stats {
            hits: self.hits.load(Ordering::Relaxed),
            misses: self.misses.load(Ordering::Relaxed),
            writes: self.writes.load(Ordering::Relaxed),
            project_hits: self.project_hits.load(Ordering::Relaxed),
            project_misses: self.project_misses.load(Ordering::Relaxed),
            project_writes: self.project_writes.load(Ordering::Relaxed),
        }
    }

    /// Prepares the directory once; whether entries may be read and
    /// written.
    fn prepare(&self) -> bool {
        self.ready().is_ok()
    }

    /// The salt of this run's keys: the build, the configuration and the
    /// directory's identity (or, when the directory cannot be used, the
    /// first two: nothing is then read or written anyway).
    fn salt(&self) -> [u8; 32] {
        self.ready().map_or(self.salt, |r| r.salt)
    }

    /// Creates the directory once, with a `.gitignore` (so the cache is
    /// never committed, wherever `cache-dir` puts it) and a `CACHEDIR.TAG`
    /// (so backup tools skip it), or says why it cannot be used.
    ///
    /// Every component of the directory below the project root must be a
    /// real directory (created one by one where missing): a pull request
    /// that commits `.proclint_cache` as a link, or a link inside its path,
    /// could otherwise send the cache's writes anywhere. The marker files
    /// are created new, never written through what is already there.
    ///
    /// The directory's identity (device, inode, creation time) goes into
    /// every key: entries committed into a repository (forged to claim a
    /// clean file) were written for another directory, so they never match
    /// in a checkout, while reruns in the same directory hit.
    fn ready(&self) -> Result<&Ready, &str> {
        self.ready
            .get_or_init(|| {
                let shown =
                    |p: &Path| crate::source::printable(&p.display().to_string()).into_owned();
                let rel = if self.dir.is_relative() && self.root == Path::new(".") {
                    Some(self.dir.as_path())
                } else {
                    self.dir.strip_prefix(&self.root).ok()
                };
                use std::path::Component::{CurDir, Normal};
                let rel = rel
                    .filter(|r| r.components().all(|c| matches!(c, Normal(_) | CurDir)))
                    .ok_or_else(|| {
                        format!(
                            "the cache directory {} is outside the project ({})",
                            shown(&self.dir),
                            shown(&self.root)
                        )
                    })?;
                let mut at = self.root.clone();
                for part in rel.components().filter(|c| *c != CurDir) {
                    at.push(part);
                    match std::fs::symlink_metadata(&at) {
                        Ok(m) if m.file_type().is_symlink() => {
                            return Err(format!("{} is a symbolic link", shown(&at)))
                        }
                        Ok(m) if !m.is_dir() => {
                            return Err(format!("{} is not a directory", shown(&at)))
                        }
                        Ok(_) => {}
                        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                            // `mkdir` never follows a link at its last
                            // component: a link planted meanwhile fails it.
                            std::fs::create_dir(&at)
                                .map_err(|e| format!("cannot create {}: {e}", shown(&at)))?;
                        }
                        Err(e) => return Err(format!("cannot read {}: {e}", shown(&at))),
                    }
                }
                // The project folder itself, reached through a committed
                // link (`--config linked/proclint.toml`), is no better.
                if let Some(link) = crate::source::output::link_on_the_way(&self.dir) {
                    return Err(format!("{} is a symbolic link", shown(&link)));
                }
                let meta = std::fs::symlink_metadata(&self.dir)
                    .ok()
                    .filter(|m| m.is_dir())
                    .ok_or_else(|| format!("{} is not a directory", shown(&self.dir)))?;
                create_new(&self.dir.join(".gitignore"), b"# Created by proclint.\n*\n");
                create_new(
                    &self.dir.join("CACHEDIR.TAG"),
                    b"Signature: 8a477f597d28d172789f06886806bc55\n\
                      # This file is a cache directory tag created by proclint.\n",
                );
                let mut h = Sha256::new();
                h.update(self.salt);
                h.update(dir_identity(&meta));
                let salt: [u8; 32] = h.finalize().into();
                let last = self
                    .open_entry_unchecked(SALT_ENTRY)
                    .and_then(|(mut f, size)| {
                        let mut bytes = [0u8; 32];
                        (size == 32).then_some(())?;
                        std::io::Read::read_exact(&mut f, &mut bytes).ok()?;
                        Some(bytes)
                    });
                if last != Some(salt) {
                    self.stale.store(true, Ordering::Relaxed);
                    self.write_entry(SALT_ENTRY, &[&salt]);
                }
                Ok(Ready { salt })
            })
            .as_ref()
            .map_err(String::as_str)
    }
}

/// Writes `bytes` to a new file at `path`; leaves whatever is already
/// there (a file, a link, a directory) alone.
fn create_new(path: &Path, bytes: &[u8]) {
    let _ = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(path)
        .and_then(|mut f| f.write_all(bytes));
}

/// What tells this directory from another at the same path: device, inode
/// and creation time where the platform has them.
fn dir_identity(meta: &std::fs::Metadata) -> Vec<u8> {
    let mut out = Vec::new();
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        out.extend(meta.dev().to_le_bytes());
        out.extend(meta.ino().to_le_bytes());
    }
    let created = meta
        .created()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos());
    out.extend(created.to_le_bytes());
    out
}

/// What goes before and after `payload` in a project entry: magic, key,
/// payload length; checksum.
fn seal(magic: &[u8; 8], key: &[u8; 32], payload: &[u8]) -> ([u8; HEADER], [u8; CHECKSUM]) {
    let mut header = [0u8; HEADER];
    header[..8].copy_from_slice(magic);
    header[8..40].copy_from_slice(key);
    header[40..].copy_from_slice(&(payload.len() as u64).to_le_bytes());
    (header, checksum(payload))
}

/// The payload of an entry, after checking magic, key, length and checksum:
/// anything else (another build's entry, a truncated or corrupted file) is
/// `None`.
fn unseal<'a>(magic: &[u8; 8], bytes: &'a [u8], key: &[u8; 32]) -> Option<&'a [u8]> {
    let rest = bytes.strip_prefix(magic.as_slice())?;
    let (stored_key, rest) = rest.split_at_checked(32)?;
    if stored_key != key {
        return None;
    }
    let (len, rest) = rest.split_at_checked(8)?;
    let len = usize::try_from(u64::from_le_bytes(len.try_into().ok()?)).ok()?;
    if rest.len() != len.checked_add(CHECKSUM)? {
        return None;
    }
    let (payload, stored) = rest.split_at(len);
    if checksum(payload) != stored {
        return None;
    }
    Some(payload)
}

/// The head and the summary of an entry, encoded (the summary empty when
/// there is none).
fn encode(key: &Key, value: &CachedRef<'_>) -> Option<(Vec<u8>, Vec<u8>)> {
    interned_path::with(&key.display, || {
        let head = postcard::to_stdvec(&HeadRef {
            lines: value.lines,
            diagnostics: value.diagnostics,
            directives: value.directives,
            facts: value.facts,
            imports: value.summary.map(|s| {
                s.imports
                    .iter()
                    .map(|i| i.source.as_str())
                    .filter(|source| crate::project::is_relative(source))
                    .collect()
            }),
            looked_up: value.looked_up,
        })
        .ok()?;
        let summary = match value.summary {
            Some(summary) => postcard::to_stdvec(summary).ok()?,
            None => Vec::new(),
        };
        Some((head, summary))
    })
}

fn entry_header(key: &[u8; 32], head: &[u8], summary: &[u8]) -> [u8; ENTRY_HEADER] {
    let mut header = [0u8; ENTRY_HEADER];
    let fields: [&[u8]; 6] = [
        MAGIC,
        key,
        &(head.len() as u64).to_le_bytes(),
        &(summary.len() as u64).to_le_bytes(),
        &checksum(head),
        &checksum(summary),
    ];
    let mut at = 0;
    for field in fields {
        header[at..at + field.len()].copy_from_slice(field);
        at += field.len();
    }
    header
}

/// The head and summary of the entry in `file` (`size` bytes long), each
/// in a buffer of its own size, after checking magic, key, lengths and both
/// checksums: anything else (another build's entry, a truncated or
/// corrupted file) is `None`.
fn read_entry(
    file: &mut impl std::io::Read,
    size: u64,
    key: &[u8; 32],
) -> Option<(Vec<u8>, Vec<u8>)> {
    use std::io::Read;
    let mut header = [0u8; ENTRY_HEADER];
    file.read_exact(&mut header).ok()?;
    let rest = header.strip_prefix(MAGIC.as_slice())?;
    let (stored_key, rest) = rest.split_at_checked(32)?;
    if stored_key != key {
        return None;
    }
    let word = |i: usize| -> Option<u64> {
        Some(u64::from_le_bytes(
            rest.get(i * 8..i * 8 + 8)?.try_into().ok()?,
        ))
    };
    let (head_len, summary_len) = (word(0)?, word(1)?);
    if Some(size)
        != head_len
            .checked_add(summary_len)?
            .checked_add(ENTRY_HEADER as u64)
    {
        return None;
    }
    let mut part = |len: u64, sum: u64| -> Option<Vec<u8>> {
        let mut bytes = Vec::with_capacity(usize::try_from(len).ok()?);
        (&mut *file).take(len).read_to_end(&mut bytes).ok()?;
        (bytes.len() as u64 == len && checksum(&bytes) == sum.to_le_bytes()).then_some(bytes)
    };
    let head = part(head_len, word(2)?)?;
    let summary = part(summary_len, word(3)?)?;
    Some((head, summary))
}

/// Decodes an entry's head; the summary is left encoded.
fn decode(head: &[u8], summary: Vec<u8>, key: &Key) -> Option<Cached> {
    let head: Head = interned_path::with(&key.display, || postcard::from_bytes(head).ok())?;
    // A file a finding named was created or removed since: the findings
    // may differ, so the entry counts as a miss.
    if head
        .looked_up
        .iter()
        .any(|(p, found)| p.is_file() != *found)
    {
        return None;
    }
    let summary = match head.imports {
        Some(imports) => Some(StoredSummary {
            bytes: summary,
            display: key.display.clone(),
            key: key.module.clone(),
            imports,
        }),
        None if summary.is_empty() => None,
        None => return None,
    };
    Some(Cached {
        lines: head.lines,
        diagnostics: head.diagnostics,
        directives: head.directives,
        summary,
        facts: head.facts,
    })
}

/// The cross-module findings, grouped by the path they are reported on
/// (groups in order of first appearance, each group in the findings'
/// order), each group encoded with its path interned (see
/// [`interned_path`]): a count, then per group the path and the encoded
/// findings, each as a length and bytes.
fn encode_project(found: &[Diagnostic]) -> Option<Vec<u8>> {
    let mut groups: Vec<(&Arc<str>, Vec<&Diagnostic>)> = Vec::new();
    let mut at: HashMap<&str, usize> = HashMap::new();
    for d in found {
        let i = *at.entry(&d.location.path).or_insert_with(|| {
            groups.push((&d.location.path, Vec::new()));
            groups.len() - 1
        });
        groups[i].1.push(d);
    }
    let mut out = Vec::new();
    put_len(&mut out, groups.len());
    for (path, list) in groups {
        put_len(&mut out, path.len());
        out.extend_from_slice(path.as_bytes());
        // The group's length is written once it is encoded in place.
        let at = out.len();
        put_len(&mut out, 0);
        out = interned_path::with(path, || postcard::to_extend(&list, out)).ok()?;
        let len = (out.len() - at - 8) as u64;
        out.get_mut(at..at + 8)?.copy_from_slice(&len.to_le_bytes());
    }
    Some(out)
}

fn decode_project(
    bytes: &[u8],
    key: &[u8; 32],
    paths: &HashMap<&str, Arc<str>>,
) -> Option<Vec<Diagnostic>> {
    use rayon::prelude::*;
    let mut rest = unseal(PROJECT_MAGIC, bytes, key)?;
    let count = take_len(&mut rest)?;
    let mut groups = Vec::new();
    for _ in 0..count {
        let path = std::str::from_utf8(take(&mut rest)?).ok()?;
        let blob = take(&mut rest)?;
        let path = paths.get(path).cloned().unwrap_or_else(|| Arc::from(path));
        groups.push((path, blob));
    }
    if !rest.is_empty() {
        return None;
    }
    // Groups decode independently: in parallel, collected in order.
    let decoded: Vec<Vec<Diagnostic>> = groups
        .par_iter()
        .map(|(path, blob)| interned_path::with(path, || postcard::from_bytes(blob).ok()))
        .collect::<Option<_>>()?;
    let mut out = Vec::with_capacity(decoded.iter().map(Vec::len).sum());
    for list in decoded {
        out.extend(list);
    }
    Some(out)
}

fn put_len(out: &mut Vec<u8>, len: usize) {
    out.extend_from_slice(&(len as u64).to_le_bytes());
}

fn take_len(rest: &mut &[u8]) -> Option<usize> {
    let (len, tail) = rest.split_at_checked(8)?;
    *rest = tail;
    usize::try_from(u64::from_le_bytes(len.try_into().ok()?)).ok()
}

/// A length-prefixed byte string.
fn take<'a>(rest: &mut &'a [u8]) -> Option<&'a [u8]> {
    let len = take_len(rest)?;
    let (bytes, tail) = rest.split_at_checked(len)?;
    *rest = tail;
    Some(bytes)
}

fn checksum(payload: &[u8]) -> [u8; CHECKSUM] {
    crate::source::content_hash(payload).to_le_bytes()
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A configuration whose project is `dir` (the cache must lie in it).
    fn in_dir(dir: &Path) -> Config {
        let mut config = Config::default();
        config.root = dir.to_path_buf();
        config
    }

    fn entry(cache: &Cache, key: &Key) -> Vec<u8> {
        cache.put(
            key,
            &CachedRef {
                lines: 3,
                diagnostics: &[],
                directives: &[],
                summary: None,
                facts: None,
                looked_up: &[],
            },
        );
        std::fs::read(cache.dir().join(&key.name)).unwrap_or_default()
    }

    #[test]
    fn own_path_is_interned_and_others_kept() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let cache = Cache::new(dir.path().join("c"), "v1", &in_dir(dir.path()));
        let own: Arc<str> = Arc::from("dir/a.js");
        let key = cache.key(&own, Path::new("/p/dir/a.js"), true, b"x");
        let loc = |p: &str| crate::diagnostic::Location {
            path: Arc::from(p),
            span: crate::source::Span::new(1, 2),
            start: crate::source::Pos { line: 1, column: 2 },
            end: crate::source::Pos { line: 1, column: 3 },
        };
        let d = [Diagnostic::new(
            "io-error",
            crate::diagnostic::Severity::Info,
            loc("dir/a.js"),
            "m",
        )
        .with_related(loc("dir/b.js"), "r")];
        cache.put(
            &key,
            &CachedRef {
                lines: 1,
                diagnostics: &d,
                directives: &[],
                summary: None,
                facts: None,
                looked_up: &[],
            },
        );
        let bytes = std::fs::read(cache.dir().join(&key.name)).unwrap_or_default();
        assert!(!bytes.windows(8).any(|w| w == b"dir/a.js"));
        assert!(bytes.windows(8).any(|w| w == b"dir/b.js"));
        let got = cache.get(&key).map(|c| c.diagnostics).unwrap_or_default();
        assert_eq!(got.as_slice(), &d[..]);
    }

    /// An entry whose findings looked a file up holds only while the file
    /// is still there (or still missing).
    #[test]
    fn a_looked_up_file_created_since_is_a_miss() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let cache = Cache::new(dir.path().join("c"), "v1", &in_dir(dir.path()));
        let own: Arc<str> = Arc::from("dir/a.js");
        let key = cache.key(&own, Path::new("/p/dir/a.js"), true, b"x");
        let script = dir.path().join("run.sh");
        cache.put(
            &key,
            &CachedRef {
                lines: 1,
                diagnostics: &[],
                directives: &[],
                summary: None,
                facts: None,
                looked_up: &[(script.clone(), false)],
            },
        );
        assert!(cache.get(&key).is_some());
        std::fs::write(&script, "true\n").unwrap_or_else(|e| panic!("{e}"));
        assert!(cache.get(&key).is_none());
    }

    /// The summary stays encoded until asked for; what loading context
    /// modules needs (key, relative imports) is read with the entry.
    #[test]
    fn summaries_are_decoded_on_demand() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let cache = Cache::new(dir.path().join("c"), "v1", &in_dir(dir.path()));
        let own: Arc<str> = Arc::from("dir/a.js");
        let key = cache.key(&own, Path::new("/p/dir/a.js"), true, b"x");
        let loc = crate::diagnostic::Location {
            path: own.clone(),
            span: crate::source::Span::new(1, 2),
            start: crate::source::Pos { line: 1, column: 2 },
            end: crate::source::Pos { line: 1, column: 3 },
        };
        let import = |source: &str| crate::project::ImportSummary {
            source: source.into(),
            name: "x".into(),
            location: loc.clone(),
        };
        let summary = ModuleSummary {
            path: own.clone(),
            key: PathBuf::from("/p/dir/a.js"),
            report: true,
            imports: vec![import("./b.js"), import("pkg"), import("../c")],
            tasks: Vec::new(),
            invocations: Vec::new(),
            exports: Vec::new(),
            opaque_exports: true,
            imported_calls: Vec::new(),
            flag_defaults: Vec::new(),
            undefined: Box::default(),
        };
        cache.put(
            &key,
            &CachedRef {
                lines: 2,
                diagnostics: &[],
                directives: &[],
                summary: Some(&summary),
                facts: None,
                looked_up: &[],
            },
        );
        let stored = cache
            .get(&key)
            .and_then(|c| c.summary)
            .unwrap_or_else(|| panic!("no summary"));
        assert_eq!(stored.key, summary.key);
        assert_eq!(stored.imports, ["./b.js", "../c"]);
        let decoded = stored.decode().unwrap_or_else(|| panic!("does not decode"));
        assert_eq!(format!("{decoded:?}"), format!("{summary:?}"));
        // No summary stays none.
        let k2 = cache.key(&own, Path::new("/p/dir/a.js"), false, b"x");
        entry(&cache, &k2);
        assert!(cache.get(&k2).is_some_and(|c| c.summary.is_none()));
    }

    #[test]
    fn round_trip_and_damage() {
        let dir = tempfile::tempdir().unwrap_or_else(|e| panic!("{e}"));
        let cache = Cache::new(dir.path().join("c"), "v1", &in_dir(dir.path()));
        let key = cache.key(&Arc::from("a.js"), Path::new("/p/a.js"), true, b"text");
        assert!(cache.get(&key).is_none());
        let bytes = entry(&cache, &key);
        assert_eq!(cache.get(&key).map(|c| c.lines), Some(3));
        // Every truncation and every single-byte flip is rejected.
        let read = |b: &[u8]| read_entry(&mut &b[..], b.len() as u64, &key.full);
        assert!(read(&bytes).is_some());
        for cut in 0..bytes.len() {
            assert!(read(&bytes[..cut]).is_none(), "cut {cut}");
        }
        for i in 0..bytes.len() {
            let mut b = bytes.clone();
            b[i] ^= 0x40;
            assert!(read(&b).is_none(), "flip {i}");
        }
        // A file longer than its header says is damaged too.
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(read(&longer).is_none());
        // Another build, content or place is another key.
        let other = Cache::new(dir.path().join("c"), "v2", &in_dir(dir.path()));
        let k2 = other.key(&Arc::from("a.js"), Path::new("/p/a.js"), true, b"text");
        assert_eq!(k2.name, key.name);
        assert!(other.get(&k2).is_none());
        let k3 = cache.key(&Arc::from("a.js"), Path::new("/p/a.js"), true, b"text!");
        assert!(cache.get(&k3).is_none());
        let k4 = cache.key(&Arc::from("a.js"), Path::new("/p/a.js"), false, b"text");
        assert_ne!(k4.name, key.name);
    }
}
