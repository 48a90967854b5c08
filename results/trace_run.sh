#!/usr/bin/env bash
# Dispatch traces behind the parity findings (README, Dispatch traces; results/FINDINGS.md #1, #2),
# on both APIs, in one device call. Run from the repository root on the GPU machine with build/cuvk
# and .gl/ (the Vulkan loader .debs) carried. Builds nothing.
# Usage: results/trace_run.sh NAME   (NAME: h100, h200; files go to $OUT/NAME_traces_GROUP.tar.gz)
set -u
name=${1:-h100}
for f in .gl/*.deb; do dpkg -x "$f" /; done
ldconfig
icd=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
[ -f $icd ] && export VK_DRIVER_FILES=$icd
R=$(mktemp -d)
cuvk=./build/cuvk

# trace GROUP TAG ARGS...: the text and the gzipped JSON of one `cuvk trace` into $R/GROUP, and its
# key lines on stdout. Each group comes back as one archive (a trace of 262144 blocks is ~5 MB of
# JSON, 1.9 MB gzipped). Published under results/NAME/traces/, the JSON files are drawn by
# `cuvk report --index results` (the residency figure and one figure per trace; docs/PUBLISHING.md).
trace() {
  local group=$1 tag=$2
  shift 2
  mkdir -p "$R/$group"
  $cuvk trace "$@" --output "$R/$group/$tag.json" > "$R/$group/$tag.txt" 2>&1
  echo "== $tag (cuvk trace $*): rc=$?"
  [ -f "$R/$group/$tag.json" ] && gzip -n -9 "$R/$group/$tag.json"
  grep -E "^(cuda|vulkan) |SMs seen|launch rate|resident per|refill|tail |span |tracing cost|FAILED|error" \
    "$R/$group/$tag.txt" | sed -E 's/ +/ /g' | cut -c1-140
}

# One float per thread at block 256 (Vulkan 7-8% slower) and its controls: AoS read_x (equal),
# the grid-stride copy (256x fewer workgroups), the block sizes where the gap is largest (128) and
# reversed (512), and the binding modes.
trace read_x read_x_soa read_x --layouts soa
trace read_x read_x_aos read_x --layouts aos
trace copy copy copy
trace copy copy_bda copy --vk-binding bda --api vulkan
trace copy_blocks copy_128 copy --block-size 128
trace copy_blocks copy_512 copy --block-size 512
trace copy_blocks copy_grid copy --variants grid
# update_xy AoS: descriptor sets 20% slower, buffer device addresses equal to CUDA.
trace update_xy update_xy_aos update_xy --layouts aos --vk-binding descriptor
trace update_xy update_xy_aos_bda update_xy --layouts aos --vk-binding bda --api vulkan

for group in read_x copy copy_blocks update_xy; do
  tar -czf "$OUT/${name}_traces_$group.tar.gz" -C "$R/$group" .
done
ls -l "$OUT" | tail -n +2 | awk '{print $5, $9}'
