#!/usr/bin/env bash
# hostile_text.sh CASE CUVK SAMPLE: what cuvk prints of a hostile run file (issue 12, class 6),
# end to end. SAMPLE is a valid run file (results/h100.json); the cases alter a copy of it.
#   printers: a GPU name with ESC, BEL, CR, a newline and a C1 CSI: no raw control byte reaches
#             the output of report (table, md, csv), parity --from, report --fleet, report --index
#   errors:   file names and schema values with control characters: one escaped `error:` line
#   rows:     a row whose min is above its max, whose GB/s contradicts its bytes and time: refused
#             with one line naming the row and the field, exit 2
set -euo pipefail
case_name=$1 cuvk=$2 sample=$3
dir=$(mktemp -d "${TMPDIR:-/tmp}/cuvk_hostile.XXXXXX")
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
# A control byte other than newline (and tab), DEL, or a UTF-8 C1 control.
raw_control() { LC_ALL=C grep -qP '[\x00-\x08\x0b-\x1f\x7f]|\xc2[\x80-\x9f]' "$1"; }
# expect_error CODE REGEX CMD...: exit CODE, one line on stderr, matching, with no raw control.
expect_error() {
  local want=$1 regex=$2
  shift 2
  local got=0
  "$@" >"$dir/out" 2>"$dir/err" || got=$?
  [ "$got" -eq "$want" ] || { cat "$dir/err"; fail "$*: exit $got, expected $want"; }
  [ "$(grep -c '' "$dir/err")" -eq 1 ] || { cat -v "$dir/err"; fail "$*: not one line on stderr"; }
  raw_control "$dir/err" && { cat -v "$dir/err"; fail "$*: raw control character on stderr"; }
  grep -Eq "^error: .*$regex" "$dir/err" || { cat "$dir/err"; fail "$*: no 'error: ...$regex'"; }
}

case "$case_name" in
  printers)
    mkdir "$dir/runs"
    run="$dir/runs/evil.json"
    sed 's/"name": "NVIDIA H100 80GB HBM3"/"name": "EVIL\\u001b[2J\\u0007GPU\\r\\nfake line\\u009b31m"/' \
      "$sample" >"$run"
    grep -q 'EVIL' "$run" || fail "the sample has no GPU name to alter"
    for format in table md csv; do
      "$cuvk" report "$run" --format "$format" >"$dir/out" || fail "report --format $format: exit $?"
      raw_control "$dir/out" && fail "report --format $format: raw control character"
      grep -q 'EVIL\\x1b\[2J\\x07GPU\\r\\nfake line\\u009b31m' "$dir/out" ||
        [ "$format" = csv ] || fail "report --format $format: the name is not shown escaped"
      got=0
      "$cuvk" parity --from "$run" --format "$format" >"$dir/out" || got=$?
      [ "$got" -le 1 ] || fail "parity --from --format $format failed"
      raw_control "$dir/out" && fail "parity --from --format $format: raw control character"
    done
    "$cuvk" report --fleet "$dir/runs" --format table >"$dir/out" || fail "report --fleet: exit $?"
    raw_control "$dir/out" && fail "report --fleet: raw control character"
    "$cuvk" report --index "$dir/runs" >/dev/null || fail "report --index: exit $?"
    raw_control "$dir/runs/README.md" && fail "report --index: raw control character"
    ;;
  errors)
    expect_error 2 'cannot open: No such file' "$cuvk" report "$dir/evil"$'\e[2J\n\a'"name.json"
    expect_error 2 'evil\\x1b\[2J\\nerror: fake' "$cuvk" parity --from "$dir/evil"$'\e[2J\nerror: fake'
    printf '{"schema": "\\u001b[31mother\\u0007/1"}' >"$dir/foreign.json"
    expect_error 2 "foreign schema '\\\\x1b\\[31mother\\\\x07/1'" "$cuvk" report "$dir/foreign.json"
    expect_error 2 "unknown command '\\\\x1b\\[2Jrun'" "$cuvk" $'\e[2Jrun'
    ;;
  rows)
    # The first row's min (the first "min" after a "time_ms") made 99.5 ms, above its max; then
    # the first GB/s with a 9 in front.
    awk '/"time_ms": \{/ { in_time = 1 }
         in_time && !done && /"min": / { sub(/"min": [-0-9.eE+]+/, "\"min\": 99.5"); done = 1 }
         { print }' "$sample" >"$dir/minmax.json"
    cmp -s "$sample" "$dir/minmax.json" && fail "the sample has no time_ms.min to alter"
    expect_error 2 'minmax.json: results\[[0-9]+\]\.time_ms\.min: 99\.5 is above time_ms\.max' \
      "$cuvk" report "$dir/minmax.json"
    expect_error 2 'results\[[0-9]+\]\.time_ms\.min: 99\.5 is above' \
      "$cuvk" parity --from "$dir/minmax.json"
    sed '0,/"gbps_useful": \([0-9]\)/s//"gbps_useful": 9\1/' "$sample" >"$dir/gbps.json"
    cmp -s "$sample" "$dir/gbps.json" && fail "the sample has no gbps_useful to alter"
    expect_error 2 'results\[[0-9]+\]\.gbps_useful: [0-9.e+]+ contradicts useful_bytes / time_ms\.median' \
      "$cuvk" report "$dir/gbps.json"
    ;;
  *) fail "unknown case $case_name" ;;
esac
echo "hostile_text $case_name: passed"
