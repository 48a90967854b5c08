#!/usr/bin/env bash
# The speed benchmark (issue 22): wall time, first row and every phase of the default suite, from a
# fresh machine's first run ("cold": call this first, before anything else touches the GPU) and a
# warm second run, each compared with the published baseline (--baseline results/<gpu>.json).
# Run from the repository root on the GPU machine with build/cuvk (or $CUVK_BUILD/cuvk) and .gl/
# carried; builds nothing. Writes $OUT/fast_<gpu>.tar.gz: fast_<gpu>_{cold,warm}.{json,txt}
# (every console line stamped with the seconds since that run started) and summary.txt.
set -u
for f in .gl/*.deb; do dpkg -x "$f" /; done
ldconfig
if [ -f /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json ]; then
  export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
fi
R=$(mktemp -d)
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
echo "gpu: $gpu ($model); machine up $(cut -d' ' -f1 /proc/uptime) s; baseline $base" | tee "$R/summary.txt"

# Prefixes every line with the seconds since the run started.
stamp() { python3 -u -c '
import sys, time
t0 = float(sys.argv[1])
for line in iter(sys.stdin.readline, ""):
    sys.stdout.write("%7.2f %s" % (time.time() - t0, line))
' "$1"; }

for kind in cold warm; do
  t0=$(date +%s.%N)
  args=(run --format json --output "$R/fast_${gpu}_$kind.json")
  [ -f "$base" ] && args+=(--baseline "$base")
  "$cuvk" "${args[@]}" 2>&1 | stamp "$t0" > "$R/fast_${gpu}_$kind.txt"
  rc=${PIPESTATUS[0]}
  echo "$kind: rc=$rc, $(awk "BEGIN{printf \"%.1f\", $(date +%s.%N) - $t0}") s until exit" | tee -a "$R/summary.txt"
  grep -E 'wall time|by phase|cover|beside them|Verdicts' "$R/fast_${gpu}_$kind.txt" | tee -a "$R/summary.txt"
done
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv >> "$R/summary.txt" 2>&1

tar -czf "$OUT/fast_$gpu.tar.gz" -C "$R" .
ls -la "$R"
