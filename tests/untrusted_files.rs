//! Hardening, round 3 (issue 31): proclint runs on pull requests whose files
//! an attacker controls. What it writes stays where it means to write
//! (never through a link it did not create), and committed files cannot
//! steer its results. Each test fails on the code before its fix.

#![cfg(unix)]

mod common;

use std::os::unix::fs::symlink;
use std::path::Path;
use std::process::{Command, Output, Stdio};

use common::*;

/// Runs proclint in `dir` with a deadline: a hang fails the test.
fn run(dir: &Path, args: &[&str]) -> Output {
    let child = Command::new(env!("CARGO_BIN_EXE_proclint"))
        .args(args)
        .current_dir(dir)
        .env("RAYON_NUM_THREADS", "2")
        .env_remove("PROCLINT_INJECT_PANIC")
        .env_remove("GITHUB_STEP_SUMMARY")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap_or_else(|e| panic!("cannot run proclint: {e}"));
    wait_with_deadline(child, &format!("{args:?}"), 60)
}

fn json(dir: &Path, extra: &[&str]) -> Output {
    let mut args = vec!["check", ".", "--format", "json"];
    args.extend_from_slice(extra);
    run(dir, &args)
}

/// A project with findings, and a folder outside it (the victim).
fn project() -> (tempfile::TempDir, std::path::PathBuf, std::path::PathBuf) {
    let dir = tempdir();
    let repo = dir.path().join("repo");
    let outside = dir.path().join("outside");
    std::fs::create_dir_all(&outside).unwrap_or_else(|e| panic!("{e}"));
    write(&repo, "bad.js", BAD_BREAKPOINT);
    write(&repo, "good.js", GOOD_BREAKPOINT);
    (dir, repo, outside)
}

fn names(dir: &Path) -> Vec<String> {
    let mut out: Vec<String> = std::fs::read_dir(dir)
        .unwrap_or_else(|e| panic!("{e}"))
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    out.sort();
    out
}

/// A committed `.proclint_cache` that is a link sent every entry (and a
/// rename over a file called `project`) into the folder it points at.
#[test]
fn a_linked_cache_directory_is_refused_and_the_run_goes_on() {
    let (_dir, repo, outside) = project();
    write(&outside, "project", "precious\n");
    symlink(&outside, repo.join(".proclint_cache")).unwrap_or_else(|e| panic!("{e}"));
    let o = json(&repo, &[]);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert!(
        stderr(&o).contains("running without the result cache")
            && stderr(&o).contains("is a symbolic link"),
        "{}",
        stderr(&o)
    );
    assert_eq!(names(&outside), ["project"]);
    let kept = std::fs::read_to_string(outside.join("project")).unwrap_or_default();
    assert_eq!(kept, "precious\n");
    assert_eq!(stdout(&o), stdout(&json(&repo, &["--no-cache"])));
}

#[test]
fn a_cache_path_through_a_linked_folder_or_onto_a_file_is_refused() {
    let (_dir, repo, outside) = project();
    write(&repo, "proclint.toml", "cache-dir = \"build/cache\"\n");
    symlink(&outside, repo.join("build")).unwrap_or_else(|e| panic!("{e}"));
    let o = json(&repo, &[]);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert!(stderr(&o).contains("is a symbolic link"), "{}", stderr(&o));
    assert!(names(&outside).is_empty(), "{:?}", names(&outside));

    let (_dir, repo, _) = project();
    write(&repo, ".proclint_cache", "a file, not a directory\n");
    let o = json(&repo, &[]);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert!(stderr(&o).contains("is not a directory"), "{}", stderr(&o));
}

/// `cache-dir` comes from a file the pull request controls.
#[test]
fn a_cache_directory_outside_the_project_is_refused() {
    let (_dir, repo, outside) = project();
    let toml = format!(
        "cache-dir = {:?}\n",
        outside.join("c").display().to_string()
    );
    write(&repo, "proclint.toml", &toml);
    let o = json(&repo, &[]);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert!(stderr(&o).contains("outside the project"), "{}", stderr(&o));
    assert!(names(&outside).is_empty(), "{:?}", names(&outside));
    write(&repo, "proclint.toml", "cache-dir = \"../outside/c\"\n");
    let o = json(&repo, &[]);
    assert!(stderr(&o).contains("outside the project"), "{}", stderr(&o));
    assert!(names(&outside).is_empty(), "{:?}", names(&outside));
}

/// A dangling `.gitignore` link created a file anywhere; a linked
/// `CACHEDIR.TAG` or entry overwrote its target.
#[test]
fn files_inside_the_cache_are_never_written_or_read_through_links() {
    let (_dir, repo, outside) = project();
    let cache = repo.join(".proclint_cache");
    std::fs::create_dir_all(&cache).unwrap_or_else(|e| panic!("{e}"));
    symlink(outside.join("created"), cache.join(".gitignore")).unwrap_or_else(|e| panic!("{e}"));
    write(&outside, "tag", "keep\n");
    symlink(outside.join("tag"), cache.join("CACHEDIR.TAG")).unwrap_or_else(|e| panic!("{e}"));
    write(&outside, "project", "keep\n");
    symlink(outside.join("project"), cache.join("project")).unwrap_or_else(|e| panic!("{e}"));
    let o = json(&repo, &[]);
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert_eq!(names(&outside), ["project", "tag"]);
    for f in ["project", "tag"] {
        assert_eq!(
            std::fs::read_to_string(outside.join(f)).unwrap_or_default(),
            "keep\n"
        );
    }
    // The entry took the link's place; the second run answers from it.
    assert!(cache.join("project").is_file());
    let warm = json(&repo, &["--cache-stats"]);
    assert_eq!(stdout(&warm), stdout(&o));
}

/// An entry that is a FIFO made a warm run wait forever for a writer.
#[test]
fn a_fifo_in_the_cache_is_a_miss_not_a_hang() {
    let (_dir, repo, _) = project();
    let first = json(&repo, &[]);
    let cache = repo.join(".proclint_cache");
    for name in names(&cache) {
        if name.starts_with('.') || name == "CACHEDIR.TAG" {
            continue;
        }
        let p = cache.join(&name);
        std::fs::remove_file(&p).unwrap_or_else(|e| panic!("{e}"));
        let made = Command::new("mkfifo").arg(&p).status();
        assert!(made.is_ok_and(|s| s.success()), "mkfifo {name}");
    }
    let o = json(&repo, &[]);
    assert_eq!(stdout(&o), stdout(&first));
}

/// Entries committed into the repository (forged to say a file is clean)
/// were written for another directory: they are never used.
#[test]
fn committed_cache_entries_are_not_trusted() {
    let (_dir, repo, _) = project();
    let clean = json(&repo, &[]);
    assert_eq!(code(&clean), 1, "{}", stderr(&clean));
    // The cache's bytes, as a checkout would write them: same paths, same
    // entries, a new directory.
    let cache = repo.join(".proclint_cache");
    let copy = repo.join("copied");
    copy_tree(&cache, &copy);
    std::fs::remove_dir_all(&cache).unwrap_or_else(|e| panic!("{e}"));
    std::fs::rename(&copy, &cache).unwrap_or_else(|e| panic!("{e}"));
    let o = json(&repo, &["--cache-stats"]);
    assert!(
        stderr(&o).contains("proclint cache: 0 hits"),
        "{}",
        stderr(&o)
    );
}

/// A report path the pull request committed as a link (`proclint.sarif` →
/// a file of the CI user's) was overwritten through it.
#[test]
fn reports_and_baselines_are_never_written_through_links() {
    let (_dir, repo, outside) = project();
    write(&outside, "victim", "keep\n");
    symlink(outside.join("victim"), repo.join("proclint.sarif")).unwrap_or_else(|e| panic!("{e}"));
    let o = run(
        &repo,
        &[
            "check",
            ".",
            "--format",
            "sarif",
            "--output",
            "proclint.sarif",
        ],
    );
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(stderr(&o).contains("is a symbolic link"), "{}", stderr(&o));
    assert_eq!(
        std::fs::read_to_string(outside.join("victim")).unwrap_or_default(),
        "keep\n"
    );
    // A dangling link would have created the file.
    symlink(outside.join("new"), repo.join("base.json")).unwrap_or_else(|e| panic!("{e}"));
    let o = run(&repo, &["check", ".", "--write-baseline", "base.json"]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert_eq!(names(&outside), ["victim"]);
    // A linked folder on the way.
    symlink(&outside, repo.join("reports")).unwrap_or_else(|e| panic!("{e}"));
    let o = run(
        &repo,
        &[
            "check",
            ".",
            "--format",
            "json",
            "--output",
            "reports/r.json",
        ],
    );
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert_eq!(names(&outside), ["victim"]);
    // The user's own device paths still work.
    let o = run(
        &repo,
        &["check", ".", "--format", "json", "--output", "/dev/stdout"],
    );
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    assert!(
        stdout(&o).contains("unchecked-breakpoint"),
        "{}",
        stdout(&o)
    );
}

fn mkfifo(p: &Path) {
    let made = Command::new("mkfifo").arg(p).status();
    assert!(made.is_ok_and(|s| s.success()), "mkfifo {}", p.display());
}

/// A baseline that is a FIFO hung the run; one linked to /dev/zero read
/// until memory ran out.
#[test]
fn a_baseline_must_be_a_small_regular_file() {
    let (_dir, repo, _) = project();
    mkfifo(&repo.join("fifo.json"));
    symlink("/dev/zero", repo.join("zero.json")).unwrap_or_else(|e| panic!("{e}"));
    std::fs::create_dir(repo.join("folder.json")).unwrap_or_else(|e| panic!("{e}"));
    for (name, says) in [
        ("fifo.json", "a FIFO"),
        ("zero.json", "leaving the repository"),
        ("folder.json", "a directory"),
    ] {
        let o = run(&repo, &["check", ".", "--baseline", name]);
        assert_eq!(code(&o), 2, "{name}: {}", stderr(&o));
        assert!(stderr(&o).contains(says), "{name}: {}", stderr(&o));
    }
}

/// A project `proclint.toml` that could not be read was skipped, and the
/// configuration above it applied silently.
#[test]
fn an_unreadable_project_config_is_an_error_not_a_fall_back() {
    let (_dir, repo, outside) = project();
    // The folder above the project holds a configuration that turns the
    // finding off: falling back to it would hide it.
    write(
        repo.parent().unwrap_or(&outside),
        "proclint.toml",
        "[rules]\nunchecked-breakpoint = \"off\"\n",
    );
    symlink(outside.join("gone.toml"), repo.join("proclint.toml"))
        .unwrap_or_else(|e| panic!("{e}"));
    let o = run(&repo, &["check", "."]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(stderr(&o).contains("proclint.toml"), "{}", stderr(&o));
    std::fs::remove_file(repo.join("proclint.toml")).unwrap_or_else(|e| panic!("{e}"));
    std::fs::create_dir(repo.join("proclint.toml")).unwrap_or_else(|e| panic!("{e}"));
    let o = run(&repo, &["check", "."]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(stderr(&o).contains("a directory"), "{}", stderr(&o));
    std::fs::remove_dir(repo.join("proclint.toml")).unwrap_or_else(|e| panic!("{e}"));
    mkfifo(&repo.join("proclint.toml"));
    let o = run(&repo, &["check", "."]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
}

/// Second review. `--fix` escaped `${FOO /* ` */}` into template text: the
/// backtick in the comment then ended the template and the code after it
/// ran. Only a plain name or path is escaped.
#[test]
fn the_escape_fix_never_turns_comment_text_into_code() {
    let (_dir, repo, _) = project();
    let evil = "import { execSync } from 'node:child_process';\nexport async function process(inputs, ctx) {\n  execSync(`echo ${FOO /* `); globalThis.pwned = 1; (` */}`);\n  execSync(`echo ${BAR}`);\n}\n";
    let file = write(&repo, "inj.mjs", evil);
    let o = run(
        &repo,
        &[
            "check",
            "--no-cache",
            "--fix",
            "--select",
            "undefined-reference",
            "inj.mjs",
        ],
    );
    assert!(matches!(code(&o), 0 | 1), "{}", stderr(&o));
    let fixed = std::fs::read_to_string(&file).unwrap_or_default();
    assert!(
        fixed.contains("`echo ${FOO /* `); globalThis.pwned"),
        "{fixed}"
    );
    assert!(fixed.contains("`echo \\${BAR}`"), "{fixed}");
}

/// Second review: a folder link inside a repository, reached by an
/// absolute path from outside the working directory; a configuration (and
/// so the cache) in a linked folder.
#[test]
fn links_inside_a_repository_are_refused_from_anywhere() {
    let (dir, repo, outside) = project();
    std::fs::create_dir(repo.join(".git")).unwrap_or_else(|e| panic!("{e}"));
    symlink(&outside, repo.join("reports")).unwrap_or_else(|e| panic!("{e}"));
    let target = repo.join("reports/r.json");
    let target = target.to_string_lossy();
    let o = run(
        dir.path(),
        &[
            "check",
            "repo",
            "--no-cache",
            "--format",
            "json",
            "--output",
            &target,
        ],
    );
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(names(&outside).is_empty(), "{:?}", names(&outside));

    write(&outside, "proclint.toml", "cache-dir = \".\"\n");
    write(&outside, "project", "precious\n");
    symlink(&outside, repo.join("cfg")).unwrap_or_else(|e| panic!("{e}"));
    let o = json(&repo, &["--config", "cfg/proclint.toml"]);
    assert!(
        stderr(&o).contains("running without the result cache"),
        "{}",
        stderr(&o)
    );
    assert_eq!(
        std::fs::read_to_string(outside.join("project")).unwrap_or_default(),
        "precious\n"
    );
}

/// Second review: `proclint.toml` linked to a file outside the repository
/// was read and quoted (the CI user's environment, on a terminal).
#[test]
fn a_config_linked_outside_the_repository_is_not_read() {
    let (_dir, repo, outside) = project();
    std::fs::create_dir(repo.join(".git")).unwrap_or_else(|e| panic!("{e}"));
    write(&outside, "secret.toml", "ghp_SECRETKEY_1234 = \"x\"\n");
    symlink(outside.join("secret.toml"), repo.join("proclint.toml"))
        .unwrap_or_else(|e| panic!("{e}"));
    let o = run(&repo, &["check", "."]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(!stderr(&o).contains("ghp_SECRETKEY"), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("leaving the repository"),
        "{}",
        stderr(&o)
    );
}

/// Second review: control characters of a configuration reached the
/// terminal in its error snippet.
#[test]
fn a_config_error_prints_no_control_characters() {
    let (_dir, repo, _) = project();
    write(
        &repo,
        "proclint.toml",
        "\u{1b}[2J\u{1b}]0;TITLE\u{7} = 1\n[rules\n",
    );
    let o = run(&repo, &["check", "."]);
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(
        !stderr(&o).contains('\u{1b}') && !stderr(&o).contains('\u{7}'),
        "{:?}",
        stderr(&o)
    );
}

/// Second review: a huge `.proclint_cache/project` was read whole (out of
/// memory); `--output` to a FIFO nobody reads hung; `--output /dev/stdout`
/// redirected to a file was refused.
#[test]
fn huge_entries_lone_fifos_and_dev_stdout() {
    let (_dir, repo, _) = project();
    let first = json(&repo, &[]);
    let entry = repo.join(".proclint_cache/project");
    let f = std::fs::OpenOptions::new()
        .write(true)
        .open(&entry)
        .unwrap_or_else(|e| panic!("{e}"));
    f.set_len(40 << 30).unwrap_or_else(|e| panic!("{e}"));
    drop(f);
    let o = json(&repo, &[]);
    assert_eq!(stdout(&o), stdout(&first));

    mkfifo(&repo.join("out.json"));
    let o = run(
        &repo,
        &[
            "check",
            ".",
            "--no-cache",
            "--format",
            "json",
            "--output",
            "out.json",
        ],
    );
    assert_eq!(code(&o), 2, "{}", stderr(&o));
    assert!(stderr(&o).contains("no reader"), "{}", stderr(&o));

    let to = repo.join("redirected.json");
    let file = std::fs::File::create(&to).unwrap_or_else(|e| panic!("{e}"));
    let o = Command::new(env!("CARGO_BIN_EXE_proclint"))
        .args([
            "check",
            ".",
            "--no-cache",
            "--format",
            "json",
            "--output",
            "/dev/stdout",
        ])
        .current_dir(&repo)
        .stdout(file)
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(code(&o), 1, "{}", stderr(&o));
    let got = std::fs::read_to_string(&to).unwrap_or_default();
    assert!(got.contains("unchecked-breakpoint"), "{got}");
}
