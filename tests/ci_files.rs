//! The CI integration files users copy: `.pre-commit-hooks.yaml`, the
//! composite `action.yml`, and the workflows in `docs/ci.md` and the hooks in
//! `docs/pre-commit.md`; and the distribution files: `npm/`, `pyproject.toml`
//! and `.github/workflows/release.yml`. They are parsed and checked for
//! consistency with each other, with `Cargo.toml`'s version and with the CLI,
//! and the action's steps (finding the release, downloading and verifying it,
//! running proclint) are executed locally the way the runner would, against a
//! release served from `file://` URLs.

mod common;

use std::collections::BTreeMap;
use std::path::Path;
use std::process::Command;

use common::*;
use serde::Deserialize;
use serde_json::Value;

fn read(rel: &str) -> String {
    std::fs::read_to_string(root().join(rel)).unwrap_or_else(|e| panic!("read {rel}: {e}"))
}

fn yaml<T: for<'de> Deserialize<'de>>(what: &str, text: &str) -> T {
    serde_saphyr::from_str(text).unwrap_or_else(|e| panic!("{what} is not valid: {e}"))
}

/// The fenced ```yaml blocks of a Markdown file.
fn yaml_blocks(markdown: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut current: Option<String> = None;
    for line in markdown.lines() {
        let trimmed = line.trim_start();
        match &mut current {
            None if trimmed.starts_with("```yaml") => current = Some(String::new()),
            Some(block) if trimmed.starts_with("```") => {
                blocks.push(std::mem::take(block));
                current = None;
            }
            Some(block) => {
                block.push_str(line);
                block.push('\n');
            }
            None => {}
        }
    }
    blocks
}

// ---- pre-commit -------------------------------------------------------------

/// A hook definition as pre-commit reads it (unknown keys rejected, so a
/// misspelt key fails here rather than being ignored by pre-commit).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Hook {
    id: String,
    name: String,
    #[serde(default)]
    description: Option<String>,
    language: String,
    entry: String,
    files: String,
    pass_filenames: bool,
    #[serde(default)]
    require_serial: bool,
}

const HOOK_FILES_MATCH: &[&str] = &[
    "process/deploy.js",
    ".a5c/processes/feature.mjs",
    "lib/legacy.cjs",
    "deploy.js",
    "SKILL.md",
    "skills/review/SKILL.md",
    "package.json",
    "packages/app/package.json",
];
const HOOK_FILES_SKIP: &[&str] = &[
    "README.md",
    "skills/review/NOTSKILL.md",
    "mypackage.json",
    "package.json.bak",
    "tsconfig.json",
    "src/app.ts",
    "src/app.jsx",
    "deploy.js.map",
];

fn assert_hook_files(pattern: &str) {
    // pre-commit applies `files` with Python's re.search; this pattern uses
    // only syntax both engines read the same way.
    let re = regex::Regex::new(pattern).unwrap_or_else(|e| panic!("files regex: {e}"));
    for p in HOOK_FILES_MATCH {
        assert!(re.is_match(p), "`files` should match {p}");
    }
    for p in HOOK_FILES_SKIP {
        assert!(!re.is_match(p), "`files` should not match {p}");
    }
}

#[test]
fn pre_commit_hook_definition() {
    let hooks: Vec<Hook> = yaml(".pre-commit-hooks.yaml", &read(".pre-commit-hooks.yaml"));
    assert_eq!(hooks.len(), 1, "one hook is offered");
    let hook = &hooks[0];
    assert_eq!(hook.id, "proclint");
    assert_eq!(hook.name, "proclint");
    assert!(hook.description.as_deref().is_some_and(|d| !d.is_empty()));
    assert_eq!(hook.language, "rust");
    assert_eq!(hook.entry, "proclint check --only-process-code");
    assert!(hook.pass_filenames);
    assert!(
        hook.require_serial,
        "cross-module rules need all files in one run"
    );
    assert_hook_files(&hook.files);
    // The entry names this crate's binary and an existing subcommand.
    let out = proclint(&["check", "--help"]);
    assert_eq!(code(&out), 0, "{}", stderr(&out));
}

#[test]
fn pre_commit_docs_match_the_hook() {
    let hooks: Vec<Hook> = yaml(".pre-commit-hooks.yaml", &read(".pre-commit-hooks.yaml"));
    let hook = &hooks[0];
    let doc = read("docs/pre-commit.md");
    let blocks = yaml_blocks(&doc);
    assert!(blocks.len() >= 4, "docs/pre-commit.md lost its examples");
    let configs: Vec<Value> = blocks
        .iter()
        .filter_map(|b| serde_saphyr::from_str::<Value>(&dedent(b)).ok())
        .filter(|v| v["repos"].is_array())
        .collect();
    let local_hook = |language: &str| {
        configs
            .iter()
            .find(|v| {
                v["repos"][0]["repo"] == "local"
                    && v["repos"][0]["hooks"][0]["language"] == language
            })
            .map(|v| v["repos"][0]["hooks"][0].clone())
            .unwrap_or_else(|| panic!("docs/pre-commit.md has no local {language} hook"))
    };
    // The recommended set-up comes first: a Python hook that installs the
    // wheel of this version, and runs what the published hook runs.
    let first = &configs[0]["repos"][0];
    assert_eq!(
        first["repo"], "local",
        "the prebuilt wheel is recommended first"
    );
    let wheel = local_hook("python");
    assert_eq!(wheel, first["hooks"][0]);
    assert_eq!(wheel["id"], hook.id.as_str());
    assert_eq!(wheel["entry"], hook.entry.as_str());
    assert_eq!(wheel["files"], hook.files.as_str());
    assert_eq!(wheel["require_serial"], true);
    assert_eq!(
        wheel["additional_dependencies"],
        serde_json::json!([format!("proclint=={}", env!("CARGO_PKG_VERSION"))]),
        "the documented wheel is this version's"
    );
    // The hook built from source: this repository, hook id `proclint`.
    let source = configs
        .iter()
        .map(|v| &v["repos"][0])
        .find(|r| r["repo"] == "https://github.com/a5c-ai/proclint")
        .unwrap_or_else(|| panic!("docs/pre-commit.md has no set-up of this repository's hook"));
    assert!(source["rev"].is_string());
    assert_eq!(source["hooks"][0]["id"], hook.id.as_str());
    // The installed-binary alternative behaves like the published hook.
    let system = local_hook("system");
    assert_eq!(system["id"], hook.id.as_str());
    assert_eq!(system["entry"], hook.entry.as_str());
    assert_eq!(system["files"], hook.files.as_str());
    // Every documented `args` list parses as hook options proclint accepts.
    for block in &blocks {
        let Ok(items) = serde_saphyr::from_str::<Vec<Value>>(&dedent(block)) else {
            continue;
        };
        for item in items {
            if let Some(args) = item["args"].as_array() {
                let args: Vec<&str> = args.iter().filter_map(Value::as_str).collect();
                assert_cli_accepts(&args);
            }
        }
    }
}

/// Removes the common indentation of a YAML fragment.
fn dedent(block: &str) -> String {
    let indent = block
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start().len())
        .min()
        .unwrap_or(0);
    block
        .lines()
        .map(|l| l.get(indent..).unwrap_or("").to_string() + "\n")
        .collect()
}

/// `proclint check ARGS --help` parses (clap validates options before help).
fn assert_cli_accepts(args: &[&str]) {
    let mut all = vec!["check"];
    all.extend_from_slice(args);
    all.push("--help");
    let out = proclint(&all);
    assert_eq!(
        code(&out),
        0,
        "documented args {args:?} are rejected: {}",
        stderr(&out)
    );
}

// ---- the composite action -----------------------------------------------------

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Action {
    name: String,
    description: String,
    #[serde(default)]
    author: Option<String>,
    #[serde(default)]
    branding: Option<BTreeMap<String, String>>,
    inputs: BTreeMap<String, Input>,
    outputs: BTreeMap<String, Output>,
    runs: Runs,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Input {
    description: String,
    #[serde(default)]
    required: bool,
    #[serde(default)]
    default: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Output {
    description: String,
    value: String,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Runs {
    using: String,
    steps: Vec<Step>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Step {
    name: String,
    #[serde(default)]
    id: Option<String>,
    #[serde(default)]
    shell: Option<String>,
    #[serde(default)]
    run: Option<String>,
    #[serde(default)]
    uses: Option<String>,
    #[serde(default)]
    with: BTreeMap<String, String>,
    #[serde(default)]
    env: BTreeMap<String, String>,
    #[serde(default, rename = "if")]
    condition: Option<String>,
}

fn action() -> Action {
    yaml("action.yml", &read("action.yml"))
}

/// `${{ … }}` expressions in a string, trimmed.
fn expressions(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = s;
    while let Some(start) = rest.find("${{") {
        let after = &rest[start + 3..];
        let Some(end) = after.find("}}") else { break };
        out.push(after[..end].trim().to_string());
        rest = &after[end + 2..];
    }
    out
}

fn step_texts(step: &Step) -> Vec<&str> {
    let mut texts: Vec<&str> = step.env.values().map(String::as_str).collect();
    texts.extend(step.with.values().map(String::as_str));
    texts.extend(step.run.as_deref());
    texts.extend(step.condition.as_deref());
    texts
}

#[test]
fn action_inputs_are_declared_and_used() {
    let action = action();
    assert_eq!(action.name, "proclint");
    assert!(!action.description.is_empty());
    assert!(action.author.is_some() && action.branding.is_some());
    assert_eq!(action.runs.using, "composite");
    let declared: Vec<&str> = action.inputs.keys().map(String::as_str).collect();
    assert_eq!(
        declared,
        ["baseline", "config", "fail-on", "paths", "sarif-file"]
    );
    for input in action.inputs.values() {
        assert!(!input.description.is_empty());
        assert!(!input.required, "every input has a default");
        assert!(input.default.is_some());
    }

    let mut used = Vec::new();
    for step in &action.runs.steps {
        assert!(
            step.run.is_some() != step.uses.is_some(),
            "step `{}` needs exactly one of run/uses",
            step.name
        );
        if step.run.is_some() {
            assert_eq!(
                step.shell.as_deref(),
                Some("bash"),
                "composite run steps need a shell"
            );
        }
        for text in step_texts(step) {
            for e in expressions(text) {
                if let Some(name) = e.strip_prefix("inputs.") {
                    assert!(
                        action.inputs.contains_key(name),
                        "`{e}` in step `{}` is not a declared input",
                        step.name
                    );
                    used.push(name.to_string());
                }
            }
        }
        if let Some(run) = &step.run {
            // Expressions are expanded before the shell sees the script:
            // inputs must come in through `env`, never pasted into the code.
            assert!(
                expressions(run).is_empty(),
                "step `{}` pastes an expression into its script",
                step.name
            );
            for var in step.env.keys() {
                assert!(
                    run.contains(&format!("${var}")) || run.contains(&format!("${{{var}}}")),
                    "step `{}` sets {var} but its script never reads it",
                    step.name
                );
            }
        }
    }
    for name in action.inputs.keys() {
        assert!(
            used.contains(name),
            "input `{name}` is declared but no step uses it"
        );
    }
}

#[test]
fn action_runs_proclint_with_sarif_and_sets_its_output() {
    let action = action();
    let output = &action.outputs["sarif-file"];
    assert!(!output.description.is_empty());
    let exprs = expressions(&output.value);
    assert_eq!(exprs.len(), 1);
    let rest = exprs[0]
        .strip_prefix("steps.")
        .unwrap_or_else(|| panic!("output value `{}` is not a step output", output.value));
    let (id, name) = rest
        .split_once(".outputs.")
        .unwrap_or_else(|| panic!("output value `{}` is not a step output", output.value));
    assert_eq!(name, "sarif-file");
    let step = action
        .runs
        .steps
        .iter()
        .find(|s| s.id.as_deref() == Some(id))
        .unwrap_or_else(|| panic!("no step with id `{id}`"));
    let run = step.run.as_deref().unwrap_or("");
    assert!(run.contains(&format!("echo \"{name}=")) && run.contains("$GITHUB_OUTPUT"));
    for flag in [
        "check",
        "--format sarif",
        "--output",
        "--fail-on",
        "--config",
        "--baseline",
    ] {
        assert!(run.contains(flag), "the run step does not pass {flag}");
    }
    // The install step builds the pinned revision with its lockfile.
    let install = action
        .runs
        .steps
        .iter()
        .filter_map(|s| s.run.as_deref())
        .find(|r| r.contains("cargo install"))
        .unwrap_or_else(|| panic!("no step installs proclint"));
    assert!(install.contains("--locked") && install.contains("--path"));
}

/// What one of the action's steps did when run locally.
struct StepRun {
    code: i32,
    stdout: String,
    stderr: String,
    /// The `KEY=VALUE` lines the step wrote to `$GITHUB_OUTPUT`.
    outputs: BTreeMap<String, String>,
    /// The directories the step added to `$GITHUB_PATH`.
    path: Vec<String>,
}

/// Expands the `${{ … }}` expressions of a step's `env` the way the runner
/// does before starting the shell: from `ctx` (`inputs.paths`,
/// `github.action_ref`, `steps.release.outputs.dir`, …), an input's default,
/// or the empty string.
fn expand(value: &str, action: &Action, ctx: &BTreeMap<String, String>) -> String {
    let mut out = value.to_string();
    for e in expressions(value) {
        let v = ctx
            .get(&e)
            .cloned()
            .or_else(|| {
                e.strip_prefix("inputs.")
                    .and_then(|name| action.inputs.get(name))
                    .and_then(|i| i.default.clone())
            })
            .unwrap_or_default();
        out = out.replace(&format!("${{{{ {e} }}}}"), &v);
    }
    out
}

/// Runs the step of action.yml with id `id` in `dir` as the runner does
/// (`bash --noprofile --norc -eo pipefail`), its `env` expanded from `ctx`,
/// with `env` added to the environment.
fn run_step(
    id: &str,
    dir: &Path,
    ctx: &BTreeMap<String, String>,
    env: &[(&str, String)],
) -> StepRun {
    let action = action();
    let step = action
        .runs
        .steps
        .iter()
        .find(|s| s.id.as_deref() == Some(id))
        .unwrap_or_else(|| panic!("no step with id `{id}`"));
    let run = step
        .run
        .as_deref()
        .unwrap_or_else(|| panic!("step `{id}` runs no script"));
    let files = tempdir();
    let github_output = files.path().join("output");
    let github_path = files.path().join("path");
    for f in [&github_output, &github_path] {
        std::fs::write(f, "").unwrap_or_else(|e| panic!("{e}"));
    }
    let mut cmd = Command::new("bash");
    cmd.args(["--noprofile", "--norc", "-eo", "pipefail", "-c", run])
        .current_dir(dir)
        .env("GITHUB_OUTPUT", &github_output)
        .env("GITHUB_PATH", &github_path)
        .env("RAYON_NUM_THREADS", "2");
    for (k, v) in env {
        cmd.env(k, v);
    }
    for (k, v) in &step.env {
        cmd.env(k, expand(v, &action, ctx));
    }
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("cannot run bash: {e}"));
    let text = |p: &Path| std::fs::read_to_string(p).unwrap_or_default();
    StepRun {
        code: out.status.code().unwrap_or(-1),
        stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
        stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        outputs: text(&github_output)
            .lines()
            .filter_map(|l| l.split_once('='))
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        path: text(&github_path).lines().map(str::to_string).collect(),
    }
}

/// Runs the action's `proclint` step in `dir` with the locally built binary
/// on PATH.
fn run_lint_step(dir: &Path, with: &[(&str, &str)]) -> StepRun {
    let bin_dir = Path::new(env!("CARGO_BIN_EXE_proclint"))
        .parent()
        .unwrap_or_else(|| panic!("binary has no directory"))
        .to_path_buf();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let ctx = with
        .iter()
        .map(|(k, v)| (format!("inputs.{k}"), v.to_string()))
        .collect();
    run_step("proclint", dir, &ctx, &[("PATH", path)])
}

/// Issue 35: the `baseline` input hides the findings recorded in it, so
/// the step passes on a codebase adopting proclint and fails on a new one.
#[test]
fn action_step_applies_a_baseline() {
    let dir = tempdir();
    write(dir.path(), "process/bad.js", BAD_BREAKPOINT);
    let o = proclint_in(
        dir.path(),
        &[
            "check",
            ".",
            "--write-baseline",
            "proclint-baseline.json",
            "--no-cache",
        ],
    );
    assert!(
        dir.path().join("proclint-baseline.json").exists(),
        "{}",
        stderr(&o)
    );
    let run = run_lint_step(dir.path(), &[("baseline", "proclint-baseline.json")]);
    assert_eq!(run.code, 0, "{}\n{}", run.stdout, run.stderr);
    write(dir.path(), "process/new.js", BAD_BREAKPOINT);
    let run = run_lint_step(dir.path(), &[("baseline", "proclint-baseline.json")]);
    assert_eq!(run.code, 1, "{}\n{}", run.stdout, run.stderr);
    assert!(run.stdout.contains("process/new.js:2:9"), "{}", run.stdout);
    assert!(!run.stdout.contains("process/bad.js:2:9"), "{}", run.stdout);
}

#[test]
fn action_step_runs_locally() {
    let dir = tempdir();
    write(dir.path(), "process/bad.js", BAD_BREAKPOINT);
    write(dir.path(), "process/good.js", GOOD_BREAKPOINT);
    write(dir.path(), "other/bad.js", BAD_BREAKPOINT);

    // Defaults: the whole directory, fail on warnings, proclint.sarif.
    let run = run_lint_step(dir.path(), &[]);
    assert_eq!(run.code, 1, "findings fail the step: {}", run.stderr);
    assert_eq!(
        run.outputs,
        BTreeMap::from([("sarif-file".to_string(), "proclint.sarif".to_string())])
    );
    let sarif: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join("proclint.sarif")).unwrap_or_default(),
    )
    .unwrap_or_else(|e| panic!("proclint.sarif: {e}"));
    assert_eq!(sarif["version"], "2.1.0");
    assert_eq!(
        sarif["runs"][0]["results"].as_array().map(Vec::len),
        Some(2)
    );
    // The failing step's log lists the findings, one line each, and a count
    // per rule.
    assert!(
        run.stdout
            .contains("proclint found problems at or above 'warning' (report: proclint.sarif)"),
        "{}",
        run.stdout
    );
    for file in ["process/bad.js", "other/bad.js"] {
        assert!(
            run.stdout
                .lines()
                .any(|l| l.starts_with(&format!("{file}:2:9: error[unchecked-breakpoint]"))),
            "the log does not list the finding in {file}: {}",
            run.stdout
        );
    }
    assert!(
        run.stdout
            .lines()
            // `--statistics`: count, rule, then its severity (each, counted, when mixed).
            .any(|l| l.split_whitespace().take(2).collect::<Vec<_>>()
                == ["2", "unchecked-breakpoint"]),
        "the log has no count per rule: {}",
        run.stdout
    );

    // Several paths, a custom report name.
    let run = run_lint_step(
        dir.path(),
        &[
            ("paths", "process/good.js process/bad.js"),
            ("sarif-file", "out.sarif"),
        ],
    );
    assert_eq!(run.code, 1);
    assert_eq!(run.outputs["sarif-file"], "out.sarif");
    let sarif: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join("out.sarif")).unwrap_or_default(),
    )
    .unwrap_or_else(|e| panic!("out.sarif: {e}"));
    assert_eq!(
        sarif["runs"][0]["results"].as_array().map(Vec::len),
        Some(1)
    );
    assert!(!run.stdout.contains("other/bad.js"), "{}", run.stdout);

    // fail-on error with the finding downgraded by a config: a green step,
    // and a quiet log.
    write(
        dir.path(),
        "ci/proclint.toml",
        "[rules]\nunchecked-breakpoint = \"warning\"\n",
    );
    let run = run_lint_step(
        dir.path(),
        &[("fail-on", "error"), ("config", "ci/proclint.toml")],
    );
    assert_eq!(run.code, 0, "the config and fail-on inputs reach proclint");
    assert!(!run.stdout.contains("found problems"), "{}", run.stdout);

    // A configuration error (exit 2) is reported by proclint itself, once.
    let run = run_lint_step(dir.path(), &[("config", "missing.toml")]);
    assert_eq!(run.code, 2);
    assert!(!run.stdout.contains("found problems"), "{}", run.stdout);
}

// ---- the action's installation: release, download, cache, fallback --------------

const TAG_COMMIT: &str = "1111111111111111111111111111111111111111";
const OTHER_COMMIT: &str = "2222222222222222222222222222222222222222";

fn tag() -> String {
    format!("v{}", env!("CARGO_PKG_VERSION"))
}

/// A fake runner: a tool cache, the GitHub API (`commits/REF` answering the
/// commit SHA, as with `Accept: application/vnd.github.sha`) and the release
/// downloads, all behind `file://` URLs, which curl reads like any other.
struct Runner {
    dir: tempfile::TempDir,
}

impl Runner {
    fn new() -> Runner {
        let runner = Runner { dir: tempdir() };
        let api = "api/repos/a5c-ai/proclint/commits";
        write(runner.path(), &format!("{api}/{}", tag()), TAG_COMMIT);
        write(runner.path(), &format!("{api}/main"), TAG_COMMIT);
        write(runner.path(), &format!("{api}/next"), OTHER_COMMIT);
        runner
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    fn release_dir(&self) -> std::path::PathBuf {
        self.path()
            .join("server/a5c-ai/proclint/releases/download")
            .join(tag())
    }

    fn env(&self, os: &str, arch: &str) -> Vec<(&'static str, String)> {
        vec![
            ("RUNNER_OS", os.to_string()),
            ("RUNNER_ARCH", arch.to_string()),
            (
                "RUNNER_TOOL_CACHE",
                self.path().join("tool-cache").display().to_string(),
            ),
            (
                "GITHUB_API_URL",
                format!("file://{}", self.path().join("api").display()),
            ),
            (
                "GITHUB_SERVER_URL",
                format!("file://{}", self.path().join("server").display()),
            ),
        ]
    }

    /// The `release` step for `uses: a5c-ai/proclint@REFERENCE`, with the
    /// action checked out at `action_path` (this repository by default).
    fn resolve(
        &self,
        os: &str,
        arch: &str,
        reference: &str,
        action_path: Option<&Path>,
    ) -> StepRun {
        let root = root();
        let ctx = BTreeMap::from([
            (
                "github.action_path".to_string(),
                action_path.unwrap_or(&root).display().to_string(),
            ),
            ("github.action_ref".to_string(), reference.to_string()),
            (
                "github.action_repository".to_string(),
                if reference.is_empty() {
                    String::new()
                } else {
                    "a5c-ai/proclint".to_string()
                },
            ),
            ("github.token".to_string(), "token".to_string()),
        ]);
        let run = run_step("release", self.path(), &ctx, &self.env(os, arch));
        assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
        run
    }

    /// The `download` step after `resolved`.
    fn download(&self, os: &str, arch: &str, resolved: &StepRun) -> StepRun {
        let ctx = resolved
            .outputs
            .iter()
            .map(|(k, v)| (format!("steps.release.outputs.{k}"), v.clone()))
            .collect();
        run_step("download", self.path(), &ctx, &self.env(os, arch))
    }

    /// Publishes a release archive for `target` as release.yml does
    /// (scripts/release_archive.py), holding a stand-in binary, with a sums
    /// file whose line for it is `sum` (its real SHA-256 when `None`).
    fn publish(&self, target: &str, sum: Option<&str>) {
        use sha2::Digest;
        let exe = if target.contains("-windows-") {
            "proclint.exe"
        } else {
            "proclint"
        };
        let stub = write(
            self.path(),
            &format!("stub/{exe}"),
            "#!/bin/sh\necho \"proclint 0.0.0-stub (a stand-in)\"\n",
        );
        let out = Command::new("python3")
            .arg(root().join("scripts/release_archive.py"))
            .args(["--target", target, "--version", env!("CARGO_PKG_VERSION")])
            .arg("--binary")
            .arg(&stub)
            .arg("--out")
            .arg(self.release_dir())
            .output()
            .unwrap_or_else(|e| panic!("python3: {e}"));
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let archive = std::path::PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
        let bytes = std::fs::read(&archive).unwrap_or_else(|e| panic!("{e}"));
        let real: String = sha2::Sha256::digest(&bytes)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        let name = archive
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        write(
            &self.release_dir(),
            &format!("proclint-{}-sha256sums.txt", tag()),
            &format!("{}  {name}\n", sum.unwrap_or(&real)),
        );
    }
}

#[derive(Debug, Deserialize)]
struct Platforms {
    platforms: Vec<Platform>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Platform {
    name: String,
    target: String,
    os: String,
    cpu: String,
    #[serde(default)]
    libc: Option<String>,
}

fn platforms() -> Vec<Platform> {
    serde_json::from_str::<Platforms>(&read("npm/platforms.json"))
        .unwrap_or_else(|e| panic!("npm/platforms.json: {e}"))
        .platforms
}

#[cfg(unix)]
#[test]
fn action_finds_the_release_of_its_revision() {
    let runner = Runner::new();
    let version = env!("CARGO_PKG_VERSION");
    let tag = tag();

    // Referenced by the release tag: no API call needed. Every runner maps to
    // a target of npm/platforms.json, and the archive to its release name.
    let targets: Vec<String> = platforms().into_iter().map(|p| p.target).collect();
    for (os, arch, target) in [
        ("Linux", "X64", "x86_64-unknown-linux-gnu"),
        ("Linux", "ARM64", "aarch64-unknown-linux-gnu"),
        ("macOS", "X64", "x86_64-apple-darwin"),
        ("macOS", "ARM64", "aarch64-apple-darwin"),
        ("Windows", "X64", "x86_64-pc-windows-msvc"),
        ("Windows", "ARM64", "x86_64-pc-windows-msvc"),
    ] {
        let run = runner.resolve(os, arch, &tag, None);
        let o = &run.outputs;
        assert_eq!(o["released"], "true", "{os} {arch}: {}", run.stdout);
        assert_eq!(o["version"], version);
        assert_eq!(o["tag"], tag);
        assert_eq!(o["repository"], "a5c-ai/proclint");
        assert_eq!(o["target"], target, "{os} {arch}");
        assert!(targets.contains(&o["target"]), "{target} is not built");
        let (ext, exe) = if os == "Windows" {
            ("zip", "proclint.exe")
        } else {
            ("tar.gz", "proclint")
        };
        assert_eq!(o["stem"], format!("proclint-{tag}-{target}"));
        assert_eq!(o["archive"], format!("proclint-{tag}-{target}.{ext}"));
        assert_eq!(o["exe"], exe);
        assert_eq!(
            Path::new(&o["dir"]),
            runner
                .path()
                .join("tool-cache/proclint")
                .join(version)
                .join(target)
        );
    }
    // No prebuilt binary for the runner: built from source.
    let run = runner.resolve("FreeBSD", "X64", &tag, None);
    assert_eq!(run.outputs["released"], "false");
    assert!(
        run.stdout.contains("building from source"),
        "{}",
        run.stdout
    );

    // A branch or commit SHA that is the tag's commit (the GitHub API says)
    // is the release; any other revision is built from source.
    for (reference, released) in [
        ("main", true),
        (TAG_COMMIT, true),
        ("next", false),
        (OTHER_COMMIT, false),
        ("no-such-branch", false),
    ] {
        let run = runner.resolve("Linux", "X64", reference, None);
        assert_eq!(
            run.outputs["released"] == "true",
            released,
            "@{reference}: {}",
            run.stdout
        );
    }

    // github.action_ref left empty (as the runner may in composite actions):
    // the ref and repository come from the action's checkout path.
    let checkout = runner.path().join("_actions/a5c-ai/proclint").join(&tag);
    std::fs::create_dir_all(checkout.parent().unwrap_or(runner.path()))
        .unwrap_or_else(|e| panic!("{e}"));
    std::os::unix::fs::symlink(root(), &checkout).unwrap_or_else(|e| panic!("{e}"));
    let run = runner.resolve("Linux", "X64", "", Some(&checkout));
    assert_eq!(run.outputs["released"], "true", "{}", run.stdout);
    assert_eq!(run.outputs["repository"], "a5c-ai/proclint");
    // A local action (`uses: ./`): built from source.
    let run = runner.resolve("Linux", "X64", "", None);
    assert_eq!(run.outputs["released"], "false", "{}", run.stdout);
}

#[cfg(unix)]
#[test]
fn action_downloads_verifies_and_caches_the_release() {
    let mut cases = vec![("Linux", "X64", "x86_64-unknown-linux-gnu")];
    // The Windows archive is a zip, which the step opens with unzip (Git for
    // Windows has it), so this case runs where unzip is installed.
    if Command::new("unzip").arg("-v").output().is_ok() {
        cases.push(("Windows", "X64", "x86_64-pc-windows-msvc"));
    } else {
        eprintln!("note: no unzip here, the .zip download is not exercised");
    }
    for (os, arch, target) in cases {
        let runner = Runner::new();
        runner.publish(target, None);
        let resolved = runner.resolve(os, arch, &tag(), None);
        let dir = std::path::PathBuf::from(&resolved.outputs["dir"]);
        let exe = dir.join(&resolved.outputs["exe"]);

        // Downloaded, verified, unpacked into the tool cache, put on PATH.
        let run = runner.download(os, arch, &resolved);
        assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
        assert_eq!(run.outputs["installed"], "true");
        assert_eq!(run.outputs["downloaded"], "true");
        assert_eq!(run.path, [dir.display().to_string()]);
        assert!(run.stdout.contains("matches"), "{}", run.stdout);
        assert!(run.stdout.contains("proclint 0.0.0-stub"), "{}", run.stdout);
        assert!(exe.is_file());

        // Next time the tool cache (or actions/cache) has it: no download.
        std::fs::remove_dir_all(runner.path().join("server")).unwrap_or_else(|e| panic!("{e}"));
        let run = runner.download(os, arch, &resolved);
        assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
        assert_eq!(run.outputs.get("downloaded"), None);
        assert_eq!(run.outputs["installed"], "true");
        assert!(run.stdout.contains("from the cache"), "{}", run.stdout);
        assert_eq!(run.path, [dir.display().to_string()]);

        // An archive whose SHA-256 is not the sums file's fails the step and
        // installs nothing; so does a sums file that does not name it.
        std::fs::remove_dir_all(runner.path().join("tool-cache")).unwrap_or_else(|e| panic!("{e}"));
        for sum in [&"0".repeat(64), "-"] {
            runner.publish(target, Some(sum));
            if sum == "-" {
                write(
                    &runner.release_dir(),
                    &format!("proclint-{}-sha256sums.txt", tag()),
                    &format!("{}  proclint-other.tar.gz\n", "0".repeat(64)),
                );
            }
            let run = runner.download(os, arch, &resolved);
            assert_eq!(run.code, 1, "a bad checksum must fail: {}", run.stdout);
            assert!(run.stdout.contains("SHA-256 mismatch"), "{}", run.stdout);
            assert_eq!(run.outputs.get("installed"), None);
            assert!(run.path.is_empty());
            assert!(!exe.exists(), "a rejected archive was installed");
        }

        // No archive in the release: a warning, and the build steps take over.
        std::fs::remove_dir_all(runner.path().join("server")).unwrap_or_else(|e| panic!("{e}"));
        let run = runner.download(os, arch, &resolved);
        assert_eq!(run.code, 0, "{}{}", run.stdout, run.stderr);
        assert_eq!(run.outputs["installed"], "false");
        assert!(
            run.stdout.contains("building from source instead"),
            "{}",
            run.stdout
        );
        assert!(run.path.is_empty());
    }
}

#[test]
fn action_builds_from_source_only_without_a_release() {
    let action = action();
    let step = |name: &str| {
        action
            .runs
            .steps
            .iter()
            .find(|s| s.name == name)
            .unwrap_or_else(|| panic!("action.yml has no step `{name}`"))
    };
    let ids: Vec<&str> = action
        .runs
        .steps
        .iter()
        .filter_map(|s| s.id.as_deref())
        .collect();
    assert_eq!(ids, ["release", "cache", "download", "proclint"]);
    // The cache is restored before the download and saved right after it
    // (actions/cache's own post step would skip a failing job), by version
    // and target.
    let restore = step("Restore the cached proclint release");
    let save = step("Cache the proclint release");
    assert!(restore
        .uses
        .as_deref()
        .is_some_and(|u| u.starts_with("actions/cache/restore@")));
    assert!(save
        .uses
        .as_deref()
        .is_some_and(|u| u.starts_with("actions/cache/save@")));
    assert_eq!(restore.with, save.with);
    assert_eq!(restore.with["path"], "${{ steps.release.outputs.dir }}");
    assert_eq!(
        restore.with["key"],
        "proclint-${{ steps.release.outputs.version }}-${{ steps.release.outputs.target }}"
    );
    assert_eq!(
        restore.condition.as_deref(),
        Some("steps.release.outputs.released == 'true'")
    );
    assert_eq!(
        step("Install the proclint release").condition.as_deref(),
        Some("steps.release.outputs.released == 'true'")
    );
    assert_eq!(
        save.condition.as_deref(),
        Some("steps.download.outputs.downloaded == 'true'")
    );
    // Rust and the source build run only when no release was installed
    // (not released, or its download failed).
    for name in [
        "Install Rust if absent",
        "Build proclint from the action's source",
    ] {
        assert_eq!(
            step(name).condition.as_deref(),
            Some("steps.download.outputs.installed != 'true'"),
            "{name}"
        );
    }
    assert!(step("Run proclint").condition.is_none());
}

// ---- the workflows in docs/ci.md ------------------------------------------------

fn workflows() -> Vec<Value> {
    let blocks = yaml_blocks(&read("docs/ci.md"));
    assert_eq!(blocks.len(), 2, "docs/ci.md has two complete workflows");
    blocks
        .iter()
        .map(|b| yaml::<Value>("a docs/ci.md workflow", b))
        .collect()
}

fn steps(workflow: &Value) -> Vec<&Value> {
    let jobs = workflow["jobs"]
        .as_object()
        .unwrap_or_else(|| panic!("workflow without jobs"));
    jobs.values()
        .flat_map(|j| j["steps"].as_array().into_iter().flatten())
        .collect()
}

fn is_complete_workflow(w: &Value) {
    assert!(w["name"].is_string());
    // YAML 1.2: `on` is a string key (YAML 1.1 parsers would read `true`).
    assert!(w["on"].is_object(), "workflow has no `on` triggers");
    let jobs = w["jobs"].as_object().unwrap_or_else(|| panic!("no jobs"));
    for job in jobs.values() {
        assert!(job["runs-on"].is_string());
        let steps = job["steps"]
            .as_array()
            .unwrap_or_else(|| panic!("no steps"));
        assert!(
            steps[0]["uses"]
                .as_str()
                .is_some_and(|u| u.starts_with("actions/checkout@")),
            "the first step checks out the code"
        );
    }
}

#[test]
fn code_scanning_workflow_uploads_the_actions_sarif() {
    let action = action();
    let w = &workflows()[0];
    is_complete_workflow(w);
    let steps = steps(w);
    let lint = steps
        .iter()
        .find(|s| {
            s["uses"]
                .as_str()
                .is_some_and(|u| u.starts_with("a5c-ai/proclint@"))
        })
        .unwrap_or_else(|| panic!("the workflow does not use the proclint action"));
    assert_eq!(
        lint["uses"],
        format!("a5c-ai/proclint@{}", tag()),
        "the documented action is pinned to this version's release"
    );
    let id = lint["id"]
        .as_str()
        .unwrap_or_else(|| panic!("the proclint step needs an id"));
    for (key, _) in lint["with"].as_object().into_iter().flatten() {
        assert!(
            action.inputs.contains_key(key),
            "`with: {key}` is not an input of action.yml"
        );
    }
    let upload = steps
        .iter()
        .find(|s| {
            s["uses"]
                .as_str()
                .is_some_and(|u| u.starts_with("github/codeql-action/upload-sarif@"))
        })
        .unwrap_or_else(|| panic!("the workflow does not upload SARIF"));
    assert_eq!(
        upload["if"], "always()",
        "findings fail the lint step; the upload must still run"
    );
    let sarif = upload["with"]["sarif_file"].as_str().unwrap_or("");
    assert_eq!(
        expressions(sarif),
        [format!("steps.{id}.outputs.sarif-file")],
        "the upload reads the action's output"
    );
    assert!(action.outputs.contains_key("sarif-file"));
    // The documented report name is the action's default.
    assert_eq!(
        lint["with"]["sarif-file"].as_str(),
        action.inputs["sarif-file"].default.as_deref()
    );
    // upload-sarif needs security-events: write (job-level permissions
    // replace the workflow's, so check the job).
    let jobs = w["jobs"].as_object().unwrap_or_else(|| panic!("no jobs"));
    for job in jobs.values() {
        assert_eq!(job["permissions"]["security-events"], "write");
        assert_eq!(job["permissions"]["contents"], "read");
    }
    // The inputs table in the doc lists every input with its default.
    let doc = read("docs/ci.md");
    for (name, input) in &action.inputs {
        let row = doc
            .lines()
            .find(|l| l.starts_with(&format!("| `{name}` |")))
            .unwrap_or_else(|| panic!("docs/ci.md does not document input `{name}`"));
        if let Some(d) = input.default.as_deref().filter(|d| !d.is_empty()) {
            assert!(
                row.contains(&format!("`{d}`")),
                "docs/ci.md gives another default for `{name}`"
            );
        }
    }
}

#[test]
fn annotations_workflow_uses_the_github_format() {
    let w = &workflows()[1];
    is_complete_workflow(w);
    let steps = steps(w);
    let runs: Vec<&str> = steps.iter().filter_map(|s| s["run"].as_str()).collect();
    // The npm package of this version runs the prebuilt binary: no Rust.
    let npx = format!("npx --yes proclint@{} check ", env!("CARGO_PKG_VERSION"));
    let lint = runs
        .iter()
        .find_map(|r| r.strip_prefix(npx.as_str()))
        .unwrap_or_else(|| panic!("the workflow does not run `{npx}…`"));
    assert!(lint.contains("--format github"));
    // The documented command line parses.
    let args: Vec<&str> = lint.split_whitespace().collect();
    assert_cli_accepts(&args);
    assert!(
        !runs.iter().any(|r| r.contains("cargo")),
        "no Rust toolchain is needed"
    );
    assert!(
        !steps.iter().any(|s| s["uses"]
            .as_str()
            .is_some_and(|u| u.contains("upload-sarif"))),
        "this workflow needs no code scanning"
    );
}

// ---- distribution: npm, PyPI, the release workflow ------------------------------

#[test]
fn version_comes_from_cargo_toml() {
    let out = Command::new("bash")
        .arg(root().join("scripts/version.sh"))
        .output()
        .unwrap_or_else(|e| panic!("bash: {e}"));
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        String::from_utf8_lossy(&out.stdout).trim(),
        env!("CARGO_PKG_VERSION")
    );
    // The wheel takes its version from Cargo.toml too.
    let pyproject: toml::Table =
        toml::from_str(&read("pyproject.toml")).unwrap_or_else(|e| panic!("pyproject.toml: {e}"));
    assert_eq!(
        pyproject["build-system"]["build-backend"].as_str(),
        Some("maturin")
    );
    let project = &pyproject["project"];
    assert_eq!(project["name"].as_str(), Some("proclint"));
    assert!(
        project.get("version").is_none(),
        "the version is Cargo.toml's"
    );
    assert_eq!(
        project["dynamic"]
            .as_array()
            .map(|a| a.iter().filter_map(|v| v.as_str()).collect::<Vec<_>>()),
        Some(vec!["version"])
    );
    assert_eq!(
        pyproject["tool"]["maturin"]["bindings"].as_str(),
        Some("bin"),
        "the wheel holds the binary as its `proclint` command"
    );
}

#[test]
fn npm_packages_follow_the_platform_table() {
    let platforms = platforms();
    let names: Vec<&str> = platforms.iter().map(|p| p.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "linux-x64-gnu",
            "linux-arm64-gnu",
            "linux-x64-musl",
            "darwin-x64",
            "darwin-arm64",
            "win32-x64"
        ]
    );
    for p in &platforms {
        // The name is what the launcher computes from Node's platform, arch
        // and libc.
        let suffix = match p.libc.as_deref() {
            Some("glibc") => "-gnu",
            Some("musl") => "-musl",
            None => "",
            Some(other) => panic!("{}: unknown libc {other}", p.name),
        };
        assert_eq!(p.name, format!("{}-{}{suffix}", p.os, p.cpu));
        assert_eq!(
            p.libc.is_some(),
            p.os == "linux",
            "{}: libc is for Linux",
            p.name
        );
    }

    // The launcher: a bin, no install script, optional dependencies on every
    // platform package, placeholder versions that scripts/npm_package.sh
    // stamps (and `private` so the unstamped package cannot be published).
    let launcher: Value = serde_json::from_str(&read("npm/proclint/package.json"))
        .unwrap_or_else(|e| panic!("npm/proclint/package.json: {e}"));
    assert_eq!(launcher["name"], "proclint");
    assert_eq!(launcher["version"], "0.0.0-dev");
    assert_eq!(launcher["private"], true);
    assert_eq!(launcher["bin"]["proclint"], "bin/proclint");
    assert!(launcher.get("scripts").is_none(), "no install scripts");
    let deps: Vec<(&String, &Value)> = launcher["optionalDependencies"]
        .as_object()
        .unwrap_or_else(|| panic!("no optionalDependencies"))
        .iter()
        .collect();
    assert_eq!(
        deps.iter().map(|(k, _)| k.as_str()).collect::<Vec<_>>(),
        names
            .iter()
            .map(|n| format!("@proclint/{n}"))
            .collect::<Vec<_>>()
    );
    assert!(deps.iter().all(|(_, v)| *v == "0.0.0-dev"));
    let template: Value = serde_json::from_str(&read("npm/platform/package.json"))
        .unwrap_or_else(|e| panic!("npm/platform/package.json: {e}"));
    assert_eq!(template["name"], "@proclint/PLATFORM");
    assert_eq!(template["private"], true);
    assert!(template.get("scripts").is_none(), "no install scripts");

    let bin = read("npm/proclint/bin/proclint");
    assert!(bin.starts_with("#!/usr/bin/env node\n"));
    assert!(!bin.contains("http"), "the launcher downloads nothing");
    assert!(
        bin.contains("cargo install proclint"),
        "the fallback is named"
    );
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(root().join("npm/proclint/bin/proclint"))
            .map(|m| m.permissions().mode())
            .unwrap_or(0);
        assert!(
            mode & 0o111 != 0,
            "npm/proclint/bin/proclint is not executable"
        );
    }
}

#[test]
fn release_workflow_builds_every_target_and_publishes_in_order() {
    let text = read(".github/workflows/release.yml");
    let w: Value = yaml("release.yml", &text);
    assert_eq!(w["on"]["push"]["tags"], serde_json::json!(["v*"]));
    assert_eq!(
        w["permissions"],
        serde_json::json!({}),
        "jobs ask for what they need"
    );
    assert!(
        !text.contains("secrets."),
        "no long-lived tokens: every registry uses trusted publishing"
    );
    let jobs = w["jobs"].as_object().unwrap_or_else(|| panic!("no jobs"));
    // The tag must be Cargo.toml's version.
    let version_job = serde_json::to_string(&jobs["version"]).unwrap_or_default();
    assert!(version_job.contains("scripts/version.sh") && version_job.contains("github.ref_name"));

    // One build per target of npm/platforms.json, tests on the native ones.
    let matrix = jobs["build"]["strategy"]["matrix"]["include"]
        .as_array()
        .unwrap_or_else(|| panic!("no build matrix"));
    let built: Vec<(String, String)> = matrix
        .iter()
        .map(|m| {
            (
                m["name"].as_str().unwrap_or("").to_string(),
                m["target"].as_str().unwrap_or("").to_string(),
            )
        })
        .collect();
    let expected: Vec<(String, String)> = platforms()
        .into_iter()
        .map(|p| (p.name, p.target))
        .collect();
    assert_eq!(built, expected);
    let native: Vec<&str> = matrix
        .iter()
        .filter(|m| m["native"] == true)
        .filter_map(|m| m["name"].as_str())
        .collect();
    assert_eq!(
        native,
        [
            "linux-x64-gnu",
            "linux-arm64-gnu",
            "darwin-arm64",
            "win32-x64"
        ]
    );
    let build = serde_json::to_string(&jobs["build"]).unwrap_or_default();
    assert!(build.contains("cargo test --locked") && build.contains("if\":\"matrix.native"));
    assert!(build.contains("scripts/release_archive.py"));

    // The order: build, then the GitHub release, then the registries; the npm
    // launcher after its platform packages.
    let needs = |job: &str| -> Vec<String> {
        match &jobs[job]["needs"] {
            Value::String(s) => vec![s.clone()],
            Value::Array(a) => a
                .iter()
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect(),
            _ => vec![],
        }
    };
    assert!(needs("github-release").contains(&"build".to_string()));
    for job in ["npm-platforms", "pypi", "crates-io"] {
        assert!(needs(job).contains(&"github-release".to_string()), "{job}");
    }
    assert!(needs("npm-launcher").contains(&"npm-platforms".to_string()));
    let launcher = serde_json::to_string(&jobs["npm-launcher"]).unwrap_or_default();
    assert!(launcher.contains("--launcher-only") && launcher.contains("npm view"));

    // Publishing jobs, and only they, get an OIDC token.
    let mut oidc: Vec<&str> = jobs
        .iter()
        .filter(|(_, j)| j["permissions"]["id-token"] == "write")
        .map(|(k, _)| k.as_str())
        .collect();
    oidc.sort_unstable();
    assert_eq!(oidc, ["crates-io", "npm-launcher", "npm-platforms", "pypi"]);
    assert_eq!(jobs["github-release"]["permissions"]["contents"], "write");
    for line in text.lines().filter(|l| l.contains("npm publish")) {
        assert!(line.contains("--provenance"), "{line}");
    }
    assert!(text.contains("pypa/gh-action-pypi-publish@"));
    assert!(text.contains("rust-lang/crates-io-auth-action@"));
    // The sums file the action reads.
    assert!(text.contains("proclint-v$VERSION-sha256sums.txt"));
}

/// What the npm launcher and its README tell a user who has to build from
/// source names the Rust version Cargo.toml requires (it said 1.89 while
/// the crate needed 1.95).
#[test]
fn install_hints_name_the_rust_version_cargo_requires() {
    let cargo = read("Cargo.toml");
    let version = cargo
        .lines()
        .find_map(|l| l.strip_prefix("rust-version = \""))
        .and_then(|v| v.strip_suffix('"'))
        .unwrap_or_else(|| panic!("no rust-version in Cargo.toml"));
    for file in [
        "npm/proclint/bin/proclint",
        "npm/proclint/README.md",
        "README.md",
    ] {
        let text = read(file);
        let named: Vec<&str> = text
            .match_indices("Rust ")
            .filter_map(|(i, _)| {
                let rest = &text[i + 5..];
                let end = rest
                    .find(|c: char| !c.is_ascii_digit() && c != '.')
                    .unwrap_or(rest.len());
                let v = rest[..end].trim_end_matches('.');
                v.contains('.').then_some(v)
            })
            .collect();
        assert!(!named.is_empty(), "{file} names no Rust version");
        assert!(
            named.iter().all(|v| *v == version),
            "{file} names Rust {named:?}, Cargo.toml requires {version}"
        );
    }
}
