#!/usr/bin/env bash
# The speed benchmark (issue 22): wall time, first row and every phase of the default suite.
# Call it FIRST on a freshly lent machine (nothing may touch the GPU before it: the first run is
# the "cold" one, the first impression of a new user), from the repository root, with build/cuvk
# (or $CUVK_BUILD/cuvk) and .gl/ carried; it builds nothing. Three default runs, one after another:
#   cold      `cuvk run` as a new user types it (JSON saved with --output, the table on the console)
#   warm      the same again
#   baseline  the same with --baseline results/<gpu>.json (verdicts: SAME expected on every row)
# Every console line is stamped with the seconds since its run started. Writes $OUT/fast/:
# fast_<gpu>_{cold,warm,baseline}.{json,txt} and summary.txt (wall, first row, what preceded the
# first row, phase cover, verdicts). About 25 s on an H100.
set -u
for f in .gl/*.deb; do dpkg -x "$f" /; done
ldconfig
if [ -f /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json ]; then
  export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
fi
R=${OUT:?}/fast
mkdir -p "$R"
cuvk=./${CUVK_BUILD:-build}/cuvk
# The GPU model without touching the driver (nvidia-smi would warm it before the cold run).
model=$(grep -h '^Model:' /proc/driver/nvidia/gpus/*/information 2>/dev/null | head -1)
case "$model" in
  *H100*) gpu=h100 ;;
  *H200*) gpu=h200 ;;
  *) gpu=${GPU:-gpu} ;;
esac
gpu=${GPU:-$gpu}
base=results/$gpu.json
echo "gpu: $gpu ($model); machine up $(cut -d' ' -f1 /proc/uptime) s before the cold run; baseline $base" |
  tee "$R/summary.txt"

# Prefixes every line with the seconds since the run started.
stamp() { python3 -u -c '
import sys, time
t0 = float(sys.argv[1])
for line in iter(sys.stdin.readline, ""):
    sys.stdout.write("%7.2f %s" % (time.time() - t0, line))
' "$1"; }

for kind in cold warm baseline; do
  t0=$(date +%s.%N)
  args=(run --format json --output "$R/fast_${gpu}_$kind.json")
  [ "$kind" = baseline ] && [ -f "$base" ] && args+=(--baseline "$base")
  "$cuvk" "${args[@]}" 2>&1 | stamp "$t0" > "$R/fast_${gpu}_$kind.txt"
  rc=${PIPESTATUS[0]}
  echo "$kind: rc=$rc, $(awk "BEGIN{printf \"%.1f\", $(date +%s.%N) - $t0}") s until exit" | tee -a "$R/summary.txt"
  grep -E 'wall time|before the first row|by phase|cover|beside them|Verdicts' "$R/fast_${gpu}_$kind.txt" |
    tee -a "$R/summary.txt"
done
nvidia-smi --query-gpu=name,driver_version,persistence_mode,clocks.sm,clocks.mem --format=csv \
  >> "$R/summary.txt" 2>&1
ls -la "$R"
