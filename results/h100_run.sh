#!/usr/bin/env bash
# Everything cuvk publishes from an H100, in one call on the device machine (see README, Results).
# Run from the repository root there, with build/ (cuvk and tests/cuda_tests) and .gl/ carried.
# Builds nothing. Two parts, one device call each (a call may last 10 minutes):
#   results/h100_run.sh core     the published suite twice, warm L2, parity, compute-sanitizer
#   results/h100_run.sh explain  geometry / binding / workgroup-count sweeps and `cuvk inspect`
# Each writes one archive, $OUT/h100_<part>.tar.gz, holding every JSON and log.
set -u
for f in .gl/*.deb; do dpkg -x "$f" /; done
ldconfig
if [ -f /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json ]; then
  export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
fi
R=$(mktemp -d)
B=${CUVK_BUILD:-build}  # where cuvk and tests/cuda_tests are
cuvk=./$B/cuvk
part=${1:-core}
step() { echo "== $*"; }

step gpu
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,clocks.max.sm,clocks.max.mem,power.limit,temperature.gpu --format=csv | tee "$R/nvidia-smi.csv"
$cuvk devices > "$R/devices.txt" 2>&1; cat "$R/devices.txt" | tail -3

step "CUDA integration tests"
./$B/tests/cuda_tests > "$R/cuda_tests.log" 2>&1; tail -3 "$R/cuda_tests.log"

if [ "$part" = core ]; then
step "default suite, twice back to back (reproducibility)"
for i in 1 2; do
  t0=$(date +%s.%N)
  $cuvk run --format json --output "$R/h100_run$i.json" > "$R/h100_run$i.txt" 2>&1
  rc=$?
  echo "run $i rc=$rc $(awk "BEGIN{printf \"%.1f\", $(date +%s.%N) - $t0}") s wall (the JSON's provenance.wall_s is cuvk's own)"
done

step "warm L2 with the seed's n = 4M (cache-resident flag)"
$cuvk run --tests read_x,copy --n 4M --l2 warm --format json --output "$R/h100_warm_4M.json" > "$R/h100_warm_4M.txt" 2>&1; echo rc=$?

step "parity verdicts (a live run; rc 1 = some point differs, not a failure)"
$cuvk parity --save-run "$R/h100_parity_run.json" --format json --output "$R/h100_parity.json" > "$R/h100_parity.txt" 2>&1; echo rc=$?

step "compute-sanitizer over every CUDA kernel"
for tool in memcheck racecheck; do
  compute-sanitizer --tool $tool --error-exitcode 99 $cuvk run --api cuda --n 1M --reps 2 --warmup 0 \
    --max-time 0.001 --settle-ms 1 --format json --output "$R/sanitizer_$tool.json" > "$R/sanitizer_$tool.txt" 2>&1
  echo "$tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY' "$R/sanitizer_$tool.txt" | tail -1)"
done

else
step "launch-geometry sweep and binding modes"
$cuvk run --tests read_x,update_xy,copy,read_offset --offsets 0,1 --block-sizes 64,128,256,512,1024 \
  --vk-binding descriptor,bda --format json --output "$R/h100_geometry.json" > "$R/h100_geometry.txt" 2>&1; echo rc=$?

step "workgroup count: the same copy at three sizes (does the Vulkan/CUDA ratio follow n/block?)"
for n in 16M 256M; do
  $cuvk run --tests copy --variants scalar,vec4 --n $n --block-sizes 128,256,512,1024 --vk-binding descriptor,bda \
    --format json --output "$R/h100_ctas_$n.json" > "$R/h100_ctas_$n.txt" 2>&1; echo "n=$n rc=$?"
done

step "inspect (PTX, SASS, SPIR-V, registers, occupancy)"
for t in read_x update_xy copy read_offset; do
  $cuvk inspect $t --block-sizes 64,128,256,512,1024 > "$R/inspect_$t.txt" 2>&1; echo "$t rc=$?"
done

fi

tar -czf "$OUT/h100_$part.tar.gz" -C "$R" .
ls -la "$R"
