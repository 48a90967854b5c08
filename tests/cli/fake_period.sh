#!/usr/bin/env bash
# Issue 31's mutation audit: a Vulkan timer that ignored the timestamp period stayed green, since
# lavapipe's period is 1 ns. Under tests/cli/fake_period_layer.cpp (a layer that reports the period
# 1000x larger) the same run's median must grow about 1000x: a timer that ignores the period (or
# applies it twice) gives a ratio near 1 (or 1e6). Issue 49: the chain reads its timestamps on its
# own path (vulkan/vk_chain.cpp), checked the same way with TEST chain (its first mode's row).
# Usage: fake_period.sh CUVK LAYER_DIR [TEST] (LAYER_DIR: the folder of the layer's manifest;
# TEST: copy, the default, at 256k, or chain at 64k)
set -u
cuvk=$1 layers=$2 test=${3:-copy}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=256k
[ "$test" = chain ] && n=64k
args=(run --tests "$test" --variants scalar --api vulkan --n "$n" --settle-ms 0 --reps 10 --warmup 2
      --max-time 0.3 --format json)
median() {
  python3 -c "import json,sys; r=[x for x in json.load(open(sys.argv[1]))['results'] if x['status']=='ok' and x['test']==sys.argv[2]]; print(r[0]['time_ms']['median'])" "$1" "$test"
}
"$cuvk" "${args[@]}" --output "$tmp/plain.json" >"$tmp/out" 2>&1 || { cat "$tmp/out"; echo "FAIL: plain run"; exit 1; }
VK_LAYER_PATH=$layers VK_INSTANCE_LAYERS=VK_LAYER_CUVK_fake_timestamp_period CUVK_FAKE_PERIOD_SCALE=1000 \
  "$cuvk" "${args[@]}" --output "$tmp/faked.json" >"$tmp/out" 2>&1 || { cat "$tmp/out"; echo "FAIL: faked run"; exit 1; }
a=$(median "$tmp/plain.json") b=$(median "$tmp/faked.json")
python3 - "$a" "$b" "$test" <<'PY' || exit 1
import sys
a, b = map(float, sys.argv[1:3])
ratio = b / a
print(f"{sys.argv[3]}: median {a:.4g} ms, with the period faked 1000x {b:.4g} ms: ratio {ratio:.0f}")
if not 100 <= ratio <= 10000:
    print("FAIL: the Vulkan times do not follow the device's timestamp period")
    sys.exit(1)
PY
echo "ok: the Vulkan timer applies the timestamp period ($test)"
