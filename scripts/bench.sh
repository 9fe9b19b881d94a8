#!/usr/bin/env bash
# proclint benchmark (kept out of CI; see docs/performance.md).
#
#   scripts/bench.sh [--peer] [--scales "1 2 4"] [--runs N] [--peer-runs N]
#                    [--files N] [--seed N] [--no-build] [--profile]
#   scripts/bench.sh --scaling [--no-build]
#   scripts/bench.sh --sdk-peer SCRIPT LIBRARY [--peer-runs N] [--no-build]
#
# Builds `cargo build --profile profiling` (the release profile — fat LTO, one
# codegen unit — with line tables kept for callgrind and perf; Cargo.toml;
# PROCLINT_BIN=path uses another binary), generates the corpus under
# benches/corpus-<scale> (scripts/gen_corpus.py; git-ignored), and reports for
# `proclint check --parse-only` (read + tree-sitter parse only) and the full
# `proclint check --format json --output /dev/null`: wall time, files/s, MB/s,
# peak RSS, the full/parse-only ratio, scaling over the scales, and
# RAYON_NUM_THREADS=1 vs 2, and the full check with a warm result cache
# over the unchanged corpus (cold runs pass --no-cache). With --peer it also runs the ESLint peer
# (benches/eslint: one custom rule, `no-unchecked-breakpoint`) over the
# 1x corpus, prints ESLint time / proclint time, and checks that both tools
# find the discarded/unread breakpoints the generator planted. With
# --profile it also runs both modes under `valgrind --tool=callgrind` on a
# small corpus (150 files, one thread) and prints the instruction-count ratio
# full/parse-only, which no machine load disturbs, and the top functions.
#
# With --scaling it runs only the scaling check of issue 19 instead: inputs
# that were superlinear (scripts/gen_scaling.py), each at 1x/2x/4x — `runs`
# and the retrospective over one run of 10k/20k/40k effects,
# the retrospective of a tree of 500/1000/2000 entry processes (issue 18),
# `parallel-without-isolation` on one `ctx.parallel.all` of 4k/8k/16k thunks,
# a one-line module of 1/2/4 MB — printing CPU seconds (user+sys) and peak
# RSS, and failing (exit 1) when 4x costs more than 6x the CPU of 1x
# (linear is 4x; the margin absorbs a shared machine). The one-line module
# also prints RSS bytes per source byte over a tiny module's RSS.
#
# With --sdk-peer it runs only the real-corpus comparison instead: the SDK
# repository's own one-rule check (SCRIPT: its
# scripts/lint-breakpoint-results.cjs, ESLint 8's Linter over every .js
# file under library/; benches/sdk-eslint pins ESLint) against a cold
# `proclint check --no-cache` of the same LIBRARY, --peer-runs single runs
# of each, alternated: wall, CPU (user+sys), peak RSS, load, the ratios,
# and the two tools' counts of discarded breakpoint results.
#
# Wall times come from hyperfine (mean of --runs runs after one warm-up, so
# the corpus is in the page cache: these are warm-page-cache, cold-proclint
# figures) together with hyperfine's user+sys CPU seconds, which a loaded,
# shared machine disturbs far less than wall time; peak RSS from
# `/usr/bin/time -f %M` (max of 3 runs). The load average is recorded before
# every measurement: the machine may be shared.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"

PEER=0
SCALES="1 2 4"
RUNS=3
PEER_RUNS=2
PROFILE=0
FILES=3200
SEED=20240601
BUILD=1
SCALING=0
SDK_SCRIPT=""
SDK_LIB=""
while [ $# -gt 0 ]; do
  case "$1" in
    --peer) PEER=1 ;;
    --scales) SCALES=$2; shift ;;
    --runs) RUNS=$2; shift ;;
    --peer-runs) PEER_RUNS=$2; shift ;;
    --files) FILES=$2; shift ;;
    --seed) SEED=$2; shift ;;
    --no-build) BUILD=0 ;;
    --profile) PROFILE=1 ;;
    --scaling) SCALING=1 ;;
    --sdk-peer) SDK_SCRIPT=$2; SDK_LIB=$3; shift 2 ;;
    -h|--help) sed -n '2,45p' "$0"; exit 0 ;;
    *) echo "unknown argument: $1" >&2; exit 2 ;;
  esac
  shift
done

TOOLS="hyperfine python3 /usr/bin/time"
[ "$SCALING" = 1 ] && TOOLS="python3 /usr/bin/time"
[ -n "$SDK_SCRIPT" ] && TOOLS="python3 /usr/bin/time node npm"
for tool in $TOOLS; do
  command -v "$tool" >/dev/null || { echo "missing $tool (apt-get install -y hyperfine time python3)" >&2; exit 2; }
done

OUT=$ROOT/target/bench
mkdir -p "$OUT"
RESULTS=$OUT/results.tsv
: >"$RESULTS"
PROCLINT=${PROCLINT_BIN:-$ROOT/target/profiling/proclint}
RSS_RUNS=3

load() { cut -d' ' -f1-3 /proc/loadavg; }

if [ "$BUILD" = 1 ]; then
  echo "== cargo build --profile profiling (load $(load))"
  cargo build --profile profiling
fi
[ -x "$PROCLINT" ] || { echo "no $PROCLINT; run without --no-build" >&2; exit 2; }

# cpu_rss CMD...: "CPU-seconds peak-RSS-KB" of one run (output discarded).
cpu_rss() {
  /usr/bin/time -f '%U %S %M' -o "$OUT/cpu.txt" "$@" >/dev/null 2>&1 || true
  # A failing exit status adds a "Command exited…" line before the figures.
  tail -1 "$OUT/cpu.txt" | awk '{printf "%.2f %d\n", $1 + $2, $3}'
}

# scaling NAME MAKE CMD...: MAKE K builds the input at scale K (1, 2, 4);
# CMD runs with {} replaced by that input. Fails the check when 4x > 6x 1x.
SCALING_OK=1
scaling() {
  local name=$1 make=$2
  shift 2
  local k input args cpu rss first=""
  echo "-- $name (load $(load))"
  for k in 1 2 4; do
    input=$($make "$k")
    args=()
    for a in "$@"; do args+=("${a//\{\}/$input}"); done
    read -r cpu rss < <(cpu_rss "${args[@]}")
    printf "   %sx: cpu %6.2fs  peak RSS %7d KB\n" "$k" "$cpu" "$rss"
    [ -z "$first" ] && first=$cpu
    last=$cpu
  done
  if python3 -c "import sys; a, b = map(float, sys.argv[1:]); sys.exit(0 if b <= 6 * max(a, 0.05) else 1)" "$first" "$last"; then
    echo "   linear (4x/1x = $(python3 -c "import sys; print(round(float(sys.argv[2]) / max(float(sys.argv[1]), 0.01), 2))" "$first" "$last"))"
  else
    echo "   SUPERLINEAR: 4x costs more than 6x the CPU of 1x"
    SCALING_OK=0
  fi
}

if [ "$SCALING" = 1 ]; then
  S=$OUT/scaling
  mkdir -p "$S"
  make_run() {
    local d=$S/run-$1
    [ -d "$d" ] || python3 scripts/gen_scaling.py runs "$d" $((10000 * $1))
    echo "$d"
  }
  make_par() {
    local f=$S/parallel-$1.js
    [ -f "$f" ] || python3 scripts/gen_scaling.py parallel "$f" $((4000 * $1))
    echo "$f"
  }
  make_line() {
    local f=$S/line-$1.js
    [ -f "$f" ] || python3 scripts/gen_scaling.py line "$f" $((1048576 * $1))
    echo "$f"
  }
  make_procs() {
    local d=$S/processes-$1
    [ -d "$d" ] || python3 scripts/gen_scaling.py processes "$d" $((500 * $1))
    echo "$d"
  }
  echo "== scaling check (issue 19; $PROCLINT)"
  scaling "runs, one run of 10k/20k/40k effects" make_run "$PROCLINT" runs {}
  scaling "retrospective of that run" make_run \
    "$PROCLINT" check --no-cache --no-config --run run-big --format retrospective {}
  scaling "retrospective of 500/1000/2000 entry processes (issue 18)" make_procs \
    "$PROCLINT" check --no-cache --no-config --format retrospective {}
  scaling "parallel-without-isolation, 4k/8k/16k thunks" make_par \
    "$PROCLINT" check --no-cache --no-config --select parallel-without-isolation --format json {}
  scaling "one-line module, 1/2/4 MB" make_line \
    "$PROCLINT" check --no-cache --no-config --format json {}
  echo 'export async function process(inputs, ctx) { await ctx.task(t, {}); }' >"$S/tiny.js"
  read -r _ base < <(cpu_rss "$PROCLINT" check --no-cache --no-config --format json "$S/tiny.js")
  read -r _ big < <(cpu_rss "$PROCLINT" check --no-cache --no-config --format json "$S/line-4.js")
  echo "   one-line module: $(( (big - base) * 1024 / $(stat -c %s "$S/line-4.js") )) bytes of RSS per source byte (4 MB, over a tiny module's $base KB)"
  [ "$SCALING_OK" = 1 ] || exit 1
  exit 0
fi

if [ -n "$SDK_SCRIPT" ]; then
  [ -f "$SDK_SCRIPT" ] && [ -d "$SDK_LIB" ] || { echo "--sdk-peer SCRIPT LIBRARY: no such file or directory" >&2; exit 2; }
  # The script lints `library/` next to its own `scripts/` folder.
  D=$OUT/sdk-peer
  mkdir -p "$D/scripts"
  cp "$SDK_SCRIPT" "$D/scripts/lint-breakpoint-results.cjs"
  ln -sfn "$(cd "$SDK_LIB" && pwd)" "$D/library"
  cp benches/sdk-eslint/package.json benches/sdk-eslint/package-lock.json "$D/"
  [ -d "$D/node_modules/eslint" ] || (cd "$D" && npm ci --no-audit --no-fund >/dev/null)
  # run NAME CMD...: one run; appends "name wall cpu rss load" to sdk.tsv.
  : >"$D/sdk.tsv"
  run() {
    local name=$1 before
    shift
    before=$(load)
    /usr/bin/time -f '%e %U %S %M' -o "$D/time.txt" "$@" >"$D/$name.out" 2>&1 || true
    tail -1 "$D/time.txt" | awk -v n="$name" -v l="$before" \
      '{printf "%s\t%.2f\t%.2f\t%d\t%s\n", n, $1, $2 + $3, $4, l}' >>"$D/sdk.tsv"
    tail -1 "$D/sdk.tsv" | awk -F'\t' '{printf "-- %s: wall %ss  cpu %ss  peak RSS %d KB  (load before %s)\n", $1, $2, $3, $4, $5}'
  }
  echo "== SDK peer: eslint $(node -p "require('$D/node_modules/eslint/package.json').version") (node $(node --version)) vs $PROCLINT on $SDK_LIB"
  for _ in $(seq "$PEER_RUNS"); do
    run proclint "$PROCLINT" check --no-cache --exit-zero --format json --output "$D/proclint.json" "$SDK_LIB"
    run proclint-parse "$PROCLINT" check --no-cache --exit-zero --parse-only --format json --output /dev/null "$SDK_LIB"
    run eslint node "$D/scripts/lint-breakpoint-results.cjs"
  done
  python3 - "$D" <<'EOF'
import json, re, statistics, sys
d = sys.argv[1]
rows = {}
for line in open(f"{d}/sdk.tsv"):
    name, wall, cpu, rss, load = line.rstrip("\n").split("\t")
    rows.setdefault(name, []).append((float(wall), float(cpu), int(rss)))
def med(name, i):
    return statistics.median(r[i] for r in rows[name])
p, e, q = "proclint", "eslint", "proclint-parse"
print(f"medians: proclint cold wall {med(p, 0):.2f}s cpu {med(p, 1):.2f}s; parse-only cpu {med(q, 1):.2f}s; "
      f"ESLint script wall {med(e, 0):.2f}s cpu {med(e, 1):.2f}s")
print(f"ESLint script / proclint: wall {med(e, 0) / med(p, 0):.2f}x, cpu {med(e, 1) / med(p, 1):.2f}x; "
      f"proclint full / parse-only cpu {med(p, 1) / med(q, 1):.2f}x")
m = re.search(r"(\d+) violation", open(f"{d}/eslint.out").read())
found = json.load(open(f"{d}/proclint.json"))["diagnostics"]
ub = sum(1 for f in found if f["rule"] == "unchecked-breakpoint")
print(f"findings: ESLint script {m.group(1) if m else 0} discarded results; "
      f"proclint unchecked-breakpoint {ub} (all shapes, default set)")
EOF
  exit 0
fi

# gen SCALE: (re)generate benches/corpus-SCALE unless its manifest matches.
gen() {
  local scale=$1 dir=benches/corpus-$1
  if [ -f "$dir/manifest.json" ] && python3 -c '
import json, sys
m = json.load(open(sys.argv[1]))
sys.exit(0 if (m["seed"], m["files_per_scale"], m["scale"]) == (int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])) else 1)
' "$dir/manifest.json" "$SEED" "$FILES" "$scale"; then
    echo "== corpus $dir (reused)"
  else
    echo "== generating $dir ($FILES x $scale files, seed $SEED)"
    rm -rf "$dir"
    python3 scripts/gen_corpus.py "$dir" "$FILES" "$scale" --seed="$SEED" >/dev/null
  fi
}

# measure NAME SCALE THREADS CMD...: hyperfine wall time + peak RSS.
measure() {
  local name=$1 scale=$2 threads=$3
  shift 3
  local before
  before=$(load)
  echo "-- $name (scale $scale, RAYON_NUM_THREADS=${threads}; load before: $before)"
  RAYON_NUM_THREADS=$threads hyperfine --style basic --warmup 1 --runs "$RUNS" -i \
    --export-json "$OUT/$name.json" -- "$(printf '%q ' "$@")" >/dev/null
  local rss=0 r
  for _ in $(seq "$RSS_RUNS"); do
    RAYON_NUM_THREADS=$threads /usr/bin/time -f '%M' -o "$OUT/rss.txt" "$@" >/dev/null 2>&1 || true
    r=$(tail -1 "$OUT/rss.txt")
    [ "$r" -gt "$rss" ] && rss=$r
  done
  python3 - "$OUT/$name.json" "$name" "$scale" "$threads" "$rss" "$before" >>"$RESULTS" <<'EOF'
import json, sys
path, name, scale, threads, rss, before = sys.argv[1:]
r = json.load(open(path))["results"][0]
print("\t".join([name, scale, threads, f"{r['mean']:.4f}", f"{r['stddev'] or 0:.4f}",
                 f"{r['min']:.4f}", rss, before.replace(' ', ','), f"{r['user'] + r['system']:.4f}"]))
EOF
  tail -1 "$RESULTS" | awk -F'\t' '{printf "   mean %.3fs  sd %.3fs  min %.3fs  cpu %.3fs  peak RSS %d KB\n", $4, $5, $6, $9, $7}'
}

# rss_only NAME SCALE CMD...: peak RSS only (max of 3 runs).
rss_only() {
  local name=$1 scale=$2
  shift 2
  local rss=0 r
  for _ in 1 2 3; do
    RAYON_NUM_THREADS=2 /usr/bin/time -f '%M' -o "$OUT/rss.txt" "$@" >/dev/null 2>&1 || true
    r=$(tail -1 "$OUT/rss.txt")
    [ "$r" -gt "$rss" ] && rss=$r
  done
  printf '%s\t%s\t%s\n' "$name" "$scale" "$rss" >>"$OUT/rss-only.tsv"
  echo "-- $name (scale $scale): peak RSS $rss KB"
}

proclint_modes() {
  local scale=$1 threads=$2 suffix=$3 dir=benches/corpus-$1
  measure "parse-$scale$suffix" "$scale" "$threads" \
    "$PROCLINT" check --no-config --exit-zero --parse-only --format json --output /dev/null "$dir"
  measure "full-$scale$suffix" "$scale" "$threads" \
    "$PROCLINT" check --no-config --no-cache --exit-zero --format json --output /dev/null "$dir"
}

# warm SCALE: the full check with the result cache, over an unchanged tree
# (hyperfine's warm-up run fills the cache; the timed runs hit it).
warm() {
  local scale=$1 dir=benches/corpus-$1 conf=$OUT/warm-$1.toml
  rm -rf "$OUT/cache-$scale"
  printf 'cache-dir = "%s"\n' "$OUT/cache-$scale" >"$conf"
  measure "warm-$scale" "$scale" 2 \
    "$PROCLINT" check --config "$conf" --exit-zero --format json --output /dev/null "$dir"
}

echo "== machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), load $(load)"
for s in $SCALES; do gen "$s"; done
FIRST=${SCALES%% *}

for s in $SCALES; do proclint_modes "$s" 2 ""; done
proclint_modes "$FIRST" 1 "-t1"
for s in $SCALES; do warm "$s"; done
# Memory with the findings taken out: the same full pipeline (read, parse,
# model, rules, suppressions) with the only finding-producing rule off, so
# what remains is the engine's own footprint, not the stored diagnostics.
: >"$OUT/rss-only.tsv"
for s in $SCALES; do
  rss_only "full-nofindings" "$s" \
    "$PROCLINT" check --no-config --no-cache --exit-zero --ignore unchecked-breakpoint --format json --output /dev/null "benches/corpus-$s"
done

if [ "$PEER" = 1 ]; then
  ESLINT_DIR=$ROOT/benches/eslint
  if [ ! -x "$ESLINT_DIR/node_modules/.bin/eslint" ]; then
    echo "== npm ci (benches/eslint)"
    (cd "$ESLINT_DIR" && npm ci --no-audit --no-fund)
  fi
  ESLINT=$ESLINT_DIR/node_modules/.bin/eslint
  CORPUS=$ROOT/benches/corpus-$FIRST
  echo "== ESLint $("$ESLINT" --version) (node $(node --version)) on $CORPUS"
  RUNS_SAVED=$RUNS
  RUNS=$PEER_RUNS
  RSS_RUNS=1
  # ESLint resolves files against its working directory: run it from the corpus.
  pushd "$CORPUS" >/dev/null
  measure "eslint-$FIRST" "$FIRST" 2 \
    "$ESLINT" --no-config-lookup -c "$ESLINT_DIR/eslint.config.js" --format json --output-file /dev/null .
  measure "eslint-c2-$FIRST" "$FIRST" 2 \
    "$ESLINT" --no-config-lookup -c "$ESLINT_DIR/eslint.config.js" --concurrency 2 --format json --output-file /dev/null .
  popd >/dev/null
  RUNS=$RUNS_SAVED
  RSS_RUNS=3
  # Sanity check: the findings each tool reports on the same corpus.
  "$PROCLINT" check --no-config --no-cache --exit-zero --format json --output "$OUT/proclint-findings.json" "$CORPUS"
  (cd "$CORPUS" && "$ESLINT" --no-config-lookup -c "$ESLINT_DIR/eslint.config.js" --format json \
    --output-file "$OUT/eslint-findings.json" . || true)
fi

if [ "$PROFILE" = 1 ]; then
  command -v valgrind >/dev/null || { echo "--profile needs valgrind (apt-get install -y valgrind)" >&2; exit 2; }
  PDIR=$OUT/profile
  rm -rf "$PDIR"
  mkdir -p "$PDIR"
  python3 scripts/gen_corpus.py "$PDIR/corpus" 150 1 --seed="$SEED" >/dev/null
  for mode in parse full; do
    flag=""
    [ "$mode" = parse ] && flag=--parse-only
    echo "== callgrind: $mode (load $(load))"
    (cd "$PDIR" && RAYON_NUM_THREADS=1 valgrind --tool=callgrind --callgrind-out-file="$PDIR/$mode.out" \
      "$PROCLINT" check --no-config --no-cache --exit-zero $flag --format json --output /dev/null corpus 2>"$PDIR/$mode.log")
  done
  pi=$(grep -o 'Collected : [0-9]*' "$PDIR/parse.log" | grep -o '[0-9]*$')
  fi=$(grep -o 'Collected : [0-9]*' "$PDIR/full.log" | grep -o '[0-9]*$')
  python3 -c "import sys; p, f = int(sys.argv[1]), int(sys.argv[2]); print(f'instructions: parse-only {p:,}, full {f:,}, ratio {f / p:.3f}')" "$pi" "$fi"
  echo "top inclusive costs of the full run (callgrind_annotate --inclusive=yes $PDIR/full.out):"
  callgrind_annotate --inclusive=yes "$PDIR/full.out" 2>/dev/null \
    | grep -E 'proclint::(lint::lint_source|js::|rules::|suppress::|report::)|ts_parser_parse \[|Node::(kind|parent|walk)|child_by_field_name|ts_tree_cursor_(new|goto)|ts_tree_delete' \
    | grep -v "'2" | head -25 | sed -E 's#/[^ ]*/(src|binding_rust)/#\1/#' | cut -c1-150
fi

python3 - "$RESULTS" "$ROOT/benches" "$OUT" "$PEER" "$FIRST" <<'EOF'
import json, os, sys
results, benches, out, peer, first = sys.argv[1:]
rows = {}
for line in open(results):
    name, scale, threads, mean, sd, mn, rss, load, cpu = line.rstrip("\n").split("\t")
    rows[name] = dict(scale=int(scale), threads=int(threads), mean=float(mean), sd=float(sd),
                      min=float(mn), rss=int(rss), load=load.replace(",", " "), cpu=float(cpu))
man = {}
for name in os.listdir(benches):
    if name.startswith("corpus-") and os.path.exists(os.path.join(benches, name, "manifest.json")):
        m = json.load(open(os.path.join(benches, name, "manifest.json")))
        if any(r["scale"] == m["scale"] for r in rows.values()):
            man[m["scale"]] = m

def figures(key):
    r = rows[key]
    m = man[r["scale"]]
    pf, pb = m["by_kind"]["process"]["files"], m["by_kind"]["process"]["bytes"]
    return (f"{r['mean']:.3f} ± {r['sd']:.3f}", f"{r['min']:.3f}", f"{r['cpu']:.3f}", f"{pf / r['mean']:,.0f}", f"{pb / 1e6 / r['mean']:.1f}",
            f"{m['bytes'] / 1e6 / r['mean']:.1f}", f"{r['rss'] / 1024:.1f}", r["load"])

print()
print("Corpora (files/s and MB/s below count the process modules, which are what gets parsed;")
print("'all MB/s' counts every byte in the corpus, including skipped ordinary JavaScript):")
print("| scale | files | MB | process modules | process MB | ordinary JS | SKILL.md | package.json |")
print("|---|---|---|---|---|---|---|---|")
for s in sorted(man):
    m = man[s]; k = m["by_kind"]
    print(f"| {s}x | {m['files']} | {m['bytes']/1e6:.1f} | {k['process']['files']} | {k['process']['bytes']/1e6:.1f} "
          f"| {k['ordinary_js']['files']} | {k['skill']['files']} | {k['manifest']['files']} |")
print()
print("| run | scale | threads | wall s (mean ± sd) | wall s (min) | CPU s (user+sys) | files/s | MB/s | all MB/s | peak RSS MB | load before |")
print("|---|---|---|---|---|---|---|---|---|---|---|")
for key, r in rows.items():
    label = {"parse": "proclint parse-only", "full": "proclint full", "warm": "proclint full, warm cache", "eslint": "ESLint", "eslint-c2": "ESLint --concurrency 2"}[key.rsplit("-", 2 if key.endswith("-t1") else 1)[0]]
    print(f"| {label} | {r['scale']}x | {r['threads']} | " + " | ".join(figures(key)) + " |")
print()
print("full / parse-only (target <= 1.3): wall mean, wall min, CPU (user+sys)")
for key in rows:
    if key.startswith("parse-"):
        full = "full-" + key[len("parse-"):]
        if full in rows:
            f, p = rows[full], rows[key]
            print(f"  {key[len('parse-'):]}: {f['mean'] / p['mean']:.2f}x, {f['min'] / p['min']:.2f}x, {f['cpu'] / p['cpu']:.2f}x")
ro = os.path.join(out, "rss-only.tsv")
if os.path.exists(ro):
    print("peak RSS, full check with unchecked-breakpoint off (no stored findings):")
    for line in open(ro):
        name, scale, rss = line.split()
        print(f"  {scale}x: {int(rss) / 1024:.1f} MB")
scales = sorted({r["scale"] for k, r in rows.items() if k.startswith("full-") and r["threads"] == 2})
if len(scales) > 1:
    base = rows[f"full-{scales[0]}"]
    print("scaling (full, 2 threads): time per process module and peak RSS relative to the smallest scale:")
    for s in scales:
        r = rows[f"full-{s}"]
        per = r["mean"] / man[s]["by_kind"]["process"]["files"]
        per0 = base["mean"] / man[scales[0]]["by_kind"]["process"]["files"]
        print(f"  {s}x: wall {r['mean'] / base['mean']:.2f}x, CPU {r['cpu'] / base['cpu']:.2f}x, "
              f"wall per file {per / per0:.2f}x, RSS {r['rss'] / base['rss']:.2f}x")
warms = [k for k in rows if k.startswith("warm-")]
if warms:
    print("warm cache (unchanged tree) vs cold full check (target >= 10x):")
    for k in warms:
        w, c = rows[k], rows["full-" + k[len("warm-"):]]
        print(f"  {w['scale']}x: wall {c['mean'] / w['mean']:.1f}x (min {c['min'] / w['min']:.1f}x), CPU {c['cpu'] / w['cpu']:.1f}x")
if f"full-{first}-t1" in rows:
    t1, t2 = rows[f"full-{first}-t1"], rows[f"full-{first}"]
    p1, p2 = rows[f"parse-{first}-t1"], rows[f"parse-{first}"]
    print(f"threads: full 1->2 speed-up {t1['mean'] / t2['mean']:.2f}x (min {t1['min'] / t2['min']:.2f}x), "
          f"parse-only {p1['mean'] / p2['mean']:.2f}x (min {p1['min'] / p2['min']:.2f}x)")
if peer == "1":
    e, e2, p = rows[f"eslint-{first}"], rows[f"eslint-c2-{first}"], rows[f"full-{first}"]
    print(f"ESLint (single rule) / proclint full (all rules), {first}x corpus (target >= 6):")
    print(f"  ESLint default (--concurrency off): wall {e['mean'] / p['mean']:.1f}x, CPU {e['cpu'] / p['cpu']:.1f}x")
    print(f"  ESLint --concurrency 2:             wall {e2['mean'] / p['mean']:.1f}x, CPU {e2['cpu'] / p['cpu']:.1f}x")
    if f"warm-{first}" in rows:
        w = rows[f"warm-{first}"]
        print(f"  ESLint default / proclint warm cache (target >= 50): wall {e['mean'] / w['mean']:.1f}x, CPU {e['cpu'] / w['cpu']:.1f}x")
    pf = json.load(open(os.path.join(out, "proclint-findings.json")))
    ef = json.load(open(os.path.join(out, "eslint-findings.json")))
    ub = [d for d in pf["diagnostics"] if d["rule"] == "unchecked-breakpoint"]
    disc = [d for d in ub if "is discarded" in d["message"] or "never read" in d["message"]]
    es = [msg for f in ef for msg in f["messages"] if msg.get("ruleId") == "babysitter/no-unchecked-breakpoint"]
    fatal = [msg for f in ef for msg in f["messages"] if msg.get("fatal")]
    parse_err = [d for d in pf["diagnostics"] if d["rule"] in ("parse-error", "internal-error")]
    exp = man[int(first)]["expected"]
    print("findings on the same corpus:")
    print(f"  ESLint no-unchecked-breakpoint:              {len(es)} (planted {exp['eslint_no_unchecked_breakpoint']}; fatal parse errors: {len(fatal)})")
    print(f"  proclint unchecked-breakpoint, discarded/unread: {len(disc)} (planted {exp['proclint_discarded_or_unread']}: "
          f"the {exp['proclint_discarded_or_unread'] - exp['eslint_no_unchecked_breakpoint']} extra go through a context passed under another name)")
    print(f"  proclint unchecked-breakpoint, all shapes:   {len(ub)} (planted {exp['proclint_unchecked_breakpoint']}; parse/internal errors: {len(parse_err)})")
    ok = (len(es) == exp["eslint_no_unchecked_breakpoint"] and len(disc) == exp["proclint_discarded_or_unread"]
          and len(ub) == exp["proclint_unchecked_breakpoint"] and not fatal and not parse_err)
    print("  sanity check:", "OK" if ok else "MISMATCH")
EOF
