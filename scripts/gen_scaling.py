#!/usr/bin/env python3
"""Inputs for the scaling check of scripts/bench.sh (--scaling), issue 19.

    gen_scaling.py runs DIR N      one run of N effects under DIR/.a5c/runs/run-big
    gen_scaling.py parallel FILE N one ctx.parallel.all of N thunks
    gen_scaling.py line FILE BYTES a one-line process module of about BYTES bytes
    gen_scaling.py processes DIR N N entry process modules (and their tasks), each
                                   with findings, for the retrospective (issue 18)

Journal events carry the SDK's checksum (JSON.stringify(event, null, 2) +
"\\n", which json.dumps(indent=2) reproduces for this ASCII data).
"""
import hashlib
import json
import os
import sys

ULID = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"


def ulid(i):
    s = ""
    for _ in range(16):
        s = ULID[i % 32] + s
        i //= 32
    return "01KERPXZM0" + s


def runs(out, n):
    run = os.path.join(out, ".a5c", "runs", "run-big")
    os.makedirs(os.path.join(run, "journal"), exist_ok=True)
    with open(os.path.join(run, "run.json"), "w") as f:
        json.dump({"runId": "run-big", "processId": "bench/big",
                   "createdAt": "2026-01-01T00:00:00.000Z"}, f)
    seq = 0

    def event(kind, data, ms):
        nonlocal seq
        seq += 1
        ev = {"type": kind,
              "recordedAt": "2026-01-01T%02d:%02d:%02d.%03dZ"
              % (ms // 3600000 % 24, ms // 60000 % 60, ms // 1000 % 60, ms % 1000),
              "data": data}
        body = json.dumps(ev, indent=2, ensure_ascii=False) + "\n"
        ev["checksum"] = hashlib.sha256(body.encode()).hexdigest()
        name = "%06d.%s.json" % (seq, ulid(seq))
        with open(os.path.join(run, "journal", name), "w") as f:
            f.write(json.dumps(ev, indent=2, ensure_ascii=False) + "\n")

    event("RUN_CREATED", {"runId": "run-big", "processId": "bench/big"}, 0)
    for i in range(n):
        eid = "E%08d" % i
        event("EFFECT_REQUESTED", {"effectId": eid, "invocationKey": "bench/big:S%06d:t" % i,
                                   "stepId": "S%06d" % i, "taskId": "t", "kind": "node",
                                   "label": "step %d" % i, "labels": [],
                                   "taskDefRef": "tasks/%s/task.json" % eid}, 2 * i + 1)
        event("EFFECT_RESOLVED", {"effectId": eid, "status": "ok"}, 2 * i + 2)


def parallel(path, n):
    with open(path, "w") as f:
        f.write("import { defineTask } from '@a5c-ai/babysitter-sdk';\n")
        f.write("const t = defineTask('t', (a) => ({ kind: 'agent', title: 'T', labels: ['x'] }));\n")
        f.write("export async function process(inputs, ctx) {\n  const r = await ctx.parallel.all([\n")
        for i in range(n):
            f.write("    () => ctx.task(t, { i: %d }),\n" % i)
        f.write("  ]);\n  return r;\n}\n")


def line(path, size):
    head = ('import { defineTask } from "@a5c-ai/babysitter-sdk";'
            'const t=defineTask("t",(a)=>({kind:"agent",title:"T",labels:["x"]}));'
            'export async function process(inputs,ctx){')
    parts, total, i = [head], len(head), 0
    while total < size:
        s = "const r%d=await ctx.task(t,{i:%d});" % (i, i)
        parts.append(s)
        total += len(s)
        i += 1
    parts.append("return 1;}")
    with open(path, "w") as f:
        f.write("".join(parts))


def processes(out, n):
    os.makedirs(out, exist_ok=True)
    for i in range(n):
        d = os.path.join(out, "p%05d" % i)
        os.makedirs(d, exist_ok=True)
        with open(os.path.join(d, "tasks.js"), "w") as f:
            f.write("import { defineTask } from '@a5c-ai/babysitter-sdk';\n"
                    "export const build = defineTask('build-%d', (a) => ({\n"
                    "  kind: 'agent',\n  title: 'Build',\n}));\n" % i)
        with open(os.path.join(d, "process.js"), "w") as f:
            f.write("/**\n * @process bench/p%05d\n * @description Process %d\n */\n"
                    "import { build } from './tasks.js';\n"
                    "export async function process(inputs, ctx) {\n"
                    "  await ctx.breakpoint({ question: 'Ship %d?' });\n"
                    "  for (let i = 0; i < 3; i++) {\n"
                    "    await ctx.task(build, { i });\n"
                    "  }\n  return {};\n}\n" % (i, i, i))


if __name__ == "__main__":
    what, where, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
    {"runs": runs, "parallel": parallel, "line": line, "processes": processes}[what](where, n)
