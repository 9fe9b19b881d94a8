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

/// Writes through a temporary file in the same directory and renames it, so
/// an interrupted run never leaves a truncated report.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    write_atomic_with(path, |out| out.write_all(bytes))
}

/// [`write_atomic`] of what `emit` writes, as it writes it.
pub fn write_atomic_with(
    path: &Path,
    emit: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> std::io::Result<()> {
    // A device or FIFO (`--output /dev/null`, `/dev/stdout`, a named pipe)
    // is written into: renaming a temporary file over it would replace it
    // with a regular file (as root, `/dev/null` itself).
    if std::fs::metadata(path).is_ok_and(|m| !m.is_file() && !m.is_dir()) {
        let mut out = std::io::BufWriter::new(std::fs::OpenOptions::new().write(true).open(path)?);
        emit(&mut out)?;
        return out.flush();
    }
    let dir = path
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."));
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| "report".into());
    let tmp = dir.join(format!(".{name}.proclint-{}.tmp", std::process::id()));
    let result = (|| {
        let mut f = std::fs::File::create(&tmp)?;
        if crate::inject::fails("write", &path.to_string_lossy()) {
            // Simulates a full disk half-way through (testing hook).
            let mut bytes = Vec::new();
            emit(&mut bytes)?;
            f.write_all(&bytes[..bytes.len() / 2])?;
            return Err(std::io::Error::other("injected write failure"));
        }
        let mut out = std::io::BufWriter::new(f);
        emit(&mut out)?;
        let f = out.into_inner().map_err(|e| e.into_error())?;
        f.sync_all()?;
        std::fs::rename(&tmp, path)
    })();
    if result.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    result
}
