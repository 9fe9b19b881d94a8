//! The result cache: what invalidates an entry, damaged entries, concurrent
//! runs, and that a warm run reports exactly what a cold one does.

mod common;

use std::path::Path;
use std::process::{Command, Output};

use common::*;

fn run_env(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_proclint"));
    cmd.args(args)
        .current_dir(dir)
        .env("RAYON_NUM_THREADS", "2")
        .env_remove("PROCLINT_INJECT_PANIC")
        .env_remove("PROCLINT_CACHE_VERSION");
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output()
        .unwrap_or_else(|e| panic!("cannot run proclint: {e}"))
}

/// The numbers of the `--cache-stats` line: per-file (hits, misses,
/// written), then the same for the cross-module pass's entry.
fn all_stats(o: &Output) -> Vec<usize> {
    let err = stderr(o);
    let line = err
        .lines()
        .find(|l| l.starts_with("proclint cache: "))
        .unwrap_or_else(|| panic!("no cache stats in {err}"));
    let nums: Vec<usize> = line
        .split(|c: char| !c.is_ascii_digit())
        .filter_map(|s| s.parse().ok())
        .collect();
    assert!(nums.len() >= 6, "{line}");
    nums
}

/// (hits, misses, written) of per-file entries.
fn stats(o: &Output) -> (usize, usize, usize) {
    let n = all_stats(o);
    (n[0], n[1], n[2])
}

/// (hits, misses, written) of the cross-module pass's entry.
fn project_stats(o: &Output) -> (usize, usize, usize) {
    let n = all_stats(o);
    (n[3], n[4], n[5])
}

fn check(dir: &Path, env: &[(&str, &str)]) -> (String, (usize, usize, usize)) {
    let (out, s, _) = check_p(dir, env);
    (out, s)
}

/// [`check`], also giving the cross-module pass's stats.
fn check_p(
    dir: &Path,
    env: &[(&str, &str)],
) -> (String, (usize, usize, usize), (usize, usize, usize)) {
    let o = run_env(
        dir,
        &["check", ".", "--format", "json", "--cache-stats"],
        env,
    );
    assert!(matches!(code(&o), 0 | 1), "{}", stderr(&o));
    (stdout(&o), stats(&o), project_stats(&o))
}

fn uncached(dir: &Path) -> String {
    stdout(&run_env(
        dir,
        &["check", ".", "--format", "json", "--no-cache"],
        &[],
    ))
}

const TASKS: &str = "import { defineTask } from '@a5c-ai/babysitter-sdk';\n\
export const reviewTask = defineTask('review', () => ({\n\
  kind: 'agent',\n\
  labels: ['review'],\n\
  agent: { name: 'r', prompt: { task: 'Review' }, outputSchema: {\n\
    type: 'object',\n\
    properties: { passed: { type: 'boolean' }, issues: { type: 'array' } },\n\
  } },\n\
}));\n";

const PHASE_READS_PASSED: &str = "import { reviewTask } from './tasks.js';\n\
export async function process(inputs, ctx) {\n\
  const r = await ctx.task(reviewTask, {});\n\
  return r.passed ? 1 : 0;\n\
}\n";

fn project(d: &Path) {
    write(d, "tasks.js", TASKS);
    write(d, "phase.js", PHASE_READS_PASSED);
    write(d, "bad.js", BAD_BREAKPOINT);
    write(d, "good.js", GOOD_BREAKPOINT);
}

#[test]
fn warm_runs_hit_and_report_the_same() {
    let dir = tempdir();
    let d = dir.path();
    project(d);
    let (cold, s, p) = check_p(d, &[]);
    assert_eq!(s, (0, 4, 4));
    assert_eq!(p, (0, 1, 1));
    assert!(d.join(".proclint_cache/.gitignore").is_file());
    assert!(d.join(".proclint_cache/project").is_file());
    // The cross-module pass is read back, not recomputed.
    let (warm, s, p) = check_p(d, &[]);
    assert_eq!(s, (4, 0, 0));
    assert_eq!(p, (1, 0, 0));
    assert_eq!(cold, warm);
    assert_eq!(cold, uncached(d));
    assert!(cold.contains("unused-output-field"), "{cold}");
    assert!(cold.contains("unchecked-breakpoint"), "{cold}");
}

#[test]
fn a_changed_file_is_relinted_alone() {
    let dir = tempdir();
    let d = dir.path();
    project(d);
    check(d, &[]);
    write(d, "bad.js", GOOD_BREAKPOINT);
    let (out, s) = check(d, &[]);
    assert_eq!(s, (3, 1, 1));
    assert!(!out.contains("unchecked-breakpoint"), "{out}");
    assert_eq!(out, uncached(d));
}

/// The unused field is reported on tasks.js but decided by phase.js: a
/// change to phase.js alone changes the finding while tasks.js stays a hit,
/// because the cross-module pass's entry is keyed by every module's entry.
#[test]
fn a_changed_sibling_module_updates_cross_module_findings() {
    let dir = tempdir();
    let d = dir.path();
    project(d);
    let (before, _) = check(d, &[]);
    assert!(before.contains("`issues`"), "{before}");
    assert_eq!(check_p(d, &[]).2, (1, 0, 0));
    write(
        d,
        "phase.js",
        &PHASE_READS_PASSED.replace("r.passed ? 1 : 0", "r.passed ? r.issues : 0"),
    );
    let (after, s, p) = check_p(d, &[]);
    assert_eq!(s, (3, 1, 1));
    assert_eq!(p, (0, 1, 1));
    assert!(!after.contains("unused-output-field"), "{after}");
    assert_eq!(after, uncached(d));
    assert_eq!(check_p(d, &[]), (after, (4, 0, 0), (1, 0, 0)));
    // And back: the old entry is gone (one entry per file), relinted again.
    write(d, "phase.js", PHASE_READS_PASSED);
    let (again, s, p) = check_p(d, &[]);
    assert_eq!(s, (3, 1, 1));
    assert_eq!(p, (0, 1, 1));
    assert_eq!(again, before);
}

/// A module that appears (or disappears) changes the cross-module findings
/// even though no other file changed.
#[test]
fn an_added_or_removed_module_updates_cross_module_findings() {
    let dir = tempdir();
    let d = dir.path();
    project(d);
    let (before, _) = check(d, &[]);
    assert!(before.contains("`issues`"), "{before}");
    write(
        d,
        "other.js",
        &PHASE_READS_PASSED.replace("r.passed ? 1 : 0", "r.issues"),
    );
    let (after, s, p) = check_p(d, &[]);
    assert_eq!(s, (4, 1, 1));
    assert_eq!(p, (0, 1, 1));
    assert!(!after.contains("`issues`"), "{after}");
    assert_eq!(after, uncached(d));
    std::fs::remove_file(d.join("other.js")).unwrap_or_else(|e| panic!("{e}"));
    let (again, s, p) = check_p(d, &[]);
    assert_eq!(s, (4, 0, 0));
    assert_eq!(p, (0, 1, 1));
    assert_eq!(again, before);
}

#[test]
fn a_changed_config_invalidates_everything() {
    let dir = tempdir();
    let d = dir.path();
    project(d);
    check(d, &[]);
    write(
        d,
        "proclint.toml",
        "[rules]\nunchecked-breakpoint = \"warning\"\n",
    );
    let (out, s, p) = check_p(d, &[]);
    assert_eq!(s, (0, 4, 4));
    assert_eq!(p, (0, 1, 1));
    assert!(out.contains("\"severity\": \"warning\""), "{out}");
    assert_eq!(out, uncached(d));
    // Options of a rule count too.
    write(
        d,
        "proclint.toml",
        "[rules]\nunchecked-breakpoint = \"warning\"\nmissing-labels = \"off\"\n",
    );
    let (_, s) = check(d, &[]);
    assert_eq!(s, (0, 4, 4));
    // A comment-only change is the same effective config.
    write(
        d,
        "proclint.toml",
        "# hi\n[rules]\nunchecked-breakpoint = \"warning\"\nmissing-labels = \"off\"\n",
    );
    let (_, s, p) = check_p(d, &[]);
    assert_eq!(s, (4, 0, 0));
    assert_eq!(p, (1, 0, 0));
    // A cross-module rule's severity changes its (cached) findings.
    let (before, _, p) = check_p(d, &[]);
    assert_eq!(p, (1, 0, 0));
    assert!(before.contains("unused-output-field"), "{before}");
    write(
        d,
        "proclint.toml",
        "[rules]\nunchecked-breakpoint = \"warning\"\nmissing-labels = \"off\"\n\
         unused-output-field = \"off\"\n",
    );
    let (out, _, p) = check_p(d, &[]);
    assert_eq!(p, (0, 1, 1));
    assert!(!out.contains("unused-output-field"), "{out}");
    assert_eq!(out, uncached(d));
    // The command line's --select is part of the effective config.
    let o = run_env(
        d,
        &[
            "check",
            ".",
            "--select",
            "unchecked-breakpoint",
            "--cache-stats",
        ],
        &[],
    );
    assert_eq!(stats(&o), (0, 4, 4));
    assert_eq!(project_stats(&o), (0, 1, 1));
}

#[test]
fn a_changed_version_invalidates_everything() {
    let dir = tempdir();
    let d = dir.path();
    project(d);
    let v1 = [("PROCLINT_CACHE_VERSION", "1.0.0")];
    let v2 = [("PROCLINT_CACHE_VERSION", "1.0.1")];
    assert_eq!(check(d, &v1).1, (0, 4, 4));
    assert_eq!(check_p(d, &v1).2, (1, 0, 0));
    assert_eq!(check_p(d, &v2).2, (0, 1, 1));
    assert_eq!(check(d, &v2).1, (4, 0, 0));
}

/// A damaged cross-module entry (truncated, emptied, bit-flipped, garbage,
/// or written for another tree) is a miss, recomputed and rewritten.
#[test]
fn a_damaged_or_stale_project_entry_is_ignored_and_rewritten() {
    let dir = tempdir();
    let d = dir.path();
    project(d);
    let (clean, _) = check(d, &[]);
    let entry = d.join(".proclint_cache/project");
    let good = std::fs::read(&entry).unwrap_or_else(|e| panic!("{e}"));
    assert!(good.starts_with(b"PLPROJ01"));
    // Another tree's entry: the same format under another key.
    let other = tempdir();
    project(other.path());
    write(
        other.path(),
        "phase.js",
        &PHASE_READS_PASSED.replace("r.passed ? 1 : 0", "r.issues"),
    );
    check(other.path(), &[]);
    let stale = std::fs::read(other.path().join(".proclint_cache/project"))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_ne!(stale, good);
    let mut flipped = good.clone();
    let mid = flipped.len() / 2;
    flipped[mid] ^= 0x01;
    let mut longer = good.clone();
    longer.push(0);
    for damaged in [
        good[..good.len() / 2].to_vec(),
        good[..good.len() - 1].to_vec(),
        Vec::new(),
        flipped,
        longer,
        b"not a cache entry".to_vec(),
        stale,
    ] {
        std::fs::write(&entry, &damaged).unwrap_or_else(|e| panic!("{e}"));
        let (out, s, p) = check_p(d, &[]);
        assert_eq!(s, (4, 0, 0));
        assert_eq!(p, (0, 1, 1));
        assert_eq!(out, clean);
        assert_eq!(std::fs::read(&entry).ok().as_ref(), Some(&good));
        assert_eq!(check_p(d, &[]).2, (1, 0, 0));
    }
}

/// A cross-module pass that hit a bug is not remembered.
#[test]
fn the_project_entry_is_not_written_for_internal_errors() {
    let dir = tempdir();
    let d = dir.path();
    project(d);
    let panic = [("PROCLINT_INJECT_PANIC", "unused-output-field:<project>")];
    for _ in 0..2 {
        let o = run_env(
            d,
            &["check", ".", "--format", "json", "--cache-stats"],
            &panic,
        );
        assert_eq!(code(&o), 2, "{}", stderr(&o));
        assert!(stdout(&o).contains("internal-error"), "{}", stdout(&o));
        assert_eq!(project_stats(&o), (0, 1, 0));
    }
    assert!(!d.join(".proclint_cache/project").exists());
}

#[test]
fn damaged_entries_are_ignored_and_rewritten() {
    let dir = tempdir();
    let d = dir.path();
    project(d);
    let (clean, _) = check(d, &[]);
    let entries: Vec<std::path::PathBuf> = std::fs::read_dir(d.join(".proclint_cache"))
        .map(|rd| {
            rd.flatten()
                .map(|e| e.path())
                .filter(|p| p.file_name().is_some_and(|n| n.len() == 32))
                .collect()
        })
        .unwrap_or_default();
    assert_eq!(entries.len(), 4);
    // Truncated, emptied, bit-flipped, and replaced by garbage.
    for (i, p) in entries.iter().enumerate() {
        let bytes = std::fs::read(p).unwrap_or_default();
        let damaged = match i {
            0 => bytes[..bytes.len() / 2].to_vec(),
            1 => Vec::new(),
            2 => {
                let mut b = bytes.clone();
                let mid = b.len() / 2;
                b[mid] ^= 0x01;
                b
            }
            _ => b"not a cache entry".to_vec(),
        };
        std::fs::write(p, damaged).unwrap_or_else(|e| panic!("{e}"));
    }
    let (out, s) = check(d, &[]);
    assert_eq!(s, (0, 4, 4));
    assert_eq!(out, clean);
    assert_eq!(check(d, &[]).1, (4, 0, 0));
}

#[test]
fn concurrent_runs_do_not_corrupt_the_cache() {
    let dir = tempdir();
    let d = dir.path();
    // Enough modules that the runs overlap while writing.
    for i in 0..40 {
        write(d, &format!("m{i}/bad.js"), BAD_BREAKPOINT);
        write(d, &format!("m{i}/tasks.js"), TASKS);
        write(d, &format!("m{i}/phase.js"), PHASE_READS_PASSED);
    }
    let expected = uncached(d);
    let children: Vec<std::process::Child> = (0..4)
        .map(|_| {
            Command::new(env!("CARGO_BIN_EXE_proclint"))
                .args(["check", ".", "--format", "json"])
                .current_dir(d)
                .env("RAYON_NUM_THREADS", "2")
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap_or_else(|e| panic!("{e}"))
        })
        .collect();
    for c in children {
        let o = c.wait_with_output().unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(stdout(&o), expected);
    }
    let (warm, s, p) = check_p(d, &[]);
    assert_eq!(s, (120, 0, 0));
    assert_eq!(p, (1, 0, 0));
    assert_eq!(warm, expected);
    // No temporary files are left behind.
    let tmp = std::fs::read_dir(d.join(".proclint_cache"))
        .map(|rd| {
            rd.flatten()
                .filter(|e| e.file_name().to_string_lossy().ends_with(".tmp"))
                .count()
        })
        .unwrap_or(0);
    assert_eq!(tmp, 0);
}

#[test]
fn cache_dir_setting_and_no_cache() {
    let dir = tempdir();
    let d = dir.path();
    project(d);
    let o = run_env(d, &["check", ".", "--no-cache"], &[]);
    assert!(matches!(code(&o), 1), "{}", stderr(&o));
    assert!(!d.join(".proclint_cache").exists());
    write(d, "proclint.toml", "cache-dir = \"build/lint-cache\"\n");
    let sub = d.join("bad-sub");
    std::fs::create_dir_all(&sub).unwrap_or_else(|e| panic!("{e}"));
    // Relative to the config file, wherever proclint runs from.
    let o = run_env(&sub, &["check", "..", "--cache-stats"], &[]);
    assert_eq!(stats(&o).1, 4);
    assert!(d.join("build/lint-cache/CACHEDIR.TAG").is_file());
    assert!(!d.join(".proclint_cache").exists());
    assert!(!sub.join(".proclint_cache").exists());
}

/// Manifests depend on siblings (lockfiles) and are never cached. A
/// SKILL.md is, except for `skill-broken-link` (whether link targets exist,
/// their headings), which is rerun on every hit: creating or removing a
/// target, or changing its headings, flips the finding on a warm run.
#[test]
fn manifests_are_not_cached_and_skill_links_are_rechecked() {
    let dir = tempdir();
    let d = dir.path();
    write(
        d,
        "package.json",
        "{ \"name\": \"x\", \"dependencies\": { \"@a5c-ai/babysitter-sdk\": \"^0.3.1\" } }\n",
    );
    write(
        d,
        "s/SKILL.md",
        "---\nname: s\ndescription: d\n---\n[x](missing.md) and [y](other.md#usage)\n",
    );
    write(d, "s/other.md", "# Other\n## Setup\n");
    let missing = "`missing.md` does not exist";
    let anchor = "`other.md#usage`";
    let (first, s) = check(d, &[]);
    assert_eq!(s, (0, 1, 1));
    assert!(first.contains(missing) && first.contains(anchor), "{first}");
    assert!(first.contains("unpinned-sdk"), "{first}");
    let (warm, s) = check(d, &[]);
    assert_eq!(s, (1, 0, 0));
    assert_eq!(warm, first);
    // The target appears: a hit, and the finding is gone.
    write(d, "s/missing.md", "here\n");
    let (created, s) = check(d, &[]);
    assert_eq!(s, (1, 0, 0));
    assert!(
        !created.contains(missing) && created.contains(anchor),
        "{created}"
    );
    assert_eq!(created, uncached(d));
    // The anchor's heading appears in the other file.
    write(d, "s/other.md", "# Other\n## Setup\n## Usage\n");
    let (fixed, s) = check(d, &[]);
    assert_eq!(s, (1, 0, 0));
    assert!(
        !fixed.contains(missing) && !fixed.contains(anchor),
        "{fixed}"
    );
    assert_eq!(fixed, uncached(d));
    // And both go away again.
    std::fs::remove_file(d.join("s/missing.md")).unwrap_or_else(|e| panic!("{e}"));
    write(d, "s/other.md", "# Other\n## Setup\n");
    let (again, s) = check(d, &[]);
    assert_eq!(s, (1, 0, 0));
    assert_eq!(again, first);
    // The SKILL.md's own findings come from its entry, and change with it.
    write(d, "s/SKILL.md", "---\nname: t\n---\n[x](missing.md)\n");
    let (renamed, s) = check(d, &[]);
    assert_eq!(s, (0, 1, 1));
    assert!(renamed.contains("skill-frontmatter"), "{renamed}");
    assert_eq!(renamed, uncached(d));
}

/// A SKILL.md named without its folder (`SKILL.md` in the working
/// directory) is not cached: its folder's name is found on disk.
#[test]
fn a_skill_named_without_its_folder_is_not_cached() {
    let dir = tempdir();
    let d = dir.path();
    let s = write(d, "s/SKILL.md", "---\nname: t\ndescription: d\n---\nbody\n");
    let sub = s.parent().unwrap_or(d);
    // The folder is compared with the name under the Agent Skills format.
    write(
        sub,
        "proclint.toml",
        "[rules.skill-frontmatter]\nskill-spec = \"agentskills\"\n",
    );
    for _ in 0..2 {
        let o = run_env(
            sub,
            &["check", "SKILL.md", "--format", "json", "--cache-stats"],
            &[],
        );
        assert_eq!(stats(&o), (0, 0, 0));
        assert!(stdout(&o).contains("skill-frontmatter"), "{}", stdout(&o));
    }
}

/// A helper without SDK markers, imported by a process module, is loaded as
/// a context module on every run: a warm run finds it from the imports kept
/// with the importing module's entry (its summary stays encoded), and a
/// change to it alone updates the cross-module finding it feeds.
#[test]
fn imported_helpers_are_loaded_from_cached_imports() {
    let dir = tempdir();
    let d = dir.path();
    write(d, "package.json", "{ \"name\": \"x\" }\n");
    write(
        d,
        "lib/helper.js",
        "export const steps = [\n  'When done, git commit your work.',\n];\n",
    );
    write(
        d,
        "tasks.js",
        "import { defineTask } from '@a5c-ai/babysitter-sdk';\n\
         import { steps } from './lib/helper.js';\n\
         export const t = defineTask('impl', (args) => ({\n\
           kind: 'agent',\n\
           title: 'Impl',\n\
           labels: ['x'],\n\
           agent: { name: 'i', prompt: { task: 'Implement', instructions: steps } },\n\
         }));\n",
    );
    let (cold, s, p) = check_p(d, &[]);
    assert_eq!((s, p), ((0, 2, 2), (0, 1, 1)));
    assert!(cold.contains("git-in-agent-task"), "{cold}");
    assert!(cold.contains("lib/helper.js"), "{cold}");
    let (warm, s, p) = check_p(d, &[]);
    assert_eq!((s, p), ((2, 0, 0), (1, 0, 0)));
    assert_eq!(warm, cold);
    write(
        d,
        "lib/helper.js",
        "export const steps = [\n  'When done, report your work.',\n];\n",
    );
    let (after, s, p) = check_p(d, &[]);
    assert_eq!((s, p), ((1, 1, 1), (0, 1, 1)));
    assert!(!after.contains("git-in-agent-task"), "{after}");
    assert_eq!(after, uncached(d));
}

/// A finding about a script that does not exist depends on another file:
/// creating the script invalidates the entry of the module that names it.
#[test]
fn a_created_script_relints_the_module_that_names_it() {
    let dir = tempdir();
    let d = dir.path();
    project(d);
    write(
        d,
        "verify.js",
        "import { defineTask } from '@a5c-ai/babysitter-sdk';\n\
         export const verifyTask = defineTask('verify', () => ({\n\
         \x20 kind: 'shell',\n\
         \x20 labels: ['verify'],\n\
         \x20 shell: { command: 'bash scripts/verify-all.sh' },\n\
         }));\n",
    );
    let (cold, _) = check(d, &[]);
    assert!(cold.contains("scripts/verify-all.sh"), "{cold}");
    let (_, s) = check(d, &[]);
    assert_eq!(s, (5, 0, 0));
    write(d, "scripts/verify-all.sh", "exit 0\n");
    let (out, s) = check(d, &[]);
    assert_eq!(s, (4, 1, 1));
    assert!(!out.contains("scripts/verify-all.sh"), "{out}");
    assert_eq!(out, uncached(d));
}
