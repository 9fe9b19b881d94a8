//! What leaves the process: reports and rewritten files, written whole or
//! not at all, and the exit codes. Below the engine so the stages that write
//! files (baseline, fix) and every command share them without importing the
//! command handlers.

use std::io::Write;
use std::path::Path;

pub const EXIT_OK: i32 = 0;
pub const EXIT_FINDINGS: i32 = 1;
pub const EXIT_ERROR: i32 = 2;

/// Writes `text` to stdout and flushes it, for commands that print a finished
/// text (`rules`, `explain`, `runs`, `--diff`): `print!` panics when stdout
/// fails (a full disk, `> /dev/full`: exit 101). A failure is reported on
/// stderr and turns `code` into [`EXIT_ERROR`]; a reader that went away
/// (`| head`) is not an error, so `code` is kept and nothing is said.
pub fn print_stdout(text: &str, code: i32) -> i32 {
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => code,
        Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => code,
        Err(e) => {
            eprintln!("error: cannot write to stdout: {e}");
            EXIT_ERROR
        }
    }
}

/// Whether a write may replace a file that is read-only or has other hard
/// links (`--force-write`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Replace {
    /// Refuse, with a message saying why and how to insist.
    #[default]
    Safe,
    /// Replace a read-only file (keeping its mode), and write a file with
    /// other hard links in place so every name sees the new text.
    Force,
}

/// Writes through a temporary file in the same directory and renames it, so
/// an interrupted run never leaves a truncated report. See
/// [`write_file_with`].
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    write_file_with(path, Replace::Safe, |out| out.write_all(bytes))
}

/// [`write_atomic`] of what `emit` writes, as it writes it.
pub fn write_atomic_with(
    path: &Path,
    emit: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> std::io::Result<()> {
    write_file_with(path, Replace::Safe, emit)
}

/// Writes what `emit` writes to `path` whole or not at all, keeping the
/// file's identity, and never through a symbolic link proclint did not
/// create: proclint runs on pull requests, and a committed link (a report
/// path, a linked process module, a linked folder on the way) would send
/// the write anywhere the user can write. A link at `path` or on the way
/// to it ([`link_on_the_way`]) is refused; an absolute `/dev/…` path the
/// user typed (`--output /dev/stdout`) is written into as it is. The
/// replaced file's mode, owner and group are kept where
/// permitted (a rename would leave the temporary file's, e.g. a 0640
/// group file turned 0644 and world-readable); a read-only file, or one
/// with other hard links (a rename breaks them), is refused unless
/// `replace` is [`Replace::Force`]. The temporary file is created with
/// `O_EXCL` under an unpredictable name in the target's directory, so a
/// planted file or link there cannot redirect the write.
pub fn write_file_with(
    path: &Path,
    replace: Replace,
    emit: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> std::io::Result<()> {
    // A device path the user typed (`--output /dev/stdout`, `/dev/null`,
    // `/dev/stderr`) is written into as it is, whatever it leads to (a
    // terminal, a pipe, the file the shell redirected to).
    if path.is_absolute() && path.starts_with("/dev") {
        let mut out = std::io::BufWriter::new(
            std::fs::OpenOptions::new()
                .write(true)
                .truncate(true)
                .open(path)?,
        );
        emit(&mut out)?;
        return out.flush();
    }
    refuse_links(path)?;
    let existing = std::fs::metadata(path).ok();
    let target = path.to_path_buf();
    // A device or FIFO is written into: renaming a temporary file over it
    // would replace it with a regular file. A FIFO is opened without
    // waiting for a reader (none is an error, not a hang).
    if existing
        .as_ref()
        .is_some_and(|m| !m.is_file() && !m.is_dir())
    {
        let mut out = std::io::BufWriter::new(open_special(&target)?);
        emit(&mut out)?;
        return out.flush();
    }
    let mut in_place = false;
    if let Some(m) = &existing {
        let shown = path.display();
        if m.permissions().readonly() && replace == Replace::Safe {
            return Err(std::io::Error::new(
                std::io::ErrorKind::PermissionDenied,
                format!("{shown} is read-only; not rewritten (--force-write rewrites it)"),
            ));
        }
        if links(m) > 1 {
            if replace == Replace::Safe {
                let others = links(m) - 1;
                let noun = if others == 1 { "link" } else { "links" };
                return Err(std::io::Error::other(format!(
                    "{shown} has {others} other hard {noun}, which a rewrite would break; not \
                     rewritten (--force-write writes it in place)"
                )));
            }
            in_place = true;
        }
    }
    if in_place {
        // Every name keeps seeing one file; not atomic, which the user chose.
        let mut bytes = Vec::new();
        emit(&mut bytes)?;
        let mut f = std::fs::OpenOptions::new()
            .write(true)
            .truncate(true)
            .open(&target)?;
        f.write_all(&bytes)?;
        return f.sync_all();
    }
    let dir = target
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = target
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "report".into());
    let prefix = format!(".{name}.");
    let mut builder = tempfile::Builder::new();
    builder.prefix(&prefix).suffix(".proclint.tmp");
    #[cfg(unix)]
    {
        // A new file gets the usual 0666 less the umask, as `File::create`
        // gives it (tempfile's default is 0600); an existing file's mode is
        // restored below.
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(std::fs::Permissions::from_mode(0o666));
    }
    // Dropped (and removed) on any error below.
    let mut tmp = builder.tempfile_in(dir)?;
    if crate::source::inject::fails("write", &path.to_string_lossy()) {
        // Simulates a full disk half-way through (testing hook).
        let mut bytes = Vec::new();
        emit(&mut bytes)?;
        tmp.write_all(&bytes[..bytes.len() / 2])?;
        return Err(std::io::Error::other("injected write failure"));
    }
    {
        let mut out = std::io::BufWriter::new(tmp.as_file_mut());
        emit(&mut out)?;
        out.flush()?;
    }
    if let Some(m) = &existing {
        keep_identity(tmp.as_file(), m)?;
    }
    tmp.as_file().sync_all()?;
    tmp.persist(&target).map_err(|e| e.error)?;
    Ok(())
}

/// Opens a FIFO or device for writing without blocking on the open, then
/// writes block as usual.
fn open_special(path: &Path) -> std::io::Result<std::fs::File> {
    let mut options = std::fs::OpenOptions::new();
    options.write(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        use std::os::unix::io::AsRawFd;
        options.custom_flags(libc::O_NONBLOCK);
        let file = options.open(path).map_err(|e| {
            if e.raw_os_error() == Some(libc::ENXIO) {
                std::io::Error::other(format!(
                    "{}: a FIFO with no reader",
                    super::printable(&path.display().to_string())
                ))
            } else {
                e
            }
        })?;
        // SAFETY: fcntl on a descriptor this function owns; only the
        // O_NONBLOCK status flag is cleared.
        let fd = file.as_raw_fd();
        let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
        if flags >= 0 {
            unsafe { libc::fcntl(fd, libc::F_SETFL, flags & !libc::O_NONBLOCK) };
        }
        Ok(file)
    }
    #[cfg(not(unix))]
    options.open(path)
}

/// Fails when `path`, or a folder on the way to it, is a symbolic link.
fn refuse_links(path: &Path) -> std::io::Result<()> {
    match link_on_the_way(path) {
        Some(at) => Err(std::io::Error::other(format!(
            "{} is a symbolic link; proclint does not write through links it did not \
             create (not written: {})",
            super::printable(&at.display().to_string()),
            super::printable(&path.display().to_string())
        ))),
        None => Ok(()),
    }
}

/// The first symbolic link among `path` and the folders on the way to it
/// that a checked-out tree could hold: those below the working directory
/// when `path` is inside it, else those below the nearest folder holding a
/// `.git` (a repository: `-o $GITHUB_WORKSPACE/reports/x.sarif` run from
/// elsewhere), else `path` itself. The folders above are the machine's,
/// not the pull request's (`/tmp` may well be a link).
pub fn link_on_the_way(path: &Path) -> Option<std::path::PathBuf> {
    let cwd = std::env::current_dir().ok();
    let absolute = match (&cwd, path.is_absolute()) {
        (Some(cwd), false) => cwd.join(path),
        _ => path.to_path_buf(),
    };
    let base = cwd
        .filter(|c| absolute.starts_with(c))
        .or_else(|| {
            absolute
                .ancestors()
                .skip(1)
                .find(|a| std::fs::symlink_metadata(a.join(".git")).is_ok())
                .map(Path::to_path_buf)
        })
        .or_else(|| absolute.parent().map(Path::to_path_buf))?;
    let rel = absolute.strip_prefix(&base).ok()?;
    let mut at = base.clone();
    for part in rel.components() {
        at.push(part);
        if std::fs::symlink_metadata(&at).is_ok_and(|m| m.file_type().is_symlink()) {
            return Some(at);
        }
    }
    None
}

#[cfg(unix)]
fn links(m: &std::fs::Metadata) -> u64 {
    std::os::unix::fs::MetadataExt::nlink(m)
}

#[cfg(not(unix))]
fn links(_: &std::fs::Metadata) -> u64 {
    1
}

/// Gives the temporary file the replaced file's owner, group and mode. A
/// change of owner is only permitted to root; the group, to a member. When
/// the group cannot be kept, the group and other bits are dropped, so the
/// file is not opened to a group (or everyone) the original did not allow.
#[cfg(unix)]
fn keep_identity(tmp: &std::fs::File, original: &std::fs::Metadata) -> std::io::Result<()> {
    use std::os::unix::fs::{MetadataExt, PermissionsExt};
    let mut mode = original.mode() & 0o7777;
    let now = tmp.metadata()?;
    if now.uid() != original.uid() || now.gid() != original.gid() {
        let kept = std::os::unix::fs::fchown(tmp, Some(original.uid()), Some(original.gid()))
            .or_else(|_| std::os::unix::fs::fchown(tmp, None, Some(original.gid())));
        if kept.is_err() {
            mode &= !0o077;
        }
    }
    tmp.set_permissions(std::fs::Permissions::from_mode(mode))
}

#[cfg(not(unix))]
fn keep_identity(tmp: &std::fs::File, original: &std::fs::Metadata) -> std::io::Result<()> {
    tmp.set_permissions(original.permissions())
}
