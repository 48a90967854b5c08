#!/usr/bin/env bash
# counters_cli.sh CUVK: `cuvk run --counters` where there are no counters (lavapipe, no CUPTI,
# no GPU) exits 0, every row's counter cell says `unavailable: <reason>`, nothing is labelled
# measured, and the JSON says why per row and in settings.counters (issue 21). On a GPU with
# counters (tests/gpu.sh) it exits 0 and every row has its counters or says why not.
# CUDA is hidden (CUDA_VISIBLE_DEVICES=-1: CUPTI finds no device), so there are no counters on a
# GPU machine either (tests/gpu.sh); the counters themselves are tested by counters_tests.
set -euo pipefail
cuvk=$1
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT
rc=0
# A pair's rows carry counters as built-in rows do (issue 32): saxpy beside the built-in tests.
pair="$(cd "$(dirname "$0")/../.." && pwd)/examples/saxpy/saxpy.toml"
# On a CUDA GPU (tests/gpu.sh): a pair's CUDA rows with counters are measured and verified, not
# failed (a pair's scalars are its own, not a CuvkParams block: the counters' launch key once read
# them as one and threw after the row was measured).
if [ -e /dev/nvidiactl ]; then
  "$cuvk" run --counters --api cuda --pair "$pair" --max-time 0.02 --settle-ms 1 --format json \
    --output "$d/cuda.json" >"$d/cuda.txt" 2>&1 || rc=$?
  [ $rc -eq 0 ] || { echo "CUDA pair with counters: exit $rc, expected 0"; cat "$d/cuda.txt"; exit 1; }
  python3 - "$d/cuda.json" <<'PY' || { cat "$d/cuda.txt"; exit 1; }
import json, sys
rows = json.load(open(sys.argv[1]))["results"]
bad = [(r["api"], r["status"], r.get("reason")) for r in rows if r["status"] != "ok"]
assert rows and not bad, bad
PY
  echo "ok: a CUDA pair's rows with counters are measured ($(wc -l <"$d/cuda.txt") lines)"
fi
CUDA_VISIBLE_DEVICES=-1 "$cuvk" run --counters --api vulkan --tests copy,read_offset --offsets 1 \
  --pair "$pair" --n 4096 --max-time 0.02 --settle-ms 1 --format json --output "$d/run.json" >"$d/out.txt" 2>&1 ||
  rc=$?
[ $rc -eq 0 ] || { echo "exit $rc, expected 0"; cat "$d/out.txt"; exit 1; }
grep -q "meas s/r" "$d/out.txt" || { echo "no counter columns"; cat "$d/out.txt"; exit 1; }
if python3 -c "import json,sys; sys.exit(0 if json.load(open('$d/run.json'))['settings']['counters']['source'].startswith('CUPTI on') else 1)"; then
  # A GPU with counters (tests/gpu.sh): every row carries them or says why not, one cell each.
  python3 - "$d/run.json" <<'PY' || { cat "$d/out.txt"; exit 1; }
import json, sys
d = json.load(open(sys.argv[1]))
for r in d["results"]:
    k = r["counters"]
    for part in ("kernel", "sampled"):
        assert k[part] and (k[part].get("unavailable") or len(k[part]) > 1), (part, k[part])
PY
  echo "ok: counters available here ($(grep -o 'CUPTI on [A-Z0-9]*' "$d/out.txt" | head -1)): every row says what it has"
  exit 0
fi
rows=$(grep -cE "^(copy|read_offset|saxpy) " "$d/out.txt" || true)
unavail=$(grep -E "^(copy|read_offset|saxpy) " "$d/out.txt" | grep -c "unavailable: " || true)
[ "$rows" -gt 0 ] && [ "$rows" -eq "$unavail" ] || {
  echo "$unavail of $rows rows say unavailable"; cat "$d/out.txt"; exit 1; }
python3 - "$d/run.json" <<'PY' || exit 1
import json, sys
d = json.load(open(sys.argv[1]))
c = d["settings"]["counters"]
assert c["enabled"] and c["source"], c
assert any(r["test"] == "saxpy" for r in d["results"]), "no pair rows"
for r in d["results"]:
    k = r["counters"]
    assert k["sampled"]["unavailable"], k
    assert k["kernel"]["unavailable"], k
    assert k["measured_dram_bytes_per_dispatch"] is None and k["measured_sectors_per_request"] is None, k
    assert "dram_differs_from_model" not in r["flags"], r["flags"]
PY
echo "ok: $rows rows, counters unavailable: $(python3 -c "import json,sys; print(json.load(open('$d/run.json'))['settings']['counters']['source'])")"
