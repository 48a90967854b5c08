#!/usr/bin/env bash
# Everything cuvk publishes from an H100, in one call on the device machine (see README, Results).
# Run from the repository root there, with build/ (cuvk and tests/cuda_tests) and .gl/ carried.
# Builds nothing. Writes one archive, $OUT/h100.tar.gz, holding every JSON and log.
set -u
for f in .gl/*.deb; do dpkg -x "$f" /; done
ldconfig
if [ -f /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json ]; then
  export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
fi
R=$(mktemp -d)
cuvk=./build/cuvk
step() { echo "== $*"; }

step gpu
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,clocks.max.sm,clocks.max.mem,power.limit,temperature.gpu --format=csv | tee "$R/nvidia-smi.csv"
$cuvk devices > "$R/devices.txt" 2>&1; cat "$R/devices.txt" | tail -3

step "CUDA integration tests"
./build/tests/cuda_tests > "$R/cuda_tests.log" 2>&1; tail -3 "$R/cuda_tests.log"

step "default suite, twice back to back (reproducibility)"
for i in 1 2; do
  /usr/bin/time -f "%e s wall" -o "$R/run$i.time" $cuvk run --format json --output "$R/h100_run$i.json" > "$R/h100_run$i.txt" 2>&1
  echo "run $i rc=$? $(cat "$R/run$i.time")"
done

step "warm L2 with the seed's n = 4M (cache-resident flag)"
$cuvk run --tests read_x,copy --n 4M --l2 warm --format json --output "$R/h100_warm_4M.json" > "$R/h100_warm_4M.txt" 2>&1; echo rc=$?

step "launch-geometry sweep and binding modes"
$cuvk run --tests read_x,update_xy,copy --variants scalar,vec4 --block-sizes 64,128,256,512,1024 \
  --vk-binding descriptor,bda --format json --output "$R/h100_geometry.json" > "$R/h100_geometry.txt" 2>&1; echo rc=$?

step "parity verdicts (a live run; rc 1 = some point differs, not a failure)"
$cuvk parity --save-run "$R/h100_parity_run.json" --format json --output "$R/h100_parity.json" > "$R/h100_parity.txt" 2>&1; echo rc=$?

step "inspect (PTX, SASS, SPIR-V, registers, occupancy)"
for t in read_x update_xy copy read_offset; do
  $cuvk inspect $t --block-sizes 64,128,256,512,1024 > "$R/inspect_$t.txt" 2>&1; echo "$t rc=$?"
done

step "compute-sanitizer over every CUDA kernel"
for tool in memcheck racecheck; do
  compute-sanitizer --tool $tool --error-exitcode 99 $cuvk run --api cuda --n 1M --reps 2 --warmup 0 \
    --max-time 0.001 --settle-ms 1 --format json --output "$R/sanitizer_$tool.json" > "$R/sanitizer_$tool.txt" 2>&1
  echo "$tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$R/sanitizer_$tool.txt" | tail -1)"
done

tar -czf "$OUT/h100.tar.gz" -C "$R" .
ls -la "$R"
