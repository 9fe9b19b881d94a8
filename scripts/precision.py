#!/usr/bin/env python3
"""Per-rule counts and a reproducible random sample of proclint's findings on a corpus.

The precision record (docs/precision.md) is kept from this script's output:
run it after any rule change, audit the sample (each finding against the SDK's
source), and write the verdicts down with the corpus commit and the seed.

    scripts/precision.py --corpus /path/to/babysitter --paths library \
        [--proclint target/release/proclint] [--seed 16] [--per-rule 20] \
        [--rule ID ...] [--all-rules | --extend-select ID ...] [--before old.json] [--json-out new.json]

The sample for a rule is drawn from the findings sorted by (path, line,
column, message) with Python's `random.Random(f"{seed}:{rule}")`, so the same
seed, corpus and findings give the same sample on any machine, and changing
one rule's findings does not reshuffle another rule's sample.
"""

import argparse
import collections
import json
import os
import random
import subprocess
import sys


def run_proclint(proclint, corpus, paths, extra):
    cmd = [proclint, "check", *paths, "--format", "json", "--no-cache", "--exit-zero", *extra]
    out = subprocess.run(cmd, cwd=corpus, capture_output=True, check=False)
    if out.returncode not in (0, 1):
        sys.stderr.write(out.stderr.decode("utf-8", "replace"))
        sys.exit(f"proclint exited {out.returncode}")
    return json.loads(out.stdout)


def counts(doc):
    c = collections.Counter()
    for d in doc["diagnostics"]:
        c[(d["rule"], d["severity"])] += 1
    return c


def context(corpus, d, radius):
    path = os.path.join(corpus, d["path"])
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            lines = f.read().splitlines()
    except OSError as e:
        return [f"    (cannot read: {e})"]
    lo = max(1, d["line"] - radius)
    hi = min(len(lines), d.get("end_line", d["line"]) + radius, d["line"] + 2 * radius)
    out = []
    for n in range(lo, hi + 1):
        mark = ">" if d["line"] <= n <= d.get("end_line", d["line"]) else " "
        out.append(f"  {mark}{n:5} | {lines[n - 1][:200]}")
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--corpus", required=True, help="the corpus checkout (proclint runs with this as its working directory)")
    ap.add_argument("--paths", nargs="+", default=["."], help="paths to check, relative to the corpus")
    ap.add_argument("--proclint", default=os.path.join(os.path.dirname(__file__), "..", "target", "release", "proclint"))
    ap.add_argument("--seed", default="16")
    ap.add_argument("--per-rule", type=int, default=20)
    ap.add_argument("--rule", action="append", default=[], help="sample only these rules")
    ap.add_argument("--all-rules", action="store_true", help="check with --select all (the opt-in rules too)")
    ap.add_argument("--extend-select", action="append", default=[], metavar="ID",
                    help="add a rule or category to the default set (passed to proclint as --extend-select); "
                         "measures a pedantic rule as users who opt into it would see it")
    ap.add_argument("--context", type=int, default=3, help="lines of source shown around each sampled finding")
    ap.add_argument("--before", help="an earlier --json-out (or proclint JSON report) to compare counts with")
    ap.add_argument("--json-out", help="save the proclint JSON report here")
    ap.add_argument("--counts-only", action="store_true")
    args = ap.parse_args()

    proclint = os.path.abspath(args.proclint)
    extra = ["--select", "all"] if args.all_rules else []
    for rule in args.extend_select:
        extra += ["--extend-select", rule]
    doc = run_proclint(proclint, args.corpus, args.paths, extra)
    if args.json_out:
        with open(args.json_out, "w", encoding="utf-8") as f:
            json.dump(doc, f)

    now = counts(doc)
    before = counts(json.load(open(args.before, encoding="utf-8"))) if args.before else None
    keys = sorted(set(now) | set(before or {}), key=lambda k: (-now.get(k, 0), k))
    print(f"# proclint findings on {args.corpus} ({' '.join(args.paths)})\n")
    print("| rule | severity | " + ("before | " if before else "") + "now |")
    print("|---|---|" + ("---:|" if before else "") + "---:|")
    for k in keys:
        b = f"{before.get(k, 0)} | " if before else ""
        print(f"| {k[0]} | {k[1]} | {b}{now.get(k, 0)} |")
    total_b = f"{sum(before.values())} | " if before else ""
    print(f"| **total** | | {total_b}{sum(now.values())} |\n")
    if args.counts_only:
        return

    by_rule = collections.defaultdict(list)
    for d in doc["diagnostics"]:
        by_rule[d["rule"]].append(d)
    rules = args.rule or sorted(by_rule)
    for rule in rules:
        found = sorted(by_rule.get(rule, []), key=lambda d: (d["path"], d["line"], d["column"], d["message"]))
        rng = random.Random(f"{args.seed}:{rule}")
        sample = rng.sample(found, min(args.per_rule, len(found)))
        print(f"## {rule}: {len(sample)} of {len(found)} (seed {args.seed})\n")
        for i, d in enumerate(sample, 1):
            print(f"### {rule} #{i}: {d['path']}:{d['line']}:{d['column']} [{d['severity']}]")
            print(f"message: {d['message']}")
            if d.get("help"):
                print(f"help: {d['help']}")
            print("```")
            print("\n".join(context(args.corpus, d, args.context)))
            print("```\n")


if __name__ == "__main__":
    main()
