#!/usr/bin/env bash
# output_write_error.sh CUVK SAMPLE: a write to --output that fails half way (here a file size
# limit, ulimit -f, standing in for a full disk: write() fails with EFBIG, as with ENOSPC) names
# the reason, exits 3, leaves the old file as it was and no temporary behind (issue 12, class 7).
set -euo pipefail
cuvk=$1 sample=$2
dir=$(mktemp -d "${TMPDIR:-/tmp}/cuvk_write_error.XXXXXX")
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; ls -la "$dir"; exit 1; }
trap '' XFSZ  # write() then fails with EFBIG instead of the signal killing cuvk
check() {
  local out=$1
  shift
  echo "old content" >"$dir/$out"
  local got=0
  (ulimit -f 4 && exec "$@" --output "$dir/$out") >/dev/null 2>"$dir/err" || got=$?
  [ "$got" -eq 3 ] || { cat "$dir/err"; fail "$*: exit $got, expected 3"; }
  [ "$(grep -c '' "$dir/err")" -eq 1 ] || { cat "$dir/err"; fail "$*: not one line on stderr"; }
  grep -q "^error: cannot write '$dir/$out': File too large" "$dir/err" ||
    { cat "$dir/err"; fail "$*: the reason is not named"; }
  [ "$(cat "$dir/$out")" = "old content" ] || fail "$*: the old $out was changed"
  [ "$(ls -A "$dir" | grep -cv '^err$')" -eq 1 ] || fail "$*: a temporary was left behind"
  rm -f "$dir/$out"
}
check report.md "$cuvk" report "$sample" --format md
check report.json "$cuvk" report "$sample" --format json
check parity.csv "$cuvk" parity --from "$sample" --format csv
echo "output_write_error: passed"
