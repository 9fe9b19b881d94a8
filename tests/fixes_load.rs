//! Every fix proclint offers leaves a module Node can load (issue 31,
//! point 2). Over the fixtures, a generated corpus (scripts/gen_corpus.py)
//! and shapes that broke fixes before (comments beside a moved property,
//! `await` inside a batch element), every rule on: each fix alone (safe or
//! not) and each file's fixes together, as `--fix` applies them, are
//! checked with Node (scripts/node_check.js: `vm.SourceTextModule` and
//! CommonJS's `vm.compileFunction`, nothing evaluated). A module that
//! loaded one way before a fix must load that way after it.

mod common;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use common::*;
use proclint::engine::fix;
use proclint::engine::{self, discover::FileKind, Stage};
use proclint::project::config::Config;

/// Shapes a fix once broke, each a module of its own.
const SHAPES: &[&str] = &[
    // parallel-thunk: an awaited element whose call awaits inside.
    "export async function process(inputs, ctx) {\n  await ctx.parallel.all([\n    await ctx.task(t, { spec: await load() }),\n    ctx.task(t, { x: await load() }),\n  ], { maxConcurrency: 2 });\n}\n",
    // missing-labels: labels moved out of an options object, comments beside.
    "import { defineTask } from '@a5c-ai/babysitter-sdk';\nexport const a = defineTask('a', (args) => ({ kind: 'agent', title: 'A' }), { labels: ['l'] /* c */, timeout: 1 });\n",
    "import { defineTask } from '@a5c-ai/babysitter-sdk';\nexport const b = defineTask('b', (args) => ({ kind: 'agent', title: 'B' }), { timeout: 1, /* c */ labels: ['l'] });\n",
    "import { defineTask } from '@a5c-ai/babysitter-sdk';\nexport const c = defineTask('c', (args) => ({ kind: 'agent', title: 'C' }), { timeout: 1 /* c */, labels: ['l'] /* d */ });\n",
    "import { defineTask } from '@a5c-ai/babysitter-sdk';\nexport const d = defineTask('d', (args) => ({\n  kind: 'agent',\n  title: 'D',\n}), {\n  labels: ['l'], // why\n  timeout: 1,\n});\n",
    "import { defineTask } from '@a5c-ai/babysitter-sdk';\nexport const e = defineTask('e', (args) => ({ kind: 'agent' }), { /* only */ labels: ['l'] });\n",
];

fn node() -> Option<PathBuf> {
    let ok = Command::new("node")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success());
    ok.then(|| PathBuf::from("node"))
}

/// (module, commonjs) per file, from Node.
fn node_loads(node: &Path, files: &[PathBuf], work: &Path) -> Vec<(bool, bool)> {
    let list = work.join("list.txt");
    let names: Vec<String> = files.iter().map(|f| f.display().to_string()).collect();
    std::fs::write(&list, names.join("\n")).unwrap_or_else(|e| panic!("{e}"));
    let o = Command::new(node)
        .arg("--experimental-vm-modules")
        .arg(root().join("scripts/node_check.js"))
        .arg(&list)
        .output()
        .unwrap_or_else(|e| panic!("node: {e}"));
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let lines: Vec<serde_json::Value> = String::from_utf8_lossy(&o.stdout)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect();
    assert_eq!(lines.len(), files.len());
    lines
        .iter()
        .map(|v| {
            (
                v["module"].as_bool().unwrap_or(false),
                v["commonjs"].as_bool().unwrap_or(false),
            )
        })
        .collect()
}

#[test]
fn every_fix_leaves_a_module_node_loads() {
    let Some(node) = node() else {
        panic!("node is needed for this test (Node 20 is what CI and users run)");
    };
    let work = tempdir();
    let corpus = work.path().join("corpus");
    copy_tree(&root().join("fixtures"), &corpus.join("fixtures"));
    for (i, shape) in SHAPES.iter().enumerate() {
        write(&corpus, &format!("shapes/s{i}.js"), shape);
    }
    let generated = Command::new("python3")
        .arg(root().join("scripts/gen_corpus.py"))
        .arg(corpus.join("generated"))
        .arg("60")
        .output()
        .unwrap_or_else(|e| panic!("gen_corpus.py: {e}"));
    assert!(
        generated.status.success(),
        "{}",
        String::from_utf8_lossy(&generated.stderr)
    );

    let mut config = Config::default();
    config.select = Some(vec!["all".into()]);
    // The fix sets are verified as `--fix` does: re-linted beside the rest.
    config.keep_summaries = true;
    let outcome = engine::run(std::slice::from_ref(&corpus), &config, Stage::Full);
    let mut by_file: BTreeMap<PathBuf, Vec<&proclint::diagnostic::Diagnostic>> = BTreeMap::new();
    for d in &outcome.diagnostics {
        if d.fix.as_ref().is_none_or(|f| f.edits.is_empty()) {
            continue;
        }
        let Some(file) = outcome
            .files
            .iter()
            .find(|o| o.display == d.location.path && o.kind == FileKind::Process)
        else {
            continue;
        };
        by_file.entry(file.path.clone()).or_default().push(d);
    }
    assert!(
        by_file.len() >= 20,
        "only {} files with fixes",
        by_file.len()
    );
    for i in 0..SHAPES.len() {
        assert!(
            by_file
                .keys()
                .any(|p| p.ends_with(format!("shapes/s{i}.js"))),
            "no fix offered on shapes/s{i}.js"
        );
    }

    // Every file's fixes together, verified as `--fix` verifies them: the
    // re-lint blames none (a blamed fix is a bug in its rule's edits).
    let pending: Vec<fix::Pending> = by_file
        .iter()
        .map(|(path, found)| {
            let file = outcome.files.iter().find(|o| &o.path == path);
            fix::Pending {
                display: file.map_or(String::new(), |f| f.display.to_string()),
                path: path.clone(),
                kind: FileKind::Process,
                original: std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{e}")),
                fixes: found.clone(),
            }
        })
        .collect();
    let verified = fix::verify(&fix::Baseline::of(&outcome), &config, &pending);
    let blamed: Vec<String> = pending
        .iter()
        .zip(&verified)
        .flat_map(|(p, v)| v.reasons.iter().map(move |r| format!("{}: {r}", p.display)))
        .filter(|r| !r.ends_with("fail to parse"))
        .collect();
    assert!(
        blamed.is_empty(),
        "the re-lint drops {} fixes:\n{}",
        blamed.len(),
        blamed.join("\n")
    );

    // Originals first, then per file: each fix alone, then all together.
    let out = work.path().join("fixed");
    std::fs::create_dir_all(&out).unwrap_or_else(|e| panic!("{e}"));
    let mut files = Vec::new();
    let mut what = Vec::new();
    let mut fixes = 0;
    for (i, (path, found)) in by_file.iter().enumerate() {
        let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{e}"));
        let mut emit = |label: String, body: String, files: &mut Vec<PathBuf>| {
            let f = out.join(format!("{i}-{}.js", files.len()));
            std::fs::write(&f, body).unwrap_or_else(|e| panic!("{e}"));
            files.push(f);
            what.push((i, label));
        };
        emit("original".into(), text.clone(), &mut files);
        for fx in found.iter().filter_map(|d| d.fix.as_ref()) {
            let (fixed, n) = fix::apply(&text, &[&fx.edits]);
            if n == 1 {
                fixes += 1;
                emit(
                    format!("{}: {}", path.display(), fx.description),
                    fixed,
                    &mut files,
                );
            }
        }
        emit(
            format!("{}: every fix", path.display()),
            verified[i].fixed.clone(),
            &mut files,
        );
    }
    assert!(fixes >= 50, "only {fixes} fixes offered");
    let loads = node_loads(&node, &files, work.path());
    let mut original = BTreeMap::new();
    let mut broken = Vec::new();
    for ((i, label), (module, commonjs)) in what.iter().zip(loads) {
        if label == "original" {
            original.insert(*i, (module, commonjs));
            continue;
        }
        let (m0, c0) = original.get(i).copied().unwrap_or((false, false));
        if (m0 && !module) || (c0 && !commonjs) {
            broken.push(label.clone());
        }
    }
    assert!(
        broken.is_empty(),
        "{} of {fixes} fixes (or fix sets) leave a module Node no longer loads:\n{}",
        broken.len(),
        broken.join("\n")
    );
}
