#!/usr/bin/env bash
# User kernel pairs (issue 20) on this GPU: every examples/*/*.toml with default settings (both
# Vulkan bindings where the shader allows them), as JSON and as the console shows it, its parity
# verdicts and `cuvk inspect` where that takes a pair; then the re-declared built-in
# (examples/copy_vec4) next to the built-in `copy vec4` at the same n, compared --baseline-style
# (the pair's rows renamed to the built-in's, then `cuvk run --tests copy --variants vec4
# --baseline` of them: SAME when they measure the same).
# Run from the repository root on the GPU machine with build/cuvk (or $CUVK_BUILD/cuvk) and .gl/
# carried; builds nothing. Writes $OUT/pairs_<gpu>.tar.gz.
set -u
for f in .gl/*.deb; do dpkg -x "$f" /; done
ldconfig
if [ -f /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json ]; then
  export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
fi
cuvk=./${CUVK_BUILD:-build}/cuvk
model=$(grep -h '^Model:' /proc/driver/nvidia/gpus/*/information 2>/dev/null | head -1)
case "$model" in
  *H100*) gpu=h100 ;;
  *H200*) gpu=h200 ;;
  *) gpu=gpu ;;
esac
gpu=${GPU:-$gpu}
R=$(mktemp -d)/pairs_$gpu
mkdir -p "$R"
echo "gpu: $gpu ($model); $("$cuvk" --version 2>/dev/null | head -1)" | tee "$R/summary.txt"

for toml in examples/*/*.toml; do
  name=$(basename "$toml" .toml)
  "$cuvk" run --pair "$toml" --vk-binding all --format json --output "$R/$name.json" \
    > "$R/$name.txt" 2>&1
  rc=$?
  echo "$name: run exit $rc" | tee -a "$R/summary.txt"
  [ -f "$R/$name.json" ] && "$cuvk" parity --from "$R/$name.json" > "$R/$name.parity.txt" 2>&1
  if "$cuvk" inspect --help 2>/dev/null | grep -q -- "--pair"; then
    "$cuvk" inspect --pair "$toml" > "$R/$name.inspect.txt" 2>&1
    echo "$name: inspect exit $?" >> "$R/summary.txt"
  fi
done

# The re-declared built-in at the built-in's default GPU size (64M floats).
n=64M
"$cuvk" run --pair examples/copy_vec4/copy_vec4.toml --n $n --vk-binding all --format json \
  --output "$R/copy_vec4_pair_n64M.json" > "$R/copy_vec4_pair_n64M.txt" 2>&1
python3 - "$R/copy_vec4_pair_n64M.json" "$R/copy_vec4_pair_as_builtin.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
for r in doc["results"]:  # the pair's rows under the built-in's row key
    r["test"], r["variant"], r["kernel"] = "copy", "vec4", "copy_vec4"
json.dump(doc, open(sys.argv[2], "w"), indent=1)
PY
"$cuvk" run --tests copy --variants vec4 --n $n --vk-binding all --format json \
  --output "$R/copy_vec4_builtin_n64M.json" --baseline "$R/copy_vec4_pair_as_builtin.json" \
  > "$R/copy_vec4_builtin_vs_pair.txt" 2>&1
echo "copy_vec4 built-in vs pair (--baseline): exit $?" | tee -a "$R/summary.txt"
grep -E "SAME|FASTER|SLOWER|verdict" "$R/copy_vec4_builtin_vs_pair.txt" | tee -a "$R/summary.txt"

mkdir -p "${OUT:-.}"
tar -C "$(dirname "$R")" -czf "${OUT:-.}/pairs_$gpu.tar.gz" "pairs_$gpu"
echo "wrote ${OUT:-.}/pairs_$gpu.tar.gz"
