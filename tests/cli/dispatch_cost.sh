#!/usr/bin/env bash
# Issue 33's dispatch cost model end to end (lavapipe in CI, both APIs on a GPU): `--dispatch-cost`
# sweeps a near-empty kernel over 1..2^14 blocks on a CPU device (2^20 on a GPU), fits us = a + b x blocks and writes both; a run
# without the flag has no `dispatch_cost`. Usage: dispatch_cost.sh CUVK
set -u
cuvk=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
rc=0
"$cuvk" run --tests copy --variants vec4 --n 1k --dispatch-cost --format json --output "$dir/run.json" >"$dir/out" 2>"$dir/err" || rc=$?
[ "$rc" -eq 0 ] || { cat "$dir/err"; fail "run --dispatch-cost: exit $rc"; }
grep -q "^Dispatch cost: us = a + b x blocks" "$dir/out" || { cat "$dir/out"; fail "no fit table on the console"; }
grep -Eq "^ +16384( +[0-9.]+)+$" "$dir/out" || fail "no sweep row for 16384 blocks"
python3 - "$dir/run.json" <<'PY' || fail "the run file's dispatch_cost"
import json, sys
d = json.load(open(sys.argv[1]))
dc = d["dispatch_cost"]
apis = [e["api"] for e in dc]
assert "vulkan" in apis and len(set(apis)) == len(apis), apis  # CUDA too on a GPU
cpu = d["devices"]["vulkan"]["is_cpu"]
for e in dc:
    sizes = 15 if cpu else 21  # 1 .. 2^14 blocks on a CPU device, 1 .. 2^20 on a GPU
    assert [p["blocks"] for p in e["points"]] == [2 ** k for k in range(sizes)], e["points"]
    assert all(p["samples"] == 30 and p["median_us"] > 0 for p in e["points"])
    f = e["fit"]
    assert f is not None, e["no_fit"]
    assert f["points_fitted"] + f["points_left_out"] == sizes and f["points_fitted"] >= 3, f
    assert f["a_ci_us"][0] <= f["a_us"] <= f["a_ci_us"][1], f
    assert f["b_ci_ns_per_block"][0] <= f["b_ns_per_block"] <= f["b_ci_ns_per_block"][1], f
    assert f["b_ns_per_block"] > 0, f
    assert len(f["residuals_us"]) == f["points_fitted"]
assert "dispatch cost" in d["provenance"]["phase_s"], d["provenance"]["phase_s"]
PY
"$cuvk" run --tests copy --variants vec4 --n 1k --format json --output "$dir/plain.json" --quiet || fail "plain run"
python3 -c "import json,sys; d=json.load(open(sys.argv[1])); assert 'dispatch_cost' not in d; assert 'dispatch cost' not in d['provenance']['phase_s']" "$dir/plain.json" ||
  fail "a run without --dispatch-cost has a dispatch_cost"
echo "dispatch_cost: passed"
