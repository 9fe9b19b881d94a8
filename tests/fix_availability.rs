//! `proclint rules`' Fix column is what rules do: over every fixture, with
//! every rule on, a rule declared to fix `sometimes` gives at least one fix
//! on its fixtures, one declared `always` gives one with every finding,
//! and one declared `never` gives none anywhere. The doc of a rule with a
//! fix says what it does and whether it is safe (`**Fix:**` in its header,
//! which `proclint explain` prints).

mod common;

use std::collections::BTreeMap;

use common::*;
use proclint::engine::{self, Stage};
use proclint::project::config::Config;
use proclint::rules::{self, FixAvailability};

#[test]
fn each_rules_declared_fix_availability_holds_over_the_fixtures() {
    let mut config = Config::default();
    config.select = Some(vec!["all".to_string()]);
    let outcome = engine::run(&[root().join("fixtures")], &config, Stage::Full);
    // rule → (findings, findings with a fix, of those on its own fixtures)
    let mut seen: BTreeMap<&str, (usize, usize, usize)> = BTreeMap::new();
    for d in &outcome.diagnostics {
        let e = seen.entry(d.rule).or_default();
        e.0 += 1;
        if d.fix.as_ref().is_some_and(|f| !f.edits.is_empty()) {
            e.1 += 1;
            if d.location.path.contains(&format!("/{}/", d.rule)) {
                e.2 += 1;
            }
        }
    }
    let mut wrong = Vec::new();
    for r in rules::all() {
        let m = r.meta();
        let (findings, fixed, own) = seen.get(m.id).copied().unwrap_or_default();
        let holds = match m.fix {
            FixAvailability::Never => fixed == 0,
            FixAvailability::Sometimes => own > 0,
            FixAvailability::Always => findings > 0 && fixed == findings && own > 0,
        };
        if !holds {
            wrong.push(format!(
                "{}: declared `{}`, but {fixed} of its {findings} findings over the fixtures have a fix ({own} on fixtures/{}/)",
                m.id,
                m.fix.name(),
                m.id
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// The `**Fix:**` entry of a doc's header (the lines before the first
/// section).
fn fix_line(doc: &str) -> Option<&str> {
    doc.lines()
        .take_while(|l| !l.starts_with("## "))
        .find_map(|l| l.find("**Fix:**").map(|at| &l[at + "**Fix:**".len()..]))
        .map(str::trim)
}

#[test]
fn the_doc_of_a_rule_with_a_fix_says_what_it_is() {
    let mut wrong = Vec::new();
    for r in rules::all() {
        let m = r.meta();
        let line = fix_line(m.doc);
        match (m.fix, line) {
            (FixAvailability::Never, None) => {}
            (FixAvailability::Never, Some(l)) if l.starts_with("none") => {}
            (FixAvailability::Never, Some(l)) => {
                wrong.push(format!("{}: declared `never`, doc says `{l}`", m.id))
            }
            (_, Some(l)) if l.contains("safe") => {}
            (_, l) => wrong.push(format!(
                "{}: has a fix, but its doc's header has no `**Fix:**` saying safe or unsafe ({l:?})",
                m.id
            )),
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}
