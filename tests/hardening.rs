//! Hardening, round 2 (issue 19): files proclint writes keep their identity,
//! files it reads cannot hurt it, and nothing grows superlinearly. Each test
//! is a regression test for one finding of the adversarial pass, run end to
//! end through the binary.

mod common;

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use common::*;

/// Runs proclint with a deadline (a hang fails the test, not the suite) and
/// optional stdin bytes.
fn run(dir: &Path, args: &[&str], stdin: Option<&[u8]>) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_proclint"));
    cmd.args(args)
        .current_dir(dir)
        .env("RAYON_NUM_THREADS", "2")
        .env_remove("PROCLINT_INJECT_PANIC")
        .env_remove("NO_COLOR")
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run proclint: {e}"));
    if let Some(bytes) = stdin {
        let mut pipe = child.stdin.take().unwrap_or_else(|| panic!("no stdin"));
        let bytes = bytes.to_vec();
        std::thread::spawn(move || {
            use std::io::Write;
            let _ = pipe.write_all(&bytes);
        });
    }
    let id = child.id();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    match rx.recv_timeout(Duration::from_secs(60)) {
        Ok(out) => out.unwrap_or_else(|e| panic!("cannot wait for proclint: {e}")),
        Err(_) => {
            let _ = Command::new("kill").arg("-9").arg(id.to_string()).status();
            panic!("proclint {args:?} did not finish in 60 s");
        }
    }
}

// ---- Crashes ------------------------------------------------------------

/// miette pads with a width argument and Rust's formatter panics past
/// 65,535 columns: 17,000 tabs (4 columns each) before a finding, or a
/// minified line, exited 101 in the default (pretty) format.
#[test]
fn pretty_report_of_a_finding_past_column_65535() {
    let dir = tempdir();
    let tabs = "\t".repeat(17_000);
    write(
        dir.path(),
        "tabs.js",
        &format!(
            "export async function process(inputs, ctx) {{\n{tabs}await ctx.breakpoint({{ question: 'Ship?', label: 'Ship?' }});\n}}\n"
        ),
    );
    let filler = "x = 1;".repeat(20_000);
    write(
        dir.path(),
        "min.js",
        &format!(
            "export async function process(inputs, ctx) {{ {filler} await ctx.breakpoint({{ question: 'Ship?', label: 'Ship?' }}); {filler} }}\n"
        ),
    );
    let o = run(
        dir.path(),
        &["check", "--format", "pretty", "tabs.js", "min.js"],
        None,
    );
    let out = stdout(&o);
    assert_eq!(code(&o), 1, "{out}\n{}", stderr(&o));
    // The header names the file's position, not the excerpt's.
    assert!(out.contains("[tabs.js:2:17007]"), "{out}");
    assert!(out.contains("[min.js:1:"), "{out}");
    assert_eq!(out.matches("unchecked-breakpoint").count(), 4, "{out}");
    assert!(out.contains("await ctx.breakpoint("), "{out}");
    // The cut lines are short: nothing near the 65,535 limit is printed.
    assert!(out.lines().all(|l| l.chars().count() < 2_000), "{out}");
}

/// A copy of a recorded run in `dir/.a5c/runs/run-completed`.
fn copy_run(dir: &Path) -> std::path::PathBuf {
    let run = dir.join(".a5c/runs/run-completed");
    copy_tree(
        &root().join("fixtures/runs/project/.a5c/runs/run-completed"),
        &run,
    );
    run
}

fn mkfifo(path: &Path) -> bool {
    Command::new("mkfifo")
        .arg(path)
        .status()
        .is_ok_and(|s| s.success())
}

/// Git stores symbolic links, so a committed `.a5c/runs/` can point its
/// files anywhere: at a device (read until memory ran out: its size is 0),
/// at a file outside the repository (leaked into the timeline), or be a FIFO
/// (hung forever). Each is reported and skipped; the rest of the run is read.
#[cfg(unix)]
#[test]
fn run_files_that_are_devices_fifos_or_links_out_are_reported_not_read() {
    use std::os::unix::fs::symlink;
    let dir = tempdir();
    let outside = tempdir();
    let rundir = copy_run(dir.path());
    let secret = write(
        outside.path(),
        "secret.json",
        "{\"taskId\": \"SECRET-TASK\", \"title\": \"SECRET TITLE\", \"kind\": \"agent\"}",
    );
    let task = rundir.join("tasks/01KERPXZMF0000000000000004/task.json");
    std::fs::remove_file(&task).unwrap_or_else(|e| panic!("{e}"));
    symlink(&secret, &task).unwrap_or_else(|e| panic!("{e}"));
    let zero = Path::new("/dev/zero");
    let zero_is_device = std::fs::metadata(zero).is_ok_and(|m| !m.is_file());
    if zero_is_device {
        std::fs::remove_file(rundir.join("run.json")).unwrap_or_else(|e| panic!("{e}"));
        symlink(zero, rundir.join("run.json")).unwrap_or_else(|e| panic!("{e}"));
    }
    std::fs::remove_file(rundir.join("inputs.json")).unwrap_or_else(|e| panic!("{e}"));
    assert!(mkfifo(&rundir.join("inputs.json")), "mkfifo");
    let event = rundir.join("journal/000005.01KERQ0WX00000000000000006.json");
    std::fs::remove_file(&event).unwrap_or_else(|e| panic!("{e}"));
    std::fs::create_dir(&event).unwrap_or_else(|e| panic!("{e}"));

    for format in ["table", "json"] {
        let o = run(dir.path(), &["runs", "--format", format, "."], None);
        let out = stdout(&o);
        assert_eq!(code(&o), 1, "{out}\n{}", stderr(&o));
        assert!(!out.contains("SECRET"), "{out}");
        if format == "json" {
            // The JSON summary counts the issues; the table lists them.
            let failed = if zero_is_device {
                "\"failed\":4"
            } else {
                "\"failed\":3"
            };
            assert!(out.contains(failed), "{out}");
            continue;
        }
        assert!(
            out.contains("task.json") && out.contains("a symbolic link leaving the run folder"),
            "{out}"
        );
        assert!(
            out.contains("inputs.json unreadable: not a regular file (a FIFO)"),
            "{out}"
        );
        assert!(
            out.contains("000005.01KERQ0WX00000000000000006.json")
                && out.contains("not a regular file (a directory)"),
            "{out}"
        );
        assert!(!out.contains("sequence gap"), "{out}");
        if zero_is_device {
            assert!(
                out.contains("run.json unreadable: a symbolic link leaving"),
                "{out}"
            );
        }
    }
    // The retrospective reads the same files the same way.
    let o = run(
        dir.path(),
        &[
            "check",
            "--run",
            "run-completed",
            "--format",
            "retrospective",
            ".",
        ],
        None,
    );
    assert!(!stdout(&o).contains("SECRET"), "{}", stdout(&o));
    assert_ne!(code(&o), 101, "{}", stderr(&o));
}

/// Ignore files are read as git reads them: a `.gitignore` linked to
/// `/dev/zero` aborted `check` (allocation failure), a FIFO hung it; one
/// above the repository root (a `*` in a home folder) turned proclint off.
#[cfg(unix)]
#[test]
fn ignore_files_are_bounded_and_stop_at_the_repository_root() {
    let home = tempdir();
    write(home.path(), ".gitignore", "*\n");
    let repo = home.path().join("repo");
    write(&repo, "p.js", BAD_BREAKPOINT);
    write(&repo, "sub/q.js", BAD_BREAKPOINT);
    write(&repo, "sub/r.js", BAD_BREAKPOINT);
    std::fs::create_dir_all(repo.join(".git/info")).unwrap_or_else(|e| panic!("{e}"));
    write(&repo, ".git/info/exclude", "r.js\n");
    let zero = Path::new("/dev/zero");
    if std::fs::metadata(zero).is_ok_and(|m| !m.is_file()) {
        std::os::unix::fs::symlink(zero, repo.join("sub/.gitignore"))
            .unwrap_or_else(|e| panic!("{e}"));
    } else {
        let outside = write(home.path(), "elsewhere", "q.js\n");
        std::os::unix::fs::symlink(outside, repo.join("sub/.gitignore"))
            .unwrap_or_else(|e| panic!("{e}"));
    }
    assert!(mkfifo(&repo.join(".ignore")), "mkfifo");

    let o = run(&repo, &["check", "--format", "concise", "."], None);
    let out = stdout(&o);
    assert_eq!(code(&o), 1, "{out}\n{}", stderr(&o));
    assert!(
        out.contains("p.js:2:9: error[unchecked-breakpoint]"),
        "{out}"
    );
    assert!(
        out.contains("sub/q.js:2:9: error[unchecked-breakpoint]"),
        "{out}"
    );
    assert!(!out.contains("r.js"), "{out}");
    assert!(out.contains(".ignore:1:1: warning[io-error]"), "{out}");
    assert!(out.contains("not a regular file (a FIFO)"), "{out}");
    assert!(
        out.contains("sub/.gitignore:1:1: warning[io-error]")
            && out.contains("a symbolic link leaving the repository"),
        "{out}"
    );

    // From a subfolder, the repository's ignore files above it still count.
    std::fs::remove_file(repo.join(".ignore")).unwrap_or_else(|e| panic!("{e}"));
    write(&repo, ".gitignore", "q.js\n");
    std::fs::remove_file(repo.join("sub/.gitignore")).unwrap_or_else(|e| panic!("{e}"));
    write(&repo, "sub/.ignore", "!r.js\n");
    let o = run(&repo, &["check", "--format", "concise", "sub"], None);
    let out = stdout(&o);
    assert!(!out.contains("q.js"), "{out}");
    assert!(out.contains("sub/r.js:2:9"), "{out}");
}

/// `rules` and `explain` panicked (exit 101) when stdout failed, `runs`
/// exited 2 saying nothing. Each now names the failure and exits 2.
#[test]
fn commands_writing_to_a_full_device_report_it() {
    let full = Path::new("/dev/full");
    if !std::fs::metadata(full).is_ok_and(|m| !m.is_file()) {
        eprintln!("skipped: /dev/full is not a device here");
        return;
    }
    let runs = root().join("fixtures/runs/project");
    let runs = runs.to_string_lossy();
    for args in [
        &["rules"][..],
        &["rules", "--format", "json"],
        &["explain", "unchecked-breakpoint"],
        &["runs", &runs],
    ] {
        let out = std::fs::OpenOptions::new()
            .write(true)
            .open(full)
            .unwrap_or_else(|e| panic!("{e}"));
        let o = Command::new(env!("CARGO_BIN_EXE_proclint"))
            .args(args)
            .stdout(out)
            .output()
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(code(&o), 2, "{args:?}: {}", stderr(&o));
        assert!(
            stderr(&o).contains("cannot write to stdout"),
            "{args:?}: {}",
            stderr(&o)
        );
    }
}
