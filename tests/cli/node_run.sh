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
# Issue 49, item 3: a folder an earlier --concurrent left behind (killed: no handler ran) is removed
# by the next, when its process is gone; a live process's folder is left alone.
mkdir -p "$dir/tmp"
sh -c 'exit 0' &
dead=$!
wait "$dead"
mkdir "$dir/tmp/cuvk_together_${dead}_stale" "$dir/tmp/cuvk_together_$$_live"
echo x >"$dir/tmp/cuvk_together_${dead}_stale/gpu0.json"
TMPDIR=$dir/tmp "$cuvk" run --device all --concurrent "${quick[@]}" --format json --output "$dir/node.json" \
  >"$dir/out" 2>&1 || { cat "$dir/out"; echo "node_run: the run failed"; exit 1; }
[ ! -e "$dir/tmp/cuvk_together_${dead}_stale" ] || { echo "node_run: the stale folder is left"; exit 1; }
[ -d "$dir/tmp/cuvk_together_$$_live" ] || { echo "node_run: a live process's folder was removed"; exit 1; }
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
# Three "GPUs" (lavapipe's one device named three times, through the test-only hook): the sibling
# rule runs inside the one run, every GPU is a board of the fleet and a section of parity.
CUVK_TEST_SAME_GPU_AGAIN=1 "$cuvk" run --device 0,0,0 --concurrent "${quick[@]}" --format json \
  --output "$dir/three.json" >"$dir/out3" 2>&1 || { cat "$dir/out3"; echo "node_run: 3 GPUs"; exit 1; }
grep -q "^3 GPUs of .*: \(no board is off\|off: GPU\)" "$dir/out3" ||
  { cat "$dir/out3"; echo "node_run: no sibling rule over 3 GPUs"; exit 1; }
python3 - "$dir/three.json" <<'PY'
import json, sys
node = json.load(open(sys.argv[1]))
assert [g["index"] for g in node["gpus"]] == [0, 1, 2], node["gpus"]
assert len(node["summary"]["interference"]) == 3
assert node["summary"]["siblings"][0].startswith("3 GPUs of "), node["summary"]["siblings"]
assert all(g["against_siblings"]["siblings"] == 2 for g in node["summary"]["gpus"])
PY
[ "$("$cuvk" report --fleet "$dir/three.json" | grep -c 'three.json#gpu[012] ')" -eq 3 ] ||
  { echo "node_run: the fleet does not list 3 boards"; exit 1; }
# (each GPU's verdicts under its header; without CUDA, e.g. lavapipe, each GPU's "cannot compare")
[ "$("$cuvk" parity --from "$dir/three.json" 2>&1 | grep -o 'three.json#gpu[0-9]' | sort -u | wc -l)" -eq 3 ] ||
  { echo "node_run: parity --from does not show 3 GPUs"; exit 1; }
echo "node_run: passed"
