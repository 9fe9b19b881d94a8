#!/usr/bin/env python3
"""Mutated copies of a corpus's modules, for checking the oxc front end.

Writes 3 variants of each of N sampled modules, each with 1-4 edits that
move comments, line breaks and semicolons (where tree-sitter's scanner and
JavaScript can disagree): a comment at a whitespace position, a `;` at a
line end removed, a line break joined, a comment right after `;`, `}`, `)`
or `,`. Then run the comparison on them:

    python3 scripts/front_mutate.py CORPUS_DIR OUT_DIR --seed 1
    cargo run --release --example front_diff -- OUT_DIR

A DIFF line is a module oxc accepted whose written tree is not tree-sitter's.
"""
import argparse
import os
import random


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("corpus")
    ap.add_argument("out")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--files", type=int, default=300)
    a = ap.parse_args()
    rng = random.Random(a.seed)
    files = sorted(
        os.path.join(root, f)
        for root, _, fs in os.walk(a.corpus)
        for f in fs
        if f.endswith((".js", ".mjs"))
    )
    os.makedirs(a.out, exist_ok=True)
    for f in os.listdir(a.out):
        if f.endswith(".js"):
            os.remove(os.path.join(a.out, f))
    comments = [" /*c*/ ", " // c\n", "\n", "/* a\n b */", " "]
    for k, path in enumerate(rng.sample(files, min(a.files, len(files)))):
        with open(path, encoding="utf-8", errors="replace") as fh:
            src = fh.read()
        for m in range(3):
            t = src
            for _ in range(rng.randint(1, 4)):
                if not t:
                    break
                probe = rng.sample(range(len(t)), min(400, len(t)))
                kind = rng.randrange(4)
                if kind == 0:
                    at = [i for i in probe if t[i] in " \n"]
                    if at:
                        t = t[: at[0]] + rng.choice(comments) + t[at[0] :]
                elif kind == 1:
                    at = [i for i in probe if t[i] == ";" and t[i + 1 : i + 2] == "\n"]
                    if at:
                        t = t[: at[0]] + t[at[0] + 1 :]
                elif kind == 2:
                    at = [i for i in probe if t[i] == "\n"]
                    if at:
                        t = t[: at[0]] + " " + t[at[0] + 1 :]
                else:
                    at = [i for i in probe if t[i] in ";}),"]
                    if at:
                        i = at[0] + 1
                        t = t[:i] + rng.choice([" // x", " /* y */", "// z\n"]) + t[i:]
            with open(os.path.join(a.out, f"m{k}_{m}.js"), "w", encoding="utf-8") as fh:
                fh.write(t)


if __name__ == "__main__":
    main()
