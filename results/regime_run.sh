#!/usr/bin/env bash
# Where ports really lose (issue 33), one GPU, one device call: the default run's speed (cold, warm
# and against the published run), the regime suite as one command (timed), size curves with the
# L2 flushed and warm, every submission mode of the chain test at small and large n, and the
# dispatch cost model at three block sizes. Run from the repository root on the GPU machine with
# build/cuvk and .gl/ (the Vulkan loader .debs) carried; it builds nothing.
#   results/regime_run.sh NAME       (NAME: h100, h200; everything goes to $OUT/NAME_regime.tar.gz)
set -u
name=${1:-h100}
for f in .gl/*.deb; do dpkg -x "$f" /; done
ldconfig
icd=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
[ -f $icd ] && export VK_DRIVER_FILES=$icd
R=$(mktemp -d)/${name}_regime
mkdir -p "$R"
cuvk=./build/cuvk
step() { echo "== $*" | tee -a "$R/steps.txt"; }
timed() {  # NAME cuvk-args...: runs cuvk, its console in NAME.txt, exit code and wall time noted
  local what=$1 t0 rc
  shift
  t0=$(date +%s.%N)
  "$cuvk" "$@" >"$R/$what.txt" 2>&1
  rc=$?
  echo "$what: rc=$rc, $(awk "BEGIN{printf \"%.1f\", $(date +%s.%N) - $t0}") s: cuvk $*" | tee -a "$R/steps.txt"
}

# 1. The default run first (cold), then warm, then against the published run: SPEED.md's figures.
step "default run: cold, warm, --baseline results/$name.json"
timed default_cold run --format json --output "$R/default_cold.json"
timed default_warm run --format json --output "$R/default_warm.json"
timed default_baseline run --format json --output "$R/default_baseline.json" --baseline "results/$name.json"
grep -h "Verdicts\|SLOWER\|wall time" "$R"/default_*.txt | head -20 | tee -a "$R/steps.txt"
$cuvk devices >"$R/devices.txt" 2>&1

# 2. The regime suite (docs/MEASURING.md, "The regime suite"): one command, timed: copy (scalar,
# vec4) and every chain mode from 4k to 16M floats (x4 steps), the dispatch cost model, each point
# capped at 0.2 s.
step "regime suite"
timed regime run --tests copy,chain --variants scalar,vec4 --n 4k-16M:x4 --dispatch-cost --max-time 0.2 --format json --output "$R/regime.json"

# 3. Size curves: copy (scalar, vec4) and read_offset 0 and 1 from 1k to 256M floats, x4 steps.
step "size curves, L2 flushed (cold) and warm"
timed sizes_cold run --tests copy,read_offset --variants scalar,vec4 --offsets 0,1 --n 1k-256M:x4 --format json --output "$R/sizes_cold.json"
timed sizes_warm run --tests copy,read_offset --variants scalar,vec4 --offsets 0,1 --n 1k-256M:x4 --l2 warm --format json --output "$R/sizes_warm.json"

# 4. Chains of dependent dispatches, every submission mode, at the test's sizes.
step "chains"
timed chains run --tests chain --format json --output "$R/chains.json"

# 5. The dispatch cost model at three block sizes (FINDINGS 1's launch rates were per block size).
step "dispatch cost"
for b in 128 256 512; do
  timed "dispatch_$b" run --tests copy --variants vec4 --n 1M --block-size "$b" --dispatch-cost --format json --output "$R/dispatch_$b.json"
done

nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv >"$R/nvidia-smi.csv" 2>&1
tar -C "$(dirname "$R")" -czf "$OUT/${name}_regime.tar.gz" "$(basename "$R")"
cat "$R/steps.txt"
