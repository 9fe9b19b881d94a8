#!/usr/bin/env python3
"""Generate a deterministic benchmark corpus of babysitter process code.

Usage: gen_corpus.py OUT_DIR [FILES [SCALE]] [--seed N]

FILES (default 3200) is the number of files at scale 1; SCALE (default 1)
multiplies it. Files are generated project by project; every file's content
depends only on the seed and its project/file index, so the corpus at scale
2 contains the scale-1 corpus plus as many projects again (linear scaling is
measured on comparable content).

The corpus is a monorepo of projects. Each project has a package.json (SDK
pinned or ranged), `.a5c/processes/<slug>/` with an entry process (JSDoc
header, review/fix loops, breakpoints, parallel batches), phase helper
modules that receive `ctx`, task-definition modules (agent tasks with long
prompts and output schemas, shell tasks), helper modules exporting
instruction arrays, a SKILL.md or two, and ordinary application JavaScript
under `src/` (which proclint classifies by a byte scan and skips).

Breakpoint shapes are planted on purpose and counted in
`OUT_DIR/manifest.json`, so the benchmark can check that proclint and the
ESLint peer find what was planted:
  discarded_named   bare `await ctx.breakpoint(...)`, no await, `void ...`,
                    and the `passed = true` overwrite (context named ctx/context)
  unread_named      `const x = await ctx.breakpoint(...)`, x never read
  discarded_alias   bare breakpoint on a context passed to a same-module helper
                    under another name (proclint resolves it, a name-based
                    ESLint rule does not)
  feedback_only     result read only for `.feedback` (proclint only)
  checked           results that are branched on (must not be flagged)

Python 3.11 standard library only.
"""

from __future__ import annotations

import json
import os
import random
import sys

# Byte-scan markers proclint uses to classify JavaScript as process code
# (src/engine/discover.rs). Ordinary JS must contain none of them.
MARKERS = (
    "@a5c-ai/babysitter",
    "defineTask",
    "ctx.task(",
    "ctx.breakpoint(",
    "ctx.parallel.",
    "context.task(",
    "context.breakpoint(",
)

NOUNS = """spec implementation report module migration schema endpoint handler
service component test suite fixture pipeline artifact release changelog
dependency manifest lockfile config policy contract interface adapter client
server database index query cache queue worker job scheduler token session
permission role account invoice payment order cart product catalog search
ranking feature flag rollout experiment metric dashboard alert incident
runbook deployment cluster container image registry secret certificate
gateway router middleware validator serializer parser compiler bundle
stylesheet layout page route form field button modal tooltip translation
locale timezone currency webhook event stream topic partition consumer
producer snapshot backup restore audit log trace span budget threshold
baseline regression benchmark profile hotspot allocation leak""".split()

VERBS = """review implement verify refactor migrate document test validate
audit summarize compare reconcile update extract inline rename split merge
harden optimize profile instrument benchmark simplify consolidate deprecate
rewrite annotate classify prioritize triage reproduce isolate bisect patch
backport release publish deploy roll back monitor""".split()

ADJS = """failing flaky slow stale missing duplicated inconsistent undocumented
unbounded deprecated experimental critical minor legacy public internal
concurrent idempotent deterministic partial incremental strict lenient
backward-compatible breaking cached sharded encrypted localized accessible
responsive paginated versioned""".split()

ROLES = """senior backend engineer|staff frontend engineer|security reviewer|
QA automation engineer|technical writer|site reliability engineer|
database administrator|release manager|product analyst|spec auditor|
performance engineer|accessibility specialist|API designer|data engineer""".replace(
    "\n", ""
).split("|")

AREAS = """auth billing search checkout onboarding notifications reporting
inventory analytics payments catalog profile messaging scheduling exports
imports admin settings sync gateway""".split()

PROCESS_KINDS = """feature-delivery bug-triage spec-review migration-plan
release-train refactor-sweep docs-refresh security-audit perf-investigation
dependency-upgrade incident-postmortem api-hardening test-backfill
data-backfill i18n-rollout""".split()


class Gen:
    """One file's worth of deterministic text generation."""

    def __init__(self, seed: int):
        self.r = random.Random(seed)
        self.n = 0

    def uid(self) -> int:
        """A fresh suffix, so declarations never collide within a file."""
        self.n += 1
        return self.n

    def pick(self, xs):
        return self.r.choice(xs)

    def ident(self) -> str:
        a, b = self.pick(NOUNS), self.pick(NOUNS)
        return a + b[0].upper() + b[1:]

    def sentence(self, lo: int = 8, hi: int = 22) -> str:
        r = self.r
        n = r.randint(lo, hi)
        words = []
        for i in range(n):
            k = r.random()
            if i == 0:
                w = self.pick(VERBS).capitalize()
            elif k < 0.45:
                w = self.pick(NOUNS)
            elif k < 0.65:
                w = self.pick(ADJS)
            elif k < 0.8:
                w = self.pick(("the", "each", "every", "a", "any", "all"))
            else:
                w = self.pick(("and", "with", "for", "before", "after", "unless", "so that", "in", "against"))
            words.append(w)
        s = " ".join(words)
        if r.random() < 0.2:
            s += f" (see {self.pick(AREAS)}/{self.pick(NOUNS)}.md)"
        return s + "."

    def js_str(self, s: str) -> str:
        return "'" + s.replace("\\", "\\\\").replace("'", "\\'") + "'"

    def tpl(self, s: str) -> str:
        return "`" + s.replace("\\", "\\\\").replace("`", "\\`").replace("${", "\\${") + "`"


# --------------------------------------------------------------------------
# Task definitions


def schema_props(g: Gen, indent: str) -> str:
    r = g.r
    props = ["passed: { type: 'boolean' }", "issues: { type: 'array', items: { type: 'string' } }"]
    for _ in range(r.randint(3, 10)):
        name = g.ident()
        t = g.pick(("string", "number", "boolean", "array", "object"))
        if t == "array":
            props.append(
                f"{name}: {{ type: 'array', items: {{ type: 'object', properties: "
                f"{{ path: {{ type: 'string' }}, line: {{ type: 'number' }}, note: {{ type: 'string' }} }} }} }}"
            )
        elif t == "object":
            props.append(
                f"{name}: {{ type: 'object', properties: {{ {g.ident()}: {{ type: 'string' }}, "
                f"{g.ident()}: {{ type: 'number' }} }}, description: {g.js_str(g.sentence(5, 12))} }}"
            )
        else:
            props.append(f"{name}: {{ type: '{t}', description: {g.js_str(g.sentence(4, 14))} }}")
    return (",\n" + indent).join(props)


def agent_task(g: Gen, var: str, task_id: str, shared_schema: str | None) -> str:
    r = g.r
    role = g.pick(ROLES)
    n_instr = r.randint(12, 32)
    instr = ",\n          ".join(g.js_str(g.sentence()) for _ in range(n_instr))
    ctx_fields = ", ".join(
        f"{k}: args.{k}" for k in sorted({g.pick(NOUNS) for _ in range(r.randint(2, 6))})
    )
    labels = ", ".join(g.js_str(l) for l in sorted({g.pick(AREAS), g.pick(NOUNS), "agent"}))
    task_ctx_name = g.pick(("taskCtx", "taskCtx", "ctx", "tctx"))
    if shared_schema and r.random() < 0.3:
        schema = shared_schema
    else:
        schema = (
            "{\n        type: 'object',\n        required: ['passed', 'issues'],\n        properties: {\n          "
            + schema_props(g, "          ")
            + ",\n        },\n      }"
        )
    body = f"""{{
    kind: 'agent',
    title: `{g.pick(VERBS).capitalize()} {g.pick(NOUNS)}: ${{args.name}}`,
    labels: [{labels}],
    agent: {{
      name: '{g.pick(("general-purpose", "code-reviewer", "implementer", "planner", "writer"))}',
      prompt: {{
        role: {g.js_str(role)},
        task: {g.js_str(g.sentence(10, 30))},
        context: {{ {ctx_fields} }},
        instructions: [
          {instr},
          ...(args.instructions ?? []),
        ],
        outputFormat: 'JSON with passed, issues and the fields of the schema',
      }},
      outputSchema: {schema},
    }},
    io: {{
      inputJsonPath: `tasks/${{{task_ctx_name}.effectId}}/input.json`,
      outputJsonPath: `tasks/${{{task_ctx_name}.effectId}}/result.json`,
    }},
  }}"""
    if r.random() < 0.35:
        # Block-bodied factory with a return.
        pre = f"  const notes = [{g.js_str(g.sentence(6, 12))}, {g.js_str(g.sentence(6, 12))}];\n"
        return (
            f"export const {var} = defineTask('{task_id}', (args, {task_ctx_name}) => {{\n{pre}"
            f"  return {body.replace(chr(10), chr(10) + '  ')};\n}});\n"
        )
    return f"export const {var} = defineTask('{task_id}', (args, {task_ctx_name}) => ({body}));\n"


def shell_task(g: Gen, var: str, task_id: str) -> str:
    cmd = g.pick(
        (
            "npm test",
            "npm run lint",
            "npx tsc --noEmit",
            "npm run build",
            "pytest -q",
            "cargo test --workspace",
            "make check",
            "npm run test:e2e -- --reporter=dot",
        )
    )
    return f"""export const {var} = defineTask('{task_id}', (args, taskCtx) => ({{
  kind: 'shell',
  title: '{cmd}',
  labels: ['shell', '{g.pick(AREAS)}'],
  shell: {{ command: {g.js_str(cmd)}, cwd: args.cwd ?? '.', expectedExitCode: 0, timeoutMs: {g.r.randint(2, 30) * 60000} }},
  io: {{ outputJsonPath: `tasks/${{taskCtx.effectId}}/result.json` }},
}}));
"""


def task_module(g: Gen, area: str, n: int) -> tuple[str, list[str]]:
    r = g.r
    out = [
        "/**",
        f" * Task definitions for the {area} processes.",
        f" * {g.sentence()}",
        " */",
        "import { defineTask } from '@a5c-ai/babysitter-sdk';",
        "",
    ]
    shared = None
    if r.random() < 0.5:
        shared = f"{area.upper()}_RESULT_SCHEMA"
        out.append(
            f"const {shared} = {{\n  type: 'object',\n  required: ['passed', 'issues'],\n  properties: {{\n    "
            + schema_props(g, "    ")
            + ",\n  },\n};\n"
        )
    names = []
    for i in range(n):
        var = f"{g.pick(VERBS)}{g.pick(NOUNS).capitalize()}Task{i}"
        tid = f"{area}-{var.lower()}"
        if r.random() < 0.2:
            out.append(shell_task(g, var, tid))
        else:
            out.append(agent_task(g, var, tid, shared))
        names.append(var)
    return "\n".join(out) + "\n", names


def instructions_module(g: Gen, area: str) -> str:
    """Helper module exporting instruction arrays (no SDK import: proclint's
    byte scan classifies it as ordinary JavaScript)."""
    r = g.r
    out = [f"// Shared instruction arrays for {area} prompts.", ""]
    for _ in range(r.randint(3, 8)):
        name = f"{g.pick(NOUNS).upper()}_{g.pick(VERBS).upper()}_INSTRUCTIONS"
        items = ",\n  ".join(g.js_str(g.sentence()) for _ in range(r.randint(6, 18)))
        out.append(f"export const {name} = [\n  {items},\n];\n")
    out.append(
        "export function withChecklist(base, extra = []) {\n  return [...base, ...extra, 'Report every open question.'];\n}\n"
    )
    return "\n".join(out)


# --------------------------------------------------------------------------
# Process code: loops, breakpoints, batches


class Plant:
    def __init__(self):
        self.c = {
            "discarded_named": 0,
            "unread_named": 0,
            "discarded_alias": 0,
            "feedback_only": 0,
            "checked": 0,
        }


def bp_payload(g: Gen) -> str:
    q = g.sentence(5, 12)[:-1] + "?"
    parts = [f"question: {g.js_str(q)}", f"title: {g.js_str(g.pick(VERBS).capitalize() + ' gate')}"]
    if g.r.random() < 0.6:
        parts.append("context: { runId: ctx.runId, files: [" + ", ".join(
            g.js_str(f"{g.pick(AREAS)}/{g.pick(NOUNS)}.js") for _ in range(g.r.randint(1, 4))) + "] }")
    if g.r.random() < 0.4:
        parts.append("options: ['Approve', 'Request changes', 'Abort']")
    return "{ " + ", ".join(parts) + " }"


def bp_opts(g: Gen) -> str:
    if g.r.random() < 0.5:
        return f", {{ breakpointId: '{g.pick(AREAS)}.{g.pick(NOUNS)}-{g.r.randint(1, 999)}' }}"
    return ""


def breakpoint_block(g: Gen, p: Plant, ctx: str, indent: str, bad_rate: float) -> str:
    """One breakpoint in one of the planted shapes."""
    r = g.r
    i = indent
    v = g.pick(("decision", "approval", "gate", "answer", "review"))
    v = f"{v}{g.uid()}"
    if r.random() >= bad_rate:
        p.c["checked"] += 1
        shape = r.randint(0, 4)
        if shape == 0:
            return (
                f"{i}const {v} = await {ctx}.breakpoint({bp_payload(g)}{bp_opts(g)});\n"
                f"{i}if (!{v}.approved) {{\n{i}  return {{ success: false, feedback: {v}.feedback }};\n{i}}}\n"
            )
        if shape == 1:
            return (
                f"{i}if ((await {ctx}.breakpoint({bp_payload(g)}{bp_opts(g)})).approved) {{\n"
                f"{i}  {ctx}.log('approved');\n{i}}}\n"
            )
        if shape == 2:
            return (
                f"{i}{{\n{i}  const {{ approved, feedback }} = await {ctx}.breakpoint({bp_payload(g)});\n"
                f"{i}  if (!approved) throw new Error(`rejected: ${{feedback ?? 'no reason'}}`);\n{i}}}\n"
            )
        if shape == 3:
            return f"{i}const {v} = await {ctx}.breakpoint({bp_payload(g)});\n{i}recordDecision({v});\n"
        return (
            f"{i}const {v} = await {ctx}.breakpoint({bp_payload(g)}{bp_opts(g)});\n"
            f"{i}if ({v}?.option === 'Abort') {ctx}.halt('aborted by reviewer');\n"
        )
    shape = r.random()
    if shape < 0.45:
        p.c["discarded_named"] += 1
        return f"{i}await {ctx}.breakpoint({bp_payload(g)}{bp_opts(g)});  // result discarded\n"
    if shape < 0.55:
        p.c["discarded_named"] += 1
        kw = g.pick(("void ", ""))
        return f"{i}{kw}{ctx}.breakpoint({bp_payload(g)});\n"
    if shape < 0.75:
        p.c["unread_named"] += 1
        return f"{i}const {v} = await {ctx}.breakpoint({bp_payload(g)});\n{i}{ctx}.log('gate passed');\n"
    p.c["feedback_only"] += 1
    return f"{i}const {v} = await {ctx}.breakpoint({bp_payload(g)});\n{i}{ctx}.log({v}.feedback);\n"


def review_loop(g: Gen, p: Plant, ctx: str, review: str, fix: str, indent: str) -> str:
    r = g.r
    i = indent
    if r.random() < 0.65:
        n = g.uid()
        s = (
            f"{i}let outcome{n} = 'failed';\n{i}const attempts{n} = [];\n"
            f"{i}for (let round = 1; round <= (inputs.maxRounds ?? {r.randint(2, 6)}); round++) {{\n"
            f"{i}  const result = await {ctx}.task({review}, {{ name: inputs.name, report }}, {{ key: `{review}-${{round}}` }});\n"
            f"{i}  if (result.passed) {{ outcome{n} = 'passed'; break; }}\n"
            f"{i}  attempts{n}.push({{ round, issues: result.issues }});\n"
            f"{i}  report = await {ctx}.task({fix}, {{ name: inputs.name, issues: result.issues, priorAttempts: attempts{n} }}, {{ key: `{fix}-${{round}}` }});\n"
            f"{i}}}\n"
            f"{i}if (outcome{n} !== 'passed') {{\n"
            + breakpoint_block(g, p, ctx, i + "  ", 0.3)
            + f"{i}}}\n"
        )
        return s
    n = g.uid()
    s = (
        f"{i}let passed{n} = false;\n"
        f"{i}while (!passed{n}) {{\n"
        f"{i}  const result = await {ctx}.task({review}, {{ name: inputs.name, report }});\n"
        f"{i}  if (result.passed) break;\n"
        f"{i}  report = await {ctx}.task({fix}, {{ name: inputs.name, issues: result.issues }});\n"
        f"{i}}}\n"
    )
    if r.random() < 0.5:
        p.c["discarded_named"] += 1
        s += f"{i}await {ctx}.breakpoint({{ question: 'Ship it?', title: 'Final gate' }});\n{i}passed{n} = true;\n"
    else:
        s += breakpoint_block(g, p, ctx, i, 0.5)
    return s


def parallel_batch(g: Gen, ctx: str, tasks: list[str], indent: str) -> str:
    i = indent
    n = g.uid()
    if g.r.random() < 0.5:
        t = g.pick(tasks)
        return (
            f"{i}const results{n} = await {ctx}.parallel.map(inputs.{g.pick(NOUNS)}s ?? [], (item, idx) =>\n"
            f"{i}  {ctx}.task({t}, {{ item, instructions: {g.pick(NOUNS).upper()}_NOTES }}, {{ key: `{t}-${{idx}}` }}));\n"
            f"{i}const failed{n} = results{n}.filter((x) => !x.passed);\n"
        )
    calls = ",\n".join(
        f"{i}  () => {ctx}.task({t}, {{ name: inputs.name, {g.pick(NOUNS)}: inputs.{g.pick(NOUNS)} }})"
        for t in g.r.sample(tasks, min(len(tasks), g.r.randint(2, 4)))
    )
    return f"{i}const [first{n}, ...rest{n}] = await {ctx}.parallel.all([\n{calls},\n{i}]);\n"


def noise(g: Gen, indent: str) -> str:
    """Plain code between effects: string building, conditionals, logging."""
    r = g.r
    i = indent
    k = r.randint(0, 3)
    v = f"{g.pick(NOUNS)}{g.uid()}"
    if k == 0:
        items = ", ".join(g.js_str(g.sentence(4, 9)) for _ in range(r.randint(2, 5)))
        return f"{i}const {v} = [{items}].join('\\n');\n"
    if k == 1:
        return (
            f"{i}const {v} = Object.entries(inputs.{g.pick(NOUNS)} ?? {{}})\n"
            f"{i}  .filter(([key, value]) => value != null && !key.startsWith('_'))\n"
            f"{i}  .map(([key, value]) => `${{key}}=${{JSON.stringify(value)}}`);\n"
        )
    if k == 2:
        return (
            f"{i}if (inputs.{g.pick(ADJS).replace('-', '')}Mode) {{\n"
            f"{i}  report = {{ ...report, note: {g.js_str(g.sentence(6, 14))} }};\n{i}}}\n"
        )
    return f"{i}ctx.log({g.js_str(g.sentence(4, 10))}, {{ phase: '{g.pick(VERBS)}' }});\n"


def process_body(g: Gen, p: Plant, ctx: str, tasks: list[str], indent: str, blocks: int) -> str:
    r = g.r
    out = []
    for _ in range(blocks):
        k = r.random()
        if k < 0.3:
            out.append(review_loop(g, p, ctx, g.pick(tasks), g.pick(tasks), indent))
        elif k < 0.5:
            out.append(parallel_batch(g, ctx, tasks, indent))
        elif k < 0.7:
            out.append(breakpoint_block(g, p, ctx, indent, 0.35))
        else:
            t = g.pick(tasks)
            key = f", {{ key: '{t}-{r.randint(1, 99)}' }}" if r.random() < 0.5 else ""
            out.append(
                f"{indent}const {g.pick(NOUNS)}Result{g.uid()} = await {ctx}.task({t}, {{ name: inputs.name, report }}{key});\n"
            )
        out.append(noise(g, indent))
        if ctx != "ctx":
            out[-1] = out[-1].replace("ctx.log(", f"{ctx}.log(")
    return "".join(out)


def imports(g: Gen, area: str, tasks: list[str], cjs: bool) -> str:
    if cjs:
        return (
            "const { defineTask } = require('@a5c-ai/babysitter-sdk');\n"
            f"const {{ {', '.join(tasks)} }} = require('./tasks/{area}-tasks.js');\n"
        )
    return (
        "import { defineTask } from '@a5c-ai/babysitter-sdk';\n"
        f"import {{ {', '.join(tasks)} }} from './tasks/{area}-tasks.js';\n"
    )


def entry_module(g: Gen, p: Plant, slug: str, area: str, tasks: list[str], phases: list[str]) -> str:
    r = g.r
    cjs = r.random() < 0.15
    ctx = g.pick(("ctx", "ctx", "ctx", "context"))
    hdr = [
        "/**",
        f" * @process {g.pick(AREAS)}/{slug}",
        f" * @description {g.sentence(10, 24)}",
        f" * @inputs {{ name: string, spec: string, maxRounds: number, {g.pick(NOUNS)}s: string[] }}",
        " * @outputs { success: boolean, report: object }",
    ]
    if r.random() < 0.5:
        sk = g.pick(NOUNS)
        hdr.append(f" * @skill {sk} skills/{sk}/SKILL.md")
    hdr.append(" */")
    body = imports(g, area, tasks, cjs)
    if not cjs:
        body += "".join(f"import {{ {ph} }} from './phases/{ph}.js';\n" for ph in phases)
    else:
        body += "".join(f"const {{ {ph} }} = require('./phases/{ph}.js');\n" for ph in phases)
    notes = set()
    consts = ""
    # Parallel batches reference NOUN_NOTES constants; define all of them.
    body_code = process_body(g, p, ctx, tasks, "  ", r.randint(16, 48))
    for w in NOUNS:
        if f"{w.upper()}_NOTES" in body_code:
            notes.add(w)
    for w in sorted(notes):
        consts += f"const {w.upper()}_NOTES = [{g.js_str(g.sentence())}, {g.js_str(g.sentence())}];\n"
    consts += "function recordDecision(d) {\n  return { approved: d.approved, at: d.respondedBy };\n}\n"
    # A same-module helper receiving the context under another name.
    alias = ""
    alias_calls = ""
    if r.random() < 0.3:
        cname = g.pick(("c", "runCtx", "processContext", "io"))
        hname = f"gate{g.pick(NOUNS).capitalize()}"
        if r.random() < 0.5:
            p.c["discarded_alias"] += 1
            inner = f"  await {cname}.breakpoint({{ question: label, title: 'Phase gate' }});\n  return label;\n"
        else:
            p.c["checked"] += 1
            inner = f"  const d = await {cname}.breakpoint({{ question: label }});\n  return d.approved;\n"
        alias = f"async function {hname}({cname}, label) {{\n{inner}}}\n"
        alias_calls = f"  await {hname}({ctx}, {g.js_str(g.sentence(4, 8))});\n"
    phase_calls = "".join(f"  report = await {ph}(inputs, {ctx}, report);\n" for ph in phases)
    export = "module.exports = { process };\n" if cjs else ""
    fn = "async function process" if cjs else "export async function process"
    return (
        "\n".join(hdr)
        + "\n"
        + body
        + "\n"
        + consts
        + alias
        + f"\n{fn}(inputs, {ctx}) {{\n  let report = {{ name: inputs.name, spec: inputs.spec }};\n"
        + body_code
        + alias_calls
        + phase_calls
        + "  return { success: true, report };\n}\n"
        + export
    )


def phase_module(g: Gen, p: Plant, name: str, area: str, tasks: list[str]) -> str:
    r = g.r
    cjs = False
    ctx = "ctx" if r.random() < 0.8 else "context"
    code = process_body(g, p, ctx, tasks, "  ", r.randint(10, 36))
    notes = sorted(w for w in NOUNS if f"{w.upper()}_NOTES" in code)
    consts = "".join(
        f"const {w.upper()}_NOTES = [{g.js_str(g.sentence())}];\n" for w in notes
    )
    consts += "function recordDecision(d) {\n  return { approved: d.approved };\n}\n"
    return (
        f"// Phase helper: {g.sentence(6, 14)}\n"
        + imports(g, area, tasks, cjs).replace("./tasks/", "../tasks/")
        + "\n"
        + consts
        + f"\nexport async function {name}(inputs, {ctx}, report) {{\n"
        + code
        + "  return report;\n}\n"
    )


# --------------------------------------------------------------------------
# Non-process files


def skill_md(g: Gen, name: str) -> str:
    r = g.r
    steps = "\n".join(f"{n + 1}. {g.sentence()}" for n in range(r.randint(4, 12)))
    loop = (
        "Fix round R of 5: rounds 1-3 resume the implementer, 4-5 dispatch a fresh one; "
        "after round 5 the controller adjudicates each open finding and records it."
        if r.random() < 0.6
        else "Reviewer reviews again - repeat until approved."
    )
    return f"""---
name: {name}
description: {g.sentence(8, 16)}
license: MIT
allowed-tools: Read, Grep, Bash
---

# {name}

{g.sentence(12, 30)} {g.sentence(12, 30)}

## Steps

{steps}

## Review loop

{loop}

See [the prompt template](./prompt.md) and `scripts/check.sh`.
"""


def package_json(g: Gen, name: str) -> str:
    r = g.r
    ver = g.pick(("0.0.168", "^0.0.168", "0.0.170", "^0.3.1", "~1.2.3", "1.4.0"))
    return json.dumps(
        {
            "name": name,
            "version": f"1.{r.randint(0, 20)}.{r.randint(0, 9)}",
            "private": True,
            "type": "module",
            "scripts": {"test": "node --test", "lint": "proclint check ."},
            "dependencies": {"@a5c-ai/babysitter-sdk": ver, g.pick(NOUNS): f"^{r.randint(1, 9)}.0.0"},
        },
        indent=2,
    ) + "\n"


def ordinary_js(g: Gen) -> str:
    """Application JavaScript: no SDK, no process context."""
    r = g.r
    out = [f"// {g.sentence(6, 12)}", "import path from 'node:path';", ""]
    for k in range(r.randint(4, 14)):
        name = f"{g.pick(VERBS)}{g.pick(NOUNS).capitalize()}{k}"
        shape = r.randint(0, 3)
        if shape == 0:
            # Koa-style middleware: a `ctx` that is not a process context.
            out.append(
                f"export async function {name}(ctx, next) {{\n"
                f"  const started = Date.now();\n  await next();\n"
                f"  ctx.set('x-response-time', `${{Date.now() - started}}ms`);\n"
                f"  ctx.body = {{ ok: true, message: {g.js_str(g.sentence(4, 10))} }};\n}}\n"
            )
        elif shape == 1:
            fields = ", ".join(f"{g.pick(NOUNS)}: {r.randint(0, 1000)}" for _ in range(r.randint(2, 8)))
            out.append(f"export const {name.upper()}_DEFAULTS = Object.freeze({{ {fields} }});\n")
        elif shape == 2:
            out.append(
                f"export function {name}(items, opts = {{}}) {{\n"
                f"  const seen = new Map();\n"
                f"  for (const item of items) {{\n"
                f"    const key = path.join(opts.root ?? '.', String(item.id));\n"
                f"    if (seen.has(key)) continue;\n"
                f"    seen.set(key, {{ ...item, label: {g.js_str(g.sentence(3, 7))} }});\n  }}\n"
                f"  return [...seen.values()].sort((a, b) => a.id - b.id);\n}}\n"
            )
        else:
            out.append(
                f"export class {name[0].upper() + name[1:]} {{\n"
                f"  constructor(client) {{ this.client = client; this.cache = new Map(); }}\n"
                f"  async get(id) {{\n    if (this.cache.has(id)) return this.cache.get(id);\n"
                f"    const res = await this.client.request({{ method: 'GET', url: `/{g.pick(NOUNS)}s/${{id}}` }});\n"
                f"    this.cache.set(id, res.data);\n    return res.data;\n  }}\n}}\n"
            )
    return "\n".join(out)


# --------------------------------------------------------------------------


def project(seed: int, pidx: int, root: str, p: Plant, stats: dict) -> int:
    g = Gen(seed * 1_000_003 + pidx)
    r = g.r
    area = g.pick(AREAS)
    slug = f"{g.pick(PROCESS_KINDS)}-{pidx}"
    proj = os.path.join(root, f"repo-{pidx:05d}")
    proc = os.path.join(proj, ".a5c", "processes", slug)
    files: list[tuple[str, str]] = []

    n_task_mods = r.randint(3, 5)
    all_tasks: list[str] = []
    for m in range(n_task_mods):
        a = area if m == 0 else f"{area}{m}"
        text, names = task_module(g, a, r.randint(5, 12))
        files.append((os.path.join(proc, "tasks", f"{a}-tasks.js"), text))
        if m == 0:
            all_tasks = names
    phases = [f"{g.pick(VERBS)}{g.pick(NOUNS).capitalize()}Phase" for _ in range(r.randint(2, 5))]
    phases = list(dict.fromkeys(phases))
    for ph in phases:
        files.append((os.path.join(proc, "phases", f"{ph}.js"), phase_module(g, p, ph, area, all_tasks)))
    entry = entry_module(g, p, slug, area, all_tasks, phases)
    ext = "cjs" if "module.exports" in entry else "js"
    files.append((os.path.join(proc, f"{slug}.process.{ext}"), entry))
    if r.random() < 0.6:
        files.append((os.path.join(proc, "instructions", f"{area}.js"), instructions_module(g, area)))
    for _ in range(r.choice((0, 1, 1, 2))):
        sk = f"{g.pick(VERBS)}-{g.pick(NOUNS)}"
        files.append((os.path.join(proc, "skills", sk, "SKILL.md"), skill_md(g, sk)))
    files.append((os.path.join(proj, "package.json"), package_json(g, f"repo-{pidx}")))
    for k in range(r.choice((0, 0, 1, 1, 2, 3))):
        files.append((os.path.join(proj, "src", f"{g.pick(NOUNS)}-{k}.js"), ordinary_js(g)))

    for path, text in files:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        data = text.encode("utf-8")
        with open(path, "wb") as f:
            f.write(data)
        kind = classify(path, data)
        stats[kind]["files"] += 1
        stats[kind]["bytes"] += len(data)
    return len(files)


def classify(path: str, data: bytes) -> str:
    base = os.path.basename(path)
    if base == "SKILL.md":
        return "skill"
    if base == "package.json":
        return "manifest"
    if any(m.encode() in data for m in MARKERS):
        return "process"
    return "ordinary_js"


def main(argv: list[str]) -> int:
    args = [a for a in argv[1:] if not a.startswith("--seed")]
    seed = 20240601
    for a in argv[1:]:
        if a.startswith("--seed="):
            seed = int(a.split("=", 1)[1])
    if not args or args[0] in ("-h", "--help"):
        print(__doc__)
        return 0 if args else 2
    out = args[0]
    files = int(args[1]) if len(args) > 1 else 3200
    scale = int(args[2]) if len(args) > 2 else 1
    target = files * scale
    os.makedirs(out, exist_ok=True)
    p = Plant()
    stats = {k: {"files": 0, "bytes": 0} for k in ("process", "ordinary_js", "skill", "manifest")}
    total = 0
    pidx = 0
    while total < target:
        total += project(seed, pidx, out, p, stats)
        pidx += 1
    manifest = {
        "seed": seed,
        "files_per_scale": files,
        "scale": scale,
        "projects": pidx,
        "files": total,
        "bytes": sum(s["bytes"] for s in stats.values()),
        "by_kind": stats,
        "planted_breakpoints": p.c,
        # What each tool should report as discarded/unread breakpoints.
        "expected": {
            "eslint_no_unchecked_breakpoint": p.c["discarded_named"] + p.c["unread_named"],
            "proclint_discarded_or_unread": p.c["discarded_named"] + p.c["unread_named"] + p.c["discarded_alias"],
            "proclint_unchecked_breakpoint": p.c["discarded_named"] + p.c["unread_named"]
            + p.c["discarded_alias"] + p.c["feedback_only"],
        },
    }
    with open(os.path.join(out, "manifest.json"), "w") as f:
        json.dump(manifest, f, indent=2)
        f.write("\n")
    print(json.dumps({k: manifest[k] for k in ("files", "bytes", "by_kind", "expected")}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
