#!/usr/bin/env bash
# The PyPI package, end to end (run by .ci/run):
#   1. maturin (from PyPI, in target/maturin-venv) builds the wheel into
#      target/wheels/ with the shipped `dist` profile in this target directory
#      ($CARGO_TARGET_DIR when set), so an up-to-date binary (target/dist/proclint)
#      is packed, not rebuilt;
#   2. the wheel holds the binary as its `proclint` script and metadata only,
#      with Cargo.toml's version; the sdist holds what a source build needs;
#   3. a fresh virtualenv installs the wheel with no package index, and its
#      `proclint check FIXTURE --format json` exits 1 with exactly the release
#      binary's report (the fixture's unchecked-breakpoint finding).
# scripts/precommit_e2e.sh installs the same wheel for the Python-language hook.
set -euo pipefail
start="$(pwd -P)"
cd "$(dirname "$0")/.."
root="$(pwd -P)"
# Cargo's target directory: $CARGO_TARGET_DIR (relative to where the script
# was started, as cargo reads it), else target/.
target="${CARGO_TARGET_DIR:-$root/target}"
[[ "$target" == /* ]] || target="$start/$target"

MATURIN_VERSION=1.16.0

fail() {
  echo "wheel_e2e: FAIL: $*" >&2
  exit 1
}
passed=0
ok() {
  passed=$((passed + 1))
  echo "wheel_e2e: ok: $*"
}

version="$(bash scripts/version.sh)"
venv="$root/target/maturin-venv"
if [[ "$("$venv/bin/maturin" --version 2>/dev/null || true)" != "maturin $MATURIN_VERSION" ]]; then
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check "maturin==$MATURIN_VERSION" </dev/null
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

rm -f "$target"/wheels/proclint-*.whl
CARGO_TARGET_DIR="$target" "$venv/bin/maturin" build --profile dist --locked --out "$target/wheels" </dev/null >"$work/build.log" 2>&1 \
  || { cat "$work/build.log" >&2; fail "maturin build failed"; }
wheels=("$target"/wheels/proclint-"$version"-py3-none-*.whl)
[[ ${#wheels[@]} -eq 1 && -f "${wheels[0]}" ]] || fail "expected one proclint-$version wheel, found: ${wheels[*]}"
wheel="${wheels[0]}"
python3 - "$wheel" "$version" "$target/dist/proclint" <<'PY' || fail "the wheel's contents are wrong"
import hashlib, sys, zipfile
wheel, version, binary = sys.argv[1:]
names = zipfile.ZipFile(wheel).namelist()
script = f"proclint-{version}.data/scripts/proclint"
assert script in names, names
others = [n for n in names if n != script and not n.startswith(f"proclint-{version}.dist-info/")]
licenses = [n for n in names if n.startswith(f"proclint-{version}.dist-info/") and n.endswith("/LICENSE")]
assert licenses, f"no LICENSE in the wheel's dist-info: {names}"
assert not others, f"unexpected files: {others}"
packed = zipfile.ZipFile(wheel).read(script)
assert hashlib.sha256(packed).digest() == hashlib.sha256(open(binary, "rb").read()).digest(), \
    "the wheel's binary is not target/dist/proclint"
meta = zipfile.ZipFile(wheel).read(f"proclint-{version}.dist-info/METADATA").decode()
assert f"\nVersion: {version}\n" in meta, "wrong version"
PY
ok "maturin packed target/dist/proclint into $(basename "$wheel")"

"$venv/bin/maturin" sdist --out "$work/sdist" </dev/null >"$work/sdist.log" 2>&1 \
  || { cat "$work/sdist.log" >&2; fail "maturin sdist failed"; }
listing="$(tar -tzf "$work/sdist/proclint-$version.tar.gz")"
for f in pyproject.toml Cargo.toml Cargo.lock src/main.rs README.md LICENSE; do
  grep -qx "proclint-$version/$f" <<<"$listing" || fail "the sdist lacks $f"
done
ok "the sdist holds pyproject.toml, Cargo.toml, Cargo.lock and the sources"

python3 -m venv "$work/venv"
"$work/venv/bin/pip" install --quiet --disable-pip-version-check --no-index --no-deps "$wheel" </dev/null \
  || fail "pip could not install the wheel"
[[ "$("$work/venv/bin/proclint" --version)" == "proclint $version "* ]] || fail "the installed proclint is not $version"
ok "pip installs the wheel into a fresh virtualenv without an index"

fixture="$root/fixtures/unchecked-breakpoint/bad.js"
cd "$work"
set +e
"$work/venv/bin/proclint" check "$fixture" --no-cache --format json >"$work/wheel.json" 2>/dev/null
status=$?
"$target/dist/proclint" check "$fixture" --no-cache --format json >"$work/direct.json" 2>/dev/null
set -e
[[ $status -eq 1 ]] || fail "proclint check from the wheel exited $status, expected 1"
cmp -s "$work/wheel.json" "$work/direct.json" || fail "the wheel's report differs from the release binary's"
python3 - "$work/wheel.json" "$fixture" <<'PY' || fail "the JSON report lacks the expected finding"
import json, sys
report = json.load(open(sys.argv[1]))
hits = [d for d in report["diagnostics"] if d["rule"] == "unchecked-breakpoint" and d["path"] == sys.argv[2]]
assert report["version"] == 1 and hits and hits[0]["line"] == 12, hits[:1]
PY
ok "proclint check from the wheel exits 1 with the release binary's JSON"

echo "wheel_e2e: $passed passed, 0 failed"
