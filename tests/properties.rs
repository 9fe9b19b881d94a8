//! Property tests (issue 10, point 3): byte-level mutations of the fixture
//! files — inserted, deleted, replaced and duplicated ranges — never make
//! the pipeline panic (no `internal-error`), never produce a position
//! outside the file, and give identical output on repeated runs.
//!
//! Bounded for CI: 64 cases per property with a fixed seed (set
//! `PROPTEST_RNG_SEED`-style exploration with `PROCLINT_PROPTEST_CASES` and
//! `PROCLINT_PROPTEST_RANDOM=1`), a few seconds in total.

mod common;

use std::path::{Path, PathBuf};

use proptest::prelude::*;
use proptest::test_runner::{Config as PtConfig, RngSeed, TestCaseError, TestRunner};

use proclint::engine::{self, Stage};
use proclint::project::config::Config;
use proclint::report::{self, Format};
use proclint::source::LineIndex;

#[derive(Debug, Clone)]
enum Mutation {
    Insert(usize, Vec<u8>),
    Delete(usize, usize),
    Replace(usize, usize, Vec<u8>),
    Duplicate(usize, usize),
}

/// Bytes worth inserting: JavaScript/Markdown/JSON/YAML punctuation, line
/// endings, a BOM, a NUL-free invalid UTF-8 byte, multibyte characters.
fn interesting() -> impl Strategy<Value = Vec<u8>> {
    let piece = prop_oneof![
        Just(b"(".to_vec()),
        Just(b")".to_vec()),
        Just(b"{".to_vec()),
        Just(b"}".to_vec()),
        Just(b"[".to_vec()),
        Just(b"\"".to_vec()),
        Just(b"'".to_vec()),
        Just(b"`".to_vec()),
        Just(b"\r".to_vec()),
        Just(b"\r\n".to_vec()),
        Just(b"\t".to_vec()),
        Just(b"\xef\xbb\xbf".to_vec()),
        Just(b"\xff".to_vec()),
        Just("é😀".as_bytes().to_vec()),
        Just(b"---\n".to_vec()),
        Just(b"await ctx.breakpoint({});".to_vec()),
        Just(b"// proclint-disable-next-line ".to_vec()),
        Just(b"<!-- proclint-disable-file -->".to_vec()),
        Just(b":".to_vec()),
        Just(b",".to_vec()),
        prop::collection::vec(1u8..=255, 1..8),
    ];
    prop::collection::vec(piece, 1..4).prop_map(|v| v.concat())
}

fn mutation() -> impl Strategy<Value = Mutation> {
    // Positions are fractions of the length, mapped when applied.
    prop_oneof![
        (any::<usize>(), interesting()).prop_map(|(a, b)| Mutation::Insert(a, b)),
        (any::<usize>(), 0usize..64).prop_map(|(a, n)| Mutation::Delete(a, n)),
        (any::<usize>(), 0usize..16, interesting())
            .prop_map(|(a, n, b)| Mutation::Replace(a, n, b)),
        (any::<usize>(), 0usize..256).prop_map(|(a, n)| Mutation::Duplicate(a, n)),
    ]
}

fn apply(mut bytes: Vec<u8>, muts: &[Mutation]) -> Vec<u8> {
    for m in muts {
        let len = bytes.len();
        let at = |a: usize| if len == 0 { 0 } else { a % (len + 1) };
        match m {
            Mutation::Insert(a, b) => {
                let a = at(*a);
                bytes.splice(a..a, b.iter().copied());
            }
            Mutation::Delete(a, n) => {
                let a = at(*a);
                let end = (a + n).min(len);
                bytes.drain(a..end);
            }
            Mutation::Replace(a, n, b) => {
                let a = at(*a);
                let end = (a + n).min(len);
                bytes.splice(a..end, b.iter().copied());
            }
            Mutation::Duplicate(a, n) => {
                let a = at(*a);
                let end = (a + n).min(len);
                let piece = bytes[a..end].to_vec();
                bytes.splice(end..end, piece);
            }
        }
    }
    // NUL bytes make a file binary (skipped); keep the mutations textual
    // so the analysis actually runs.
    bytes.retain(|b| *b != 0);
    bytes
}

/// Fixture files of one kind, with the names they are written under.
fn fixtures(pred: impl Fn(&Path) -> bool) -> Vec<(String, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![common::root().join("fixtures")];
    while let Some(dir) = stack.pop() {
        let Ok(rd) = std::fs::read_dir(&dir) else {
            continue;
        };
        for e in rd.flatten() {
            let p = e.path();
            if p.is_dir() {
                if p.file_name().is_some_and(|n| n != "runs") {
                    stack.push(p);
                }
            } else if pred(&p) {
                let name = p
                    .file_name()
                    .map(|n| n.to_string_lossy().into_owned())
                    .unwrap_or_default();
                out.push((name, std::fs::read(&p).unwrap_or_default()));
            }
        }
    }
    out.sort();
    out
}

fn runner() -> TestRunner {
    let cases = std::env::var("PROCLINT_PROPTEST_CASES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(64);
    let seed = if std::env::var_os("PROCLINT_PROPTEST_RANDOM").is_some() {
        RngSeed::Random
    } else {
        RngSeed::Fixed(0x70_72_6f_63)
    };
    TestRunner::new(PtConfig {
        cases,
        failure_persistence: None,
        rng_seed: seed,
        ..PtConfig::default()
    })
}

/// Lints a directory holding the mutated files (walk mode, so no project
/// root above the temporary directory is consulted) and checks the
/// properties. Returns the JSON report.
fn lint_dir(dir: &Path, texts: &[(PathBuf, Vec<u8>)]) -> Result<String, TestCaseError> {
    let config = Config::default();
    let outcome = engine::run(&[dir.to_path_buf()], &config, Stage::Full);
    let options = report::Options::default();
    let json = report::render(Format::Json, &outcome, &options);
    for d in &outcome.diagnostics {
        prop_assert!(d.rule != "internal-error", "{d:?}");
        let mut locations = vec![&d.location];
        locations.extend(d.related.iter().map(|r| &r.location));
        for loc in locations {
            let Some((_, bytes)) = texts.iter().find(|(p, _)| p.to_string_lossy() == *loc.path)
            else {
                continue;
            };
            let (text, _) = proclint::source::decode(bytes.clone());
            prop_assert!(
                loc.span.start <= loc.span.end && loc.span.end <= text.len(),
                "{loc:?}"
            );
            let index = LineIndex::new(&text);
            for pos in [loc.start, loc.end] {
                let line0 = (pos.line as usize).checked_sub(1);
                prop_assert!(line0.is_some(), "{loc:?}");
                let line0 = line0.unwrap_or(0);
                let starts_after = index.line_start(line0);
                prop_assert!(line0 == 0 || starts_after > 0, "line past the end: {loc:?}");
                let line = index.line_text(&text, line0);
                let width: usize = line.chars().map(char::len_utf16).sum();
                prop_assert!(
                    pos.column >= 1 && (pos.column as usize) <= width + 1,
                    "{loc:?} width {width}"
                );
            }
            prop_assert!(
                (loc.start.line, loc.start.column) <= (loc.end.line, loc.end.column),
                "{loc:?}"
            );
        }
    }
    Ok(json)
}

fn check_kind(files: Vec<(String, Vec<u8>)>, extra: Vec<(String, Vec<u8>)>) {
    assert!(!files.is_empty());
    let mut runner = runner();
    let strategy = (
        0..files.len(),
        prop::collection::vec(mutation(), 1..5),
        0..extra.len().max(1),
    );
    let result = runner.run(&strategy, |(i, muts, j)| {
        let dir = tempfile::tempdir().map_err(|e| TestCaseError::fail(e.to_string()))?;
        let (name, bytes) = &files[i];
        let mutated = apply(bytes.clone(), &muts);
        let mut written = vec![(dir.path().join(name), mutated)];
        // A sibling (a lockfile next to a manifest), mutated the same way.
        if let Some((ename, ebytes)) = extra.get(j) {
            written.push((dir.path().join(ename), apply(ebytes.clone(), &muts)));
        }
        for (p, b) in &written {
            std::fs::write(p, b).map_err(|e| TestCaseError::fail(e.to_string()))?;
        }
        // Display paths are as walked: the temporary directory's path.
        let texts: Vec<(PathBuf, Vec<u8>)> = written.clone();
        let first = lint_dir(dir.path(), &texts)?;
        let second = lint_dir(dir.path(), &texts)?;
        prop_assert_eq!(first, second);
        Ok(())
    });
    if let Err(e) = result {
        panic!("{e}");
    }
}

#[test]
fn mutated_process_modules() {
    let js = fixtures(|p| {
        p.extension()
            .is_some_and(|e| e == "js" || e == "mjs" || e == "cjs")
    });
    // Every mutated module still carries a process marker, so it is linted.
    let js = js
        .into_iter()
        .map(|(n, mut b)| {
            b.splice(0..0, b"// defineTask\n".iter().copied());
            (n, b)
        })
        .collect();
    check_kind(js, Vec::new());
}

#[test]
fn mutated_skill_files() {
    let md = fixtures(|p| p.file_name().is_some_and(|n| n == "SKILL.md"))
        .into_iter()
        .collect();
    let targets = fixtures(|p| {
        p.extension().is_some_and(|e| e == "md") && p.file_name().is_some_and(|n| n != "SKILL.md")
    });
    check_kind(md, targets);
}

#[test]
fn mutated_manifests_and_lockfiles() {
    let manifests = fixtures(|p| p.file_name().is_some_and(|n| n == "package.json"));
    let locks = fixtures(|p| {
        p.file_name()
            .is_some_and(|n| n == "yarn.lock" || n == "pnpm-lock.yaml" || n == "package-lock.json")
    });
    check_kind(manifests, locks);
}
