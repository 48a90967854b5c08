#!/usr/bin/env bash
# Issue 33 end to end on lavapipe: `cuvk run --tests copy --n 1k,4k` gives rows per size, each
# verified and labelled; the run file keeps them apart (settings.sizes, params.n, the size curves,
# the calibration); `--l2 warm` takes a list; `cuvk report` and `--baseline` match rows by n; and
# `cuvk report --index` draws the run's size curves. Usage: sizes_e2e.sh CUVK
set -u
cuvk=$1
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "sizes_e2e: FAILED: $*"; exit 1; }

"$cuvk" run --api vulkan --tests copy --n 1k,4k --format json --output "$tmp/run.json" >"$tmp/out.txt" 2>&1 ||
  { cat "$tmp/out.txt"; fail "cuvk run --n 1k,4k exited non-zero"; }
cat "$tmp/out.txt"
for v in scalar vec4 engine grid; do
  for n in 1k 4k; do
    grep -Eq "^copy +- +$v( q[0-9]+ \([a-z|]+\))? +n=$n +.*ok, verified" "$tmp/out.txt" || fail "no verified copy $v row at n=$n"
  done
done
grep -q "n = 1k,4k (--n)" "$tmp/out.txt" || fail "the head does not name both sizes"
grep -q "Size curves" "$tmp/out.txt" || fail "no size-curve table"
grep -q "Empty dispatch" "$tmp/out.txt" || fail "no empty-dispatch table"
python3 - "$tmp/run.json" <<'PY' || fail "the run file"
import json, sys
doc = json.load(open(sys.argv[1]))
rows = doc["results"]
assert doc["settings"]["sizes"] == [1024, 4096], doc["settings"]["sizes"]
by_n = {}
for r in rows:
    assert r["status"] == "ok" and r["check"] == "verified", r
    assert r["checked_elements"] > 0
    by_n.setdefault(r["params"]["n"], []).append(r["variant"])
assert sorted(by_n) == [1024, 4096] and len(by_n[1024]) == len(by_n[4096]) == 4, by_n
cal = doc["calibration"]["vulkan"]
assert cal["empty_dispatch_ms"]["samples"] == 200 and cal["empty_dispatch_ms"]["median"] > 0, cal
assert cal["timestamp_valid_bits"] > 0 and cal["timer_resolution_ns"] > 0, cal
curves = doc["summary"]["size_curves"]
assert len(curves) == 4, curves
for c in curves:
    assert c["plateau_n"] == 4096 and c["n_at_fraction"] in (1024, 4096), c
    assert [s["n"] for s in c["sizes"]] == [1024, 4096] and "n=" not in c["point"], c
PY
"$cuvk" report "$tmp/run.json" --format md >"$tmp/report.md" || fail "cuvk report"
grep -q "n=1k" "$tmp/report.md" && grep -q "n=4k" "$tmp/report.md" || fail "report labels"
"$cuvk" run --api vulkan --tests copy --variants scalar --n 4k,16k --baseline "$tmp/run.json" \
  >"$tmp/base.txt" 2>&1
grep -Eq "^copy +- +scalar +n=4k +256 +vulkan +[0-9.]+ +[0-9.]+ .*(SAME|SLOWER|FASTER|UNCERTAIN)" "$tmp/base.txt" ||
  { cat "$tmp/base.txt"; fail "the 4k row was not compared with the baseline's 4k row"; }
grep -Eq "copy scalar n=16k block 256 vulkan: not in the baseline" "$tmp/base.txt" ||
  { cat "$tmp/base.txt"; fail "the 16k row should not be in the baseline"; }
"$cuvk" run --api vulkan --tests copy --variants scalar --l2 warm --n 1k,64k >"$tmp/warm.txt" 2>&1 ||
  { cat "$tmp/warm.txt"; fail "--l2 warm with sizes"; }
[ "$(grep -Ec "^copy +- +scalar +n=(1k|64k) +.*ok, verified" "$tmp/warm.txt")" = 2 ] ||
  { cat "$tmp/warm.txt"; fail "--l2 warm rows"; }
if python3 -c "import matplotlib" 2>/dev/null; then
  mkdir "$tmp/idx" && cp "$tmp/run.json" "$tmp/idx/lavapipe_sizes.json"
  "$cuvk" report --index "$tmp/idx" >"$tmp/idx.txt" 2>&1 || { cat "$tmp/idx.txt"; fail "report --index"; }
  [ -s "$tmp/idx/plots/sizes.lavapipe_sizes.png" ] || { cat "$tmp/idx.txt"; fail "no size-curve figure"; }
fi
echo "sizes_e2e: passed"
