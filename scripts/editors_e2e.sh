#!/usr/bin/env bash
# End-to-end checks of `proclint mcp` and `proclint server` with real
# clients: the official MCP Python SDK (PyPI `mcp`) and pytest-lsp (PyPI),
# installed into target/editors-venv. Set PROCLINT to a built binary to
# skip the cargo build.
set -euo pipefail
cd "$(dirname "$0")/.."

venv=target/editors-venv
# Pinned: the test scripts use these clients' APIs (mcp 2.x names fields in
# snake_case).
requirements=("mcp==2.3.0" "pytest-lsp==1.0.1" "pytest==9.2.0" "pytest-asyncio==1.5.0")
stamp="$venv/.requirements"
if [[ ! -x "$venv/bin/python" ]] || [[ "$(cat "$stamp" 2>/dev/null)" != "${requirements[*]}" ]]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check "${requirements[@]}"
  echo "${requirements[*]}" > "$stamp"
fi

proclint="${PROCLINT:-}"
if [[ -z "$proclint" ]]; then
  cargo build --quiet --locked </dev/null
  proclint=target/debug/proclint
fi
PROCLINT="$(cd "$(dirname "$proclint")" && pwd)/$(basename "$proclint")" \
  "$venv/bin/python" -m pytest -q -p no:cacheprovider \
  -o asyncio_default_fixture_loop_scope=function tests/editors "$@"
