//! Hardening, round 2 (issue 19): files proclint writes keep their identity,
//! files it reads cannot hurt it, and nothing grows superlinearly. Each test
//! is a regression test for one finding of the adversarial pass, run end to
//! end through the binary.

mod common;

use std::path::Path;
use std::process::{Command, Output, Stdio};

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
    wait_with_deadline(child, &format!("{args:?}"), 60)
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
    // Named once per finding, on its first line.
    assert_eq!(out.matches("unchecked-breakpoint").count(), 2, "{out}");
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

/// An event file that is a symbolic link to another event of the same run
/// was read as that event again (a "duplicate" whose real cause was never
/// named); a `run.json` linked to a device made its folder "a folder without
/// a journal (no run.json …)", which it has. Both are named for what they are.
#[cfg(unix)]
#[test]
fn linked_event_files_and_a_device_run_json_are_named() {
    use std::os::unix::fs::symlink;
    let dir = tempdir();
    let rundir = copy_run(dir.path());
    let event = rundir.join("journal/000005.01KERQ0WX00000000000000006.json");
    std::fs::remove_file(&event).unwrap_or_else(|e| panic!("{e}"));
    symlink("000004.01KERPXZMF0000000000000005.json", &event).unwrap_or_else(|e| panic!("{e}"));
    let zero = Path::new("/dev/zero");
    let zero_is_device = std::fs::metadata(zero).is_ok_and(|m| !m.is_file());
    let bare = dir.path().join(".a5c/runs/run-bare");
    std::fs::create_dir_all(&bare).unwrap_or_else(|e| panic!("{e}"));
    if zero_is_device {
        symlink(zero, bare.join("run.json")).unwrap_or_else(|e| panic!("{e}"));
    }

    let o = run(dir.path(), &["runs", "--format", "table", "."], None);
    let out = stdout(&o);
    assert_eq!(code(&o), 1, "{out}\n{}", stderr(&o));
    assert!(
        out.contains(
            "000005.01KERQ0WX00000000000000006.json: error[journal-integrity] a symbolic link (to 000004.01KERPXZMF0000000000000005.json), not an event file"
        ),
        "{out}"
    );
    assert!(!out.contains("requested again"), "{out}");
    if zero_is_device {
        assert!(!out.contains("without a journal"), "{out}");
        assert!(out.contains("run-bare"), "{out}");
        assert!(
            out.contains("run-bare/run.json: error[journal-integrity] run.json unreadable: a symbolic link leaving the run folder"),
            "{out}"
        );
    }
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

// ---- Data loss ------------------------------------------------------------

#[cfg(unix)]
fn mode(p: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p)
        .unwrap_or_else(|e| panic!("{e}"))
        .permissions()
        .mode()
        & 0o7777
}

#[cfg(unix)]
fn set_mode(p: &Path, mode: u32) {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(p, std::fs::Permissions::from_mode(mode))
        .unwrap_or_else(|e| panic!("{e}"));
}

/// `--fix` renamed a temporary file over its target: the exec bit and the
/// group were lost and the mode became 0644. And (round 3) a fix never
/// writes through a symbolic link: a committed link would send it anywhere.
#[cfg(unix)]
#[test]
fn fix_keeps_mode_and_group_and_never_writes_through_links() {
    use std::os::unix::fs::MetadataExt;
    let dir = tempdir();
    let real = write(dir.path(), "real.js", FIXABLE_TASK);
    std::os::unix::fs::symlink("../real.js", {
        std::fs::create_dir(dir.path().join("d")).unwrap_or_else(|e| panic!("{e}"));
        dir.path().join("d/link.js")
    })
    .unwrap_or_else(|e| panic!("{e}"));
    set_mode(&real, 0o750);
    // Another group, where permitted (as root, or a member of group 1).
    let _ = std::os::unix::fs::chown(&real, None, Some(1));
    let gid = std::fs::metadata(&real)
        .map(|m| m.gid())
        .unwrap_or_else(|e| panic!("{e}"));

    let o = run(
        dir.path(),
        &["check", "--fix", "--no-cache", "d/link.js"],
        None,
    );
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(stderr(&o).contains("is a symbolic link"), "{}", stderr(&o));
    let link = dir.path().join("d/link.js");
    let link_meta = std::fs::symlink_metadata(&link).unwrap_or_else(|e| panic!("{e}"));
    assert!(link_meta.file_type().is_symlink(), "the link was replaced");
    let untouched = std::fs::read_to_string(&real).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(untouched, FIXABLE_TASK);

    let o = run(
        dir.path(),
        &["check", "--fix", "--no-cache", "real.js"],
        None,
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let fixed = std::fs::read_to_string(&real).unwrap_or_else(|e| panic!("{e}"));
    assert!(fixed.contains("labels"), "{fixed}");
    assert_eq!(mode(&real), 0o750);
    assert_eq!(std::fs::metadata(&real).map(|m| m.gid()).ok(), Some(gid));
    // No temporary file is left behind.
    let names: Vec<String> = std::fs::read_dir(dir.path())
        .unwrap_or_else(|e| panic!("{e}"))
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.contains(".tmp"))
        .collect();
    assert!(names.is_empty(), "{names:?}");
}

/// A read-only file, or one with other hard links, is not rewritten (the
/// rename made a read-only file 0644 and broke the links) unless
/// `--force-write` says so; then the mode is kept and every link sees the fix.
#[cfg(unix)]
#[test]
fn fix_refuses_read_only_and_hard_linked_files_unless_forced() {
    let dir = tempdir();
    let ro = write(dir.path(), "ro.js", FIXABLE_TASK);
    set_mode(&ro, 0o444);
    let o = run(dir.path(), &["check", "--fix", "--no-cache", "ro.js"], None);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(stderr(&o).contains("ro.js is read-only"), "{}", stderr(&o));
    assert!(stderr(&o).contains("--force-write"), "{}", stderr(&o));
    assert_eq!(
        std::fs::read_to_string(&ro).ok().as_deref(),
        Some(FIXABLE_TASK)
    );

    let o = run(
        dir.path(),
        &["check", "--fix", "--force-write", "--no-cache", "ro.js"],
        None,
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    assert!(std::fs::read_to_string(&ro)
        .unwrap_or_default()
        .contains("labels"));
    assert_eq!(mode(&ro), 0o444);

    let a = write(dir.path(), "a.js", FIXABLE_TASK);
    let b = dir.path().join("b.js");
    std::fs::hard_link(&a, &b).unwrap_or_else(|e| panic!("{e}"));
    let o = run(dir.path(), &["check", "--fix", "--no-cache", "a.js"], None);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(
        stderr(&o).contains("a.js has 1 other hard link"),
        "{}",
        stderr(&o)
    );
    assert_eq!(
        std::fs::read_to_string(&a).ok().as_deref(),
        Some(FIXABLE_TASK)
    );

    let o = run(
        dir.path(),
        &["check", "--fix", "--force-write", "--no-cache", "a.js"],
        None,
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let fixed = std::fs::read_to_string(&b).unwrap_or_default();
    assert!(fixed.contains("labels"), "{fixed}");
    assert_eq!(std::fs::read_to_string(&a).ok(), Some(fixed));
}

/// A file `--fix` may not write does not stop the others: they are fixed,
/// the refusal is reported once, the report is still written, and the exit
/// code is 2 (the first refusal ended the run, leaving later files unfixed).
#[cfg(unix)]
#[test]
fn fix_refusing_one_file_still_fixes_the_others() {
    let dir = tempdir();
    let ro = write(dir.path(), "a/ro.js", FIXABLE_TASK);
    let ok = write(dir.path(), "b/ok.js", FIXABLE_TASK);
    set_mode(&ro, 0o444);
    let o = run(
        dir.path(),
        &["check", "--fix", "--no-cache", "--format", "concise", "."],
        None,
    );
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    let err = stderr(&o);
    assert_eq!(err.matches("ro.js is read-only").count(), 1, "{err}");
    assert_eq!(
        std::fs::read_to_string(&ro).ok().as_deref(),
        Some(FIXABLE_TASK)
    );
    assert!(
        std::fs::read_to_string(&ok)
            .unwrap_or_default()
            .contains("labels"),
        "{err}"
    );
    // The report lists what remains: ro.js's unfixed finding.
    assert!(stdout(&o).contains("a/ro.js"), "{}", stdout(&o));
    assert!(!stdout(&o).contains("b/ok.js"), "{}", stdout(&o));
}

/// `--output` naming a linted file (here through `..`) overwrote the source
/// with the report.
#[test]
fn output_naming_an_input_is_refused() {
    let dir = tempdir();
    write(dir.path(), "a/p.js", BAD_BREAKPOINT);
    let o = run(dir.path(), &["check", "--output", "a/../a/p.js", "a"], None);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(
        stderr(&o).contains("names an input file (a/p.js)"),
        "{}",
        stderr(&o)
    );
    assert_eq!(
        std::fs::read_to_string(dir.path().join("a/p.js"))
            .ok()
            .as_deref(),
        Some(BAD_BREAKPOINT)
    );
}

// ---- Wrong results --------------------------------------------------------

/// Written by Node (`JSON.stringify(ev, null, 2)`, checksum over the same
/// text without the checksum): JavaScript strings may hold a lone surrogate
/// (half an emoji), which `JSON.stringify` escapes. The event was "not valid
/// JSON" to proclint.
const LONE_SURROGATE_EVENT: &str = r#"{
  "type": "EFFECT_RESOLVED_NOTE",
  "recordedAt": "2026-01-12T10:00:00.000Z",
  "data": {
    "note": "cut \ud83d",
    "pair": "😀",
    "low": "\ude00x",
    "esc": "\\ud83d"
  },
  "checksum": "85f73e495b2854a304b4ddf99518eff3e2e6b16d1d0acb9772972e03bd841b76"
}
"#;

#[test]
fn lone_surrogate_escapes_parse_and_verify_like_json_parse() {
    let dir = tempdir();
    let rundir = copy_run(dir.path());
    write(
        &rundir,
        "journal/000013.01KERYJCFC000000000000000H.json",
        LONE_SURROGATE_EVENT,
    );
    let o = run(dir.path(), &["runs", "."], None);
    let out = stdout(&o);
    // 12 fixture events and this one verify; the one issue is that it came
    // after the run completed.
    assert!(out.contains("13 ok, 1 FAILED"), "{out}");
    assert!(!out.contains("JSON"), "{out}");
    assert!(!out.contains("checksum"), "{out}");
}

/// The same file named twice was linted and reported twice.
#[test]
fn the_same_file_named_twice_is_linted_once() {
    let dir = tempdir();
    write(dir.path(), "a/p.js", BAD_BREAKPOINT);
    let abs = dir.path().to_string_lossy().into_owned();
    for args in [
        vec!["check", "--format", "concise", "a/p.js", "a/../a/p.js"],
        vec!["check", "--format", "concise", ".", &abs],
        vec!["check", "--format", "concise", "a", "./a/p.js"],
    ] {
        let o = run(dir.path(), &args, None);
        let out = stdout(&o);
        assert_eq!(
            out.matches("unchecked-breakpoint").count(),
            1,
            "{args:?}: {out}"
        );
        assert!(out.contains("in 1 file"), "{args:?}: {out}");
    }
}

/// A file name that is not UTF-8 (bytes, on Unix) was skipped silently,
/// walked or named: "0 files", exit 0. It is linted, and shown with U+FFFD
/// for the bytes that are not UTF-8.
#[cfg(unix)]
#[test]
fn non_utf8_file_names_are_linted() {
    use std::ffi::OsStr;
    use std::os::unix::ffi::OsStrExt;
    let dir = tempdir();
    let name = OsStr::from_bytes(b"p\xff.js");
    std::fs::write(dir.path().join(name), BAD_BREAKPOINT).unwrap_or_else(|e| panic!("{e}"));
    let sub = dir.path().join(OsStr::from_bytes(b"d\xfe"));
    write(&sub, "q.js", BAD_BREAKPOINT);
    let o = run(dir.path(), &["check", "--format", "concise", "."], None);
    let out = stdout(&o);
    assert_eq!(code(&o), 1, "{out}");
    assert!(
        out.contains("p\u{fffd}.js:2:9: error[unchecked-breakpoint]"),
        "{out}"
    );
    assert!(
        out.contains("d\u{fffd}/q.js:2:9: error[unchecked-breakpoint]"),
        "{out}"
    );
    let o = Command::new(env!("CARGO_BIN_EXE_proclint"))
        .args([
            OsStr::new("check"),
            OsStr::new("--format"),
            OsStr::new("concise"),
            name,
        ])
        .current_dir(dir.path())
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(stdout(&o).contains("in 1 file"), "{}", stdout(&o));
}

/// stdin is linted as the same bytes on disk: invalid UTF-8 was an exit 2
/// on stdin, and `max-file-size` and the NUL check were skipped.
#[test]
fn stdin_is_linted_like_the_same_bytes_on_disk() {
    let dir = tempdir();
    let mut bad = b"export async function process(inputs, ctx) {\n  const s = \"".to_vec();
    bad.push(0xff);
    bad.extend_from_slice(
        b"\";\n  await ctx.breakpoint({ question: 'Ship?', label: 'Ship?' });\n}\n",
    );
    std::fs::write(dir.path().join("bad.js"), &bad).unwrap_or_else(|e| panic!("{e}"));
    let mut nul = BAD_BREAKPOINT.as_bytes().to_vec();
    nul.extend_from_slice(b"// \0\n");
    std::fs::write(dir.path().join("nul.js"), &nul).unwrap_or_else(|e| panic!("{e}"));
    let big = format!("{BAD_BREAKPOINT}// {}\n", "x".repeat(200));
    write(dir.path(), "big.js", &big);
    write(dir.path(), "proclint.toml", "max-file-size = 150\n");
    for (name, bytes) in [
        ("bad.js", bad.clone()),
        ("nul.js", nul.clone()),
        ("big.js", big.clone().into_bytes()),
    ] {
        let disk = run(
            dir.path(),
            &["check", "--format", "concise", "--no-cache", name],
            None,
        );
        let piped = run(
            dir.path(),
            &["check", "--format", "concise", "--stdin-filename", name],
            Some(&bytes),
        );
        assert_eq!(code(&piped), code(&disk), "{name}: {}", stderr(&piped));
        let strip = |s: String| {
            s.replace("stdin is", "")
                .replace(&format!("{} bytes is", bytes.len()), "")
        };
        assert_eq!(strip(stdout(&piped)), strip(stdout(&disk)), "{name}");
    }
}

/// Baseline entries are relative to the baseline's folder, also for files
/// outside it: a file outside was stored relative to the working directory,
/// so a baseline in `config/`, or one written from another folder, lost or
/// mismatched its entries (and called them stale).
#[test]
fn baseline_paths_are_relative_to_the_baseline_wherever_proclint_runs() {
    let dir = tempdir();
    write(dir.path(), "a/p.js", BAD_BREAKPOINT);
    write(dir.path(), "b/q.js", BAD_BREAKPOINT);
    let a = dir.path().join("a");
    let b = dir.path().join("b");
    std::fs::create_dir(a.join("config")).unwrap_or_else(|e| panic!("{e}"));
    let o = run(
        &a,
        &[
            "check",
            "--no-cache",
            "--write-baseline",
            "config/base.json",
            ".",
        ],
        None,
    );
    assert_eq!(code(&o), 0, "{}", stderr(&o));
    let text = std::fs::read_to_string(a.join("config/base.json")).unwrap_or_default();
    assert!(text.contains("\"path\":\"../p.js\""), "{text}");
    // The same tree from its parent, and from the baseline's folder.
    for (cwd, args) in [
        (
            dir.path().to_path_buf(),
            vec!["--baseline", "a/config/base.json", "a"],
        ),
        (a.join("config"), vec!["--baseline", "base.json", ".."]),
    ] {
        let mut all = vec!["check", "--no-cache", "--format", "concise"];
        all.extend(args);
        let o = run(&cwd, &all, None);
        assert_eq!(code(&o), 0, "{all:?}: {}", stdout(&o));
        assert!(!stdout(&o).contains("baseline-stale"), "{}", stdout(&o));
    }
    // A baseline is for one tree: b's findings are not written into a's
    // (they were, as `../b/q.js`), and a's baseline is left as it was.
    let o = run(
        &b,
        &[
            "check",
            "--no-cache",
            "--write-baseline",
            "../a/base.json",
            ".",
        ],
        None,
    );
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(stderr(&o).contains("outside it"), "{}", stderr(&o));
    assert!(!a.join("base.json").exists());
}

/// `--fix` said "changed on disk while proclint ran" for files that did not
/// change: one with invalid UTF-8 (never written back), and every buffer
/// given on stdin.
#[test]
fn fix_names_the_real_reason_a_file_is_not_fixed() {
    let dir = tempdir();
    let mut bytes = FIXABLE_TASK.as_bytes().to_vec();
    bytes.extend_from_slice(b"// caf\xe9\n");
    std::fs::write(dir.path().join("latin1.js"), &bytes).unwrap_or_else(|e| panic!("{e}"));
    let o = run(
        dir.path(),
        &["check", "--fix", "--no-cache", "latin1.js"],
        None,
    );
    assert!(!stderr(&o).contains("changed on disk"), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("latin1.js is not valid UTF-8"),
        "{}",
        stderr(&o)
    );
    assert_eq!(
        std::fs::read(dir.path().join("latin1.js")).ok(),
        Some(bytes)
    );

    let o = run(
        dir.path(),
        &["check", "--fix", "--stdin-filename", "task.js"],
        Some(FIXABLE_TASK.as_bytes()),
    );
    assert!(!stderr(&o).contains("changed on disk"), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("task.js was read from stdin"),
        "{}",
        stderr(&o)
    );
}

/// `--fix --diff --stdin-filename` printed nothing: the buffer's fixes are
/// shown as the same file's on disk are, and nothing is written.
#[test]
fn fix_diff_of_stdin_prints_the_diff_of_the_buffer() {
    let dir = tempdir();
    write(dir.path(), "task.js", FIXABLE_TASK);
    let disk = run(
        dir.path(),
        &["check", "--fix", "--diff", "--no-cache", "task.js"],
        None,
    );
    assert_eq!(code(&disk), 1, "{}", stderr(&disk));
    assert!(
        stdout(&disk).starts_with("--- a/task.js\n+++ b/task.js\n"),
        "{}",
        stdout(&disk)
    );
    std::fs::remove_file(dir.path().join("task.js")).unwrap_or_else(|e| panic!("{e}"));
    let piped = run(
        dir.path(),
        &[
            "check",
            "--fix",
            "--diff",
            "--stdin-filename",
            "task.js",
            "-",
        ],
        Some(FIXABLE_TASK.as_bytes()),
    );
    assert_eq!(code(&piped), 1, "{}", stderr(&piped));
    assert_eq!(stdout(&piped), stdout(&disk));
    assert!(
        !stderr(&piped).contains("read from stdin"),
        "{}",
        stderr(&piped)
    );
    assert!(!dir.path().join("task.js").exists(), "nothing is written");
    // Invalid UTF-8 is read with substitutions: its diff would not apply.
    let mut bytes = FIXABLE_TASK.as_bytes().to_vec();
    bytes.extend_from_slice(b"// caf\xe9\n");
    let o = run(
        dir.path(),
        &["check", "--fix", "--diff", "--stdin-filename", "task.js"],
        Some(&bytes),
    );
    assert_eq!(stdout(&o), "");
    assert!(
        stderr(&o).contains("task.js is not valid UTF-8"),
        "{}",
        stderr(&o)
    );
}

/// Lone-CR files (old Mac line endings): a SKILL.md "had no frontmatter"
/// and a process module got no fix. Each is read as its LF twin is.
#[test]
fn lone_cr_files_are_read_and_fixed_like_lf_ones() {
    let dir = tempdir();
    let skill = "---\nname: x\ndescription: y\n---\nbody\n";
    write(dir.path(), "lf/SKILL.md", skill);
    write(dir.path(), "cr/SKILL.md", &skill.replace('\n', "\r"));
    for sub in ["lf", "cr"] {
        let o = run(
            &dir.path().join(sub),
            &["check", "--no-cache", "--format", "concise", "SKILL.md"],
            None,
        );
        assert_eq!(code(&o), 0, "{sub}: {}", stdout(&o));
    }
    let cr = FIXABLE_TASK.replace('\n', "\r");
    write(dir.path(), "cr/task.js", &cr);
    write(dir.path(), "lf/task.js", FIXABLE_TASK);
    for sub in ["lf", "cr"] {
        let o = run(
            &dir.path().join(sub),
            &["check", "--no-cache", "--fix", "task.js"],
            None,
        );
        assert!(
            stderr(&o).contains("fixed 1 findings in 1 files"),
            "{sub}: {}",
            stderr(&o)
        );
    }
    let fixed_lf = std::fs::read_to_string(dir.path().join("lf/task.js")).unwrap_or_default();
    let fixed_cr = std::fs::read_to_string(dir.path().join("cr/task.js")).unwrap_or_default();
    assert_ne!(fixed_lf, FIXABLE_TASK);
    assert_eq!(fixed_cr, fixed_lf.replace('\n', "\r"));
}

/// A subdirectory that cannot be read was reported at the walked root
/// (`.:1:1`), not at itself. Root reads any folder, so as root the check
/// runs as `nobody`.
#[cfg(unix)]
#[test]
fn an_unreadable_subdirectory_is_reported_at_its_path() {
    use std::os::unix::fs::MetadataExt;
    use std::os::unix::process::CommandExt;
    let dir = tempdir();
    write(dir.path(), "ok/p.js", BAD_BREAKPOINT);
    write(dir.path(), "locked/q.js", BAD_BREAKPOINT);
    for p in ["", "ok", "ok/p.js"] {
        let mode = if p.ends_with(".js") { 0o644 } else { 0o755 };
        set_mode(&dir.path().join(p), mode);
    }
    set_mode(&dir.path().join("locked"), 0o000);
    let as_root = std::fs::metadata(dir.path()).is_ok_and(|m| m.uid() == 0);
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_proclint"));
    cmd.args(["check", "--no-cache", "--format", "concise", "."])
        .current_dir(dir.path())
        .stdin(Stdio::null());
    if as_root {
        cmd.uid(65534).gid(65534);
    }
    let o = cmd
        .output()
        .unwrap_or_else(|e| panic!("cannot run proclint: {e}"));
    set_mode(&dir.path().join("locked"), 0o755);
    let out = stdout(&o);
    assert_eq!(code(&o), 1, "{out}\n{}", stderr(&o));
    assert!(out.contains("ok/p.js:"), "{out}");
    let io: Vec<&str> = out.lines().filter(|l| l.contains("io-error")).collect();
    assert_eq!(io.len(), 1, "{out}");
    assert!(io[0].starts_with("locked:1:1:"), "{out}");
}

/// A `run.json` of `[1]` was accepted silently.
#[test]
fn run_json_that_is_not_an_object_is_an_integrity_issue() {
    let dir = tempdir();
    let rundir = copy_run(dir.path());
    write(&rundir, "run.json", "[1]\n");
    let o = run(dir.path(), &["runs", "."], None);
    assert_eq!(code(&o), 1, "{}", stdout(&o));
    assert!(
        stdout(&o).contains("run.json is not a JSON object"),
        "{}",
        stdout(&o)
    );
}

/// A report saved as `run.json` in the checked folder made it "the" run
/// folder: `check --run ID` then found no run.
#[test]
fn a_stray_run_json_does_not_hide_the_projects_runs() {
    let dir = tempdir();
    copy_run(dir.path());
    write(dir.path(), "p.js", GOOD_BREAKPOINT);
    write(dir.path(), "run.json", "{\"saved\": \"report\"}\n");
    let o = run(
        dir.path(),
        &[
            "check",
            "--run",
            "run-completed",
            "--format",
            "concise",
            ".",
        ],
        None,
    );
    assert!(!stderr(&o).contains("no run"), "{}", stderr(&o));
    assert_ne!(code(&o), 2, "{}", stderr(&o));
    let o = run(dir.path(), &["runs", "."], None);
    assert!(stdout(&o).contains("run-completed"), "{}", stdout(&o));
    // The same in a checked subfolder, which has no `.a5c/` of its own:
    // its `run.json` was taken for the only run ("known runs: src"), and
    // `--run src` for a run rather than the folder to check.
    write(dir.path(), "package.json", "{}\n");
    write(dir.path(), "src/p.js", GOOD_BREAKPOINT);
    write(dir.path(), "src/run.json", "{\"saved\": \"report\"}\n");
    for args in [
        &[
            "check",
            "--run",
            "run-completed",
            "--format",
            "concise",
            "src",
        ][..],
        &["check", "--format", "concise", "--run", "src"][..],
    ] {
        let o = run(dir.path(), args, None);
        assert_eq!(code(&o), 0, "{args:?}: {}", stderr(&o));
        assert!(stdout(&o).contains("in 1 file"), "{args:?}: {}", stdout(&o));
    }
    let o = run(dir.path(), &["runs", "src"], None);
    assert!(!stdout(&o).contains("src "), "{}", stdout(&o));
}

/// An error about one key of a `[rules.X]` table pointed at the table's
/// header (or 1:1), not at the key.
#[test]
fn rule_table_errors_point_at_the_key() {
    let dir = tempdir();
    write(dir.path(), "p.js", GOOD_BREAKPOINT);
    write(
        dir.path(),
        "proclint.toml",
        "[rules]\nunchecked-breakpoint = \"error\"\n\n[rules.unknown-context-method]\nseverity = \"warning\"\nextra-methods = []\nbogus = 1\n",
    );
    let o = run(
        dir.path(),
        &["check", "--no-cache", "--color", "never", "."],
        None,
    );
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(stderr(&o).contains("proclint.toml:7:1"), "{}", stderr(&o));
    write(
        dir.path(),
        "proclint.toml",
        "[rules.unknown-context-method]\nextra-methods = []\nseverity = \"loud\"\n",
    );
    let o = run(
        dir.path(),
        &["check", "--no-cache", "--color", "never", "."],
        None,
    );
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(stderr(&o).contains("proclint.toml:3:1"), "{}", stderr(&o));
    // A value a rule rejects points at its key too (it pointed at the
    // table's header).
    for (toml, at) in [
        (
            "\n[rules.unknown-context-method]\nseverity = \"warning\"\nextra-methods = [\"a\", 2]\n",
            "proclint.toml:4:1",
        ),
        (
            "[rules.skill-frontmatter]\n\nskill-spec = \"nope\"\n",
            "proclint.toml:3:1",
        ),
        (
            "[rules]\nunpinned-sdk = { severity = \"error\", packages = 1 }\n",
            "proclint.toml:2:38",
        ),
    ] {
        write(dir.path(), "proclint.toml", toml);
        let o = run(
            dir.path(),
            &["check", "--no-cache", "--color", "never", "."],
            None,
        );
        assert_eq!(code(&o), 2, "{}", stderr(&o));
        assert!(stderr(&o).contains(at), "{toml}: {}", stderr(&o));
    }
}

// ---- Untrusted text in the output ----------------------------------------

/// What a CI log or a terminal would act on in `out`: a line starting
/// (after whitespace, as GitHub's runner reads it) with `::` other than an
/// annotation proclint writes (`annotations`: the `github` format), `##[`
/// anywhere (the runner's legacy command prefix), a control character other
/// than the line break, a line or paragraph separator, a bidi control.
fn forged(out: &str, annotations: bool) -> Vec<String> {
    let mut bad = Vec::new();
    for l in out.lines() {
        let t = l.trim_start();
        let meant = annotations
            && t.len() == l.len()
            && ["::error file=", "::warning file=", "::notice file="]
                .iter()
                .any(|p| t.starts_with(p));
        if t.starts_with("::") && !meant {
            bad.push(format!("a command: {l:?}"));
        }
        if l.contains("##[") {
            bad.push(format!("a legacy command: {l:?}"));
        }
    }
    for c in out.chars() {
        let unsafe_char = (c.is_control() && c != '\n')
            || matches!(c, '\u{2028}' | '\u{2029}' | '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}');
        if unsafe_char {
            bad.push(format!("the character {c:?}"));
        }
    }
    bad
}

/// A task id holding `\n::error::…`, ESC, BEL, a C1 control, U+2028, a bidi
/// override, `##[…]` and a pipe; a comment next to the finding with `##[`
/// and ESC (quoted in the pretty report's snippet).
const HOSTILE_TASK: &str = "import { defineTask } from '@a5c-ai/babysitter-sdk';\n\
// ##[error]from a comment \u{1b}[2J\n\
export const t = defineTask('x\\n::error::pwned \u{1b}[31m\u{7} \u{9b}1m \u{2028} \u{202e} ##[warning]legacy | y', () => ({ kind: 'agent', title: 'T' }));\n\
export async function process(inputs, ctx) {\n  await ctx.task(t, {});\n}\n";

/// Text from the input was written as it is: a task id with `\n::error::…`
/// started a line of its own (a workflow command, in a CI log) in `concise`
/// and `pretty`, as did a file named `a\n::warning::x.js`; a file named
/// `::notice::c.js` started its `concise` line with a command; ESC, BEL, C1,
/// U+2028 and bidi controls reached the terminal; `##[…]` (which the runner
/// honours anywhere in a line) was printed; the step summary's table row of
/// a file name with a line break was cut in two. Each is escaped, and
/// `github` writes exactly one annotation per finding.
#[cfg(unix)]
#[test]
fn input_text_cannot_forge_lines_or_commands_in_text_reports() {
    let dir = tempdir();
    write(dir.path(), "p.js", HOSTILE_TASK);
    write(dir.path(), "a\n::warning::x.js", BAD_BREAKPOINT);
    write(dir.path(), "::notice::c.js", BAD_BREAKPOINT);
    write(dir.path(), "e\u{1b}[31m|.js", BAD_BREAKPOINT);
    let o = run(
        dir.path(),
        &["check", "--no-cache", "--format", "json", "."],
        None,
    );
    let found = findings(&report_json(&o)).len();
    assert_eq!(found, 4, "{}", stdout(&o));

    for format in ["concise", "pretty", "github"] {
        let o = run(
            dir.path(),
            &[
                "check",
                "--no-cache",
                "--color",
                "never",
                "--format",
                format,
                ".",
            ],
            None,
        );
        let out = stdout(&o);
        assert_eq!(code(&o), 1, "{format}: {out}\n{}", stderr(&o));
        let bad = forged(&out, format == "github");
        assert!(bad.is_empty(), "{format}: {bad:#?}\n{out}");
        if format == "github" {
            let annotations = out.lines().filter(|l| l.starts_with("::")).count();
            assert_eq!(annotations, found, "{out}");
            assert!(out.contains("file=a%0A%3A%3Awarning%3A%3Ax.js,"), "{out}");
        }
    }
    let o = run(
        dir.path(),
        &["check", "--no-cache", "--format", "concise", "."],
        None,
    );
    let out = stdout(&o);
    assert!(
        out.contains("task `x\\n:\\:error:\\:pwned \\u{1b}[31m\\u{7} \\u{9b}1m \\u{2028} \\u{202e} ##\\[warning]legacy | y` has no `labels`"),
        "{out}"
    );
    assert!(
        out.contains("a\\n:\\:warning:\\:x.js:2:9: error[unchecked-breakpoint]"),
        "{out}"
    );
    assert!(
        out.lines()
            .any(|l| l.starts_with("\\:\\:notice:\\:c.js:2:9: error")),
        "{out}"
    );

    // The step summary: one table row per finding, each of four cells.
    let summary = dir.path().join("summary.md");
    let o = Command::new(env!("CARGO_BIN_EXE_proclint"))
        .args(["check", "--no-cache", "--format", "github", "."])
        .current_dir(dir.path())
        .env("GITHUB_STEP_SUMMARY", &summary)
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    let text = std::fs::read_to_string(&summary).unwrap_or_default();
    let bad = forged(&text, false);
    assert!(bad.is_empty(), "{bad:#?}\n{text}");
    let rows: Vec<&str> = text.lines().filter(|l| l.starts_with('|')).collect();
    assert_eq!(rows.len(), found + 2, "{text}");
    for row in rows {
        let cells = row.replace("\\|", "").matches('|').count();
        assert_eq!(cells, 5, "{row}\n{text}");
    }
}

/// Run-journal values were written as they are: a `processId` with
/// `\n::error::…` split the `proclint runs` table, a journal file named
/// `000013.x\n::error::file.json` started lines of its own in the integrity
/// list (and on stderr with `--format json`, and in `check --run`'s
/// findings); the retrospective printed a task title's HTML (`<img …>`)
/// as HTML. Each is escaped.
#[cfg(unix)]
#[test]
fn run_journal_text_cannot_forge_lines_or_commands() {
    let dir = tempdir();
    let rundir = copy_run(dir.path());
    let hostile = "acme\n::error::pwned \u{1b}[2J\u{202e} ##[warning]legacy <img src=x onerror=alert(1)> `x` | y";
    let edit = |rel: &str, key: &str| {
        let path = rundir.join(rel);
        let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{e}"));
        let mut v: serde_json::Value =
            serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}"));
        v[key] = serde_json::Value::from(hostile);
        std::fs::write(&path, v.to_string()).unwrap_or_else(|e| panic!("{e}"));
    };
    edit("run.json", "processId");
    edit("tasks/01KERPXZMF0000000000000004/task.json", "title");
    write(&rundir, "journal/000013.x\n::error::file.json", "{}");

    let o = run(dir.path(), &["runs", "--format", "table", "."], None);
    let out = stdout(&o);
    assert_eq!(code(&o), 1, "{out}\n{}", stderr(&o));
    let bad = forged(&out, false);
    assert!(bad.is_empty(), "{bad:#?}\n{out}");
    assert!(out.contains("acme\\n:\\:error:\\:pwned"), "{out}");
    assert!(out.contains("000013.x\\n:\\:error:\\:file.json"), "{out}");
    let o = run(dir.path(), &["runs", "--format", "json", "."], None);
    let bad = forged(&stderr(&o), false);
    assert!(bad.is_empty(), "{bad:#?}\n{}", stderr(&o));

    for format in ["concise", "pretty", "retrospective"] {
        let o = run(
            dir.path(),
            &[
                "check",
                "--run",
                "run-completed",
                "--color",
                "never",
                "--format",
                format,
                ".",
            ],
            None,
        );
        let out = stdout(&o);
        assert_ne!(code(&o), 101, "{}", stderr(&o));
        let bad = forged(&out, false);
        assert!(bad.is_empty(), "{format}: {bad:#?}\n{out}");
        if format == "retrospective" {
            // The timeline's row for the task: its title is text, escaped.
            let row = out
                .lines()
                .find(|l| l.contains("`plan`"))
                .unwrap_or_else(|| panic!("{out}"));
            assert!(!row.contains("<img"), "{row}");
            assert!(row.contains("&lt;img src=x onerror=alert(1)&gt;"), "{row}");
        }
    }
}

/// The lines of `markdown` outside fenced code blocks, read as CommonMark
/// reads fences: a run of at least three backticks opens one, and only a
/// line of at least as many backticks (and nothing else) closes it.
fn outside_fences(markdown: &str) -> Vec<&str> {
    let mut open: Option<usize> = None;
    let mut outside = Vec::new();
    for l in markdown.lines() {
        let t = l.trim();
        let ticks = t.chars().take_while(|&c| c == '`').count();
        match open {
            Some(n) if ticks >= n && ticks == t.len() => open = None,
            Some(_) => {}
            None if ticks >= 3 => open = Some(ticks),
            None => outside.push(l),
        }
    }
    outside
}

/// The retrospective quoted a fix's lines between fences of three
/// backticks, so a block comment holding a line of three backticks closed
/// the fence and the rest of the comment (`# Injected …`, `<img …>`) was
/// Markdown and HTML; a breakpoint label (`<img …>`) in a finding's message
/// was HTML. The fence outlasts the code, and text is escaped.
#[test]
fn retrospective_fences_outlast_the_code_and_text_is_escaped() {
    let dir = tempdir();
    write(
        dir.path(),
        "p.js",
        "export async function process(inputs, ctx) {\n  await ctx.breakpoint({ question: 'Ship?', label: '<img src=x onerror=alert(1)>' /*\n```\n# Injected heading <img src=x onerror=alert(2)>\n*/ });\n}\n",
    );
    let o = run(
        dir.path(),
        &["check", "--no-cache", "--format", "retrospective", "."],
        None,
    );
    let out = stdout(&o);
    assert_eq!(code(&o), 1, "{out}\n{}", stderr(&o));
    assert!(out.contains("# Injected heading"), "{out}");
    let outside = outside_fences(&out);
    for l in &outside {
        assert!(!l.contains("<img"), "{l}\n{out}");
        assert!(!l.contains("# Injected"), "{l}\n{out}");
    }
    assert!(
        outside
            .iter()
            .any(|l| l.contains("(\"&lt;img src=x onerror=alert(1)&gt;\")")),
        "{out}"
    );
}

// ---- Reading outside the repository ----------------------------------------

/// SARIF turned a backslash in a file name into `/`: on Unix `a\b.js` is one
/// file in the current folder, not `b.js` in `a/`. It is percent-encoded.
#[cfg(unix)]
#[test]
fn sarif_keeps_a_backslash_in_a_unix_file_name() {
    let dir = tempdir();
    write(dir.path(), "a\\b.js", BAD_BREAKPOINT);
    let o = run(
        dir.path(),
        &["check", "--no-cache", "--format", "sarif", "."],
        None,
    );
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    let sarif: serde_json::Value =
        serde_json::from_str(&stdout(&o)).unwrap_or_else(|e| panic!("{e}"));
    let uri = &sarif["runs"][0]["results"][0]["locations"][0]["physicalLocation"]
        ["artifactLocation"]["uri"];
    assert_eq!(uri, "a%5Cb.js", "{}", stdout(&o));
}

/// `skill-broken-link` read any Markdown file a link named, outside the
/// repository too (`../../../private/notes.md#…`, or a link in the
/// repository to one outside), and its "did you mean" quoted that file's
/// headings; whether a file outside existed showed in its message. A target
/// outside the repository (after `..` and symbolic links) is not opened:
/// the finding says only that it is outside.
#[cfg(unix)]
#[test]
fn skill_links_never_read_outside_the_repository() {
    let home = tempdir();
    write(home.path(), "private/notes.md", "# Secret token abc123\n");
    let repo = home.path().join("repo");
    std::fs::create_dir_all(repo.join(".git")).unwrap_or_else(|e| panic!("{e}"));
    write(&repo, "skills/other/OK.md", "# Intro\n");
    write(
        &repo,
        "skills/review/SKILL.md",
        "---\nname: review\ndescription: d\n---\n# Review\n\n\
         [a](../../../private/notes.md#secret-token-abc12)\n\
         [b](linked.md#secret-token-abc12)\n\
         [c](../../../private/missing.md)\n\
         [d](../other/OK.md#intro)\n\
         [e](../other/nope.md)\n\
         [f](folder/../notes.md#secret-token-abc12)\n",
    );
    std::os::unix::fs::symlink(
        home.path().join("private/notes.md"),
        repo.join("skills/review/linked.md"),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    // `..` after a link is the parent of the link's target.
    std::fs::create_dir(home.path().join("private/folder")).unwrap_or_else(|e| panic!("{e}"));
    std::os::unix::fs::symlink(
        home.path().join("private/folder"),
        repo.join("skills/review/folder"),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let o = run(
        &repo,
        &["check", "--no-cache", "--format", "json", "."],
        None,
    );
    let out = stdout(&o);
    assert!(!out.contains("abc123"), "{out}");
    let messages: Vec<String> = findings(&report_json(&o))
        .into_iter()
        .filter(|f| f.0 == "skill-broken-link")
        .map(|f| f.4)
        .collect();
    assert_eq!(
        messages,
        vec![
            "link target `../../../private/notes.md` is outside the repository",
            "link target `linked.md` is outside the repository",
            "link target `../../../private/missing.md` is outside the repository",
            "link target `../other/nope.md` does not exist next to this SKILL.md",
            "link target `folder/../notes.md` is outside the repository",
        ],
        "{out}"
    );
}

// ---- What JavaScript means (hardening items 6–8) -------------------------
//
// Each claim about JavaScript below was checked with Node 20 first
// (`node --check` on an `.mjs` copy, `node -e`), and the comments say what
// Node answered.

/// (rule, line) of every finding `lint_text` reports for a process module.
fn lint_js(text: &str) -> Vec<(String, u32)> {
    proclint::engine::lint_text(
        "p.js",
        proclint::engine::discover::FileKind::Process,
        text.to_string(),
        &proclint::project::config::Config::default(),
    )
    .into_iter()
    .map(|d| (d.rule.to_string(), d.location.start.line))
    .collect()
}

fn rules(found: &[(String, u32)]) -> Vec<&str> {
    found.iter().map(|(r, _)| r.as_str()).collect()
}

/// A task whose prompt is a multi-line template with a placeholder nothing
/// fills (`unresolved-placeholder` on `{{goal}}`), with `between` written
/// into the template on the line before it.
fn placeholder_task(between: &str) -> String {
    format!(
        "import {{ defineTask }} from '@a5c-ai/babysitter-sdk';\n\n\
export const goalTask = defineTask('define-goal', (args) => ({{\n  \
kind: 'agent',\n  title: 'Define the goal',\n  agent: {{\n    name: 'general-purpose',\n    \
prompt: {{\n      role: 'product strategist',\n      \
task: `Refine the goal.\n{between}\n- Goal: {{{{goal}}}}`,\n    }},\n  }},\n  labels: ['goal'],\n}}));\n"
    )
}

/// Item 6. A prompt template holding the text of a suppression comment
/// suppressed the finding on its next line, and a string holding
/// `// proclint-disable-file` silenced the whole file: directives were
/// found by scanning lines for `//`. Only comments of the parse tree count;
/// a real comment still does. package.json has no comments at all.
#[test]
fn suppression_text_in_strings_and_templates_suppresses_nothing() {
    let text = placeholder_task("// proclint-disable-next-line unresolved-placeholder");
    let found = lint_js(&text);
    assert!(
        found.contains(&("unresolved-placeholder".into(), 12)),
        "{found:?}"
    );
    assert!(!rules(&found).contains(&"unused-suppression"), "{found:?}");
    // In a string, `// proclint-disable-file` is text.
    let text = format!(
        "const note = 'see // proclint-disable-file';\n{}",
        common::BAD_BREAKPOINT
    );
    assert_eq!(rules(&lint_js(&text)), ["unchecked-breakpoint"]);
    let text = format!(
        "const note = `/* proclint-disable-file unchecked-breakpoint */`;\n{}",
        common::BAD_BREAKPOINT
    );
    assert_eq!(rules(&lint_js(&text)), ["unchecked-breakpoint"]);
    // The same directive as a comment suppresses; a comment after a string
    // holding `//` on the same line still counts.
    let text = format!(
        "const url = 'http://example.com'; // proclint-disable-file unchecked-breakpoint\n{}",
        common::BAD_BREAKPOINT
    );
    assert_eq!(rules(&lint_js(&text)), Vec::<&str>::new());
    // package.json: JSON has no comments.
    let dir = tempdir();
    write(
        dir.path(),
        "package.json",
        "{\n  \"description\": \"// proclint-disable-file unpinned-sdk -- see docs\",\n  \"dependencies\": { \"@a5c-ai/babysitter-sdk\": \"^0.3.1\" }\n}\n",
    );
    let o = run(
        dir.path(),
        &["check", "--no-cache", "--format", "concise", "package.json"],
        None,
    );
    assert!(stdout(&o).contains("unpinned-sdk"), "{}", stdout(&o));
    assert!(!stdout(&o).contains("unused-suppression"), "{}", stdout(&o));
}

/// Item 6. The language server's "disable for this line" action inserted
/// its comment at the start of the finding's line, which was inside a
/// multi-line template: the prompt changed, and the text was taken for a
/// directive. The comment now goes before the line the template starts
/// on, and a `next-line` directive covers the lines of a template that
/// starts on its next line.
#[test]
fn disable_line_action_never_writes_into_a_template() {
    let text = placeholder_task("");
    let config = proclint::project::config::Config::default();
    let kind = proclint::engine::discover::FileKind::Process;
    let found = proclint::engine::lint_text("p.js", kind, text.clone(), &config);
    let d = found
        .iter()
        .find(|d| d.rule == "unresolved-placeholder")
        .unwrap_or_else(|| panic!("{found:?}"));
    assert_eq!(d.location.start.line, 12);
    let edit = proclint::server::lint::disable_line_edit(kind, &text, d)
        .unwrap_or_else(|| panic!("no action"));
    let mut fixed = text.clone();
    fixed.replace_range(edit.span.start..edit.span.end, &edit.replacement);
    let template = "`Refine the goal.\n\n- Goal: {{goal}}`";
    assert!(fixed.contains(template), "{fixed}");
    assert!(
        fixed.contains(
            "      // proclint-disable-next-line unresolved-placeholder -- reason\n      task: `"
        ),
        "{fixed}"
    );
    let after = lint_js(&fixed);
    assert!(
        !rules(&after).contains(&"unresolved-placeholder")
            && !rules(&after).contains(&"unused-suppression"),
        "{after:?}"
    );
    // A trailing `disable-line` on the template's last line covers it too.
    let fixed = text.replace(
        "{{goal}}`,\n",
        "{{goal}}`, // proclint-disable-line unresolved-placeholder\n",
    );
    let after = lint_js(&fixed);
    assert!(
        !rules(&after).contains(&"unresolved-placeholder")
            && !rules(&after).contains(&"unused-suppression"),
        "{after:?}"
    );
}

/// Item 7. Node (20) reads every ECMAScript `WhiteSpace` (TAB, VT, FF,
/// U+00A0, U+FEFF, U+1680, U+2000–U+200A, U+202F, U+205F, U+3000) between
/// tokens, and U+2028, U+2029 and a lone CR as line terminators (they end
/// a `//` comment and allow an automatic semicolon). proclint read a
/// module whose lines end in lone CRs without semicolons as a syntax error,
/// and a `return` before a lone CR as returning the next line's value;
/// U+00A0 (or U+3000, U+FEFF, …) at the end of a line without a semicolon
/// was a syntax error too.
#[test]
fn unicode_whitespace_and_line_terminators_read_as_node_reads_them() {
    let call = "ctx.breakpoint({ question: 'Ship?', label: 'Ship?' })";
    for space in [
        "\t", "\u{b}", "\u{c}", "\u{a0}", "\u{feff}", "\u{1680}", "\u{2000}", "\u{2005}",
        "\u{200a}", "\u{202f}", "\u{205f}", "\u{3000}",
    ] {
        let text = format!(
            "export async function process(inputs, ctx) {{{space}\n{space}await{space}{call};{space}\n}}\n"
        );
        assert_eq!(
            rules(&lint_js(&text)),
            ["unchecked-breakpoint"],
            "{space:?}"
        );
        // Before a line break that ends a statement (tree-sitter's scanner
        // knew only ASCII whitespace there: a missing `;`).
        let text = format!(
            "export async function process(inputs, ctx) {{\n  let a = 1{space}\n  let b = a{space}\n  await {call}{space}\n}}\n"
        );
        assert_eq!(
            rules(&lint_js(&text)),
            ["unchecked-breakpoint"],
            "{space:?}"
        );
    }
    for newline in ["\n", "\r", "\r\n", "\u{2028}", "\u{2029}"] {
        // No semicolons: each line break ends a statement.
        let text = format!(
            "export async function process(inputs, ctx) {{{newline}  let a = 1{newline}  let b = a // note{newline}  await {call}{newline}}}{newline}"
        );
        let found = lint_js(&text);
        assert_eq!(rules(&found), ["unchecked-breakpoint"], "{newline:?}");
        // `return` before a line break returns nothing: the breakpoint is a
        // statement of its own, whose result is dropped.
        let text = format!(
            "export async function process(inputs, ctx) {{{newline}  if (inputs.x) return{newline}  await {call}{newline}}}{newline}"
        );
        assert_eq!(
            rules(&lint_js(&text)),
            ["unchecked-breakpoint"],
            "{newline:?}"
        );
    }
}

/// Item 7. U+0085 (NEL), U+180E, U+200B and U+2060 are not JavaScript
/// whitespace: Node rejects each between tokens ("Invalid or unexpected
/// token") and accepts it in a string or a comment. oxc skipped U+0085 and
/// U+200B as whitespace, tree-sitter U+200B and U+2060, and tree-sitter
/// read U+0085 and U+180E as part of a name: no `parse-error`.
#[test]
fn characters_node_rejects_between_tokens_are_syntax_errors() {
    let call = "ctx.breakpoint({ question: 'Ship?', label: 'Ship?' })";
    for c in ["\u{85}", "\u{180e}", "\u{200b}", "\u{2060}"] {
        let text =
            format!("export async function process(inputs, ctx) {{\n  await{c}{call};\n}}\n");
        assert!(
            rules(&lint_js(&text)).contains(&"parse-error"),
            "{c:?}: {:?}",
            lint_js(&text)
        );
        let text = format!(
            "export async function process(inputs, ctx) {{\n  const s = 'a{c}b'; // c{c}\n  await {call};\n}}\n"
        );
        assert_eq!(rules(&lint_js(&text)), ["unchecked-breakpoint"], "{c:?}");
    }
}

/// Item 7. A tagged template may hold escapes that are invalid elsewhere
/// (`String.raw` of a Windows path: Node prints `C:\users\agent\xwork`);
/// it was a `parse-error`. Without a tag the same text is one (Node:
/// "Invalid Unicode escape sequence").
#[test]
fn a_tagged_template_may_hold_invalid_escapes() {
    let text = "export async function process(inputs, ctx) {\n  const dir = String.raw`C:\\users\\agent\\xwork`;\n  await ctx.breakpoint({ question: `Clean ${dir}?`, label: 'Ship?' });\n}\n";
    assert_eq!(rules(&lint_js(text)), ["unchecked-breakpoint"]);
    let untagged = text.replace("String.raw`", "`");
    assert!(rules(&lint_js(&untagged)).contains(&"parse-error"));
}

/// Item 7. Names and keys compare by their cooked value (Node:
/// `c\u0074x.task` calls `ctx.task`, `d['\x61pproved']` reads
/// `d.approved`, `{ 'l\u0061bels': [] }` has the key `labels`).
#[test]
fn escaped_names_and_keys_compare_by_their_cooked_value() {
    // The breakpoint is the context's, not an undefined `c\u0074x`.
    for name in ["c\\u0074x", "\\u{63}tx", "ct\\u{0078}"] {
        let text = format!(
            "export async function process(inputs, ctx) {{\n  await {name}.breakpoint({{ question: 'Ship?', label: 'Ship?' }});\n}}\n"
        );
        assert_eq!(rules(&lint_js(&text)), ["unchecked-breakpoint"], "{name}");
    }
    // The decision is read.
    for read in [
        "d['\\x61pproved']",
        "d[\"\\u0061pproved\"]",
        "d[`\\u{61}pproved`]",
        "d.\\u0061pproved",
    ] {
        let text = common::GOOD_BREAKPOINT.replace("d.approved", read);
        assert_eq!(rules(&lint_js(&text)), Vec::<&str>::new(), "{read}");
    }
    // The labels are there.
    for key in [
        "'l\\u0061bels'",
        "\"l\\x61bels\"",
        "l\\u0061bels",
        "[`l\\u0061bels`]",
    ] {
        let text = format!(
            "import {{ defineTask }} from '@a5c-ai/babysitter-sdk';\nexport const planTask = defineTask('plan', (args) => ({{\n  kind: 'agent',\n  title: 'Plan',\n  {key}: ['planning'],\n}}));\n"
        );
        assert_eq!(rules(&lint_js(&text)), Vec::<&str>::new(), "{key}");
    }
}

/// Item 8. A comment inside parentheses hid what they held: `unparen`
/// returned the comment, so a task's definition, a batch of effects or a
/// call's arguments in `(/* c */ …)` were not seen.
#[test]
fn a_comment_inside_parentheses_hides_nothing() {
    // The definition without labels, returned in parentheses with a comment.
    let text = "import { defineTask } from '@a5c-ai/babysitter-sdk';\nexport const planTask = defineTask('plan', (args) => (/* the definition */ {\n  kind: 'agent',\n  title: 'Plan',\n}));\n";
    assert_eq!(rules(&lint_js(text)), ["missing-labels"]);
    let plain = text.replace("/* the definition */ ", "");
    assert_eq!(rules(&lint_js(&plain)), ["missing-labels"]);
    // Effects in a `Promise.all` over a commented, parenthesised array.
    let text = "import { defineTask } from '@a5c-ai/babysitter-sdk';\nexport const reviewTask = defineTask('review', (args) => ({ kind: 'agent', title: 'Review', labels: ['review'] }));\nexport async function process(inputs, ctx) {\n  return Promise.all((/* both */ [\n    ctx.task(reviewTask, { part: 'front' }, { key: 'front' }),\n    ctx.task(reviewTask, { part: 'back' }, { key: 'back' }),\n  ]));\n}\n";
    let plain = text.replace("(/* both */ [", "[").replace("]));", "]);");
    assert_eq!(
        rules(&lint_js(text)),
        rules(&lint_js(&plain)),
        "{:?}",
        lint_js(text)
    );
    assert!(rules(&lint_js(text)).contains(&"promise-combinator-effect"));
}
