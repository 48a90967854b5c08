#!/usr/bin/env bash
# compile_log.sh CUVK TOML LOG_ERE: `cuvk inspect --pair TOML` fails to compile (exit 2) and prints
# one `error:` line, then the compiler's log as lines of their own, indented by two spaces (one
# of them matching LOG_ERE), never with a literal "\n" (issue 36: NVRTC's log came as one line).
set -euo pipefail
cuvk=$1 toml=$2 want=$3
err=$(mktemp "${TMPDIR:-/tmp}/cuvk_compile_log.XXXXXX")
trap 'rm -f "$err"' EXIT
rc=0
"$cuvk" inspect --pair "$toml" >/dev/null 2>"$err" || rc=$?
fail() { echo "compile_log: $*"; cat "$err"; exit 1; }
[ $rc -eq 2 ] || fail "exit $rc, expected 2"
[ "$(grep -c '^error: ' "$err")" -eq 1 ] || fail "not one error: line"
head -1 "$err" | grep -q '^error: ' || fail "the error: line is not first"
[ "$(grep -vc '^  ' "$err")" -eq 1 ] || fail "a line neither the error: line nor indented"
grep -Eq "^  .*$want" "$err" || fail "no log line matching '$want'"
if grep -qF '\n' "$err"; then fail "a literal \\n"; fi
echo "compile_log: passed ($(grep -c '^  ' "$err") log lines)"
