#!/usr/bin/env bash
# End-to-end test of the pre-commit hook (.pre-commit-hooks.yaml), run by .ci/run.
#
# Installs pre-commit from PyPI into target/precommit-venv, makes a throwaway git
# repository whose .pre-commit-config.yaml points at this checkout at its current
# commit (pre-commit clones that commit and builds it with `cargo install`, as it
# would for a user), then:
#   1. commits a process module with an unchecked breakpoint: the commit must be
#      refused and the output must name `unchecked-breakpoint`;
#   2. fixes the module: the commit must go through.
#
# The hook is built from the committed HEAD, not the working tree: commit first.
# Timing: the first run builds proclint in release mode (several minutes on two
# cores); later runs reuse target/precommit-cargo and target/precommit-home.
set -euo pipefail
cd "$(dirname "$0")/.."
root="$(pwd -P)"

PRE_COMMIT_VERSION=4.7.0

fail() {
  echo "precommit_e2e: FAIL: $*" >&2
  exit 1
}

rev="$(git rev-parse HEAD)"
if [[ -n "$(git status --porcelain --untracked-files=no)" ]]; then
  echo "precommit_e2e: note: uncommitted changes are not part of the hook; testing HEAD $rev" >&2
fi

venv="$root/target/precommit-venv"
if [[ "$("$venv/bin/pre-commit" --version 2>/dev/null || true)" != "pre-commit $PRE_COMMIT_VERSION" ]]; then
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check "pre-commit==$PRE_COMMIT_VERSION" </dev/null
fi
pre_commit="$venv/bin/pre-commit"
"$pre_commit" validate-manifest .pre-commit-hooks.yaml || fail ".pre-commit-hooks.yaml is not a valid hook manifest"

# pre-commit's cache (its clone of this repository and the built hook) stays
# under target/, away from the user's ~/.cache/pre-commit. CARGO_HOME is left
# alone so the crates.io registry is not downloaded again; a fixed
# CARGO_TARGET_DIR lets `cargo install` reuse compiled dependencies across
# revisions (pre-commit builds each rev in a fresh clone).
export PRE_COMMIT_HOME="$root/target/precommit-home"
export CARGO_TARGET_DIR="$root/target/precommit-cargo"
# The hook must not be affected by whatever the calling shell has configured.
unset PRE_COMMIT_ALLOW_NO_CONFIG SKIP

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work"
git init --quiet --initial-branch=main
git config user.name "proclint e2e"
git config user.email "e2e@proclint.invalid"
git config commit.gpgsign false

cat > .pre-commit-config.yaml <<EOF
repos:
  - repo: $root
    rev: $rev
    hooks:
      - id: proclint
EOF

"$pre_commit" validate-config .pre-commit-config.yaml || fail "the generated .pre-commit-config.yaml is invalid"
"$pre_commit" install </dev/null >/dev/null
start=$SECONDS
# Build the hook once up front, so a build failure is reported as one.
"$pre_commit" install-hooks </dev/null || fail "pre-commit could not build the proclint hook"
echo "precommit_e2e: hook environment ready in $((SECONDS - start))s"

mkdir -p process
cat > process/deploy.js <<'EOF'
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
EOF

git add .pre-commit-config.yaml process/deploy.js
set +e
out="$(git commit --quiet -m "deploy process" </dev/null 2>&1)"
status=$?
set -e
printf '%s\n' "$out"
[[ $status -ne 0 ]] || fail "the commit with an unchecked breakpoint was accepted"
grep -q "unchecked-breakpoint" <<<"$out" || fail "the hook output does not name unchecked-breakpoint"
grep -q "process/deploy.js" <<<"$out" || fail "the hook output does not name the file"
if git rev-parse --verify --quiet HEAD >/dev/null; then
  fail "a commit was created although the hook failed"
fi
echo "precommit_e2e: the bad commit was refused with unchecked-breakpoint"

# The fix: branch on the human's decision (and name the breakpoint, so the
# file is clean of notes too).
cat > process/deploy.js <<'EOF'
import { defineTask } from '@a5c-ai/babysitter-sdk';

export const buildTask = defineTask('build', (args, taskCtx) => ({
  kind: 'shell',
  title: 'Build',
  labels: ['build'],
  shell: { command: 'npm run build', expectedExitCode: 0 },
}));

export async function process(inputs, ctx) {
  await ctx.task(buildTask, {});
  const decision = await ctx.breakpoint({ question: 'Ship?' }, { breakpointId: 'ship' });
  if (!decision.approved) {
    return { shipped: false, feedback: decision.feedback };
  }
  return { shipped: true };
}
EOF

git add process/deploy.js
set +e
out="$(git commit --quiet -m "deploy process" </dev/null 2>&1)"
status=$?
set -e
printf '%s\n' "$out"
[[ $status -eq 0 ]] || fail "the fixed commit was refused"
git rev-parse --verify --quiet HEAD >/dev/null || fail "no commit was created"
echo "precommit_e2e: the fixed commit passed"
echo "precommit_e2e: 4 passed, 0 failed"
