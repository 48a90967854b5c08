#!/usr/bin/env bash
# Issue 31's mutation audit: a Vulkan timer that ignored the timestamp period stayed green, since
# lavapipe's period is 1 ns. Under tests/cli/fake_period_layer.cpp (a layer that reports the period
# 1000x larger) the same run's median must grow about 1000x: a timer that ignores the period (or
# applies it twice) gives a ratio near 1 (or 1e6).
# Usage: fake_period.sh CUVK LAYER_DIR (the folder of the layer's manifest)
set -u
cuvk=$1 layers=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
args=(run --tests copy --variants scalar --api vulkan --n 256k --settle-ms 0 --reps 10 --warmup 2
      --max-time 0.3 --format json)
median() {
  python3 -c "import json,sys; r=[x for x in json.load(open(sys.argv[1]))['results'] if x['status']=='ok']; print(r[0]['time_ms']['median'])" "$1"
}
"$cuvk" "${args[@]}" --output "$tmp/plain.json" >"$tmp/out" 2>&1 || { cat "$tmp/out"; echo "FAIL: plain run"; exit 1; }
VK_LAYER_PATH=$layers VK_INSTANCE_LAYERS=VK_LAYER_CUVK_fake_timestamp_period CUVK_FAKE_PERIOD_SCALE=1000 \
  "$cuvk" "${args[@]}" --output "$tmp/faked.json" >"$tmp/out" 2>&1 || { cat "$tmp/out"; echo "FAIL: faked run"; exit 1; }
a=$(median "$tmp/plain.json") b=$(median "$tmp/faked.json")
python3 - "$a" "$b" <<'PY' || exit 1
import sys
a, b = map(float, sys.argv[1:3])
ratio = b / a
print(f"median {a:.4g} ms, with the period faked 1000x {b:.4g} ms: ratio {ratio:.0f}")
if not 100 <= ratio <= 10000:
    print("FAIL: the Vulkan times do not follow the device's timestamp period")
    sys.exit(1)
PY
echo "ok: the Vulkan timer applies the timestamp period"
