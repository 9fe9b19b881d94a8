//! Arbitrary bytes as a lockfile next to a package.json that pins the SDK
//! with a range: the first byte picks yarn.lock, pnpm-lock.yaml or
//! package-lock.json, the rest is its text. Lockfiles are read from disk
//! by the manifest rules, so this goes through a temporary directory and
//! the real walk (`engine::run`).
#![no_main]

use libfuzzer_sys::fuzz_target;
use proclint::project::config::Config;
use proclint::engine::{self, Stage};

const MANIFEST: &str =
    "{ \"name\": \"x\", \"dependencies\": { \"@a5c-ai/babysitter-sdk\": \"^0.3.1\" } }\n";

fuzz_target!(|data: &[u8]| {
    let Some((&which, rest)) = data.split_first() else {
        return;
    };
    let name = ["yarn.lock", "pnpm-lock.yaml", "package-lock.json"][usize::from(which % 3)];
    let Ok(dir) = tempfile::tempdir() else { return };
    if std::fs::write(dir.path().join("package.json"), MANIFEST).is_err()
        || std::fs::write(dir.path().join(name), rest).is_err()
    {
        return;
    }
    let out = engine::run(&[dir.path().to_path_buf()], &Config::default(), Stage::Full);
    assert!(
        out.diagnostics.iter().all(|d| d.rule != "internal-error"),
        "{:?}",
        out.diagnostics
    );
});
