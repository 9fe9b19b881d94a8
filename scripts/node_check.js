#!/usr/bin/env node
// How Node loads each file named in LIST (one path per line): as an ES
// module (`vm.SourceTextModule`, which parses and runs the early-error
// checks an import would) and as a CommonJS module (`vm.compileFunction`
// with CommonJS's wrapper parameters, as `require` compiles it). Nothing
// is evaluated. Prints one JSON line per file:
//   {"file": ..., "module": true|false, "commonjs": true|false, "error": "..."}
// Usage: node --experimental-vm-modules scripts/node_check.js LIST
'use strict';
const fs = require('fs');
const vm = require('vm');

const list = fs.readFileSync(process.argv[2], 'utf8').split('\n').filter(Boolean);
const out = [];
for (const file of list) {
  const code = fs.readFileSync(file, 'utf8');
  let module = false;
  let commonjs = false;
  let error = null;
  try {
    new vm.SourceTextModule(code, { identifier: file });
    module = true;
  } catch (e) {
    error = String(e && e.message);
  }
  try {
    vm.compileFunction(code, ['exports', 'require', 'module', '__filename', '__dirname'], {
      filename: file,
    });
    commonjs = true;
  } catch (e) {
    if (error === null) error = String(e && e.message);
  }
  out.push(JSON.stringify({ file, module, commonjs, error }));
}
process.stdout.write(out.join('\n') + (out.length ? '\n' : ''));
