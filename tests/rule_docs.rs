//! Every rule has a doc with the fixed sections, and its examples are
//! linted: the bad one triggers exactly that rule, the good one nothing.

use proclint::engine::discover::FileKind;
use proclint::engine::lint_text;
use proclint::project::config::Config;
use proclint::rules;

/// The first fenced block after a `## heading`: (language, code).
fn example(doc: &str, heading: &str) -> Option<(String, String)> {
    let mut lines = doc.lines().skip_while(|l| l.trim() != heading).skip(1);
    let fence = lines.find(|l| l.starts_with("```"))?;
    let lang = fence.trim_start_matches('`').trim().to_string();
    let code: Vec<&str> = lines.take_while(|l| !l.starts_with("```")).collect();
    Some((lang, code.join("\n") + "\n"))
}

fn kind_and_name(lang: &str) -> (FileKind, &'static str) {
    match lang {
        "markdown" | "md" => (FileKind::Skill, "skill/SKILL.md"),
        "json" => (FileKind::Manifest, "package.json"),
        _ => (FileKind::Process, "example.js"),
    }
}

#[test]
fn every_rule_has_a_doc_with_the_fixed_sections() {
    for rule in rules::all() {
        let m = rule.meta();
        assert!(
            m.doc.starts_with(&format!("# {}\n", m.id)),
            "{}: title",
            m.id
        );
        for section in ["## What it does", "## Why is this bad?", "## Suppression"] {
            assert!(m.doc.contains(section), "{}: missing {section}", m.id);
        }
        if !m.builtin {
            assert!(m.doc.contains("## Example"), "{}: no example", m.id);
            assert!(m.doc.contains("## Use instead"), "{}: no fix example", m.id);
        }
    }
}

#[test]
fn doc_examples_trigger_exactly_their_rule() {
    let mut checked = 0;
    for rule in rules::all() {
        let m = rule.meta();
        // The default set plus this rule (with its notes): pedantic rules
        // are off by default, and the default set must stay silent on every
        // example but this rule.
        let mut config = Config::default();
        config.extend_select = vec![m.id.to_string()];
        // Run rules report on journals, not on lintable code; their examples
        // are checked against run fixtures in tests/run_retrospective.rs.
        if rule.needs_run() {
            continue;
        }
        let Some((lang, bad)) = example(m.doc, "## Example") else {
            continue;
        };
        let (kind, name) = kind_and_name(&lang);
        let found: Vec<&str> = lint_text(name, kind, bad.clone(), &config)
            .iter()
            .map(|d| d.rule)
            .collect();
        assert!(
            !found.is_empty(),
            "{}: bad example triggers nothing:\n{bad}",
            m.id
        );
        assert!(
            found.iter().all(|r| *r == m.id),
            "{}: bad example triggers {found:?}",
            m.id
        );
        let (lang, good) =
            example(m.doc, "## Use instead").unwrap_or_else(|| panic!("{}: no good example", m.id));
        let (kind, name) = kind_and_name(&lang);
        let found: Vec<String> = lint_text(name, kind, good.clone(), &config)
            .iter()
            .map(|d| format!("{}: {}", d.rule, d.message))
            .collect();
        assert!(
            found.is_empty(),
            "{}: good example triggers {found:?}\n{good}",
            m.id
        );
        checked += 1;
    }
    assert!(checked >= 2);
}
