#!/usr/bin/env bash
# expect_exit.sh CODE REGEX CMD...: runs CMD, passes when it exits with CODE and its stderr has one
# line matching REGEX that starts with "error:" (the one-line error contract). Exit 77 = skipped.
set -u
want=$1 regex=$2
shift 2
err=$(mktemp)
"$@" >/dev/null 2>"$err"
got=$?
lines=$(grep -c '' "$err")
if [ "$got" -ne "$want" ]; then
  echo "expected exit $want, got $got; stderr:"; cat "$err"; rm -f "$err"; exit 1
fi
if ! grep -Eq "^error: .*$regex" "$err"; then
  echo "stderr has no 'error: ...$regex' line:"; cat "$err"; rm -f "$err"; exit 1
fi
if [ "$lines" -ne 1 ]; then
  echo "expected one line on stderr, got $lines:"; cat "$err"; rm -f "$err"; exit 1
fi
rm -f "$err"
