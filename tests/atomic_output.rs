//! `--output` and `--fix` write through a temporary file and a rename: a
//! failed or interrupted write never leaves a truncated report or source
//! file, and never truncates the previous one.

mod common;

use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::Duration;

use common::*;

fn run_env(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_proclint"));
    cmd.args(args)
        .current_dir(dir)
        .env("RAYON_NUM_THREADS", "2")
        .env_remove("PROCLINT_INJECT_PANIC");
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output()
        .unwrap_or_else(|e| panic!("cannot run proclint: {e}"))
}

/// Names in `dir`, without the cache directory.
fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map(|rd| {
            rd.flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n != ".proclint_cache")
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

#[test]
fn output_into_a_missing_directory_is_a_clean_error() {
    let dir = tempdir();
    let d = dir.path();
    write(d, "bad.js", BAD_BREAKPOINT);
    let o = run_env(
        d,
        &[
            "check",
            ".",
            "--format",
            "sarif",
            "--output",
            "nope/out.sarif",
        ],
        &[],
    );
    assert_eq!(code(&o), 2);
    assert_eq!(stdout(&o), "");
    assert!(
        stderr(&o).contains("error: cannot write the report"),
        "{}",
        stderr(&o)
    );
    assert_eq!(listing(d), ["bad.js"]);
}

#[test]
fn output_onto_a_directory_is_a_clean_error() {
    let dir = tempdir();
    let d = dir.path();
    write(d, "bad.js", BAD_BREAKPOINT);
    write(d, "out/keep.txt", "keep");
    let o = run_env(
        d,
        &["check", ".", "--format", "json", "--output", "out"],
        &[],
    );
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert_eq!(listing(d), ["bad.js", "out"]);
    assert_eq!(listing(&d.join("out")), ["keep.txt"]);
}

/// A write that fails half-way (a full disk, simulated with the testing
/// hook) leaves the previous report whole and no temporary file.
#[test]
fn a_failed_write_keeps_the_previous_report() {
    let dir = tempdir();
    let d = dir.path();
    write(d, "bad.js", BAD_BREAKPOINT);
    let ok = run_env(
        d,
        &["check", ".", "--format", "sarif", "--output", "r.sarif"],
        &[],
    );
    assert_eq!(code(&ok), 1);
    let previous = std::fs::read(d.join("r.sarif")).unwrap_or_default();
    assert!(previous.len() > 100);
    write(d, "other.js", BAD_BREAKPOINT);
    let o = run_env(
        d,
        &["check", ".", "--format", "sarif", "--output", "r.sarif"],
        &[("PROCLINT_INJECT_PANIC", "write:r.sarif")],
    );
    assert_eq!(code(&o), 2);
    assert!(
        stderr(&o).contains("injected write failure"),
        "{}",
        stderr(&o)
    );
    assert_eq!(
        std::fs::read(d.join("r.sarif")).unwrap_or_default(),
        previous
    );
    assert_eq!(listing(d), ["bad.js", "other.js", "r.sarif"]);
}

/// Read-only directory: only enforceable when not running as root.
#[cfg(unix)]
#[test]
fn output_into_a_read_only_directory() {
    use std::os::unix::fs::PermissionsExt;
    let dir = tempdir();
    let d = dir.path();
    write(d, "bad.js", BAD_BREAKPOINT);
    write(d, "ro/r.json", "OLD");
    let ro = d.join("ro");
    let _ = std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o555));
    let enforced = std::fs::File::create(ro.join("probe")).is_err();
    let o = run_env(
        d,
        &["check", ".", "--format", "json", "--output", "ro/r.json"],
        &[],
    );
    let _ = std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o755));
    if enforced {
        assert_eq!(code(&o), 2);
        assert_eq!(
            std::fs::read_to_string(ro.join("r.json")).unwrap_or_default(),
            "OLD"
        );
        assert_eq!(listing(&ro), ["r.json"]);
    } else {
        // As root the write succeeds: it must then be whole.
        let text = std::fs::read_to_string(ro.join("r.json")).unwrap_or_default();
        assert!(
            serde_json::from_str::<serde_json::Value>(&text).is_ok(),
            "{text}"
        );
        let _ = std::fs::remove_file(ro.join("probe"));
    }
}

/// `--fix` whose write fails half-way leaves that source file untouched.
#[test]
fn a_failed_fix_write_leaves_the_source_whole() {
    let dir = tempdir();
    let d = dir.path();
    write(d, "a.js", FIXABLE_TASK);
    write(d, "b.js", FIXABLE_TASK);
    let o = run_env(
        d,
        &["check", ".", "--fix", "--no-cache"],
        &[("PROCLINT_INJECT_PANIC", "write:b.js")],
    );
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(stderr(&o).contains("cannot write b.js"), "{}", stderr(&o));
    assert_eq!(
        std::fs::read_to_string(d.join("b.js")).unwrap_or_default(),
        FIXABLE_TASK
    );
    assert!(std::fs::read_to_string(d.join("a.js"))
        .unwrap_or_default()
        .contains("kind: 'agent',\nlabels: ['review'],"));
    assert_eq!(listing(d), ["a.js", "b.js"]);
}

/// Kills runs at increasing moments while they write a multi-megabyte
/// report over a previous one: the report on disk is always either the
/// previous one or the complete new one, never a prefix.
#[test]
fn a_killed_run_never_leaves_a_truncated_report() {
    let dir = tempdir();
    let d = dir.path();
    for i in 0..150 {
        let mut text = String::new();
        for j in 0..20 {
            text.push_str(&format!(
                "export async function p{j}(inputs, ctx) {{\n  await ctx.breakpoint({{ q: '{i}-{j}' }});\n}}\n"
            ));
        }
        write(d, &format!("m{i}.js"), &text);
    }
    let full = run_env(d, &["check", ".", "--format", "sarif", "--no-cache"], &[]);
    let complete = full.stdout;
    assert!(complete.len() > 1_000_000, "{}", complete.len());
    std::fs::write(d.join("r.sarif"), b"{\"previous\":true}").unwrap_or_else(|e| panic!("{e}"));
    let mut saw = (0, 0);
    for delay_ms in [0u64, 5, 10, 20, 40, 80, 120, 160, 240, 320, 480, 640] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_proclint"))
            .args([
                "check",
                ".",
                "--format",
                "sarif",
                "--no-cache",
                "--output",
                "r.sarif",
            ])
            .current_dir(d)
            .env("RAYON_NUM_THREADS", "2")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap_or_else(|e| panic!("{e}"));
        std::thread::sleep(Duration::from_millis(delay_ms));
        let _ = child.kill();
        let _ = child.wait();
        let now = std::fs::read(d.join("r.sarif")).unwrap_or_default();
        if now == complete {
            saw.1 += 1;
        } else {
            assert_eq!(
                now, b"{\"previous\":true}",
                "a partial report after {delay_ms} ms"
            );
            saw.0 += 1;
        }
        // Start each round from the previous report again.
        std::fs::write(d.join("r.sarif"), b"{\"previous\":true}").unwrap_or_else(|e| panic!("{e}"));
    }
    assert!(saw.0 > 0, "no run was interrupted: {saw:?}");
}

/// `--output` naming a FIFO (or a device such as `/dev/null`) writes into
/// it: renaming a temporary file over it would replace it with a regular
/// file.
#[cfg(unix)]
#[test]
fn output_to_a_fifo_writes_into_it() {
    use std::os::unix::fs::FileTypeExt;
    let dir = tempdir();
    let d = dir.path();
    write(d, "bad.js", BAD_BREAKPOINT);
    let fifo = d.join("out.fifo");
    let made = Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap_or_else(|e| panic!("mkfifo: {e}"));
    assert!(made.success());
    let expected = stdout(&run_env(d, &["check", ".", "--format", "json"], &[]));
    // Opening a FIFO for reading blocks until a writer opens it.
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read(fifo))
    };
    let o = run_env(
        d,
        &["check", ".", "--format", "json", "--output", "out.fifo"],
        &[],
    );
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    let still_fifo = std::fs::symlink_metadata(&fifo).is_ok_and(|m| m.file_type().is_fifo());
    // (Not joined otherwise: the reader would wait forever.)
    assert!(still_fifo, "the FIFO was replaced: {:?}", listing(d));
    let got = reader
        .join()
        .unwrap_or_else(|_| panic!("reader panicked"))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(String::from_utf8_lossy(&got), expected);
    assert_eq!(listing(d), ["bad.js", "out.fifo"]);
}
