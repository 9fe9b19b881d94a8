#!/usr/bin/env python3
"""Benchmark (not a test): time from a one-character `didChange` to its
`publishDiagnostics` in `proclint server`, on a generated 2,000-line process
module. Usage: scripts/lsp_latency.py [PROCLINT] [EDITS]. Run it pinned to one
core for the issue's budget: `taskset -c 0 env RAYON_NUM_THREADS=1 ...`.
Stdlib only: the framing is ten lines, and the e2e tests already cover
correctness with a real client."""

import json
import os
import pathlib
import statistics
import subprocess
import sys
import tempfile
import time

proclint = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else "target/release/proclint")
edits = int(sys.argv[2]) if len(sys.argv) > 2 else 60


def module(lines: int) -> str:
    out = ["import { defineTask } from '@a5c-ai/babysitter-sdk';", ""]
    # Each task is 11 lines of definition and one call.
    tasks = (lines - 7) // 12
    for i in range(tasks):
        out += [
            f"export const task{i} = defineTask('task-{i}', (args) => ({{",
            "  kind: 'agent',",
            f"  title: 'Step {i}',",
            f"  labels: ['step-{i}'],",
            "  agent: {",
            f"    name: 'worker-{i}',",
            f"    prompt: {{ task: `Do step {i} of ${{args.feature}}` }},",
            "    outputSchema: { type: 'object', properties: { summary: { type: 'string' } } },",
            "  },",
            "}));",
            "",
        ]
    i = tasks
    out += ["export async function process(inputs, ctx) {", "  const results = [];"]
    for j in range(i):
        out.append(f"  results.push((await ctx.task(task{j}, {{ feature: inputs.feature }})).summary);")
    out += ["  // edit here", "  return { results };", "}"]
    while len(out) < lines:
        out.append("// padding")
    return "\n".join(out) + "\n"


def send(p, msg):
    body = json.dumps(msg).encode()
    p.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
    p.stdin.flush()


def read(p):
    length = 0
    while True:
        line = p.stdout.readline()
        if line in (b"\r\n", b""):
            break
        if line.lower().startswith(b"content-length:"):
            length = int(line.split(b":")[1])
    return json.loads(p.stdout.read(length))


def main():
    project = pathlib.Path(tempfile.mkdtemp(prefix="proclint-latency-"))
    (project / "package.json").write_text('{"name": "bench", "type": "module"}\n')
    path = project / "big.js"
    text = module(2000)
    path.write_text(text)
    lines = text.split("\n")
    edit_line = next(i for i, l in enumerate(lines) if l == "  // edit here")
    uri = path.as_uri()
    p = subprocess.Popen([proclint, "server"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd=project)
    send(p, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}})
    while "id" not in read(p):
        pass
    send(p, {"jsonrpc": "2.0", "method": "initialized", "params": {}})
    send(p, {"jsonrpc": "2.0", "method": "textDocument/didOpen", "params": {"textDocument": {
        "uri": uri, "languageId": "javascript", "version": 1, "text": text}}})

    def wait(version):
        while True:
            m = read(p)
            if m.get("method") == "textDocument/publishDiagnostics" and m["params"].get("version") == version:
                return m["params"]["diagnostics"]

    start = time.perf_counter()
    found = wait(1)
    first = time.perf_counter() - start
    times = []
    for n in range(edits):
        version = n + 2
        # Insert a character after "// edit here", then delete it.
        col = len("  // edit here")
        change = ({"range": {"start": {"line": edit_line, "character": col}, "end": {"line": edit_line, "character": col}}, "text": "x"}
                  if n % 2 == 0 else
                  {"range": {"start": {"line": edit_line, "character": col}, "end": {"line": edit_line, "character": col + 1}}, "text": ""})
        start = time.perf_counter()
        send(p, {"jsonrpc": "2.0", "method": "textDocument/didChange", "params": {
            "textDocument": {"uri": uri, "version": version}, "contentChanges": [change]}})
        wait(version)
        times.append(time.perf_counter() - start)
    send(p, {"jsonrpc": "2.0", "id": 2, "method": "shutdown"})
    read(p)
    send(p, {"jsonrpc": "2.0", "method": "exit"})
    p.wait(10)
    ms = sorted(t * 1000 for t in times)
    print(f"{len(lines) - 1} lines, {len(found)} findings; open {first * 1000:.1f} ms; "
          f"didChange → publishDiagnostics over {edits} edits: median {statistics.median(ms):.1f} ms, "
          f"p90 {ms[int(len(ms) * 0.9)]:.1f} ms, min {ms[0]:.1f} ms, max {ms[-1]:.1f} ms")


main()
