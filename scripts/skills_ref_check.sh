#!/usr/bin/env bash
# Cross-checks `skill-frontmatter` against the Agent Skills reference validator.
#
# For every folder under fixtures/ that holds a SKILL.md, `agentskills validate DIR`
# (PyPI package skills-ref) must reject the skill exactly when proclint, with
# skill-spec = "agentskills", reports an error-level skill-frontmatter finding.
#
# Uses `agentskills` from PATH, else installs skills-ref into target/skills-ref-venv.
# Set PROCLINT to a built binary to skip the cargo build.
set -euo pipefail
cd "$(dirname "$0")/.."

validator="$(command -v agentskills || true)"
if [[ -z "$validator" ]]; then
  venv=target/skills-ref-venv
  if [[ ! -x "$venv/bin/agentskills" ]]; then
    python3 -m venv "$venv"
    "$venv/bin/pip" install --quiet --disable-pip-version-check "skills-ref==${SKILLS_REF_VERSION:-0.1.1}"
  fi
  validator="$venv/bin/agentskills"
fi

proclint="${PROCLINT:-}"
if [[ -z "$proclint" ]]; then
  cargo build --quiet --locked </dev/null
  proclint=target/debug/proclint
fi

config="$(mktemp)"
trap 'rm -f "$config"' EXIT
printf '[rules.skill-frontmatter]\nskill-spec = "agentskills"\n' > "$config"

checked=0
mismatches=0
while IFS= read -r -d '' skill; do
  dir="$(dirname "$skill")"
  if "$validator" validate "$dir" >/dev/null 2>&1; then ref=accepts; else ref=rejects; fi
  # Exit 1 means an error-level finding (0 none, 2 a proclint failure).
  set +e
  "$proclint" check "$skill" --config "$config" --select skill-frontmatter \
    --fail-on error --format concise -q >/dev/null 2>&1
  rc=$?
  set -e
  case "$rc" in
    0) ours=accepts ;;
    1) ours=rejects ;;
    *) echo "proclint failed (exit $rc) on $skill" >&2; exit 2 ;;
  esac
  checked=$((checked + 1))
  if [[ "$ref" != "$ours" ]]; then
    mismatches=$((mismatches + 1))
    echo "MISMATCH $dir: agentskills $ref, proclint $ours" >&2
  fi
done < <(find fixtures -name SKILL.md -print0 | sort -z)

if [[ "$checked" -eq 0 ]]; then
  echo "no SKILL.md fixtures found" >&2
  exit 1
fi
echo "skills-ref cross-check: $((checked - mismatches)) passed, $mismatches failed"
[[ "$mismatches" -eq 0 ]]
