#!/usr/bin/env bash
# pair_fold_warning.sh CUVK PAIRS_DIR (issue 36 item 9): a pair whose launch folds into y on
# lavapipe (65625 workgroups of 32 past its grid x of 65535) gets one 'warning:' line on stderr
# when its shader indexes by gl_GlobalInvocationID.x alone (fold_x_only.toml), none when it reads
# gl_WorkGroupID.y and gl_NumWorkGroups (fold_full.toml); both runs go on and exit 0.
set -euo pipefail
cuvk=$1
pairs=$2
err=$(mktemp "${TMPDIR:-/tmp}/cuvk_fold.XXXXXX")
trap 'rm -f "$err"' EXIT
fail=0
# A GPU's grid x (2^31 - 1 on the NVIDIA drivers) folds nothing here: no warning is wanted there.
folds=1
"$cuvk" devices 2>/dev/null | grep -q '^Pair: .*llvmpipe' || folds=0
for case in x_only:$folds full:0; do
  name=${case%%:*}
  want=${case##*:}
  got=0
  "$cuvk" run --pair "$pairs/fold_$name.toml" --api vulkan >/dev/null 2>"$err" || got=$?
  cat "$err"
  warnings=$(grep -c '^warning: ' "$err" || true)
  if [ "$got" -ne 0 ]; then
    echo "pair_fold_warning: FAILED: fold_$name.toml exits $got (expected 0)"
    fail=1
  fi
  if [ "$warnings" -ne "$want" ]; then
    echo "pair_fold_warning: FAILED: fold_$name.toml: $warnings warning lines (expected $want)"
    fail=1
  fi
  if [ "$want" -eq 1 ] && ! grep -q "^warning: .*fold_x_only.toml: axpy.comp (descriptor form) reads neither gl_WorkGroupID.y, gl_NumWorkGroups nor gl_GlobalInvocationID.y, but at block 32 launch.threads = 2100000 takes 65625 workgroups, more than the device's 65535 in x" "$err"; then
    echo "pair_fold_warning: FAILED: the warning does not name the file, the block and the workgroups"
    fail=1
  fi
done
exit $fail
