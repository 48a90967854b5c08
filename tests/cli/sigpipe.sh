#!/usr/bin/env bash
# sigpipe.sh CUVK: a reader that closes the pipe early (`cuvk list | head`). With SIGPIPE at its
# default, cuvk ends quietly, killed by SIGPIPE (141), as other tools do: nothing on stderr. Where
# the caller ignores SIGPIPE, the closed pipe is an I/O error: exit 3, one `error:` line (EPIPE).
set -euo pipefail
cuvk=$1
err=$(mktemp "${TMPDIR:-/tmp}/cuvk_sigpipe.XXXXXX")
trap 'rm -f "$err"' EXIT
status=0
# The reader (true) is gone before cuvk starts to write.
# (PIPESTATUS read inside the braces: the pipeline's failure is the point, not an error here)
{ (sleep 0.5; exec "$cuvk" list 2>"$err") | true; got=${PIPESTATUS[0]}; } || true
if [ "$got" -ne 141 ] || [ -s "$err" ]; then
  echo "default SIGPIPE: expected exit 141 and a quiet stderr, got $got:"; cat "$err"; status=1
fi
{ (trap '' PIPE; sleep 0.5; exec "$cuvk" list 2>"$err") | true; got=${PIPESTATUS[0]}; } || true
if [ "$got" -ne 3 ] || [ "$(grep -c '' "$err")" -ne 1 ] ||
   ! grep -q '^error: cannot write to standard output: Broken pipe' "$err"; then
  echo "SIGPIPE ignored: expected exit 3 and one error line, got $got:"; cat "$err"; status=1
fi
if [ "$status" -eq 0 ]; then echo "ok"; fi
exit "$status"
