//! Walks the given paths and classifies files by a cheap byte scan, so only
//! process modules pay for a parse.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use memchr::memmem;

use crate::config::Config;

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum FileKind {
    Process,
    Skill,
    Manifest,
}

impl FileKind {
    pub fn as_str(self) -> &'static str {
        match self {
            FileKind::Process => "process",
            FileKind::Skill => "skill",
            FileKind::Manifest => "manifest",
        }
    }
}

/// A file to lint.
#[derive(Debug, Clone)]
pub struct Candidate {
    /// Where to read it.
    pub path: PathBuf,
    /// How to show it: as walked from the argument, `/`-separated.
    pub display: Arc<str>,
    pub kind: FileKind,
    /// Named on the command line (always linted when its kind is known).
    pub explicit: bool,
}

/// A path argument that does not exist or cannot be walked.
#[derive(Debug, Clone)]
pub struct WalkError {
    pub path: String,
    pub message: String,
}

impl WalkError {
    fn new(root: &Path, message: impl ToString) -> WalkError {
        WalkError {
            path: display_path(root).to_string(),
            message: message.to_string(),
        }
    }
}

/// Kind by name alone. JavaScript still needs the content scan unless the
/// file was named explicitly.
pub fn kind_by_name(path: &Path) -> Option<FileKind> {
    let name = path.file_name()?.to_str()?;
    if name == "SKILL.md" {
        return Some(FileKind::Skill);
    }
    if name == "package.json" {
        return Some(FileKind::Manifest);
    }
    let ext = path.extension()?.to_str()?;
    match ext {
        "js" | "mjs" | "cjs" => Some(FileKind::Process),
        "md" => Some(FileKind::Skill),
        _ => None,
    }
}

/// Markers that make a JavaScript file a process module.
const PROCESS_MARKERS: &[&str] = &[
    "@a5c-ai/babysitter",
    "defineTask",
    "ctx.task(",
    "ctx.breakpoint(",
    "ctx.parallel.",
    "context.task(",
    "context.breakpoint(",
    "function process(",
];

/// Cheap scan: does this JavaScript look like process code?
pub fn looks_like_process(bytes: &[u8]) -> bool {
    PROCESS_MARKERS
        .iter()
        .any(|m| memmem::find(bytes, m.as_bytes()).is_some())
}

pub fn display_path(p: &Path) -> Arc<str> {
    let s = p.to_string_lossy();
    let s = s.strip_prefix("./").unwrap_or(&s);
    if std::path::MAIN_SEPARATOR == '\\' {
        Arc::from(s.replace('\\', "/"))
    } else {
        Arc::from(s)
    }
}

/// Directories never walked: VCS metadata, dependencies, run journals.
fn skip_dir(path: &Path) -> bool {
    let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
    if matches!(name, ".git" | "node_modules" | ".proclint_cache") {
        return true;
    }
    name == "runs" && path.parent().and_then(|p| p.file_name()) == Some(".a5c".as_ref())
}

/// Walks the directory `root`, giving each candidate file to `found` as it
/// is found (in walk order: the caller sorts).
pub fn walk_dir(
    root: &Path,
    config: &Config,
    errors: &mut Vec<WalkError>,
    mut found: impl FnMut(Candidate),
) {
    let cfg = config.clone();
    let walker = ignore::WalkBuilder::new(root)
        .hidden(false)
        .parents(true)
        .git_ignore(true)
        .git_global(false)
        .git_exclude(true)
        .require_git(false)
        .follow_links(false)
        .filter_entry(move |e| {
            let is_dir = e.file_type().is_some_and(|t| t.is_dir());
            !(is_dir && (skip_dir(e.path()) || cfg.excludes_dir(e.path())))
        })
        .build();
    for entry in walker {
        let entry = match entry {
            Ok(e) => e,
            Err(e) => {
                errors.push(WalkError::new(root, e));
                continue;
            }
        };
        if !entry.file_type().is_some_and(|t| t.is_file()) {
            continue;
        }
        let path = entry.path();
        let Some(kind) = kind_by_name(path) else {
            continue;
        };
        // Plain `.md` files are linted only when named explicitly.
        if kind == FileKind::Skill && path.file_name() != Some("SKILL.md".as_ref()) {
            continue;
        }
        if config.excludes(path) {
            continue;
        }
        found(Candidate {
            path: path.to_path_buf(),
            display: display_path(path),
            kind,
            explicit: false,
        });
    }
}

/// Walks `paths` and returns candidate files sorted by display path.
/// Non-process JavaScript is filtered out later, when its bytes are read
/// once for linting (see [`crate::engine`]), so nothing is read twice.
pub fn discover(paths: &[PathBuf], config: &Config) -> (Vec<Candidate>, Vec<WalkError>) {
    let mut out = Vec::new();
    let mut errors = Vec::new();
    for root in paths {
        let meta = match std::fs::metadata(root) {
            Ok(m) => m,
            Err(e) => {
                errors.push(WalkError::new(root, e));
                continue;
            }
        };
        if !meta.is_file() && !meta.is_dir() {
            // A FIFO, socket or device named on the command line: reading
            // it could block forever, so it is reported, never opened.
            errors.push(WalkError::new(root, "not a regular file or directory"));
            continue;
        }
        if meta.is_file() {
            if let Some(kind) = kind_by_name(root) {
                out.push(Candidate {
                    path: root.clone(),
                    display: display_path(root),
                    kind,
                    explicit: true,
                });
            }
            continue;
        }
        walk_dir(root, config, &mut errors, |c| out.push(c));
    }
    out.sort_by(|a, b| a.display.cmp(&b.display));
    // A file both walked and named keeps the named file's guarantee (it is
    // linted even without process markers).
    out.dedup_by(|later, kept| {
        if later.display != kept.display {
            return false;
        }
        kept.explicit |= later.explicit;
        true
    });
    (out, errors)
}
