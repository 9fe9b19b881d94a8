#!/usr/bin/env bash
# The npm packages, end to end and offline (run by .ci/run):
#   1. scripts/npm_package.sh packs this machine's platform package (from the
#      shipped binary target/dist/proclint) and the launcher into target/npm/;
#   2. an empty temporary project installs the two tarballs with npm --offline,
#      an empty npm cache and an unreachable registry: nothing may be fetched
#      (the launcher's optionalDependencies on the other platforms' packages,
#      which npm cannot find, are skipped as optional);
#   3. `npx proclint check FIXTURE --format json` must exit 1 and print exactly
#      what the release binary prints, with the fixture's unchecked-breakpoint
#      finding; `--version` reports Cargo.toml's version;
#   4. the launcher's error on an unsupported platform names the platform and
#      `cargo install proclint`, and a missing platform package is reported.
set -euo pipefail
start="$(pwd -P)"
cd "$(dirname "$0")/.."
root="$(pwd -P)"
# Cargo's target directory: $CARGO_TARGET_DIR (relative to where the script
# was started, as cargo reads it), else target/.
target="${CARGO_TARGET_DIR:-$root/target}"
[[ "$target" == /* ]] || target="$start/$target"

fail() {
  echo "npm_e2e: FAIL: $*" >&2
  exit 1
}
passed=0
ok() {
  passed=$((passed + 1))
  echo "npm_e2e: ok: $*"
}

version="$(bash scripts/version.sh)"
mapfile -t tarballs < <(bash scripts/npm_package.sh)
[[ ${#tarballs[@]} -eq 2 ]] || fail "npm_package.sh made ${#tarballs[@]} tarballs, expected 2: ${tarballs[*]}"
platform="$(node -e 'console.log(require(process.argv[1]).platformName())' "$root/npm/proclint/bin/proclint")"
[[ "${tarballs[0]}" == "$target/npm/proclint-$platform-$version.tgz" ]] || fail "unexpected platform tarball ${tarballs[0]}"
[[ "${tarballs[1]}" == "$target/npm/proclint-$version.tgz" ]] || fail "unexpected launcher tarball ${tarballs[1]}"
# The packed manifests carry the stamped version and the platform fields.
tar -xzOf "${tarballs[0]}" package/package.json | node -e '
  const [version, platform] = process.argv.slice(1);
  const p = JSON.parse(require("fs").readFileSync(0, "utf8"));
  const entry = require("./npm/platforms.json").platforms.find((e) => e.name === platform);
  const want = { name: `@proclint/${platform}`, version, os: [entry.os], cpu: [entry.cpu], libc: entry.libc ? [entry.libc] : undefined };
  for (const [k, v] of Object.entries(want)) {
    if (JSON.stringify(p[k]) !== JSON.stringify(v)) { console.error(`${k}: ${JSON.stringify(p[k])} != ${JSON.stringify(v)}`); process.exit(1); }
  }
  if (p.private) { console.error("still private"); process.exit(1); }
' "$version" "$platform" || fail "the platform package's package.json is wrong"
listing="$(tar -tzvf "${tarballs[0]}")"
grep -Eq '^-rwxr-xr-x .* package/bin/proclint$' <<<"$listing" || fail "the packed binary is not executable"
for t in "${tarballs[@]}"; do
  tar -xzOf "$t" package/LICENSE | cmp -s - LICENSE || fail "$(basename "$t") does not ship LICENSE"
done
tar -xzOf "${tarballs[1]}" package/package.json | node -e '
  const version = process.argv[1];
  const p = JSON.parse(require("fs").readFileSync(0, "utf8"));
  const names = require("./npm/platforms.json").platforms.map((e) => `@proclint/${e.name}`);
  const deps = p.optionalDependencies || {};
  if (p.version !== version || p.private || p.bin.proclint !== "bin/proclint" || p.scripts) process.exit(1);
  if (JSON.stringify(Object.keys(deps)) !== JSON.stringify(names)) process.exit(1);
  if (Object.values(deps).some((v) => v !== version)) process.exit(1);
' "$version" || fail "the launcher's package.json is wrong (version, bin, optionalDependencies, or a lifecycle script)"
ok "packed @proclint/$platform and proclint $version"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
project="$work/project"
mkdir -p "$project"
cd "$project"
echo '{ "name": "npm-e2e", "version": "1.0.0", "private": true }' >package.json
# No network: offline mode, an empty cache, and a registry nothing listens on.
export npm_config_offline=true
export npm_config_cache="$work/npm-cache"
export npm_config_registry="http://127.0.0.1:9/"
export npm_config_audit=false npm_config_fund=false npm_config_update_notifier=false
npm install --no-progress "${tarballs[@]}" </dev/null >"$work/install.log" 2>&1 \
  || { cat "$work/install.log" >&2; fail "npm install --offline of the two tarballs failed"; }
[[ -x node_modules/@proclint/$platform/bin/proclint ]] || fail "the installed binary is not executable"
ok "npm install --offline of the two tarballs"

fixture="$root/fixtures/unchecked-breakpoint/bad.js"
set +e
npx --offline proclint check "$fixture" --no-cache --format json >"$work/npx.json" 2>"$work/npx.err"
status=$?
"$target/dist/proclint" check "$fixture" --no-cache --format json >"$work/direct.json" 2>/dev/null
direct=$?
set -e
[[ $status -eq 1 ]] || { cat "$work/npx.err" >&2; fail "npx proclint check exited $status, expected 1"; }
[[ $direct -eq 1 ]] || fail "the release binary exited $direct, expected 1"
cmp -s "$work/npx.json" "$work/direct.json" || fail "npx proclint's JSON differs from the release binary's"
python3 - "$work/npx.json" "$fixture" <<'PY' || fail "the JSON report lacks the expected finding"
import json, sys
report = json.load(open(sys.argv[1]))
assert report["version"] == 1, report["version"]
hits = [d for d in report["diagnostics"]
        if d["rule"] == "unchecked-breakpoint" and d["severity"] == "error" and d["path"] == sys.argv[2]]
assert hits and hits[0]["line"] == 12 and "a rejection is treated as an approval" in hits[0]["message"], hits[:1]
assert report["summary"]["errors"] >= 1, report["summary"]
PY
ok "npx proclint check exits 1 with the release binary's JSON (unchecked-breakpoint at line 12)"

[[ "$(npx --offline proclint --version)" == "proclint $version "* ]] || fail "npx proclint --version does not report $version"
ok "npx proclint --version reports $version"

launcher="$project/node_modules/proclint/bin/proclint"
msg="$(node -e '
  Object.defineProperty(process, "arch", { value: "s390x" });
  try { require(process.argv[1]).binaryPath(); } catch (e) { console.log(e.message); }
' "$launcher")"
grep -q "linux s390x" <<<"$msg" && grep -q "cargo install proclint" <<<"$msg" \
  || fail "the unsupported-platform error does not name the platform and the fallback: $msg"
mv "node_modules/@proclint" "$work/hidden"
set +e
msg="$(npx --offline proclint --version 2>&1)"
status=$?
set -e
mv "$work/hidden" "node_modules/@proclint"
[[ $status -eq 2 ]] && grep -q "@proclint/$platform" <<<"$msg" && grep -q "is not installed" <<<"$msg" \
  || fail "a missing platform package is not reported (exit $status): $msg"
ok "the launcher's errors name the platform, the package and cargo install proclint"

echo "npm_e2e: $passed passed, 0 failed"
