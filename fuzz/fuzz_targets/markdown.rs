//! Arbitrary bytes as a SKILL.md (frontmatter YAML, CommonMark, links)
//! through the whole pipeline.
#![no_main]

use libfuzzer_sys::fuzz_target;
use proclint::project::config::Config;
use proclint::engine::discover::FileKind;

fuzz_target!(|data: &[u8]| {
    let (text, _) = proclint::source::decode(data.to_vec());
    let out = proclint::engine::lint_texts(
        vec![("skill/SKILL.md".into(), FileKind::Skill, text)],
        &Config::default(),
    );
    assert!(
        out.diagnostics.iter().all(|d| d.rule != "internal-error"),
        "{:?}",
        out.diagnostics
    );
});
