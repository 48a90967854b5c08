#!/usr/bin/env bash
# Live output of `cuvk run` (issue 11), end to end on lavapipe:
#   1. a piped run's rows arrive while it runs: the first row is read well before the run ends;
#   2. a piped run (stdout and stderr) has no carriage return, and prints its rows;
#   3. on a pseudo-terminal, stderr carries the self-updating progress line ("[k/N] ... elapsed").
# Every cuvk run here must exit 0; `script` (util-linux, the pseudo-terminal) is required: its
# absence is a failure, not a pass. Usage: live_output.sh CUVK_BIN
set -euo pipefail
cuvk=$1
fail() { echo "live_output: FAILED: $*"; exit 1; }
command -v script >/dev/null || fail "'script' (util-linux) is not installed: step 3 cannot run"
args=(run --api vulkan --tests read_x,read_offset,copy --offsets 0,1,2,4 --n 256k --max-time 0.1)
dir=$(mktemp -d "${TMPDIR:-/tmp}/cuvk_live.XXXXXX")
trap 'rm -rf "$dir"' EXIT

# 1. Rows as they come: time of the first row line and of the end, read line by line; the exit
# status of the run is read back from its file descriptor's process.
start=$(date +%s.%N); first=""; rows=0
exec 3< <("$cuvk" "${args[@]}" 2>/dev/null; echo "exit $?")
status=""
while IFS= read -r line <&3; do
  case "$line" in
    read_x*|copy*|read_offset*) rows=$((rows + 1)); [ -z "$first" ] && first=$(date +%s.%N) ;;
    "exit "*) status=${line#exit } ;;
  esac
done
exec 3<&-
end=$(date +%s.%N)
[ "$status" = 0 ] || fail "cuvk ${args[*]} exited '$status' (expected 0)"
[ -n "$first" ] || fail "no row read"
lead=$(awk -v f="$first" -v e="$end" 'BEGIN { printf "%.2f", e - f }')
total=$(awk -v s="$start" -v e="$end" 'BEGIN { printf "%.2f", e - s }')
# The first row must come out while most of the run is still ahead (not all at the end).
awk -v l="$lead" -v t="$total" 'BEGIN { exit !(l > 0.3 * t) }' ||
  fail "first row only $lead s before the end of a $total s run: rows are not streamed"

# 2. No carriage return in pipes or logs; the same rows as step 1.
"$cuvk" "${args[@]}" >"$dir/piped" 2>&1 || fail "piped run exited $?"
piped_rows=$(grep -cE '^(read_x|copy|read_offset)' "$dir/piped" || true)
[ "$piped_rows" -gt 0 ] || { cat "$dir/piped"; fail "the piped run printed no row"; }
[ "$piped_rows" -eq "$rows" ] || fail "piped run printed $piped_rows rows, the streamed one $rows"
if LC_ALL=C grep -q $'\r' "$dir/piped"; then fail "a piped run printed carriage returns"; fi

# 3. Progress on a terminal. `script -e` returns the command's exit status.
script -qec "$cuvk ${args[*]} >/dev/null" /dev/null >"$dir/tty" || fail "run on a terminal exited $?"
tr '\r' '\n' <"$dir/tty" | grep -Eq '\[[0-9]+/[0-9]+\] [0-9]{2}:[0-9]{2} elapsed' ||
  fail "no progress line on a pseudo-terminal"
script -qec "$cuvk ${args[*]} --quiet >/dev/null" /dev/null >"$dir/tty" ||
  fail "--quiet run on a terminal exited $?"
if grep -q 'elapsed' "$dir/tty"; then fail "--quiet still shows the progress line"; fi
echo "live_output: passed: $rows rows, the first $lead s before the end of a $total s run; no carriage return in pipes; progress line on a terminal, none with --quiet"
