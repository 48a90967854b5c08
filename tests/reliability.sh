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
  output_is_input)  # class 4: no output may be an input (links too) or another output
    "$cuvk" run "${quick[@]}" --tests copy --variants scalar --format json --output "$dir/a.json" \
      --quiet || fail "the run: exit $?"
    ln -s a.json "$dir/link.json"
    ln "$dir/a.json" "$dir/hard.json"
    mkdir "$dir/fleet" && cp "$dir/a.json" "$dir/fleet/a.json"
    sum=$(md5sum <"$dir/a.json")
    for out in a.json link.json hard.json; do
      expect_error 2 "--output '.*$out' is the same file as the input file '.*a.json'" \
        "$cuvk" report "$dir/a.json" --output "$dir/$out"
    done
    expect_error 2 "is the same file as the input --from" \
      "$cuvk" parity --from "$dir/a.json" --output "$dir/link.json"
    expect_error 2 "--save-run '.*' is the same file as the input --baseline" \
      "$cuvk" parity --baseline "$dir/a.json" --save-run "$dir/hard.json"
    expect_error 2 "--output '.*' is the same file as the input --baseline" \
      "$cuvk" run "${quick[@]}" --baseline "$dir/a.json" --output "$dir/./a.json"
    expect_error 2 "--plot '.*t.svg' is the same file as --output" \
      "$cuvk" trace copy --n 1k --output "$dir/t.svg" --plot "$dir/t.svg"
    expect_error 2 "the same file as the input run file" \
      "$cuvk" report --fleet "$dir/fleet" --output "$dir/fleet/a.json"
    expect_error 2 "the same file as the input run file" \
      "$cuvk" report --index "$dir/fleet" --output "$dir/fleet/a.json"
    [ "$(md5sum <"$dir/a.json")" = "$sum" ] || fail "a.json changed"
    [ ! -e "$dir/t.svg" ] || fail "t.svg written"
    ;;
  markdown_cells)  # class 6: every Markdown table parses back with the header's cell count
    check_md() {  # every table row has as many cells (split on unescaped '|') as its header
      python3 - "$1" <<'PY' || fail "$2: a Markdown table row has the wrong number of cells"
import re, sys
cols, bad, tables = None, 0, 0
for line in open(sys.argv[1], encoding="utf-8"):
    line = line.rstrip("\n")
    if not line.startswith("|"):
        cols = None
        continue
    cells = re.split(r"(?<!\\)\|", line.strip())[1:-1]
    if cols is None:
        cols, tables = len(cells), tables + 1
    elif len(cells) != cols:
        bad += 1
        print("cells:", len(cells), "header:", cols, line)
sys.exit(1 if bad or tables == 0 else 0)
PY
    }
    "$cuvk" run "${quick[@]}" --tests copy_engine --copy-mibs 1 --format json --output "$dir/r.json" \
      --quiet || fail "the run: exit $?"
    grep -q 'graphics|compute' "$dir/r.json" || fail "no queue flags with '|' to escape"
    "$cuvk" run "${quick[@]}" --tests copy_engine --copy-mibs 1 --format md >"$dir/run.md" ||
      fail "run --format md: exit $?"
    check_md "$dir/run.md" "run --format md"
    "$cuvk" report "$dir/r.json" --format md >"$dir/report.md" || fail "report: exit $?"
    check_md "$dir/report.md" "report --format md"
    grep -q 'graphics\\|compute' "$dir/report.md" || fail "report: no escaped pipe"
    # Exit 0 or 1 (h100.json has SLOWER rows): compared, not an error (2, 3) or a crash.
    rc=0; "$cuvk" parity --from "$src/results/h100.json" --format md >"$dir/parity.md" || rc=$?
    [ "$rc" -le 1 ] || fail "parity --format md: exit $rc"
    check_md "$dir/parity.md" "parity --format md"
    mkdir "$dir/idx" && cp "$dir/r.json" "$src/results/h100.json" "$dir/idx/"
    "$cuvk" report --index "$dir/idx" >/dev/null || fail "report --index: exit $?"
    check_md "$dir/idx/README.md" "report --index"
    ;;
  escaping)  # class 12: paths and file text printed through one escaping rule
    bad=$(printf 'r\033[31m\xe2\x80\xae\nx.json')
    "$cuvk" run "${quick[@]}" --tests copy --variants scalar --format json --output "$dir/$bad" \
      >"$dir/out" 2>&1 || fail "run: exit $?"
    LC_ALL=C grep -qP '\x1b|\xe2\x80[\xa8-\xae]' "$dir/out" && fail "run: raw ESC or bidi printed"
    grep -q 'wrote .*r\\x1b\[31m\\u202e\\nx.json' "$dir/out" || fail "run: the path is not escaped"
    rc=0; "$cuvk" parity --from "$src/results/h100.json" --output "$dir/$bad.md" >"$dir/out" 2>&1 || rc=$?
    [ "$rc" -le 1 ] && [ -s "$dir/$bad.md" ] || { cat "$dir/out"; fail "parity --output: exit $rc"; }
    LC_ALL=C grep -qP '\x1b|\xe2\x80[\xa8-\xae]' "$dir/out" && fail "parity: raw ESC or bidi printed"
    sed 's/"name": "NVIDIA H100 80GB HBM3"/"name": "EVIL\\u202eGPU\\u2028x"/' "$src/results/h100.json" \
      >"$dir/evil.json"
    "$cuvk" report "$dir/evil.json" >"$dir/out" 2>&1 || fail "report: exit $?"
    LC_ALL=C grep -qP '\xe2\x80[\xa8-\xae]' "$dir/out" && fail "report: raw bidi printed"
    grep -q 'EVIL\\u202eGPU\\u2028x' "$dir/out" || fail "report: the name is not shown escaped"
    ;;
  *) fail "unknown case $case_name" ;;
esac
echo "reliability $case_name: passed"
