#!/usr/bin/env bash
# End-to-end test of the pre-commit hooks, run by .ci/run. Installs pre-commit
# from PyPI into target/precommit-venv and tests two hooks, each in a throwaway
# git repository:
#   - `proclint`, the Rust hook of .pre-commit-hooks.yaml: .pre-commit-config.yaml
#     points at this checkout at its current commit, and pre-commit clones that
#     commit and builds it with `cargo install`, as it would for a user;
#   - the Python-language hook of docs/pre-commit.md (`repo: local`,
#     `language: python`, `additional_dependencies: [proclint==VERSION]`):
#     pre-commit installs the wheel into a virtualenv and compiles nothing. pip
#     runs with no package index: it finds the wheel that scripts/wheel_e2e.sh
#     built in target/wheels (built here if absent) and, in
#     target/precommit-wheelhouse, the setuptools wheel that pre-commit's
#     placeholder package for a local hook needs.
# For each:
#   1. a commit of a process module with an unchecked breakpoint must be
#      refused by that hook, and the output must name `unchecked-breakpoint`
#      and the file;
#   2. the fixed module must commit.
#
# The Rust hook is built from the committed HEAD, not the working tree: commit
# first. Timing: its first run builds proclint in release mode (several minutes
# on two cores); later runs reuse target/precommit-cargo and
# target/precommit-home. The Python hook's environment is made afresh on every
# run (seconds), so it always holds the current wheel.
set -euo pipefail
start="$(pwd -P)"
cd "$(dirname "$0")/.."
root="$(pwd -P)"
# Cargo's target directory: $CARGO_TARGET_DIR (relative to where the script
# was started, as cargo reads it), else target/.
target="${CARGO_TARGET_DIR:-$root/target}"
[[ "$target" == /* ]] || target="$start/$target"

PRE_COMMIT_VERSION=4.7.0
SETUPTOOLS_VERSION=80.9.0

fail() {
  echo "precommit_e2e: FAIL: $*" >&2
  exit 1
}
passed=0
ok() {
  passed=$((passed + 1))
  echo "precommit_e2e: ok: $*"
}

rev="$(git rev-parse HEAD)"
if [[ -n "$(git status --porcelain --untracked-files=no)" ]]; then
  echo "precommit_e2e: note: uncommitted changes are not part of the Rust hook; testing HEAD $rev" >&2
fi
version="$(bash scripts/version.sh)"

venv="$root/target/precommit-venv"
if [[ "$("$venv/bin/pre-commit" --version 2>/dev/null || true)" != "pre-commit $PRE_COMMIT_VERSION" ]]; then
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check "pre-commit==$PRE_COMMIT_VERSION" </dev/null
fi
pre_commit="$venv/bin/pre-commit"
"$pre_commit" validate-manifest .pre-commit-hooks.yaml || fail ".pre-commit-hooks.yaml is not a valid hook manifest"
ok ".pre-commit-hooks.yaml is a valid hook manifest"

# The Python hook's packages: this working tree's wheel, and setuptools for the
# placeholder package pre-commit installs for a `repo: local` Python hook.
if ! compgen -G "$target/wheels/proclint-$version-py3-none-*.whl" >/dev/null; then
  bash scripts/wheel_e2e.sh
fi
wheelhouse="$root/target/precommit-wheelhouse"
if [[ ! -f "$wheelhouse/setuptools-$SETUPTOOLS_VERSION-py3-none-any.whl" ]]; then
  "$venv/bin/pip" download --quiet --disable-pip-version-check --only-binary=:all: --no-deps \
    -d "$wheelhouse" "setuptools==$SETUPTOOLS_VERSION" </dev/null
fi

# pre-commit's cache for the Rust hook (its clone of this repository and the
# built hook) stays under target/, away from the user's ~/.cache/pre-commit.
# CARGO_HOME is left alone so the crates.io registry is not downloaded again; a
# fixed CARGO_TARGET_DIR lets `cargo install` reuse compiled dependencies across
# revisions (pre-commit builds each rev in a fresh clone).
rust_home="$root/target/precommit-home"
export CARGO_TARGET_DIR="$root/target/precommit-cargo"
# The hooks must not be affected by whatever the calling shell has configured.
unset PRE_COMMIT_ALLOW_NO_CONFIG SKIP PIP_INDEX_URL PIP_EXTRA_INDEX_URL

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# scenario ID PRE_COMMIT_HOME CONFIG: a fresh git repository with CONFIG as its
# .pre-commit-config.yaml; the bad commit must be refused by the hook with id
# ID, the fixed one accepted.
scenario() {
  local id=$1 config=$3 repo out status start
  export PRE_COMMIT_HOME=$2
  repo="$work/$id"
  mkdir -p "$repo"
  cd "$repo"
  git init --quiet --initial-branch=main
  git config user.name "proclint e2e"
  git config user.email "e2e@proclint.invalid"
  git config commit.gpgsign false
  printf '%s\n' "$config" >.pre-commit-config.yaml

  "$pre_commit" validate-config .pre-commit-config.yaml || fail "$id: the generated .pre-commit-config.yaml is invalid"
  "$pre_commit" install </dev/null >/dev/null
  start=$SECONDS
  # Install the hook once up front, so an installation failure is reported as one.
  "$pre_commit" install-hooks </dev/null || fail "$id: pre-commit could not install the hook"
  echo "precommit_e2e: $id: hook environment ready in $((SECONDS - start))s"

  mkdir -p process
  cat >process/deploy.js <<'JS'
import { defineTask } from '@a5c-ai/babysitter-sdk';

export const buildTask = defineTask('build', (args, taskCtx) => ({
  kind: 'shell',
  title: 'Build',
  labels: ['build'],
  shell: { command: 'npm run build', expectedExitCode: 0 },
}));

export async function process(inputs, ctx) {
  await ctx.task(buildTask, {});
  await ctx.breakpoint({ question: 'Ship?' });
  return { shipped: true };
}
JS

  git add .pre-commit-config.yaml process/deploy.js
  set +e
  out="$(git commit --quiet -m "deploy process" </dev/null 2>&1)"
  status=$?
  set -e
  printf '%s\n' "$out"
  [[ $status -ne 0 ]] || fail "$id: the commit with an unchecked breakpoint was accepted"
  grep -q -- "- hook id: $id\$" <<<"$out" || fail "$id: the failing hook is not $id"
  grep -q "unchecked-breakpoint" <<<"$out" || fail "$id: the hook output does not name unchecked-breakpoint"
  grep -q "process/deploy.js" <<<"$out" || fail "$id: the hook output does not name the file"
  if git rev-parse --verify --quiet HEAD >/dev/null; then
    fail "$id: a commit was created although the hook failed"
  fi
  ok "$id: the bad commit was refused with unchecked-breakpoint"

  # The fix: stop when the build failed (a failed shell task resolves to
  # `{ success: false, … }`), branch on the human's decision (and name the
  # breakpoint, so the file is clean of notes too).
  cat >process/deploy.js <<'JS'
import { defineTask } from '@a5c-ai/babysitter-sdk';

export const buildTask = defineTask('build', (args, taskCtx) => ({
  kind: 'shell',
  title: 'Build',
  labels: ['build'],
  shell: { command: 'npm run build', expectedExitCode: 0 },
}));

export async function process(inputs, ctx) {
  const build = await ctx.task(buildTask, {});
  if (!build.success) {
    return { shipped: false, error: build.stderr };
  }
  const decision = await ctx.breakpoint({ question: 'Ship?' }, { breakpointId: 'ship' });
  if (!decision.approved) {
    return { shipped: false, feedback: decision.feedback };
  }
  return { shipped: true };
}
JS

  git add process/deploy.js
  set +e
  out="$(git commit --quiet -m "deploy process" </dev/null 2>&1)"
  status=$?
  set -e
  printf '%s\n' "$out"
  [[ $status -eq 0 ]] || fail "$id: the fixed commit was refused"
  git rev-parse --verify --quiet HEAD >/dev/null || fail "$id: no commit was created"
  ok "$id: the fixed commit passed"
  cd "$root"
}

# The Rust hook, from this repository at HEAD.
scenario proclint "$rust_home" "repos:
  - repo: $root
    rev: $rev
    hooks:
      - id: proclint"

# The Python-language hook as docs/pre-commit.md gives it (under another id, so
# the output shows which hook ran), with the wheel from a find-links directory,
# no index, and a fresh pre-commit home.
export PIP_NO_INDEX=1 PIP_FIND_LINKS="$target/wheels $wheelhouse"
scenario proclint-wheel "$work/python-home" "repos:
  - repo: local
    hooks:
      - id: proclint-wheel
        name: proclint
        language: python
        additional_dependencies: [proclint==$version]
        entry: proclint check --only-process-code
        files: '(\\.(m|c)?js|(^|/)SKILL\\.md|(^|/)package\\.json)\$'
        require_serial: true"
unset PIP_NO_INDEX PIP_FIND_LINKS
hook_bins=("$work"/python-home/repo*/py_env-*/bin/proclint)
[[ -x "${hook_bins[0]}" ]] || fail "proclint-wheel: the hook's virtualenv has no proclint"
wheels=("$target"/wheels/proclint-"$version"-py3-none-*.whl)
python3 - "${wheels[0]}" "${hook_bins[0]}" "$version" <<'PY' || fail "proclint-wheel: the hook runs another binary than the wheel's"
import sys, zipfile
wheel, installed, version = sys.argv[1:]
assert zipfile.ZipFile(wheel).read(f"proclint-{version}.data/scripts/proclint") == open(installed, "rb").read()
PY
ok "proclint-wheel: the hook runs the wheel's binary"

echo "precommit_e2e: $passed passed, 0 failed"
