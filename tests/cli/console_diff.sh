#!/usr/bin/env bash
# Issue 32's "nothing the user sees changes": `cuvk run` on lavapipe with two binaries (the
# reference, e.g. main's, and this tree's), every number masked (timings, GB/s,
# ratios, sample counts), stdout, stderr and the exit code diffed.
# Usage: tests/cli/console_diff.sh REF NEW
set -u
ref=${1:?reference binary}; new=${2:-build/cuvk}
args=(run --tests copy,update_xy --variants scalar --pair examples/saxpy/saxpy.toml
      --n 64k --reps 5 --warmup 1 --max-time 0.05 --settle-ms 1)
# Every number masked (timings, sample counts), runs of spaces and rules' dashes squeezed (widths),
# the flags that timings decide (ci_not_met, launch_bound) dropped, and the phases the first row
# waited for (listed when over a share of the time) left out.
mask() {
  sed -E -e 's/[0-9]+(\.[0-9]+)?(e[-+]?[0-9]+)?/#/g' -e 's/ +/ /g' -e 's/-{3,}/---/g' -e 's/ $//' \
         -e 's/,?(ci_not_met|launch_bound)//g' \
         -e 's/^(before the first row).*/\1 (phases over a share)/' "$@"
}
out=$(mktemp -d)
for which in ref new; do
  bin=$ref; [[ $which == new ]] && bin=$new
  # --device all (the node loop), then the same on the automatic device (one Run)
  "$bin" "${args[@]}" --device all >"$out/$which.out" 2>"$out/$which.err"
  echo "exit $?" >>"$out/$which.out"
  "$bin" "${args[@]}" >>"$out/$which.out" 2>>"$out/$which.err"; echo "exit $?" >>"$out/$which.out"
  mask "$out/$which.out" >"$out/$which.o"; mask "$out/$which.err" >"$out/$which.e"
done
rc=0
diff "$out/ref.o" "$out/new.o" || rc=1
diff "$out/ref.e" "$out/new.e" || rc=1
echo "console_diff: $(wc -l <"$out/new.out") stdout lines, $(wc -l <"$out/new.err") stderr lines;" \
     "$([[ $rc == 0 ]] && echo identical || echo DIFFERENT) with numbers masked ($out)"
exit $rc
