#!/usr/bin/env python3
"""Regenerate the synthetic babysitter run directories under fixtures/runs/.

Usage: python3 scripts/gen_run_fixtures.py [OUT_DIR]   (default: fixtures/runs)

Stdlib only. Journals are written the way the SDK writes them: each event is
JSON.stringify(event, null, 2) + "\n" and its checksum is the SHA-256 of the
same text without the checksum key. The serializer below mirrors
JSON.stringify rather than json.dumps, because the two disagree on floats
(Python writes 1.0, 1e-07 and 1e+16 where JS writes 1, 1e-7 and
10000000000000000).

Layout:
  project/.a5c/runs/<id>      one run per status (completed/failed/halted/in-progress)
  convergence/.a5c/runs/<id>  one run per convergence class, plus the healthy shapes
  integrity/.a5c/runs/<id>    runs with hand-broken journals
  retro/.a5c/runs/<id>        runs of the process source committed in retro/

Everything is deterministic (fixed clock, counter-based ULIDs), so
regenerating produces byte-identical files.
"""

from __future__ import annotations

import hashlib
import math
import shutil
import sys
from datetime import datetime, timedelta, timezone
from pathlib import Path

CROCKFORD = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
SDK_VERSION = "0.0.170"


# --- JSON.stringify(value, null, 2) -------------------------------------------------


def js_number(x: int | float) -> str:
    if isinstance(x, bool):
        raise TypeError("bool is not a number")
    if isinstance(x, int):
        return str(x)
    if math.isnan(x) or math.isinf(x):
        return "null"  # what JSON.stringify does
    if x == 0:
        return "0"
    # repr gives the shortest round-trip digits; re-lay them out the JS way
    # (Number.prototype.toString, ECMA-262 7.1.12.1).
    sign = "-" if x < 0 else ""
    mantissa, _, exp = repr(abs(x)).partition("e")
    int_part, _, frac = mantissa.partition(".")
    digits = (int_part + frac).lstrip("0")
    # n: where the decimal point sits relative to the first significant digit.
    if int_part == "0":
        point = -(len(frac) - len(frac.lstrip("0")))
    else:
        point = len(int_part)
    point += int(exp) if exp else 0
    digits = digits.rstrip("0") or "0"
    k, n = len(digits), point
    if k <= n <= 21:
        out = digits + "0" * (n - k)
    elif 0 < n <= 21:
        out = digits[:n] + "." + digits[n:]
    elif -6 < n <= 0:
        out = "0." + "0" * (-n) + digits
    else:
        e = n - 1
        e_str = ("+" if e >= 0 else "-") + str(abs(e))
        out = digits[0] + ("." + digits[1:] if k > 1 else "") + "e" + e_str
    return sign + out


def js_string(s: str) -> str:
    out = ['"']
    short = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\f": "\\f", "\r": "\\r"}
    for ch in s:
        if ch in short:
            out.append(short[ch])
        elif ord(ch) < 0x20:
            out.append("\\u%04x" % ord(ch))
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def js_stringify(value, depth: int = 0) -> str:
    pad = "  " * (depth + 1)
    end = "  " * depth
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, (int, float)):
        return js_number(value)
    if isinstance(value, str):
        return js_string(value)
    if isinstance(value, list):
        if not value:
            return "[]"
        items = ",\n".join(pad + js_stringify(v, depth + 1) for v in value)
        return "[\n" + items + "\n" + end + "]"
    if isinstance(value, dict):
        if not value:
            return "{}"
        items = ",\n".join(pad + js_string(k) + ": " + js_stringify(v, depth + 1) for k, v in value.items())
        return "{\n" + items + "\n" + end + "}"
    raise TypeError(f"cannot serialize {type(value)}")


def self_test() -> None:
    cases = {
        1.0: "1", 0.1: "0.1", 1e-7: "1e-7", 1e16: "10000000000000000", 1e21: "1e+21",
        123.456: "123.456", -0.000001: "-0.000001", 1.5e-10: "1.5e-10", 2.5e22: "2.5e+22",
        100.0: "100", 0.001234: "0.001234",
    }
    for x, want in cases.items():
        got = js_number(x)
        assert got == want, (x, got, want)


# --- deterministic ids and clock ----------------------------------------------------


def ulid(ms: int, counter: int) -> str:
    t = "".join(CROCKFORD[(ms >> (5 * (9 - i))) & 31] for i in range(10))
    r = "".join(CROCKFORD[(counter >> (5 * (15 - i))) & 31] for i in range(16))
    return t + r


def iso(t: datetime) -> str:
    return t.strftime("%Y-%m-%dT%H:%M:%S.") + "%03dZ" % (t.microsecond // 1000)


# --- a tiny run writer mirroring the SDK's files ------------------------------------


class RunWriter:
    def __init__(self, root: Path, run_id: str, process_id: str, start: datetime, entry: str = "process.js"):
        self.dir = root / ".a5c" / "runs" / run_id
        self.run_id = run_id
        self.process_id = process_id
        self.now = start
        self.seq = 0
        self.counter = 0
        self.step = 0
        self.pending: dict[str, tuple[str, str]] = {}
        (self.dir / "journal").mkdir(parents=True, exist_ok=True)
        self.write_json(
            "run.json",
            {
                "runId": run_id,
                "processId": process_id,
                "entrypoint": {"importPath": "../../../" + entry, "exportName": "process"},
                "layoutVersion": "2026.01",
                "createdAt": iso(start),
            },
        )
        self.write_json("inputs.json", {"feature": "login form", "maxRounds": 5})
        self.event("RUN_CREATED", {"runId": run_id, "processId": process_id, "entrypoint": "process.js"}, sdk_version=True)

    def write_json(self, rel: str, value) -> None:
        path = self.dir / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(js_stringify(value) + "\n", encoding="utf-8")

    def tick(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)

    def next_id(self) -> str:
        self.counter += 1
        return ulid(int(self.now.timestamp() * 1000), self.counter)

    def event(self, event_type: str, data: dict, sdk_version: bool = False) -> Path:
        self.seq += 1
        payload = {"type": event_type, "recordedAt": iso(self.now), "data": data}
        if sdk_version:
            payload["sdkVersion"] = SDK_VERSION
        body = js_stringify(payload) + "\n"
        payload["checksum"] = hashlib.sha256(body.encode("utf-8")).hexdigest()
        name = "%06d.%s.json" % (self.seq, self.next_id())
        path = self.dir / "journal" / name
        path.write_text(js_stringify(payload) + "\n", encoding="utf-8")
        self.tick(0.005)
        return path

    def request(self, task_id: str, kind: str, title: str, label: str | None = None, labels=None, args=None) -> str:
        effect_id = self.next_id()
        self.step += 1
        invocation_key = f"{self.process_id}:S{self.step:06d}:{task_id}"
        task = {
            "schemaVersion": "2026.01.tasks-v1",
            "effectId": effect_id,
            "taskId": task_id,
            "invocationKey": invocation_key,
            "stepId": f"S{self.step:06d}",
            "kind": kind,
            "title": title,
        }
        if labels:
            task["labels"] = sorted(labels)
        if args is not None:
            task["inputs"] = args
        self.write_json(f"tasks/{effect_id}/task.json", task)
        data = {
            "effectId": effect_id,
            "invocationKey": invocation_key,
            "stepId": f"S{self.step:06d}",
            "taskId": task_id,
            "kind": kind,
        }
        if label:
            data["label"] = label
        if labels:
            data["labels"] = labels
        data["taskDefRef"] = f"tasks/{effect_id}/task.json"
        self.event("EFFECT_REQUESTED", data)
        self.pending[effect_id] = (task_id, iso(self.now))
        return effect_id

    def resolve(self, effect_id: str, value=None, error: str | None = None, after: float = 30.0) -> None:
        task_id, started = self.pending.pop(effect_id)
        self.tick(after)
        finished = iso(self.now)
        result = {
            "schemaVersion": "2026.01.results-v1",
            "effectId": effect_id,
            "taskId": task_id,
            "status": "error" if error else "ok",
        }
        if error:
            result["error"] = {"name": "TaskError", "message": error}
        else:
            result["result"] = value
            result["value"] = value
        result["startedAt"] = started
        result["finishedAt"] = finished
        self.write_json(f"tasks/{effect_id}/result.json", result)
        data = {"effectId": effect_id, "status": "error" if error else "ok", "resultRef": f"tasks/{effect_id}/result.json"}
        if error:
            data["error"] = {"name": "TaskError", "message": error}
        data["startedAt"] = started
        data["finishedAt"] = finished
        self.event("EFFECT_RESOLVED", data)

    def task(self, task_id: str, kind: str, title: str, value=None, error=None, after=30.0, **kw) -> str:
        eid = self.request(task_id, kind, title, **kw)
        self.resolve(eid, value=value, error=error, after=after)
        return eid

    def breakpoint(self, label: str, question: str, decision: dict | None, after: float = 120.0) -> str:
        eid = self.request("__sdk.breakpoint", "breakpoint", label, label=label)
        if decision is not None:
            self.resolve(eid, value=decision, after=after)
        return eid

    def log(self, message: str) -> None:
        self.event("PROCESS_LOG", {"level": "info", "message": message})

    def complete(self, output=None) -> None:
        self.tick(1)
        self.event("RUN_COMPLETED", {"outputRef": "state/output.json", "output": output or {"success": True}})

    def fail(self, message: str) -> None:
        self.tick(1)
        self.event("RUN_FAILED", {"error": {"name": "Error", "message": message}})

    def halt(self, reason: str) -> None:
        self.tick(1)
        self.event("RUN_HALTED", {"reason": reason})


T0 = datetime(2026, 1, 12, 9, 0, 0, tzinfo=timezone.utc)


# --- runs for every status ----------------------------------------------------------


def project_runs(root: Path) -> None:
    # completed: plan → implement → tests → approved gate, with a long human wait.
    r = RunWriter(root, "run-completed", "acme/feature-delivery", T0)
    r.log("starting feature delivery")
    # Exercise the serializer where JS and naive writers differ: floats,
    # non-ASCII, U+2028, control characters, empty containers.
    r.event(
        "PROCESS_LOG",
        {
            "level": "info",
            "message": "résumé ✓ — “quotes” \u2028 tab\there \u0001",
            "metrics": {"progress": 0.5, "ratio": 1e-7, "big": 1e21, "whole": 3.0, "tokens": 12345, "neg": -0.25},
            "empty": {"list": [], "map": {}},
        },
    )
    r.task("plan", "agent", "Plan: login form", {"steps": ["form", "validation", "tests"], "confidence": 0.85}, after=95.5)
    r.task(
        "implement",
        "agent",
        "Implement: login form — résumé ✓",
        {"filesModified": ["src/login.js", "src/login.css"], "summary": "Form with \"remember me\"\u2028done", "ratio": 1e-7, "big": 1e21},
        after=610,
        labels=["impl", "agent"],
    )
    r.task("run-tests", "shell", "npm test", {"exitCode": 0, "passed": True, "coverage": 87.5}, after=42)
    r.breakpoint("delivery.final-gate", "Ship it?", {"approved": True, "respondedBy": "dana"}, after=7260)
    r.complete({"success": True})

    # failed: the build task errors and the process gives up.
    r = RunWriter(root, "run-failed", "acme/feature-delivery", T0 + timedelta(hours=3))
    r.task("plan", "agent", "Plan: checkout", {"steps": ["cart"]}, after=60)
    r.task("build", "shell", "npm run build", error="exit code 2: Cannot find module './cart'", after=12)
    r.fail("build failed: exit code 2")

    # halted: a rejected breakpoint halts the run.
    r = RunWriter(root, "run-halted", "acme/release", T0 + timedelta(hours=1))
    r.task("changelog", "agent", "Draft changelog", {"entries": 3}, after=20)
    r.breakpoint("release.approve", "Publish 2.0?", {"approved": False, "feedback": "Wait for the security review"}, after=900)
    r.halt("release rejected at breakpoint")

    # in-progress: one effect resolved, one still running, a breakpoint waiting.
    r = RunWriter(root, "run-in-progress", "acme/data-migration", T0 + timedelta(hours=5))
    r.task("snapshot", "shell", "pg_dump", {"bytes": 1048576}, after=300)
    r.request("migrate", "shell", "Run migrations")
    r.breakpoint("migration.confirm", "Proceed with cut-over?", None)


# --- convergence shapes -------------------------------------------------------------


def review_loop(r: RunWriter, rounds: list[dict], check_id="spec-review", fix_id="fix", label="review round {n}", files=None):
    """Dispatches check, then a fix after every failing round except the last."""
    for i, result in enumerate(rounds, start=1):
        r.task(check_id, "agent", f"Spec review (round {i})", result, after=50, label=label.format(n=i))
        last = i == len(rounds)
        failing = not any(result.get(k) is True for k in ("passed", "approved", "allPassing", "passesQuality")) and result.get("status") != "passed"
        if failing and not last:
            fix = {"summary": f"fix round {i}"}
            if files:
                fix["filesModified"] = [f"src/f{j}.js" for j in range(files[i - 1])]
            r.task(fix_id, "agent", f"Fix (round {i})", fix, after=200, label=f"fix round {i}")


def convergence_runs(root: Path) -> None:
    def run(run_id: str, hours: int) -> RunWriter:
        w = RunWriter(root, run_id, "acme/review-loop", T0 + timedelta(days=1, hours=hours))
        w.task("implement", "agent", "Implement feature", {"filesModified": ["src/a.js"]}, after=300)
        return w

    r = run("conv-converged-first", 0)
    review_loop(r, [{"passed": True, "issues": []}])
    r.complete()

    # N independent failures, each fixed once: shrinking set, nothing returns.
    r = run("conv-independent-fixes", 1)
    four = [
        "Missing test for 'parseConfig'",
        "Handler in src/api/login.js:40 swallows errors",
        "No input validation on email",
        "README lacks setup section",
    ]
    review_loop(r, [{"passed": False, "issues": four[i:]} for i in range(4)] + [{"passed": True, "issues": []}])
    r.complete()

    # A fixed → B appears once → B fixed.
    r = run("conv-progressive", 2)
    review_loop(
        r,
        [
            {"approved": False, "findings": [{"message": "Login button not wired to submit()", "severity": "high"}]},
            {"approved": False, "findings": [{"message": "Error banner overlaps header at 320px", "severity": "low"}]},
            {"approved": True, "findings": []},
        ],
    )
    r.complete()

    # A → B → A → B: the fixes undo each other; the process gives up after round 4.
    r = run("conv-oscillating", 3)
    a = "Validation runs on blur, spec says on submit (src/form.js:12)"
    b = "Validation missing on submit in src/form.js:31"
    review_loop(
        r,
        [
            {"allPassing": False, "failures": [a]},
            {"allPassing": False, "failures": [b]},
            {"allPassing": False, "failures": [a.replace(":12", ":14")]},
            {"allPassing": False, "failures": [b.replace(":31", ":35")]},
        ],
        check_id="acceptance",
    )
    r.fail("acceptance checks did not pass after 4 rounds")

    # The same finding (reworded numbers/paths/identifiers) for 3 rounds, then escalation.
    r = run("conv-stalled", 4)
    review_loop(
        r,
        [
            {"passed": False, "issues": ["Missing test for 'parseConfig' in src/config.js:12"]},
            {"passed": False, "issues": ["missing test for 'loadConfig' in src/config.js:19"]},
            {"passed": False, "issues": ["Missing test for \"readConfig\" in lib/config.ts:27."]},
        ],
    )
    r.breakpoint("delivery.review-escalation", "Review failed 3 times. Accept anyway?", {"approved": True})
    r.complete({"success": True, "outcome": "escalated"})

    # Findings and touched files grow every round.
    r = run("conv-growing", 5)
    review_loop(
        r,
        [
            {"passesQuality": False, "errors": ["Type error in src/a.ts:3"]},
            {"passesQuality": False, "errors": ["Type error in src/a.ts:3", "Lint: unused import 'x'"]},
            {"passesQuality": False, "errors": ["Type error in src/a.ts:3", "Lint: unused import 'x'", "Test 'login' fails", "Build: circular import"]},
            {"passesQuality": False, "errors": ["Type error in src/a.ts:3", "Lint: unused import 'x'", "Test 'login' fails", "Build: circular import", "Coverage dropped to 61%"]},
        ],
        check_id="quality-gate",
        files=[2, 5, 9],
    )
    r.fail("quality gate never passed")

    # Last check still failing when the run moved on to deploy and completed.
    r = run("conv-ended-unresolved", 6)
    review_loop(
        r,
        [
            {"status": "failed", "issues": ["Password field is not masked"]},
            {"status": "failed", "issues": ["Session cookie lacks HttpOnly"]},
        ],
    )
    r.task("deploy", "shell", "Deploy to staging", {"exitCode": 0}, after=80)
    r.complete()


# --- a project with its process source (run-aware retrospectives) ------------------


def retro_runs(root: Path) -> None:
    """Runs of fixtures/runs/retro/process.js: the task ids are the ones its
    modules define, so `check --run` can link the journal to the source."""
    start = T0 + timedelta(days=3)

    # completed: a progressive review loop, then a final gate rejected twice
    # (reject → fix → reject → fix → approve) before shipping.
    r = RunWriter(root, "retro-shipped", "acme/feature-delivery", start)
    r.task("plan", "agent", "Plan: login form", {"steps": ["form", "validation"]}, after=80)
    r.task("implement", "agent", "Implement: login form", {"filesModified": ["src/login.js"]}, after=540)
    review_loop(
        r,
        [
            {"passed": False, "issues": ["Login button not wired to submit()"]},
            {"passed": False, "issues": ["Error banner overlaps header at 320px"]},
            {"passed": True, "issues": []},
        ],
    )
    r.task("run-tests", "shell", "npm test", {"exitCode": 0, "summary": "42 passing"}, after=65)
    r.breakpoint("delivery.final-gate", "Ship login form?", {"approved": False, "feedback": "Add the release note", "respondedBy": "dana"}, after=2700)
    r.task("fix", "agent", "Fix: gate feedback", {"summary": "release note added"}, after=180, label="gate fix 1")
    r.breakpoint("delivery.final-gate", "Ship login form?", {"approved": False, "feedback": "Release note still missing the migration step", "respondedBy": "dana"}, after=1200)
    r.task("fix", "agent", "Fix: gate feedback", {"summary": "migration step added"}, after=150, label="gate fix 2")
    r.breakpoint("delivery.final-gate", "Ship login form?", {"approved": True, "respondedBy": "dana"}, after=7300)
    r.complete({"success": True})

    # failed: the unbounded review loop oscillates for five rounds, then the
    # fix agent times out and the run fails.
    r = RunWriter(root, "retro-failed", "acme/feature-delivery", start + timedelta(hours=5))
    r.task("plan", "agent", "Plan: checkout", {"steps": ["cart", "payment"]}, after=70)
    r.task("implement", "agent", "Implement: checkout", {"filesModified": ["src/cart.js", "src/pay.js"]}, after=900)
    a = "Cart total ignores the discount in src/cart.js:41"
    b = "Discount applied twice when 'promo' is set (src/cart.js:58)"
    review_loop(
        r,
        [
            {"passed": False, "issues": [a]},
            {"passed": False, "issues": [b]},
            {"passed": False, "issues": [a.replace(":41", ":44")]},
            {"passed": False, "issues": [b.replace(":58", ":63")]},
            {"passed": False, "issues": [a.replace(":41", ":47")]},
        ],
    )
    r.task("fix", "agent", "Fix (round 5)", error="agent timed out after 600s", after=600, label="fix round 5")
    r.fail("fix task failed: agent timed out after 600s")

    # in progress: planning done, the implementation still running.
    r = RunWriter(root, "retro-latest", "acme/feature-delivery", start + timedelta(hours=9))
    r.task("plan", "agent", "Plan: password reset", {"steps": ["email", "token"]}, after=75)
    r.request("implement", "agent", "Implement: password reset")


# --- a budget-manager-like tree: one task id in several modules ---------------------


def phases_runs(root: Path) -> None:
    """A run of fixtures/runs/phases/process.js. `build-and-verify` is also
    defined by other-process.js (another entry, not imported: not this run's),
    and `final-review` by two modules process.js imports (ambiguous). Six
    phase loops each converge; the final review stalls. A nested package holds
    a stray folder with the same run id but no journal."""
    start = T0 + timedelta(days=4)
    r = RunWriter(root, "phases-run", "acme/phased-delivery", start)
    for p in range(1, 7):
        r.task("build-and-verify", "agent", f"Build and verify: phase {p}",
               {"passed": False, "issues": [f"Phase {p}: test 'smoke' fails"]}, after=120, label=f"phase {p}: verify 1")
        r.task("fix", "agent", f"Fix: phase {p}", {"summary": "fixed"}, after=200, label=f"phase {p}: fix 1")
        r.task("build-and-verify", "agent", f"Build and verify: phase {p}",
               {"passed": True, "issues": []}, after=120, label=f"phase {p}: verify 2")
    for n in range(1, 4):
        r.task("final-review", "agent", "Final review",
               {"passed": False, "issues": ["Changelog misses phase 4"]}, after=90, label=f"final review {n}")
        if n < 3:
            r.task("fix", "agent", "Fix: final", {"summary": "changelog"}, after=150, label=f"final fix {n}")
    r.fail("final review did not pass after 3 rounds")
    stray = root / "nested" / "pkg" / ".a5c" / "runs" / "phases-run" / "tasks" / "01J0STRAY0000000000000000"
    stray.mkdir(parents=True, exist_ok=True)
    (stray / "output.json").write_text(js_stringify({"passed": True}) + "\n", encoding="utf-8")


# --- integrity failures -------------------------------------------------------------


def base_run(root: Path, run_id: str, hours: int) -> RunWriter:
    r = RunWriter(root, run_id, "acme/integrity", T0 + timedelta(days=2, hours=hours))
    r.task("plan", "agent", "Plan", {"steps": ["a", "b"]}, after=10)
    r.task("implement", "agent", "Implement", {"filesModified": ["src/a.js"], "note": "ok"}, after=20)
    r.task("test", "shell", "npm test", {"passed": True}, after=5)
    r.complete()
    return r


def journal_files(r: RunWriter) -> list[Path]:
    return sorted((r.dir / "journal").iterdir())


def integrity_runs(root: Path) -> None:
    # A data field edited after the event was written.
    r = base_run(root, "int-tampered-data", 0)
    f = journal_files(r)[4]  # EFFECT_RESOLVED of implement
    f.write_text(f.read_text(encoding="utf-8").replace('"status": "ok"', '"status": "error"'), encoding="utf-8")

    # Two keys of data swapped: same content, different serialization.
    r = base_run(root, "int-reordered-key", 1)
    f = journal_files(r)[1]  # EFFECT_REQUESTED of plan
    lines = f.read_text(encoding="utf-8").split("\n")
    i = next(n for n, line in enumerate(lines) if line.startswith('    "invocationKey"'))
    lines[i], lines[i + 1] = lines[i + 1], lines[i]
    f.write_text("\n".join(lines), encoding="utf-8")

    # A file missing from the sequence.
    r = base_run(root, "int-missing-sequence", 2)
    journal_files(r)[2].unlink()

    # A file cut short mid-write.
    r = base_run(root, "int-truncated", 3)
    f = journal_files(r)[3]
    text = f.read_text(encoding="utf-8")
    f.write_text(text[: len(text) // 2], encoding="utf-8")

    # A file that is not JSON at all (a merge conflict committed by accident).
    r = base_run(root, "int-unparseable", 4)
    f = journal_files(r)[5]
    text = f.read_text(encoding="utf-8")
    f.write_text("<<<<<<< HEAD\n" + text + "=======\n{}\n>>>>>>> other\n", encoding="utf-8")

    # Structural problems with valid checksums: a resolution for an effect
    # never requested, a missing result file, an event after RUN_COMPLETED.
    r = RunWriter(root, "int-structural", "acme/integrity", T0 + timedelta(days=2, hours=5))
    e1 = r.task("plan", "agent", "Plan", {"steps": []}, after=10)
    (r.dir / "tasks" / e1 / "result.json").unlink()
    r.event("EFFECT_RESOLVED", {"effectId": "01KGHOST000000000000000000", "status": "ok", "resultRef": "tasks/01KGHOST000000000000000000/result.json"})
    r.complete()
    r.log("late log line after completion")


def main() -> None:
    self_test()
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent.parent / "fixtures" / "runs"
    # Only the run directories are regenerated: retro/ also holds the
    # hand-written process source the runs were made from.
    for sub in ("project", "convergence", "integrity", "retro", "phases", "phases/nested/pkg"):
        shutil.rmtree(out / sub / ".a5c", ignore_errors=True)
    project_runs(out / "project")
    convergence_runs(out / "convergence")
    integrity_runs(out / "integrity")
    retro_runs(out / "retro")
    phases_runs(out / "phases")
    print(f"wrote fixtures under {out}")


if __name__ == "__main__":
    main()
