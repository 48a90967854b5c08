#!/usr/bin/env bash
# Every published figure of one GPU, in one device call (see README, Results). Run from the
# repository root on the GPU machine with build/cuvk and .gl/ (the Vulkan loader .debs) carried.
# Builds nothing. Usage: results/gpu_run.sh NAME   (NAME: h100, h200; files go to $OUT/NAME.tar.gz)
set -u
name=${1:-h100}
for f in .gl/*.deb; do dpkg -x "$f" /; done
ldconfig
icd=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
[ -f $icd ] && export VK_DRIVER_FILES=$icd
R=$(mktemp -d)
cuvk=./build/cuvk
step() { echo "== $*"; }

step gpu
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,clocks.max.sm,clocks.max.mem --format=csv | tee "$R/nvidia-smi.csv"

# The devices as cuvk sees them. Also the first process on a freshly lent machine to load the
# CUDA and Vulkan drivers from disk: the runs below measure cuvk, not a cold page cache.
step devices
$cuvk devices > "$R/devices.txt" 2>&1; echo "rc=$? $(grep -c . "$R/devices.txt") lines"

step "default suite, twice back to back; the first against the last published run (--baseline)"
base=results/$name.json
for i in 1 2; do
  out=$R/$name.json; [ $i = 2 ] && out=$R/${name}_repeat.json
  extra=(); [ $i = 1 ] && [ -f "$base" ] && extra=(--baseline "$base")
  t0=$(date +%s.%N)
  # Each stdout line stamped with the seconds since launch: rows must arrive as they are measured.
  $cuvk run --format json --output "$out" "${extra[@]}" 2>"$R/run$i.err" |
    while IFS= read -r l; do echo "$(awk -v t0="$t0" -v t="$(date +%s.%N)" 'BEGIN{printf "%7.2f", t-t0}') $l"; done \
    > "$R/${name}_run$i.txt"
  echo "run $i rc=${PIPESTATUS[0]}; first stamped row: $(grep -m1 -E ' (copy|read_x) ' "$R/${name}_run$i.txt" | cut -c1-60)"
  grep -E "wall time|Verdicts" "$R/${name}_run$i.txt" | cut -c1-200
done

step "parity verdicts of the first run"
$cuvk parity --from "$R/$name.json" --format json --output "$R/${name}_parity.json" > "$R/${name}_parity.txt" 2>&1; echo "rc=$?"
grep -E "^Verdicts|SAME|SLOWER" "$R/${name}_parity.txt" | tail -2

step "inspect: CUDA and Vulkan SASS side by side"
for t in read_x read_x3 update_xy read_offset write_offset stride copy; do
  $cuvk inspect $t > "$R/inspect_$t.txt" 2>&1; echo "$t rc=$?"
done

step "compute-sanitizer over the CUDA kernels"
compute-sanitizer --tool memcheck --error-exitcode 99 $cuvk run --api cuda --n 1M --reps 2 --warmup 0 \
  --max-time 0.001 --settle-ms 1 --format json --output "$R/sanitizer_memcheck.json" > "$R/sanitizer_memcheck.txt" 2>&1
echo "memcheck rc=$? $(grep -E 'ERROR SUMMARY' "$R/sanitizer_memcheck.txt" | tail -1)"

tar -czf "$OUT/$name.tar.gz" -C "$R" .
ls -la "$R" | tail -n +2 | awk '{print $5, $9}'
