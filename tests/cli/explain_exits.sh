#!/usr/bin/env bash
# explain_exits.sh CUVK CASE: `cuvk explain --pair` on lavapipe (CUDA unavailable: NVRTC compiles,
# nothing runs on CUDA), issue 49 items 1 and 6. CASE:
#   output_input  an --output naming the pair's declaration, its source or --baseline: refused
#                 (exit 2, one error line) before anything runs, the file unchanged
#   wrong         a pair whose Vulkan outputs are wrong: exit 1 (as run), not 2, no empty error line
#   right         a right pair with no CUDA rows: exit 2 with a reason, never an empty `error: `
#   validation    under --validation a validation-layer message fails explain (exit 1, shown)
set -u
cuvk=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
case_=$2
src=$(cd "$(dirname "$0")/../pairs" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp "$src"/* "$tmp"/
python3 -c "
import struct,sys
open(sys.argv[1],'wb').write(b''.join(struct.pack('<f', 2.0*i+1.0) for i in range(1000)))" "$tmp/expected.raw"
fail() { echo "FAIL: $*"; echo "--- stdout"; cat "$tmp/out"; echo "--- stderr"; cat "$tmp/err"; exit 1; }
common=(--settle-ms 0 --reps 3 --warmup 1 --max-time 0.05 --no-experiments)
explain() {  # explain WANT ARGS...: runs explain, checks the exit code and that no error line is empty
  local want=$1
  shift
  "$cuvk" explain "$@" "${common[@]}" >"$tmp/out" 2>"$tmp/err"
  rc=$?
  [ $rc -eq "$want" ] || fail "explain $*: exit $rc, want $want"
  if grep -Eq '^error: *$' "$tmp/err"; then fail "explain $*: an empty error line"; fi
}
case $case_ in
  output_input)
    cd "$tmp" || exit 1
    cp "$src/../../results/h100.json" base.json  # a saved run: a --baseline the run reads
    for target in right.toml axpy.cu axpy.comp expected.raw base.json; do
      sum=$(sha256sum "$target")
      explain 2 --pair right.toml --baseline base.json --output "$target"
      grep -q "^error: --output '$target' is the same file as the input .*: it would be overwritten; give another file name$" "$tmp/err" ||
        fail "--output $target: not refused as an input"
      [ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "--output $target: want one line on stderr"
      [ "$(sha256sum "$target")" = "$sum" ] || fail "--output $target: the file changed"
    done
    ;;
  wrong)
    explain 1 --pair "$tmp/wrong.toml"
    grep -Eq "^axpy_wrong .* vulkan +descriptor .* failed" "$tmp/out" || fail "the failed row not shown"
    grep -q "^error: a row failed (above)" "$tmp/err" || fail "no error line for the failed row"
    ;;
  right)
    explain 2 --pair "$tmp/right.toml"
    grep -Eq "^error: .+" "$tmp/err" || fail "no reason given"
    ;;
  validation)
    explain 1 --validation --pair "$tmp/i64.toml"
    grep -q "^validation: .*VUID-" "$tmp/err" || fail "the message not shown"
    grep -q "^error: the Vulkan validation layer sent [0-9]* messages\? (above); under --validation any message fails the run$" "$tmp/err" ||
      fail "no error line for the messages"
    ;;
  *) echo "unknown case $case_"; exit 2 ;;
esac
echo "explain_exits $case_: passed"
