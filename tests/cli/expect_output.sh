#!/usr/bin/env bash
# expect_output.sh REGEX CMD...: runs CMD; passes when it exits 0 AND its output (stdout and
# stderr together) matches REGEX, a Perl regex over the whole text ('.' matches newlines). The
# replacement for ctest's PASS_REGULAR_EXPRESSION, which ignores the exit code.
set -euo pipefail
command -v grep >/dev/null || { echo "expect_output: grep is missing"; exit 1; }
regex=$1
shift
out=$(mktemp "${TMPDIR:-/tmp}/cuvk_expect_output.XXXXXX")
trap 'rm -f "$out"' EXIT
got=0
"$@" >"$out" 2>&1 || got=$?
cat "$out"
if [ "$got" -ne 0 ]; then
  echo "expect_output: FAILED: exit $got (expected 0): $*"
  exit 1
fi
if ! grep -Pzq "(?s)$regex" "$out"; then
  echo "expect_output: FAILED: the output does not match: $regex"
  exit 1
fi
