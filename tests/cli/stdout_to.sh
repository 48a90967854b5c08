#!/usr/bin/env bash
# stdout_to.sh FILE CMD...: runs CMD with its standard output on FILE (e.g. /dev/full), for the
# error-contract tests of writes to standard output.
set -euo pipefail
out=$1
shift
exec "$@" >"$out"
