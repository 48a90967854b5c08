#!/usr/bin/env bash
# Hardware counters beside the rows (issue 21, docs/COUNTERS.md), everything FINDINGS needs from
# one GPU, in one device call (about 4 minutes). Run from the repository root with build/ (cuvk)
# and .gl/ carried; builds nothing. Writes $OUT/counters_<gpu>.tar.gz (gpu: h100, h200, ...):
#   suite.json/.txt            the default suite, no counters (wall-time reference)
#   suite_counters.json/.txt   the default suite with --counters (cost: wall time against it)
#   why_*.json/.txt            the FINDINGS experiments with --counters: block sizes and the
#                              grid-stride copy, read_offset 0..32, update_xy with both bindings,
#                              the copy engines on every queue family
#   ncu_read_offset.txt        Nsight Compute on read_offset 0, 1, 32 (the cross-check)
#   dump/                      the decoded PM samples and range values of every why_ row
set -u
for f in .gl/*.deb; do dpkg -x "$f" /; done
ldconfig
if [ -f /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json ]; then
  export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
fi
export PATH=$PATH:/usr/local/cuda/bin
B=${CUVK_BUILD:-build}
cuvk=./$B/cuvk
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | grep -oiE 'h[0-9]{3}' | tr A-Z a-z)
gpu=${gpu:-gpu}
R=$(mktemp -d)/counters_$gpu
mkdir -p "$R/dump"
step() { echo "== $* ($(date +%T))"; }
timed() {  # timed NAME ARGS...: cuvk run ARGS, JSON + console, wall seconds
  local name=$1; shift
  local t0=$(date +%s.%N)
  timeout 150 $cuvk run "$@" --format json --output "$R/$name.json" > "$R/$name.txt" 2>&1
  echo "$name rc=$? wall $(awk "BEGIN{printf \"%.1f\", $(date +%s.%N) - $t0}") s"
}

step gpu
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv | tee "$R/nvidia-smi.csv"
grep -i profiling /proc/driver/nvidia/params | tee "$R/params.txt"

step "default suite without and with counters (cost)"
timed suite
timed suite_counters --counters
grep -h "wall time" "$R/suite.txt" "$R/suite_counters.txt"

step "why: workgroups (copy scalar and grid-stride, block 128/256, both bindings)"
export CUVK_COUNTERS_DUMP=$R/dump CUVK_COUNTERS_WARPS=1  # the warps resident too (a second batch)
timed why_blocks --counters --tests copy --variants scalar,grid --block-sizes 128,256 --vk-binding all
step "why: read_offset 0..32"
timed why_offsets --counters --tests read_offset --offsets 0,1,2,4,8,16,31,32
step "why: update_xy, both bindings, scalar and vec2"
timed why_update_xy --counters --tests update_xy --vk-binding all
step "why: the copy engines on every queue family"
timed why_copy_engine --counters --tests copy_engine --copy-mibs 256
unset CUVK_COUNTERS_DUMP CUVK_COUNTERS_WARPS

step "ncu cross-check: read_offset 0, 1, 32 (CUDA)"
M=l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum
M=$M,l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum,l1tex__t_requests_pipe_lsu_mem_global_op_st.sum
M=$M,smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct,dram__bytes_read.sum
M=$M,dram__bytes_write.sum,sm__ctas_launched.sum,sm__warps_active.avg.pct_of_peak_sustained_active
for o in 0 1 32; do
  echo "### ncu --metrics ... -k regex:read_offset -c 1 cuvk run --api cuda --tests read_offset --offsets $o" >> "$R/ncu_read_offset.txt"
  timeout 60 ncu --metrics $M -k regex:read_offset -c 1 $cuvk run --api cuda --tests read_offset \
    --offsets $o --reps 1 --warmup 0 --max-time 0.01 --settle-ms 0 >> "$R/ncu_read_offset.txt" 2>&1
  echo "ncu offset $o rc=$?"
done
timed ncu_twin --counters --api cuda --tests read_offset --offsets 0,1,32

(cd "$(dirname "$R")" && tar czf "$OUT/counters_$gpu.tar.gz" "counters_$gpu")
ls -la "$OUT"
