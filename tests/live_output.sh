#!/usr/bin/env bash
# Live output of `cuvk run` (issue 11), end to end on lavapipe:
#   1. a piped run's rows arrive while it runs: the first row is read well before the run ends;
#   2. a piped run (stdout and stderr) has no carriage return;
#   3. on a pseudo-terminal, stderr carries the self-updating progress line ("[k/N] ... elapsed").
# Usage: live_output.sh CUVK_BIN
set -u
cuvk=$1
fail() { echo "live_output: FAILED: $*"; exit 1; }
args=(run --api vulkan --tests read_x,read_offset,copy --offsets 0,1,2,4 --n 256k --max-time 0.1)

# 1. Rows as they come: time of the first row line and of the end, read line by line.
start=$(date +%s.%N); first=""
while IFS= read -r line; do
  case "$line" in read_x*|copy*|read_offset*) [ -z "$first" ] && first=$(date +%s.%N) ;; esac
done < <("$cuvk" "${args[@]}" 2>/dev/null)
end=$(date +%s.%N)
[ -n "$first" ] || fail "no row read"
lead=$(awk -v f="$first" -v e="$end" 'BEGIN { printf "%.2f", e - f }')
total=$(awk -v s="$start" -v e="$end" 'BEGIN { printf "%.2f", e - s }')
# The first row must come out while most of the run is still ahead (not all at the end).
awk -v l="$lead" -v t="$total" 'BEGIN { exit !(l > 0.3 * t) }' ||
  fail "first row only $lead s before the end of a $total s run: rows are not streamed"

# 2. No carriage return in pipes or logs.
out=$("$cuvk" "${args[@]}" 2>&1 | od -c | grep -c '\\r')
[ "$out" = 0 ] || fail "a piped run printed carriage returns"

# 3. Progress on a terminal.
if command -v script >/dev/null; then
  tty=$(script -qec "$cuvk ${args[*]} >/dev/null" /dev/null | tr '\r' '\n')
  echo "$tty" | grep -Eq '\[[0-9]+/[0-9]+\] [0-9]{2}:[0-9]{2} elapsed' ||
    fail "no progress line on a pseudo-terminal"
  tty=$(script -qec "$cuvk ${args[*]} --quiet >/dev/null" /dev/null | tr '\r' '\n')
  echo "$tty" | grep -q 'elapsed' && fail "--quiet still shows the progress line"
fi
echo "live_output: passed: first row $lead s before the end of a $total s run; no carriage return in pipes; progress line on a terminal, none with --quiet"
