//! Output is byte-identical with 1 and 2 worker threads and across repeated
//! runs, in every format, with and without the result cache (cold and warm).

mod common;

use std::process::Command;

use common::*;

fn run(threads: &str, args: &[&str]) -> (i32, Vec<u8>) {
    let o = Command::new(env!("CARGO_BIN_EXE_proclint"))
        .args(args)
        .current_dir(root())
        .env("RAYON_NUM_THREADS", threads)
        .env_remove("NO_COLOR")
        .env_remove("PROCLINT_INJECT_PANIC")
        .env("SOURCE_DATE_EPOCH", "1700000000")
        .output()
        .unwrap_or_else(|e| panic!("cannot run proclint: {e}"));
    (code(&o), o.stdout)
}

#[test]
fn byte_identical_across_threads_runs_and_cache() {
    let cache = tempdir();
    let config = cache.path().join("proclint.toml");
    std::fs::write(
        &config,
        format!(
            "cache-dir = {:?}\n",
            cache.path().join("c").display().to_string()
        ),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let config = config.to_string_lossy().into_owned();
    let formats: &[&[&str]] = &[
        &["--format", "concise"],
        &["--format", "json"],
        &["--format", "sarif"],
        &["--format", "github"],
        &["--format", "pretty", "--color", "never"],
        &["--format", "pretty", "--color", "always"],
        &["--format", "retrospective", "--date", "2025-01-01"],
    ];
    for format in formats {
        let mut per_cache_mode = Vec::new();
        for cache_args in [&["--no-cache"][..], &["--config", &config][..]] {
            let mut args = vec!["check", "fixtures"];
            args.extend_from_slice(format);
            args.extend_from_slice(cache_args);
            let (code0, first) = run("1", &args);
            assert!(!first.is_empty(), "{args:?}");
            assert_eq!(code0, 1, "{args:?}");
            for threads in ["2", "1", "2"] {
                let (c, out) = run(threads, &args);
                assert_eq!(c, code0, "{args:?} with {threads} threads");
                assert!(
                    out == first,
                    "{args:?} with {threads} threads differs:\n{}",
                    similar::TextDiff::from_lines(
                        String::from_utf8_lossy(&first),
                        String::from_utf8_lossy(&out)
                    )
                    .unified_diff()
                );
            }
            per_cache_mode.push(first);
        }
        // The retrospective prints the command line, which differs.
        if !format.contains(&"retrospective") {
            assert!(
                per_cache_mode[0] == per_cache_mode[1],
                "{format:?}: cache changes output"
            );
        }
    }
}
