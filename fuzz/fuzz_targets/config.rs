//! Arbitrary bytes as proclint.toml: either a clean error with a position
//! inside the file, or a configuration that lints a snippet without
//! panicking.
#![no_main]

use std::path::{Path, PathBuf};

use libfuzzer_sys::fuzz_target;
use proclint::project::config::Config;
use proclint::engine::discover::FileKind;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    match Config::parse(
        text,
        Path::new("proclint.toml"),
        PathBuf::from("."),
        &proclint::rules::Registry,
    ) {
        Err(e) => {
            // Rendering the error (line and column) must not panic either.
            let _ = e.one_line();
            let _ = e.to_string();
        }
        Ok(config) => {
            let _ = config.fingerprint();
            let out = proclint::engine::lint_texts(
                vec![(
                    "p.js".into(),
                    FileKind::Process,
                    "export async function process(i, ctx) { await ctx.breakpoint({}); }\n".into(),
                )],
                &config,
            );
            assert!(out.diagnostics.iter().all(|d| d.rule != "internal-error"));
        }
    }
});
