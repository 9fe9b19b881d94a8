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
