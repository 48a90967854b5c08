#!/usr/bin/env bash
# Issue 24: published figures cannot go stale.
#   figures.sh check RESULTS_DIR        every figure under RESULTS_DIR names the files it was drawn
#       from, with their sha256, and they match (python3 only); and the check fails, naming the
#       figure, on a stale source (one byte changed), a missing source and a figure with no source.
#   figures.sh regenerate CUVK RESULTS_DIR    `cuvk report --index` on a copy of the published
#       files, twice: the same README.md and the same figure bytes both times, and the check passes;
#       without matplotlib (CUVK_PYTHON=false) the figures are skipped with the install line, exit 3,
#       the README still written and the figures untouched. Exit 77 (skip) without matplotlib.
#   figures.sh one-api CUVK    a folder with one run of one API only (lavapipe: no CUDA, no
#       parity, no sweeps, no traces): the figures that can be drawn are, exit 0, check passes.
set -u
mode=$1
fail() { echo "figures $mode: $*"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
src=$(cd "$(dirname "$0")/../.." && pwd)
plot="$src/results/plot.py"

case $mode in
  check)
    results=$2
    python3 "$plot" check "$results" || fail "the published figures do not match their sources"
    # The check can fail: a figure and its two run files copied, then each broken once.
    fig=$(cd "$results" && ls plots/parity.png 2>/dev/null || ls plots/*.png | head -1)
    [ -n "$fig" ] || fail "no published figure in $results/plots"
    mkdir -p "$tmp/r/plots"
    cp "$results/$fig" "$tmp/r/plots/"
    names=$(python3 -c "import sys; sys.path.insert(0, '$src/results')
from plotting.check import figure_sources
print(' '.join(rel for _, rel in figure_sources('$results/$fig')))")
    for n in $names; do mkdir -p "$tmp/r/$(dirname "$n")"; cp "$results/$n" "$tmp/r/$n"; done
    python3 -c "import json; d = json.load(open('$results/plots/figures.json'))
d['figures'] = [f for f in d['figures'] if f['file'] == '$fig']
json.dump(d, open('$tmp/r/plots/figures.json', 'w'))"
    python3 "$plot" check "$tmp/r" >/dev/null || fail "a faithful copy does not pass"
    first=${names%% *}
    printf ' ' >>"$tmp/r/$first"
    python3 "$plot" check "$tmp/r" >"$tmp/out" && fail "a changed $first passed"
    grep -q "drawn from $first with sha256 .* stale" "$tmp/out" || { cat "$tmp/out"; fail "stale: message"; }
    rm "$tmp/r/$first"
    python3 "$plot" check "$tmp/r" >"$tmp/out" && fail "a missing $first passed"
    grep -q "drawn from $first, which is not in" "$tmp/out" || { cat "$tmp/out"; fail "missing: message"; }
    cp "$results/$first" "$tmp/r/$first"
    # A PNG without a Source (a hand-made or foreign figure).
    python3 -c "import struct, zlib
def chunk(t, d): return struct.pack('>I', len(d)) + t + d + struct.pack('>I', zlib.crc32(t + d))
ihdr = struct.pack('>IIBBBBB', 1, 1, 8, 0, 0, 0, 0)
open('$tmp/r/plots/foreign.png', 'wb').write(b'\x89PNG\r\n\x1a\n' + chunk(b'IHDR', ihdr)
    + chunk(b'IDAT', zlib.compress(b'\0\0')) + chunk(b'IEND', b''))"
    python3 "$plot" check "$tmp/r" >"$tmp/out" && fail "a figure with no source passed"
    grep -q "plots/foreign.png: names no source file" "$tmp/out" || { cat "$tmp/out"; fail "no source: message"; }
    echo "figures check: passed"
    ;;
  regenerate)
    cuvk=$2 results=$3
    # The indexed runs, and of the subfolders the small files that feed every kind of figure.
    mkdir -p "$tmp/a"
    cp "$results"/*.json "$results"/*.md "$tmp/a/"
    (cd "$results" && for f in h1*/h1*_geometry.json h*/h*_copy_queues.json h*/traces/copy_grid.json.gz; do
      [ -f "$f" ] && mkdir -p "$tmp/a/$(dirname "$f")" && cp "$f" "$tmp/a/$f"; done)
    "$cuvk" report --index "$tmp/a" >"$tmp/out1" 2>"$tmp/err1"
    rc=$?
    if [ $rc = 3 ] && grep -q "figures skipped: .*apt-get install python3-matplotlib" "$tmp/err1"; then
      echo "figures regenerate: skipped: no python3 with matplotlib here"; exit 77
    fi
    [ $rc = 0 ] || { cat "$tmp/out1" "$tmp/err1"; fail "cuvk report --index: exit $rc"; }
    sums() { (cd "$tmp/a" && sha256sum README.md plots/*); }
    sums >"$tmp/sums1"
    [ "$(grep -c 'plots/.*\.png' "$tmp/sums1")" -ge 6 ] || { cat "$tmp/sums1"; fail "too few figures"; }
    "$cuvk" report --index "$tmp/a" >"$tmp/out2" 2>&1 || { cat "$tmp/out2"; fail "second run failed"; }
    sums >"$tmp/sums2"
    diff "$tmp/sums1" "$tmp/sums2" || fail "two runs drew different bytes"
    python3 "$plot" check "$tmp/a" || fail "the regenerated figures fail the check"
    # Without matplotlib: skipped with the install line, exit 3, README written, figures kept.
    CUVK_PYTHON=false "$cuvk" report --index "$tmp/a" >"$tmp/out3" 2>"$tmp/err3"
    rc=$?
    [ $rc = 3 ] || { cat "$tmp/out3" "$tmp/err3"; fail "no matplotlib: exit $rc, expected 3"; }
    grep -q "^error: figures skipped: .*(Debian: apt-get install python3-matplotlib" "$tmp/err3" ||
      { cat "$tmp/err3"; fail "no matplotlib: no install line"; }
    grep -q "These figures were not redrawn" "$tmp/a/README.md" || fail "no matplotlib: README says nothing"
    (cd "$tmp/a" && sha256sum plots/*) | diff - <(grep ' plots/' "$tmp/sums1") || fail "figures touched"
    echo "figures regenerate: passed"
    ;;
  one-api)
    cuvk=$2
    mkdir -p "$tmp/v"
    "$cuvk" run --api vulkan --tests copy,read_x,stride,read_offset --n 64k --reps 3 --warmup 1 \
      --max-time 0.02 --settle-ms 1 --format json --output "$tmp/v/vk.json" >"$tmp/run.txt" 2>&1 ||
      { cat "$tmp/run.txt"; fail "cuvk run failed"; }
    "$cuvk" report --index "$tmp/v" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    if [ $rc = 3 ] && grep -q "figures skipped: " "$tmp/err"; then
      echo "figures one-api: skipped: no python3 with matplotlib here"; exit 77
    fi
    [ $rc = 0 ] || { cat "$tmp/out" "$tmp/err"; fail "cuvk report --index: exit $rc"; }
    grep -q "^drew plots/stride.png" "$tmp/out" || { cat "$tmp/out"; fail "no stride figure"; }
    grep -q "^drew plots/parity.png" "$tmp/out" && fail "a parity figure without CUDA"
    python3 "$plot" check "$tmp/v" || fail "check"
    # A 95% CI collapsed onto its median (few samples of a coarse timer, as on lavapipe): the
    # bandwidth error bars are then zero, never negative. Each ok row's median is moved by a few
    # ulps to a time where g * t / t - g rounds below zero (its GB/s recomputed from its bytes),
    # the case that once failed `report --index` in CI ("yerr must not contain negative values").
    mkdir -p "$tmp/e"
    python3 - "$tmp/v/vk.json" "$tmp/e/vk.json" <<'PY' || fail "no row where the CI edge rounds"
import json, math, sys
d = json.load(open(sys.argv[1]))
edges = 0
for r in d["results"]:
    if r.get("status") != "ok":
        continue
    tm = r["time_ms"]
    t = tm["median"]
    for _ in range(400):
        g = {f: r[b] / t / 1e6 for f, b in (("gbps_moved", "moved_bytes"), ("gbps_useful", "useful_bytes"))}
        if tm["min"] <= t <= tm["max"] and any(v * t / t - v < 0 for v in g.values()):
            tm["median"], r["ci"]["low_ms"], r["ci"]["high_ms"] = t, t, t
            r.update(g)
            edges += 1
            break
        t = math.nextafter(t, tm["max"] if t < tm["max"] else tm["min"])
json.dump(d, open(sys.argv[2], "w"))
sys.exit(0 if edges else 1)
PY
    "$cuvk" report --index "$tmp/e" >"$tmp/out" 2>"$tmp/err" ||
      { cat "$tmp/out" "$tmp/err"; fail "cuvk report --index with CIs on their medians"; }
    grep -q "^drew plots/stride.png" "$tmp/out" || { cat "$tmp/out"; fail "no stride figure (CI edge)"; }
    echo "figures one-api: passed"
    ;;
  *) fail "unknown mode" ;;
esac
