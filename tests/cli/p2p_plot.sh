#!/usr/bin/env bash
# p2p_plot.sh CUVK: `cuvk p2p --plot` (issue 35's GPU-to-GPU figure) on the lavapipe loopback: a
# PNG whose metadata names its source, drawn by the embedded plotter; without matplotlib
# (CUVK_PYTHON=false) the rows still print, the plot is skipped with the install line, exit 3.
set -euo pipefail
cuvk=$1
dir=$(mktemp -d "${TMPDIR:-/tmp}/cuvk_p2p_plot.XXXXXX")
trap 'rm -rf "$dir"' EXIT
"$cuvk" p2p --device 0,0 --sizes 64k,1M --reps 2 --warmup 1 --plot "$dir/p.png" >"$dir/out.txt"
grep -q "wrote $dir/p.png" "$dir/out.txt" || { cat "$dir/out.txt"; echo "p2p_plot: no 'wrote'"; exit 1; }
head -c 8 "$dir/p.png" | od -An -c | grep -q "P   N   G" || { echo "p2p_plot: not a PNG"; exit 1; }
grep -aq "GPU to GPU: GB/s per direction by transfer size" "$dir/p.png" ||
  { echo "p2p_plot: the figure's title is not in its metadata"; exit 1; }
rc=0
CUVK_PYTHON=false "$cuvk" p2p --device 0,0 --sizes 64k --reps 1 --plot "$dir/q.png" \
  >"$dir/out2.txt" 2>"$dir/err2.txt" || rc=$?
[ $rc = 3 ] || { cat "$dir/err2.txt"; echo "p2p_plot: exit $rc without matplotlib, expected 3"; exit 1; }
grep -q "^error: --plot skipped: .*apt-get install python3-matplotlib" "$dir/err2.txt" ||
  { cat "$dir/err2.txt"; echo "p2p_plot: no skip line"; exit 1; }
grep -q "vulkan  staged" "$dir/out2.txt" || { echo "p2p_plot: rows missing when the plot is skipped"; exit 1; }
[ ! -e "$dir/q.png" ] || { echo "p2p_plot: a figure without a plotter"; exit 1; }
echo "p2p_plot: passed"
