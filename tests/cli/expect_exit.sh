#!/usr/bin/env bash
# expect_exit.sh [--driver-noise ERE] CODE REGEX CMD...: runs CMD, passes when it exits with CODE
# and its stderr has one line matching REGEX that starts with "error:" (the one-line error
# contract; lines indented by two spaces below it are its detail, such as a compiler's log). Exit 77 = skipped. --driver-noise: stderr lines matching ERE (each with the empty
# line after it) are a driver's own, printed by the driver, not cuvk (the NVIDIA Vulkan driver
# says it cannot open a library under an address-space limit): they are shown, then not counted.
set -euo pipefail
noise=""
if [ "${1:-}" = --driver-noise ]; then noise=$2; shift 2; fi
want=$1 regex=$2
shift 2
err=$(mktemp "${TMPDIR:-/tmp}/cuvk_expect_exit.XXXXXX")
trap 'rm -f "$err" "$err.raw"' EXIT
got=0
"$@" >/dev/null 2>"$err" || got=$?
if [ -n "$noise" ]; then
  mv "$err" "$err.raw"
  awk -v rx="$noise" 'skip && $0 == "" { skip = 0; next } { skip = 0 }
                      $0 ~ rx { skip = 1; next } { print }' "$err.raw" >"$err"
  if ! cmp -s "$err" "$err.raw"; then
    echo "expect_exit: not counted, the driver's own lines:"; grep -E -- "$noise" "$err.raw" || true
  fi
fi
# Lines indented by two spaces under the `error:` line are its detail (a compiler's log, one line
# each): they are not further error lines.
lines=$(grep -vc '^  ' "$err" || true)
if [ "$got" -ne "$want" ]; then
  echo "expected exit $want, got $got; stderr:"; cat "$err"; exit 1
fi
if ! grep -Eq "^error: .*$regex" "$err"; then
  echo "stderr has no 'error: ...$regex' line:"; cat "$err"; exit 1
fi
if [ "$lines" -ne 1 ]; then
  echo "expected one line on stderr, got $lines:"; cat "$err"; exit 1
fi
