//! Load parity with Node (issue 33): over every fixture, proclint reports a
//! `parse-error` exactly where Node refuses to load the file
//! (scripts/node_parity.js compiles each file as Node would load it, and
//! evaluates nothing). Node 20 is a requirement of the test suite.

mod common;

use std::process::Command;

use common::*;

#[test]
fn parse_error_agrees_with_node_on_every_fixture() {
    let version = Command::new("node").arg("--version").output().ok();
    let Some(version) = version.filter(|o| o.status.success()) else {
        panic!("node is needed for this test (Node 20 is what CI and users run)");
    };
    let o = Command::new("node")
        .arg(root().join("scripts/node_parity.js"))
        .arg("--proclint")
        .arg(env!("CARGO_BIN_EXE_proclint"))
        .arg("fixtures")
        .current_dir(root())
        .output()
        .unwrap_or_else(|e| panic!("node: {e}"));
    let out = stdout(&o);
    assert!(
        o.status.success(),
        "Node {} and proclint disagree:\n{out}{}",
        String::from_utf8_lossy(&version.stdout).trim(),
        stderr(&o)
    );
    // The oracle saw the fixtures Node rejects, one per kind of early error.
    let summary = out.lines().last().unwrap_or("");
    let rejected: usize = summary
        .split("Node rejects ")
        .nth(1)
        .and_then(|s| s.split(',').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or(0);
    assert!(rejected >= 15, "{summary}");
}
