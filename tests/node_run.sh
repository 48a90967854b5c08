#!/usr/bin/env bash
# node_run.sh CUVK: issue 35 end to end on whatever devices are here (lavapipe: one): `cuvk run
# --device all --concurrent` writes one node file holding every GPU's run (in turn) and its run
# together (all at once, one child process per GPU), the summary's interference check over them;
# then the readers take the file: parity --from, report, report --fleet, run --baseline.
set -euo pipefail
cuvk=$1
dir=$(mktemp -d "${TMPDIR:-/tmp}/cuvk_node_run.XXXXXX")
trap 'rm -rf "$dir"' EXIT
quick=(--tests read_x --n 4k --reps 5 --max-time 0.05 --settle-ms 1)
"$cuvk" run --device all --concurrent "${quick[@]}" --format json --output "$dir/node.json" \
  >"$dir/out" 2>&1 || { cat "$dir/out"; echo "node_run: the run failed"; exit 1; }
grep -q "^Interference: each point measured together" "$dir/out" ||
  { cat "$dir/out"; echo "node_run: no interference check on the console"; exit 1; }
python3 - "$dir/node.json" <<'PY'
import json, sys
node = json.load(open(sys.argv[1]))
assert node["schema"] == "cuvk.node/1", node["schema"]
assert node["provenance"]["mode"] == "in turn, then concurrent"
inter = node["summary"]["interference"]
assert len(inter) == len(node["gpus"]) >= 1, (len(inter), len(node["gpus"]))
for g, i in zip(node["gpus"], inter):
    rows = [r for r in g["run"]["results"] if r["status"] == "ok"]
    assert g["together"]["schema"] == "cuvk.results/1"
    assert i["compared"] == len(rows) > 0, (i["compared"], len(rows))
    assert i["line"].startswith(i["gpu"] + ": "), i["line"]
    for p in i["points"]:
        r = p["together_over_alone"]
        assert r["ci95_low"] <= r["ratio"] <= r["ci95_high"], p
PY
# Every reader takes it (parity: 2 = not compared where no CUDA device is, e.g. lavapipe).
rc=0
"$cuvk" parity --from "$dir/node.json" >/dev/null 2>&1 || rc=$?
[ "$rc" -le 2 ] || { echo "node_run: parity --from exit $rc"; exit 1; }
"$cuvk" report "$dir/node.json" | grep -q "node.json#gpu0" || { echo "node_run: report"; exit 1; }
"$cuvk" report --fleet "$dir/node.json" | grep -q "node.json#gpu0" || { echo "node_run: fleet"; exit 1; }
echo "node_run: passed"
