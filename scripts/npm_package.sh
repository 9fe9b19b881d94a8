#!/usr/bin/env bash
# Builds proclint's npm packages as tarballs (npm pack) in target/npm/ (in
# $CARGO_TARGET_DIR when set):
#   - @proclint/<platform> (npm/platform/ as a template): one prebuilt binary in
#     bin/, with the `os`, `cpu` and `libc` fields of npm/platforms.json, so npm
#     installs it only on a matching machine;
#   - proclint (npm/proclint/): the launcher, with optionalDependencies on every
#     platform package of npm/platforms.json.
# Every version is stamped from Cargo.toml (scripts/version.sh); the committed
# package.json files carry a placeholder and `private: true`, which this removes.
#
# Usage: scripts/npm_package.sh [--platform NAME --binary PATH] [--no-launcher | --launcher-only] [--out DIR]
#   default:          the host's platform package (the platform the launcher detects),
#                     from target/dist/proclint (built first with
#                     `cargo build --profile dist --locked`, a no-op when up to date), and the launcher
#   --platform NAME   a platform of npm/platforms.json (with --binary: a binary built for it)
#   --no-launcher     only the platform package;  --launcher-only: only the launcher
# The release workflow runs it once per target with --platform/--binary/--no-launcher
# and once with --launcher-only. Prints the tarballs' paths.
set -euo pipefail
start="$(pwd -P)"
cd "$(dirname "$0")/.."
root="$(pwd -P)"
# Cargo's target directory: $CARGO_TARGET_DIR (relative to where the script
# was started, as cargo reads it), else target/.
target="${CARGO_TARGET_DIR:-$root/target}"
[[ "$target" == /* ]] || target="$start/$target"

platform=""
binary=""
launcher=1
platform_pkg=1
out="$target/npm"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --platform) platform="$2"; shift ;;
    --binary) binary="$2"; shift ;;
    --no-launcher) launcher=0 ;;
    --launcher-only) platform_pkg=0 ;;
    --out) out="$2"; shift ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    *) echo "npm_package.sh: unknown argument $1" >&2; exit 2 ;;
  esac
  shift
done
for tool in node npm; do
  command -v "$tool" >/dev/null || { echo "npm_package.sh: $tool is required" >&2; exit 2; }
done

version="$(bash scripts/version.sh)"
mkdir -p "$out"
out="$(cd "$out" && pwd -P)"
stage="$target/npm-stage"

# pack DIR: npm pack DIR into $out, print the tarball's path.
pack() {
  local file
  file="$(cd "$1" && npm pack --silent --pack-destination "$out" 2>/dev/null </dev/null | tail -1)"
  [[ -f "$out/$file" ]] || { echo "npm_package.sh: npm pack produced no tarball in $1" >&2; exit 1; }
  echo "$out/$file"
}

if [[ $platform_pkg == 1 ]]; then
  if [[ -z "$platform" ]]; then
    platform="$(node -e 'console.log(require(process.argv[1]).platformName())' "$root/npm/proclint/bin/proclint")"
  fi
  if [[ -z "$binary" ]]; then
    [[ "$platform" == "$(node -e 'console.log(require(process.argv[1]).platformName())' "$root/npm/proclint/bin/proclint")" ]] \
      || { echo "npm_package.sh: --platform $platform is not this machine's: pass --binary" >&2; exit 2; }
    CARGO_TARGET_DIR="$target" cargo build --profile dist --locked --quiet </dev/null
    binary="$target/dist/proclint"
    [[ -f "$binary.exe" ]] && binary="$binary.exe"
  fi
  [[ -f "$binary" ]] || { echo "npm_package.sh: no binary at $binary" >&2; exit 2; }
  dir="$stage/$platform"
  rm -rf "$dir"
  mkdir -p "$dir/bin"
  exe=proclint
  [[ "$platform" == win32-* ]] && exe=proclint.exe
  cp "$binary" "$dir/bin/$exe"
  chmod 755 "$dir/bin/$exe"
  sed "s/PLATFORM/$platform/g" npm/platform/README.md >"$dir/README.md"
  cp LICENSE "$dir/LICENSE"
  node - "$root/npm/platform/package.json" "$root/npm/platforms.json" "$platform" "$version" "$dir/package.json" <<'JS'
const fs = require('fs');
const [template, table, name, version, dest] = process.argv.slice(2);
const p = JSON.parse(fs.readFileSync(template, 'utf8'));
const entry = JSON.parse(fs.readFileSync(table, 'utf8')).platforms.find((e) => e.name === name);
if (!entry) {
  console.error(`npm_package.sh: unknown platform ${name} (see npm/platforms.json)`);
  process.exit(2);
}
p.name = p.name.replace('PLATFORM', name);
p.description = p.description.replace('PLATFORM', name);
p.version = version;
delete p.private;
p.os = [entry.os];
p.cpu = [entry.cpu];
if (entry.libc) p.libc = [entry.libc];
fs.writeFileSync(dest, JSON.stringify(p, null, 2) + '\n');
JS
  pack "$dir"
fi

if [[ $launcher == 1 ]]; then
  dir="$stage/proclint"
  rm -rf "$dir"
  mkdir -p "$dir"
  cp -R npm/proclint/. "$dir/"
  cp LICENSE "$dir/LICENSE"
  node - "$root/npm/platforms.json" "$version" "$dir/package.json" <<'JS'
const fs = require('fs');
const [table, version, dest] = process.argv.slice(2);
const p = JSON.parse(fs.readFileSync(dest, 'utf8'));
p.version = version;
delete p.private;
p.optionalDependencies = {};
for (const e of JSON.parse(fs.readFileSync(table, 'utf8')).platforms) {
  p.optionalDependencies[`@proclint/${e.name}`] = version;
}
fs.writeFileSync(dest, JSON.stringify(p, null, 2) + '\n');
JS
  pack "$dir"
fi
