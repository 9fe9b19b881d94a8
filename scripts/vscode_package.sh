#!/usr/bin/env bash
# Builds the VS Code extension (editors/vscode) and packages it into
# editors/vscode/proclint.vsix with @vscode/vsce, then checks the package
# holds the compiled extension and the language client. About a minute
# (npm ci from the lockfile, tsc, vsce).
set -euo pipefail
cd "$(dirname "$0")/../editors/vscode"
npm ci --no-audit --no-fund --loglevel=error
npm run --silent package
python3 - <<'PY'
import json, zipfile
with zipfile.ZipFile("proclint.vsix") as z:
    names = set(z.namelist())
    manifest = json.loads(z.read("extension/package.json"))
for needed in ["extension/out/extension.js", "extension/node_modules/vscode-languageclient/node.js"]:
    assert needed in names, f"{needed} missing from proclint.vsix"
assert manifest["main"] == "./out/extension.js"
print(f"proclint.vsix: {len(names)} files, extension {manifest['version']}")
PY
