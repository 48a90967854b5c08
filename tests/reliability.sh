#!/usr/bin/env bash
# reliability.sh CASE CUVK SOURCE_DIR: issue 23's end-to-end cases that need files or several
# commands (one ctest each, tests/CMakeLists.txt). Each prints "reliability CASE: passed".
set -u
case_name=$1 cuvk=$2 src=$3
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
# expect_error CODE REGEX CMD...: exit CODE, exactly one line on stderr, "error: ...REGEX".
expect_error() {
  local want=$1 regex=$2
  shift 2
  "$@" >"$dir/out" 2>"$dir/err"
  local got=$?
  [ "$got" -eq "$want" ] || { cat "$dir/err"; fail "$*: exit $got, expected $want"; }
  [ "$(grep -c '' "$dir/err")" -eq 1 ] || { cat -v "$dir/err"; fail "$*: not one line on stderr"; }
  grep -Eq "^error: .*$regex" "$dir/err" || { cat "$dir/err"; fail "$*: no 'error: ...$regex'"; }
}
quick=(--api vulkan --n 1k --settle-ms 0 --reps 2 --warmup 0)

case "$case_name" in
  baseline_no_comparable_row)  # class 8: exit 2 with a reason, not silently
    "$cuvk" run "${quick[@]}" --tests copy --variants scalar --format json --output "$dir/base.json" \
      --quiet || fail "the baseline run: exit $?"
    expect_error 2 "no row of this run could be compared with a row of the baseline" \
      "$cuvk" run "${quick[@]}" --tests read_x --baseline "$dir/base.json"
    ;;
  *) fail "unknown case $case_name" ;;
esac
echo "reliability $case_name: passed"
