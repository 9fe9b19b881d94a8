#!/usr/bin/env bash
# Prints proclint's version: the `version` of Cargo.toml's [package] table, the
# one place it is written. The npm packages (scripts/npm_package.sh), the wheel
# (pyproject.toml: dynamic, maturin reads Cargo.toml), the release workflow's
# tag check and the action's download all take it from here.
set -euo pipefail
cd "$(dirname "$0")/.."
version="$(awk '
  /^\[package\]/ { in_package = 1; next }
  /^\[/ { in_package = 0 }
  in_package && /^version[ \t]*=/ {
    sub(/^version[ \t]*=[ \t]*"/, ""); sub(/".*$/, ""); print; exit
  }' Cargo.toml)"
[[ "$version" =~ ^[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$ ]] || {
  echo "version.sh: no semver version in Cargo.toml's [package] table (found '$version')" >&2
  exit 1
}
printf '%s\n' "$version"
