#!/usr/bin/env bash
# `cuvk trace` end to end on the first Vulkan device (lavapipe in CI), validation layer on: the
# traced output verified, every record sound, the SM id's absence explained, JSON written and drawn
# by the plotter (--plot, SVG here) with the JSON's sha256 in the figure's metadata, or, without
# python3-matplotlib, the plot skipped with the install line and exit 3.
set -euo pipefail
cuvk=$1
dir=$(mktemp -d "${TMPDIR:-/tmp}/cuvk_trace_cli.XXXXXX")
trap 'rm -rf "$dir"' EXIT
for binding in descriptor bda; do
  rc=0
  "$cuvk" trace copy --api vulkan --vk-binding "$binding" --n 64k --block-size 128 --validation \
    --output "$dir/t.json" --plot "$dir/t.svg" >"$dir/out.txt" 2>"$dir/err.txt" || rc=$?
  plotted=1
  if [ $rc = 3 ] && grep -q "^error: --plot skipped: .*apt-get install python3-matplotlib" "$dir/err.txt"; then
    plotted=0; echo "trace_cli: no matplotlib here: --plot skipped as documented"
    [ "$(wc -l <"$dir/err.txt")" = 1 ] || { cat "$dir/err.txt"; echo "trace_cli: stderr"; exit 1; }
  elif [ $rc != 0 ]; then
    cat "$dir/out.txt" "$dir/err.txt"; echo "trace_cli: cuvk trace failed ($binding)"; exit 1
  elif [ -s "$dir/err.txt" ]; then cat "$dir/err.txt"; echo "trace_cli: stderr not empty"; exit 1; fi
  for want in "vulkan ($binding): grid 512 x 1 blocks of 128" "output: verified (65536 elements, 0 wrong)" \
              "trace: every record sound" "launch rate" "resident per" "tail" "tracing cost"; do
    grep -qF "$want" "$dir/out.txt" || { cat "$dir/out.txt"; echo "trace_cli: missing '$want'"; exit 1; }
  done
  # lavapipe has no SM builtins: the reason is stated; an NVIDIA driver would give SMs seen N.
  grep -qE "SMs seen ([0-9]+|unknown \(.*VK_NV_shader_sm_builtins)" "$dir/out.txt" ||
    { cat "$dir/out.txt"; echo "trace_cli: SM line"; exit 1; }
  python3 - "$dir/t.json" "$binding" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "cuvk.trace/1", d["schema"]
assert d["provenance"]["git_revision"] and d["provenance"]["command_line"]
lane = [l for l in d["lanes"] if l["api"] == "vulkan"][0]
assert lane["binding"] == sys.argv[2] and lane["verified"] and lane["trace_error"] is None
assert len(lane["blocks"]) == 512 and lane["summary"]["blocks"] == 512
assert lane["sm_ids"] or "VK_NV_shader_sm_builtins" in lane["sm_ids_unavailable"]
assert lane["traced_ms"]["median"] > 0 and lane["untraced_ms"]["median"] > 0
PY
  [ $plotted = 1 ] || continue
  grep -q "<svg" "$dir/t.svg" && tail -n 1 "$dir/t.svg" | grep -q "</svg>" ||
    { echo "trace_cli: not an SVG"; exit 1; }
  # The figure names the trace file it was drawn from, with that file's sha256.
  sum=$(sha256sum "$dir/t.json" | cut -d' ' -f1)
  grep -qF "$sum  $dir/t.json" "$dir/t.svg" || { echo "trace_cli: the SVG does not name t.json's sha256"; exit 1; }
done
# Without matplotlib (CUVK_PYTHON names a python3 that cannot draw) the trace is still written, the
# plot is skipped with the install line, and the exit code is 3 (environment).
rc=0
CUVK_PYTHON=false "$cuvk" trace copy --api vulkan --n 4k --output "$dir/s.json" --plot "$dir/s.png" \
  >"$dir/out.txt" 2>"$dir/err.txt" || rc=$?
[ $rc = 3 ] || { cat "$dir/out.txt" "$dir/err.txt"; echo "trace_cli: no matplotlib: exit $rc, expected 3"; exit 1; }
grep -q "^error: --plot skipped: .*(Debian: apt-get install python3-matplotlib" "$dir/err.txt" ||
  { cat "$dir/err.txt"; echo "trace_cli: no matplotlib: no install line"; exit 1; }
[ -s "$dir/s.json" ] && [ ! -e "$dir/s.png" ] || { echo "trace_cli: no matplotlib: files"; exit 1; }
echo "trace_cli: passed"
