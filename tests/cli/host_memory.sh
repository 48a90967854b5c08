#!/usr/bin/env bash
# host_memory.sh CUVK SAMPLE: under a memory limit (ulimit -v), an input that needs more memory
# than the limit allows is one `error:` line naming the lack of host memory, exit 3, never an
# abort (issue 12, class 6). Exit 77 = skipped, only where CUVK_SANITIZED=1 (set by CMake for an
# AddressSanitizer build, whose shadow memory cannot be mapped under the limit); anywhere else a
# cuvk that cannot run under the limit is a failure.
set -euo pipefail
cuvk=$1 sample=$2
limit_kib=200000
dir=$(mktemp -d "${TMPDIR:-/tmp}/cuvk_host_memory.XXXXXX")
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
limited() { (ulimit -v "$limit_kib" && exec "$@"); }
if [ "${CUVK_SANITIZED:-0}" = 1 ]; then
  echo "skipped: a sanitizer build cannot start under ulimit -v $limit_kib"; exit 77
fi
got=0
limited "$cuvk" report "$sample" >/dev/null 2>"$dir/err" || got=$?
[ "$got" -eq 0 ] || { cat "$dir/err"; fail "cuvk report of a valid file exits $got under ulimit -v $limit_kib"; }
# 60 MiB of JSON, under the 64 MiB cap: its parse needs several times that.
mkdir "$dir/fleet"
big="$dir/fleet/big.json"
{ printf '{"schema": "cuvk.results/1", "pad": "'; head -c 62914560 /dev/zero | tr '\0' x; printf '"}'; } >"$big"
for cmd in "report $big" "parity --from $big" "report --fleet $dir/fleet"; do
  got=0
  # shellcheck disable=SC2086
  limited "$cuvk" $cmd >/dev/null 2>"$dir/err" || got=$?
  [ "$got" -eq 3 ] || { cat "$dir/err"; fail "$cmd: exit $got, expected 3"; }
  [ "$(grep -c '' "$dir/err")" -eq 1 ] || { cat "$dir/err"; fail "$cmd: not one line on stderr"; }
  grep -Eq '^error: .*out of host memory' "$dir/err" || { cat "$dir/err"; fail "$cmd: no reason"; }
done
echo "host_memory: passed"
