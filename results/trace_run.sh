#!/usr/bin/env bash
# Dispatch traces behind the parity findings (README, Dispatch traces; results/FINDINGS.md #1, #2),
# on both APIs, in one device call. Run from the repository root on the GPU machine with build/cuvk
# and .gl/ (the Vulkan loader .debs) carried. Builds nothing.
# Usage: results/trace_run.sh NAME   (NAME: h100, h200; files go to $OUT/NAME_traces.tar.gz)
set -u
name=${1:-h100}
for f in .gl/*.deb; do dpkg -x "$f" /; done
ldconfig
icd=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
[ -f $icd ] && export VK_DRIVER_FILES=$icd
R=$(mktemp -d)
cuvk=./build/cuvk

# trace TAG ARGS...: the text, JSON and SVG of one `cuvk trace`, and its key lines on stdout.
trace() {
  local tag=$1
  shift
  $cuvk trace "$@" --output "$R/$tag.json" --plot "$R/$tag.svg" > "$R/$tag.txt" 2>&1
  echo "== $tag (cuvk trace $*): rc=$?"
  grep -E "^(cuda|vulkan) |SMs seen|launch rate|resident per|tail |span |tracing cost|FAILED|error" "$R/$tag.txt" |
    sed -E 's/ +/ /g' | cut -c1-150
}

# One float per thread at block 256 (Vulkan 7-8% slower) and its controls: AoS read_x (equal),
# the grid-stride copy (256x fewer workgroups), the block sizes where the gap is largest (128) and
# reversed (512), and the binding modes.
trace read_x_soa read_x --layout soa
trace read_x_aos read_x --layout aos
trace copy copy
trace copy_bda copy --binding bda
trace copy_128 copy --block-size 128
trace copy_512 copy --block-size 512
trace copy_grid copy --variant grid
# update_xy AoS: descriptor sets 20% slower, buffer device addresses equal to CUDA.
trace update_xy_aos update_xy --layout aos --binding descriptor
trace update_xy_aos_bda update_xy --layout aos --binding bda --api vulkan

tar -czf "$OUT/${name}_traces.tar.gz" -C "$R" .
ls -la "$OUT/${name}_traces.tar.gz" | awk '{print $5, $9}'
