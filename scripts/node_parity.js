#!/usr/bin/env node
// Load parity with Node: for every .js/.mjs/.cjs file under the given
// directories (node_modules and .git skipped), asks Node whether
// it would load the file and compares with proclint's `parse-error`
// findings (severity error; the invalid-UTF-8 warning is not a load
// failure). Nothing is evaluated: an ES module is compiled with
// `vm.SourceTextModule` (parsing and the early errors an import runs), a
// CommonJS module with `vm.compileFunction` and CommonJS's wrapper
// parameters, as `require` compiles it.
//
// The format is decided as Node decides it: `.mjs` a module, `.cjs`
// CommonJS, otherwise the `"type"` of the nearest package.json; with none,
// CommonJS, compiled again as a module when CommonJS fails on module syntax
// (the messages Node's syntax detection retries on, src/node_contextify.cc).
//
// Usage: node scripts/node_parity.js [--proclint BIN] [--list] DIR...
//   --list  also print every file Node rejects, with Node's message
// Prints each disagreement and a summary line; exits 1 if any.
'use strict';
const fs = require('fs');
const path = require('path');
const vm = require('vm');
const { execFileSync } = require('child_process');

if (typeof vm.SourceTextModule !== 'function') {
  // vm.SourceTextModule needs the flag: run again with it.
  const r = require('child_process').spawnSync(
    process.execPath,
    ['--experimental-vm-modules', '--no-warnings', __filename, ...process.argv.slice(2)],
    { stdio: 'inherit' },
  );
  process.exit(r.status === null ? 2 : r.status);
}

const args = process.argv.slice(2);
let proclint = 'proclint';
let list = false;
const dirs = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--proclint') proclint = args[++i];
  else if (args[i] === '--list') list = true;
  else dirs.push(args[i]);
}
if (dirs.length === 0) {
  process.stderr.write('usage: node scripts/node_parity.js [--proclint BIN] [--list] DIR...\n');
  process.exit(2);
}

function walk(dir, out) {
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    if (e.name === 'node_modules' || e.name === '.git' || e.name === '.proclint_cache') continue;
    const p = path.join(dir, e.name);
    if (e.isDirectory()) walk(p, out);
    else if (e.isFile() && /\.(js|mjs|cjs)$/.test(e.name)) out.push(p);
  }
  return out;
}

function packageType(file) {
  let dir = path.dirname(path.resolve(file));
  for (;;) {
    const pj = path.join(dir, 'package.json');
    if (fs.existsSync(pj)) {
      try {
        return JSON.parse(fs.readFileSync(pj, 'utf8')).type || null;
      } catch {
        return null;
      }
    }
    const up = path.dirname(dir);
    if (up === dir) return null;
    dir = up;
  }
}

const RETRY_AS_MODULE = new Set([
  'Cannot use import statement outside a module',
  "Unexpected token 'export'",
  "Cannot use 'import.meta' outside a module",
  "Identifier 'module' has already been declared",
  "Identifier 'exports' has already been declared",
  "Identifier 'require' has already been declared",
  "Identifier '__filename' has already been declared",
  "Identifier '__dirname' has already been declared",
  'await is only valid in async functions and the top level bodies of modules',
]);

function asModule(code, file) {
  try {
    new vm.SourceTextModule(code, { identifier: file });
    return null;
  } catch (e) {
    return String(e && e.message);
  }
}

function asCommonJs(code, file) {
  // Node drops a `#!` line before compiling.
  const body = code.startsWith('#!') ? code.replace(/^#![^\r\n]*/, '') : code;
  try {
    vm.compileFunction(body, ['exports', 'require', 'module', '__filename', '__dirname'], {
      filename: file,
    });
    return null;
  } catch (e) {
    return String(e && e.message);
  }
}

/// Node's error loading `file`, or null when it loads.
function nodeError(file) {
  const code = fs.readFileSync(file, 'utf8');
  const ext = path.extname(file);
  const type = ext === '.mjs' ? 'module' : ext === '.cjs' ? 'commonjs' : packageType(file);
  if (type === 'module') return asModule(code, file);
  if (type === 'commonjs') return asCommonJs(code, file);
  const cjs = asCommonJs(code, file);
  if (cjs !== null && RETRY_AS_MODULE.has(cjs)) return asModule(code, file);
  return cjs;
}

/// proclint's parse-error messages by file (absolute path), and the files it
/// skipped (not judged).
function proclintErrors(files) {
  const errors = new Map();
  const skipped = new Map();
  for (let i = 0; i < files.length; i += 400) {
    const chunk = files.slice(i, i + 400);
    const out = execFileSync(
      proclint,
      ['check', '--no-config', '--no-cache', '--format', 'json', '--exit-zero', '-q',
        '--select', 'parse-error', ...chunk],
      { maxBuffer: 1 << 30, stdio: ['ignore', 'pipe', 'ignore'] },
    );
    for (const d of JSON.parse(out).diagnostics) {
      const p = path.resolve(d.path);
      if (d.rule === 'parse-error' && d.severity === 'error' && !errors.has(p)) {
        errors.set(p, `${d.line}:${d.column} ${d.message}`);
      } else if (d.rule === 'skipped-file' || d.rule === 'internal-error') {
        skipped.set(p, d.message);
      }
    }
  }
  return { errors, skipped };
}

const files = dirs.flatMap((d) => walk(d, [])).sort();
const { errors, skipped } = proclintErrors(files);
let rejected = 0;
let reported = 0;
let disagreements = 0;
let notJudged = 0;
for (const file of files) {
  const abs = path.resolve(file);
  if (skipped.has(abs)) {
    notJudged++;
    continue;
  }
  const node = nodeError(file);
  const ours = errors.get(abs);
  if (node !== null) rejected++;
  if (ours !== undefined) reported++;
  if (list && node !== null) console.log(`node rejects ${file}: ${node}`);
  if ((node === null) !== (ours === undefined)) {
    disagreements++;
    if (node !== null) console.log(`MISSED ${file}: Node: ${node}`);
    else console.log(`EXTRA  ${file}: proclint: ${ours}`);
  }
}
console.log(
  `${files.length} files: Node rejects ${rejected}, proclint reports ${reported}, ` +
    `${disagreements} disagreements` +
    (notJudged ? `, ${notJudged} skipped by proclint` : ''),
);
process.exit(disagreements ? 1 : 0);
