//! Arbitrary bytes as a process module through the whole pipeline: decode
//! (invalid UTF-8 replaced byte for byte), parse, model, every rule, the
//! cross-module pass, suppressions. A panic anywhere is a bug; so is an
//! `internal-error` (a panic the engine caught).
#![no_main]

use libfuzzer_sys::fuzz_target;
use proclint::project::config::Config;
use proclint::engine::discover::FileKind;

fuzz_target!(|data: &[u8]| {
    let (text, _) = proclint::source::decode(data.to_vec());
    let out = proclint::engine::lint_texts(
        vec![("p.js".into(), FileKind::Process, text)],
        &Config::default(),
    );
    assert!(
        out.diagnostics.iter().all(|d| d.rule != "internal-error"),
        "{:?}",
        out.diagnostics
    );
});
