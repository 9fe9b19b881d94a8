//! The CI integration files users copy: `.pre-commit-hooks.yaml`, the
//! composite `action.yml`, and the workflows in `docs/ci.md` and the hooks in
//! `docs/pre-commit.md`. They are parsed as YAML and checked for consistency
//! with each other and with the CLI, and the action's run step is executed
//! locally the way the runner would.

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
    let doc = read("docs/pre-commit.md");
    let blocks = yaml_blocks(&doc);
    assert!(blocks.len() >= 3, "docs/pre-commit.md lost its examples");
    // The set-up config: this repository, hook id `proclint`.
    let setup: Value = yaml("docs/pre-commit.md set-up block", &blocks[0]);
    let repo = &setup["repos"][0];
    assert_eq!(repo["repo"], "https://github.com/a5c-ai/proclint");
    assert!(repo["rev"].is_string());
    assert_eq!(repo["hooks"][0]["id"], hooks[0].id.as_str());
    // The local-hook alternative behaves like the published hook.
    let local = blocks
        .iter()
        .map(|b| yaml::<Value>("docs/pre-commit.md block", b))
        .find(|v| v["repos"][0]["repo"] == "local")
        .unwrap_or_else(|| panic!("docs/pre-commit.md has no local hook example"));
    let local = &local["repos"][0]["hooks"][0];
    assert_eq!(local["id"], hooks[0].id.as_str());
    assert_eq!(local["entry"], hooks[0].entry.as_str());
    assert_eq!(local["files"], hooks[0].files.as_str());
    assert_eq!(local["language"], "system");
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
    assert_eq!(declared, ["config", "fail-on", "paths", "sarif-file"]);
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

/// Expands the `${{ … }}` expressions the action's run step uses, the way the
/// runner does before starting the shell.
fn expand(value: &str, action: &Action, with: &BTreeMap<&str, &str>) -> String {
    let mut out = value.to_string();
    for e in expressions(value) {
        let name = e
            .strip_prefix("inputs.")
            .unwrap_or_else(|| panic!("unexpected expression `{e}` in the run step"));
        let v = with
            .get(name)
            .map(|s| s.to_string())
            .or_else(|| action.inputs.get(name).and_then(|i| i.default.clone()))
            .unwrap_or_default();
        out = out.replace(&format!("${{{{ {e} }}}}"), &v);
    }
    out
}

/// Runs the action's `proclint` step in `dir` with the locally built binary
/// on PATH; returns (exit code, GITHUB_OUTPUT contents).
fn run_action_step(dir: &Path, with: &BTreeMap<&str, &str>) -> (i32, String) {
    let action = action();
    let step = action
        .runs
        .steps
        .iter()
        .find(|s| s.id.as_deref() == Some("proclint"))
        .unwrap_or_else(|| panic!("no step with id `proclint`"));
    let run = step.run.as_deref().unwrap_or("");
    let github_output = dir.join("github-output.txt");
    std::fs::write(&github_output, "").unwrap_or_else(|e| panic!("{e}"));
    let bin_dir = Path::new(env!("CARGO_BIN_EXE_proclint"))
        .parent()
        .unwrap_or_else(|| panic!("binary has no directory"))
        .to_path_buf();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let mut cmd = Command::new("bash");
    // GitHub runs `shell: bash` as `bash --noprofile --norc -eo pipefail {0}`.
    cmd.args(["--noprofile", "--norc", "-eo", "pipefail", "-c", run])
        .current_dir(dir)
        .env("PATH", path)
        .env("GITHUB_OUTPUT", &github_output)
        .env("RAYON_NUM_THREADS", "2");
    for (k, v) in &step.env {
        cmd.env(k, expand(v, &action, with));
    }
    let out = cmd
        .output()
        .unwrap_or_else(|e| panic!("cannot run bash: {e}"));
    let written = std::fs::read_to_string(&github_output).unwrap_or_default();
    (out.status.code().unwrap_or(-1), written)
}

#[test]
fn action_step_runs_locally() {
    let dir = tempdir();
    write(dir.path(), "process/bad.js", BAD_BREAKPOINT);
    write(dir.path(), "process/good.js", GOOD_BREAKPOINT);
    write(dir.path(), "other/bad.js", BAD_BREAKPOINT);

    // Defaults: the whole directory, fail on warnings, proclint.sarif.
    let (code, outputs) = run_action_step(dir.path(), &BTreeMap::new());
    assert_eq!(code, 1, "findings fail the step");
    assert_eq!(outputs.trim(), "sarif-file=proclint.sarif");
    let sarif: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join("proclint.sarif")).unwrap_or_default(),
    )
    .unwrap_or_else(|e| panic!("proclint.sarif: {e}"));
    assert_eq!(sarif["version"], "2.1.0");
    assert_eq!(
        sarif["runs"][0]["results"].as_array().map(Vec::len),
        Some(2)
    );

    // Several paths, a custom report name.
    let with = BTreeMap::from([
        ("paths", "process/good.js process/bad.js"),
        ("sarif-file", "out.sarif"),
    ]);
    let (code, outputs) = run_action_step(dir.path(), &with);
    assert_eq!(code, 1);
    assert_eq!(outputs.trim(), "sarif-file=out.sarif");
    let sarif: Value = serde_json::from_str(
        &std::fs::read_to_string(dir.path().join("out.sarif")).unwrap_or_default(),
    )
    .unwrap_or_else(|e| panic!("out.sarif: {e}"));
    assert_eq!(
        sarif["runs"][0]["results"].as_array().map(Vec::len),
        Some(1)
    );

    // fail-on error with the finding downgraded by a config: a green step.
    write(
        dir.path(),
        "ci/proclint.toml",
        "[rules]\nunchecked-breakpoint = \"warning\"\n",
    );
    let with = BTreeMap::from([("fail-on", "error"), ("config", "ci/proclint.toml")]);
    let (code, _) = run_action_step(dir.path(), &with);
    assert_eq!(code, 0, "the config and fail-on inputs reach proclint");
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
    let install = runs
        .iter()
        .find(|r| r.contains("cargo install"))
        .unwrap_or_else(|| panic!("the workflow does not install proclint"));
    assert!(install.contains("--locked"));
    let lint = runs
        .iter()
        .find(|r| r.starts_with("proclint check"))
        .unwrap_or_else(|| panic!("the workflow does not run proclint check"));
    assert!(lint.contains("--format github"));
    // The documented command line parses.
    let args: Vec<&str> = lint.split_whitespace().skip(2).collect();
    assert_cli_accepts(&args);
    assert!(
        !steps.iter().any(|s| s["uses"]
            .as_str()
            .is_some_and(|u| u.contains("upload-sarif"))),
        "this workflow needs no code scanning"
    );
}
