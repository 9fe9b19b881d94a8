#!/usr/bin/env bash
# Validates the GitHub files users copy against the SchemaStore schemas that
# check-jsonschema (PyPI) ships: action.yml against github-actions, and each
# ```yaml workflow in docs/ci.md against github-workflows. Run by .ci/run;
# tests/ci_files.rs checks their consistency with each other and the CLI.
set -euo pipefail
cd "$(dirname "$0")/.."

CHECK_JSONSCHEMA_VERSION=0.39.0
venv=target/ci-schemas-venv
if [[ "$("$venv/bin/pip" show check-jsonschema 2>/dev/null | sed -n 's/^Version: //p')" != "$CHECK_JSONSCHEMA_VERSION" ]]; then
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check "check-jsonschema==$CHECK_JSONSCHEMA_VERSION" </dev/null
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# Each fenced yaml block of docs/ci.md is one complete workflow.
awk -v dir="$work" '
  /^```yaml/ { n++; file = sprintf("%s/workflow-%d.yml", dir, n); inblock = 1; next }
  /^```/ && inblock { inblock = 0; close(file); next }
  inblock { print > file }
' docs/ci.md
workflows=("$work"/workflow-*.yml)
[[ ${#workflows[@]} -eq 2 ]] || { echo "ci_schemas_check: expected 2 workflows in docs/ci.md, found ${#workflows[@]}" >&2; exit 1; }

"$venv/bin/check-jsonschema" --builtin-schema vendor.github-actions action.yml
"$venv/bin/check-jsonschema" --builtin-schema vendor.github-workflows "${workflows[@]}"
echo "ci_schemas_check: 3 passed, 0 failed"
