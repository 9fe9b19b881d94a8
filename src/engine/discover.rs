//! Walks the given paths and classifies files by a cheap byte scan, so only
//! process modules pay for a parse.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use memchr::memmem;

use crate::project::config::Config;

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
    // Compared as OS strings, not `&str`: a file name need not be UTF-8 (on
    // Unix it is bytes), and such a file was skipped without a word.
    let name = path.file_name()?;
    if name == "SKILL.md" {
        return Some(FileKind::Skill);
    }
    if name == "package.json" {
        return Some(FileKind::Manifest);
    }
    let ext = path.extension()?;
    if ext == "js" || ext == "mjs" || ext == "cjs" {
        Some(FileKind::Process)
    } else if ext == "md" {
        Some(FileKind::Skill)
    } else {
        None
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
    let ignores = Arc::new(Ignores::new(root));
    let walker = walker(root, &ignores, move |dir| {
        cfg.for_path(dir).excludes_dir(dir)
    });
    for entry in walker {
        let entry = match entry {
            Ok(e) => e,
            Err(e) => {
                let at = error_path(&e).unwrap_or(root).to_path_buf();
                errors.push(WalkError::new(&at, e));
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
        if config.for_path(path).excludes(path) {
            continue;
        }
        found(Candidate {
            path: path.to_path_buf(),
            display: display_path(path),
            kind,
            explicit: false,
        });
    }
    let skipped = ignores
        .skipped
        .lock()
        .map(|mut s| std::mem::take(&mut *s))
        .unwrap_or_default();
    errors.extend(skipped);
}

/// A walk of `root` that skips dependencies and VCS metadata, the folders
/// `excluded` names, and what `ignores` ignores. The crate's own ignore
/// handling is off: it reads ignore files with no size bound and through
/// any symbolic link (a `.gitignore` linked to `/dev/zero` aborted the run,
/// a FIFO hung it), and obeys those above the repository root, which git
/// does not. `Ignores` does both as git.
fn walker(
    root: &Path,
    ignores: &Arc<Ignores>,
    excluded: impl Fn(&Path) -> bool + Send + Sync + 'static,
) -> ignore::Walk {
    let filter = ignores.clone();
    ignore::WalkBuilder::new(root)
        .standard_filters(false)
        .hidden(false)
        .follow_links(false)
        .filter_entry(move |e| {
            let is_dir = e.file_type().is_some_and(|t| t.is_dir());
            if is_dir && (skip_dir(e.path()) || excluded(e.path())) {
                return false;
            }
            e.depth() == 0 || !filter.ignored(e.path(), is_dir)
        })
        .build()
}

/// Every `proclint.toml` in the folder `root` and below, in the folders a
/// walk would visit (ignored ones, dependencies and VCS metadata left out),
/// sorted: the nested configurations of a run.
pub fn find_configs(root: &Path) -> Vec<PathBuf> {
    let ignores = Arc::new(Ignores::new(root));
    let walker = walker(root, &ignores, |_| false);
    let mut found: Vec<PathBuf> = walker
        .flatten()
        .filter(|e| e.depth() > 0 && e.file_name() == crate::project::config::FILE_NAME)
        .map(|e| e.path().to_path_buf())
        .collect();
    found.sort();
    found
}

/// Keeps one candidate per file when several paths name it (`. $PWD`,
/// `a/p.js a/../a/p.js`): it was linted and reported once per name. The
/// first name given wins; it is linted as named if any name was explicit.
/// Files are told apart by identity (device and inode) where there is one,
/// else by their canonical path.
fn dedup_same_files(out: &mut Vec<Candidate>) {
    let mut seen: std::collections::HashMap<FileId, usize> = std::collections::HashMap::new();
    let mut kept: Vec<Candidate> = Vec::with_capacity(out.len());
    for c in out.drain(..) {
        let Some(id) = file_id(&c.path) else {
            kept.push(c);
            continue;
        };
        match seen.get(&id) {
            Some(&i) => {
                if let Some(first) = kept.get_mut(i) {
                    first.explicit |= c.explicit;
                }
            }
            None => {
                seen.insert(id, kept.len());
                kept.push(c);
            }
        }
    }
    *out = kept;
}

#[derive(PartialEq, Eq, Hash)]
enum FileId {
    #[cfg(unix)]
    Inode(u64, u64),
    #[cfg(not(unix))]
    Path(PathBuf),
}

#[cfg(unix)]
fn file_id(path: &Path) -> Option<FileId> {
    use std::os::unix::fs::MetadataExt;
    std::fs::metadata(path)
        .ok()
        .map(|m| FileId::Inode(m.dev(), m.ino()))
}

#[cfg(not(unix))]
fn file_id(path: &Path) -> Option<FileId> {
    std::fs::canonicalize(path).ok().map(FileId::Path)
}

/// The path an error of the walk is about (an unreadable subdirectory), so
/// it is reported there rather than at the walk's root.
fn error_path(e: &ignore::Error) -> Option<&Path> {
    match e {
        ignore::Error::WithPath { path, .. } => Some(path),
        ignore::Error::WithDepth { err, .. } | ignore::Error::WithLineNumber { err, .. } => {
            error_path(err)
        }
        ignore::Error::Loop { child, .. } => Some(child),
        _ => None,
    }
}

/// `.ignore` and `.gitignore` files (and the repository's
/// `.git/info/exclude`), read as git reads them: only from the repository
/// that holds the walked folder (the folder itself outside a repository),
/// never above its root; and safely: only regular files of at most
/// [`MAX_IGNORE_FILE`] bytes, never through a symbolic link that leaves the
/// repository. Files that are skipped are reported as walk errors.
struct Ignores {
    /// The walk's root as given, and its real path.
    root: PathBuf,
    real_root: Option<PathBuf>,
    /// The highest folder whose ignore files count: the repository root,
    /// else the walked folder.
    top: PathBuf,
    /// Matchers per real folder: (`.ignore`, `.gitignore`).
    folders: std::sync::Mutex<std::collections::HashMap<PathBuf, Arc<Folder>>>,
    exclude: Option<ignore::gitignore::Gitignore>,
    skipped: std::sync::Mutex<Vec<WalkError>>,
}

#[derive(Default)]
struct Folder {
    ignore: Option<ignore::gitignore::Gitignore>,
    gitignore: Option<ignore::gitignore::Gitignore>,
}

/// Ignore files are a few kilobytes; this bounds a hostile one.
const MAX_IGNORE_FILE: u64 = 4 * 1024 * 1024;

impl Ignores {
    fn new(root: &Path) -> Ignores {
        let real_root = std::fs::canonicalize(root).ok();
        let repo_root = real_root
            .as_deref()
            .and_then(|r| r.ancestors().find(|a| a.join(".git").exists()))
            .map(Path::to_path_buf);
        let repo = repo_root.is_some();
        let top = repo_root
            .or_else(|| real_root.clone())
            .unwrap_or_else(|| root.to_path_buf());
        let mut ignores = Ignores {
            root: root.to_path_buf(),
            real_root,
            top,
            folders: Default::default(),
            exclude: None,
            skipped: Default::default(),
        };
        if repo {
            let file = ignores.top.join(".git/info/exclude");
            ignores.exclude = ignores.load(&ignores.top.clone(), &file);
        }
        ignores
    }

    /// Whether the walked `path` is ignored. As in git (and the `ignore`
    /// crate before): a `.ignore` anywhere up the tree beats a `.gitignore`,
    /// which beats the exclude file; the nearest folder's match wins.
    fn ignored(&self, path: &Path, is_dir: bool) -> bool {
        let Some(real_root) = &self.real_root else {
            return false;
        };
        let Ok(rel) = path.strip_prefix(&self.root) else {
            return false;
        };
        let real = real_root.join(rel);
        let folders: Vec<Arc<Folder>> = real
            .ancestors()
            .skip(1)
            .take_while(|a| a.starts_with(&self.top))
            .map(|a| self.folder(a))
            .collect();
        let verdict = |m: ignore::Match<&ignore::gitignore::Glob>| {
            if m.is_ignore() {
                Some(true)
            } else if m.is_whitelist() {
                Some(false)
            } else {
                None
            }
        };
        for pick in [
            (|f: &Folder| f.ignore.as_ref())
                as fn(&Folder) -> Option<&ignore::gitignore::Gitignore>,
            |f: &Folder| f.gitignore.as_ref(),
        ] {
            for folder in &folders {
                if let Some(v) = pick(folder).and_then(|g| verdict(g.matched(&real, is_dir))) {
                    return v;
                }
            }
        }
        self.exclude
            .as_ref()
            .and_then(|g| verdict(g.matched(&real, is_dir)))
            .unwrap_or(false)
    }

    fn folder(&self, dir: &Path) -> Arc<Folder> {
        if let Some(f) = self.folders.lock().ok().and_then(|m| m.get(dir).cloned()) {
            return f;
        }
        let folder = Arc::new(Folder {
            ignore: self.load(dir, &dir.join(".ignore")),
            gitignore: self.load(dir, &dir.join(".gitignore")),
        });
        if let Ok(mut m) = self.folders.lock() {
            m.insert(dir.to_path_buf(), folder.clone());
        }
        folder
    }

    /// The matcher of one ignore file, rooted at `dir`; `None` when there is
    /// none or it was skipped (and reported).
    fn load(&self, dir: &Path, file: &Path) -> Option<ignore::gitignore::Gitignore> {
        // Most folders have none: one `lstat` says so.
        std::fs::symlink_metadata(file).ok()?;
        let within = (self.top.as_path(), "the repository");
        let bytes = match crate::source::read_regular(file, MAX_IGNORE_FILE, Some(within)) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return None,
            Err(e) => {
                // Named as the walk names its files when it is under the
                // walked folder.
                let shown = match self.real_root.as_deref().map(|r| file.strip_prefix(r)) {
                    Some(Ok(rel)) => self.root.join(rel),
                    _ => file.to_path_buf(),
                };
                if let Ok(mut s) = self.skipped.lock() {
                    s.push(WalkError::new(&shown, format!("ignore file skipped: {e}")));
                }
                return None;
            }
        };
        let mut builder = ignore::gitignore::GitignoreBuilder::new(dir);
        for line in String::from_utf8_lossy(&bytes).lines() {
            // A bad pattern is skipped, as git skips it.
            let _ = builder.add_line(Some(file.to_path_buf()), line);
        }
        builder.build().ok()
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
    if paths.len() > 1 {
        dedup_same_files(&mut out);
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

/// The nearest ancestor of a file with `proclint.toml`, `package.json` or
/// `.git`: the project whose modules give a file its context.
pub fn project_root(file: &Path) -> Option<PathBuf> {
    let abs = crate::project::module_key(file);
    let mut dir = abs.parent();
    while let Some(d) = dir {
        if ["proclint.toml", "package.json", ".git"]
            .iter()
            .any(|m| d.join(m).exists())
        {
            // Relative to the working directory, so context paths display
            // the way the user's own arguments do.
            let rel = std::env::current_dir()
                .ok()
                .and_then(|cwd| d.strip_prefix(cwd).ok().map(Path::to_path_buf));
            return Some(match rel {
                Some(r) if r.as_os_str().is_empty() => PathBuf::from("."),
                Some(r) => r,
                None => d.to_path_buf(),
            });
        }
        dir = d.parent();
    }
    None
}
