#!/usr/bin/env bash
# The data the figures of results/README.md need from one GPU, in one device call (about 3
# minutes): the block-size sweep of `copy` (Figure: the scalar gap against the block size), the
# copy-engine size sweep per queue family, and the `copy` dispatch traces at block 128, 256 and
# grid-stride (Figure: workgroups resident per SM over time). Run from the repository root on the
# GPU machine with build/cuvk and .gl/ carried; builds nothing.
# Usage: results/figures_run.sh NAME   (NAME: h100, h200) -> $OUT/NAME_figures.tar.gz, laid out as
# NAME/...: unpack it into results/ (`tar -xzf NAME_figures.tar.gz -C results`), then redraw with
# `build/cuvk report --index results` (docs/PUBLISHING.md).
set -u
name=${1:-h100}
for f in .gl/*.deb; do dpkg -x "$f" /; done
ldconfig
icd=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
[ -f $icd ] && export VK_DRIVER_FILES=$icd
R=$(mktemp -d)
D=$R/$name
mkdir -p "$D/traces"
cuvk=./build/cuvk
step() { echo "== $*"; }

step "block-size sweep: copy scalar and vec4, both bindings"
$cuvk run --tests copy --variants scalar,vec4 --block-sizes 64,128,256,512,1024 \
  --vk-binding descriptor,bda --format json --output "$D/${name}_blocks.json" > "$D/${name}_blocks.txt" 2>&1
echo "rc=$? $(grep -cE ' copy ' "$D/${name}_blocks.txt") rows"

step "copy engines: every queue family, 1 MiB to 1 GiB"
$cuvk run --tests copy_engine --copy-mibs 1,4,16,64,256,1024 --format json \
  --output "$D/${name}_copy_queues.json" > "$D/${name}_copy_queues.txt" 2>&1
echo "rc=$?"

step "copy traces: block 128, 256, grid-stride"
for t in "copy" "copy_128 --block-size 128" "copy_grid --variants grid"; do
  tag=${t%% *}; args=${t#"$tag"}
  # shellcheck disable=SC2086
  $cuvk trace copy $args --output "$D/traces/$tag.json" > "$D/traces/$tag.txt" 2>&1
  echo "$tag rc=$? $(grep -E 'resident per' "$D/traces/$tag.txt" | sed -E 's/ +/ /g' | tr '\n' ';')"
  [ -f "$D/traces/$tag.json" ] && gzip -n -9 "$D/traces/$tag.json"
done

tar -czf "$OUT/${name}_figures.tar.gz" -C "$R" "$name"
ls -lR "$R" | awk 'NF > 5 {print $5, $9}'
