#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output};
use std::time::Duration;

pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Runs the proclint binary in `dir` with no config discovery surprises.
pub fn proclint_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_proclint"))
        .args(args)
        .current_dir(dir)
        .env_remove("NO_COLOR")
        // When the tests themselves run in GitHub Actions.
        .env_remove("GITHUB_STEP_SUMMARY")
        .env("RAYON_NUM_THREADS", "2")
        .output()
        .unwrap_or_else(|e| panic!("cannot run proclint: {e}"))
}

/// Runs proclint from the repository root.
pub fn proclint(args: &[&str]) -> Output {
    proclint_in(&root(), args)
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

pub fn code(o: &Output) -> i32 {
    o.status.code().unwrap_or(-1)
}

pub fn write(dir: &Path, rel: &str, text: &str) -> PathBuf {
    let p = dir.join(rel);
    if let Some(parent) = p.parent() {
        std::fs::create_dir_all(parent).unwrap_or_else(|e| panic!("mkdir: {e}"));
    }
    std::fs::write(&p, text).unwrap_or_else(|e| panic!("write {}: {e}", p.display()));
    p
}

/// Copies the tree at `from` to `to`, creating `to`.
pub fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap_or_else(|e| panic!("{e}"));
    for entry in std::fs::read_dir(from)
        .unwrap_or_else(|e| panic!("{e}"))
        .flatten()
    {
        let target = to.join(entry.file_name());
        if entry.path().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), &target).unwrap_or_else(|e| panic!("{e}"));
        }
    }
}

pub fn tempdir() -> tempfile::TempDir {
    tempfile::tempdir().unwrap_or_else(|e| panic!("tempdir: {e}"))
}

/// A named breakpoint (so only `unchecked-breakpoint` fires) whose result is dropped.
pub const BAD_BREAKPOINT: &str = "export async function process(inputs, ctx) {\n  await ctx.breakpoint({ question: 'Ship?', label: 'Ship?' });\n}\n";
pub const GOOD_BREAKPOINT: &str = "export async function process(inputs, ctx) {\n  const d = await ctx.breakpoint({ question: 'Ship?', label: 'ship' });\n  return d.approved;\n}\n";

/// A task module `--fix` rewrites (it adds `labels` to the agent task).
pub const FIXABLE_TASK: &str = "import { defineTask } from '@a5c-ai/babysitter-sdk';\n\n\
export const reviewTask = defineTask('spec-review', (args) => ({\n\
  kind: 'agent',\n\
  title: 'Review',\n\
}), { labels: ['review'] });\n";

/// The JSON report a run printed; panics with the run's output otherwise.
pub fn report_json(o: &Output) -> serde_json::Value {
    serde_json::from_str(&stdout(o)).unwrap_or_else(|e| panic!("{e}: {} {}", stdout(o), stderr(o)))
}

/// (rule, path, line, column, message) of one diagnostic of a JSON report.
pub type Finding = (String, String, u64, u64, String);

/// Every diagnostic of a JSON report, in report order.
pub fn findings(v: &serde_json::Value) -> Vec<Finding> {
    let field = |d: &serde_json::Value, k: &str| d[k].as_str().unwrap_or("").to_string();
    v["diagnostics"]
        .as_array()
        .map(|a| {
            a.iter()
                .map(|d| {
                    (
                        field(d, "rule"),
                        field(d, "path"),
                        d["line"].as_u64().unwrap_or(0),
                        d["column"].as_u64().unwrap_or(0),
                        field(d, "message"),
                    )
                })
                .collect()
        })
        .unwrap_or_default()
}

/// Waits for a spawned proclint with a deadline, reading its pipes while it
/// runs (a report larger than a pipe's buffer would otherwise block it): a
/// hang fails the test that ran it, not the whole suite.
pub fn wait_with_deadline(child: Child, what: &str, secs: u64) -> Output {
    let id = child.id();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(child.wait_with_output());
    });
    match rx.recv_timeout(Duration::from_secs(secs)) {
        Ok(out) => out.unwrap_or_else(|e| panic!("cannot wait for proclint: {e}")),
        Err(_) => {
            let _ = Command::new("kill").arg("-9").arg(id.to_string()).status();
            panic!("proclint {what} did not finish in {secs} s");
        }
    }
}
