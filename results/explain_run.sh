#!/usr/bin/env bash
# `cuvk explain` on the points docs/EXPLAIN.md fixed in advance (issue 38): one GPU, one device
# call (about 3 min), builds nothing. Run from the repository root with the binary ($CUVK, default
# build/cuvk) and .gl/ carried. Writes $OUT/explain/<gpu>/<point>.{md,json,txt} and prints, per
# point, the findings' order, the wall time and the exit code.
set -u
for f in .gl/*.deb; do dpkg -x "$f" /; done
ldconfig
if [ -f /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json ]; then
  export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
fi
cuvk=${CUVK:-./build/cuvk}
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | grep -oiE 'h[0-9]{3}' | tr A-Z a-z)
R=${OUT:-$(mktemp -d)}/explain/${gpu:-gpu}
mkdir -p "$R"
point() {  # point NAME ARGS...: cuvk explain ARGS, Markdown to NAME.md, JSON beside it
  local name=$1; shift
  local t0=$(date +%s.%N)
  timeout 170 $cuvk explain "$@" --format json --output "$R/$name.json" > "$R/$name.txt" 2>&1
  local rc=$?
  local t1=$(date +%s.%N)
  echo "== $name rc=$rc $(python3 -c "print(round($t1 - $t0, 1))") s: $*"
  python3 - "$R/$name.json" <<'PY' || true
import json, sys
d = json.load(open(sys.argv[1]))
for c in d["cases"]:
    order = ", ".join(f'{f["title"]} ({f["kind"]}{"" if f["share"] is None else " %.0f%%" % (100 * f["share"])})' for f in c["findings"])
    print(f'  {c["point"]}: {c["ratio"]["value"]:.3f} {c["verdict"]}: {order}')
print(f'  SAME points: {d["same_points"]}')
PY
}
point copy_scalar_256 --tests copy --variants scalar
point copy_scalar_128 --tests copy --variants scalar --block-size 128
point read_offset_32 --tests read_offset --offsets 32
point update_xy_aos_scalar --tests update_xy --layouts aos --variants scalar
point update_xy_soa_vec2 --tests update_xy --layouts soa --variants vec2
point stride_2 --tests stride --strides 2
# A pair slower on Vulkan for a known reason (FINDINGS 2 as a pair): explain must name the binding.
point xy_update_pair --pair "${XY_UPDATE:-examples/xy_update/xy_update.toml}"
# A second pair (FINDINGS 1 as a pair, its block fixed at 128): explain must name the launch rate.
point copy_small_blocks_pair --pair examples/copy_small_blocks/copy_small_blocks.toml
# A launch-bound point (FINDINGS 6): the chain experiment runs there (64 dispatches in one graph /
# recorded command buffer).
point copy_scalar_16k --tests copy --variants scalar --n 16k
