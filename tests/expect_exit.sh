#!/usr/bin/env bash
# expect_exit.sh CODE REGEX CMD...: runs CMD, passes when it exits with CODE and its stderr has one
# line matching REGEX that starts with "error:" (the one-line error contract). Exit 77 = skipped.
set -euo pipefail
want=$1 regex=$2
shift 2
err=$(mktemp "${TMPDIR:-/tmp}/cuvk_expect_exit.XXXXXX")
trap 'rm -f "$err"' EXIT
got=0
"$@" >/dev/null 2>"$err" || got=$?
lines=$(grep -c '' "$err" || true)
if [ "$got" -ne "$want" ]; then
  echo "expected exit $want, got $got; stderr:"; cat "$err"; exit 1
fi
if ! grep -Eq "^error: .*$regex" "$err"; then
  echo "stderr has no 'error: ...$regex' line:"; cat "$err"; exit 1
fi
if [ "$lines" -ne 1 ]; then
  echo "expected one line on stderr, got $lines:"; cat "$err"; exit 1
fi
