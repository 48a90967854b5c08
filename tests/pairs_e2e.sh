#!/usr/bin/env bash
# `cuvk run --pair` end to end on the first Vulkan device (lavapipe in CI), validation on (any
# message fails the run's output check below), NVRTC compiling the CUDA side where present.
# Usage: pairs_e2e.sh CUVK CASE [TOML]    CASE: right | wrong | oob | forever | mixed | here | example
set -u
cuvk=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")  # absolute: a case runs from its folder
case_=$2
src=$(cd "$(dirname "$0")/pairs" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp "$src"/* "$tmp"/
# expected.raw: y = 2 * i + 1 for i < 1000, little-endian f32.
python3 -c "
import struct,sys
open(sys.argv[1],'wb').write(b''.join(struct.pack('<f', 2.0*i+1.0) for i in range(1000)))" "$tmp/expected.raw"
fail() { echo "FAIL: $*"; echo "--- stdout"; cat "$tmp/out"; echo "--- stderr"; cat "$tmp/err"; exit 1; }
common=(--validation --settle-ms 0 --reps 3 --warmup 1 --max-time 0.05 --vk-binding all)
case $case_ in
  right)
    "$cuvk" run --pair "$tmp/right.toml" "${common[@]}" --format json --output "$tmp/r.json" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    [ $rc -eq 0 ] || fail "exit $rc, want 0"
    grep -q '"test": "axpy_right"' "$tmp/r.json" || fail "no axpy_right row"
    python3 - "$tmp/r.json" <<'PY' || fail "rows"
import json,sys
rows=json.load(open(sys.argv[1]))["results"]
vk=[r for r in rows if r["api"]=="vulkan" and r["status"]=="ok"]
assert vk and all(r["verified"] for r in vk), rows
cu=[r for r in rows if r["api"]=="cuda"]
assert cu and all(r["status"] in ("ok","unavailable") for r in cu), cu
for r in cu:
  if r["status"]=="unavailable": assert "not run" in r["reason"], r["reason"]
PY
    ;;
  wrong)
    "$cuvk" run --pair "$tmp/wrong.toml" "${common[@]}" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    [ $rc -eq 1 ] || fail "exit $rc, want 1"
    grep -q "failed: 1 of 1000 elements differ, first buffer 'y' element 77: vulkan descriptor 156 (0x431c0000), expected 155 (0x431b0000)" "$tmp/out" || fail "no index and values"
    ;;
  oob)
    "$cuvk" run --pair "$tmp/oob.toml" "${common[@]}" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    [ $rc -eq 1 ] || fail "exit $rc, want 1"
    # The bda row writes past the buffer unguarded (robust access covers descriptors only).
    grep -Eq "^axpy_oob .* vulkan +bda .* failed" "$tmp/out" || fail "the bda row did not fail"
    grep -q "buffer 'y': out-of-bounds write at byte offset 4000 (element 1000; it has 1000 elements)" "$tmp/out" || fail "guard band not reported"
    ;;
  forever)
    start=$(date +%s)
    timeout 60 "$cuvk" run --pair "$tmp/forever.toml" --settle-ms 0 --timeout 2 >"$tmp/out" 2>"$tmp/err"
    rc=$?
    [ $rc -eq 1 ] || fail "exit $rc, want 1 (124: it hung)"
    grep -q "^error: vulkan: .*the rows measured so far are kept" "$tmp/err" || fail "no error line"
    grep -q "did not finish within 2" "$tmp/out" || fail "row does not say it timed out"
    ;;
  mixed)  # a pair next to a built-in test in one run: both rows, one table
    "$cuvk" run --pair "$tmp/right.toml" --tests copy --variants vec4 --n 1000 "${common[@]}" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    [ $rc -eq 0 ] || fail "exit $rc, want 0"
    grep -q "axpy_right" "$tmp/out" && grep -q "copy" "$tmp/out" || fail "missing rows"
    # --n applies to the pair too: 64M floats exceed lavapipe's largest buffer, named by file and field
    "$cuvk" run --pair "$tmp/right.toml" --n 64M "${common[@]}" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    [ $rc -eq 2 ] || fail "exit $rc, want 2 (--n 64M: buffers beyond the device)"
    grep -q "^error: .*right.toml: buffer '[xy]'" "$tmp/err" || fail "error names no file and field"
    ;;
  here)  # issue 36: '--pair right_bda.toml' from its own folder (NVRTC: -I. then the toolkit's
         # include, which cuda_fp16.h needs), a name ending in _bda (was: 'Vulkan backend already
         # has a kernel named pair:axpy_right_bda', exit 3)
    cd "$tmp"
    sed 's/^name = "axpy_right"/name = "axpy_right_bda"/; s/^source = "axpy.cu"/source = "axpy_fp16.cu"/' \
      right.toml >right_bda.toml
    { echo '#include <cuda_fp16.h>'; cat axpy.cu; } >axpy_fp16.cu
    "$cuvk" run --pair right_bda.toml "${common[@]}" --format json --output r.json >"$tmp/out" 2>"$tmp/err"
    rc=$?
    [ $rc -eq 0 ] || fail "exit $rc, want 0"
    python3 - r.json <<'PY' || fail "rows"
import json,sys
rows=json.load(open(sys.argv[1]))["results"]
assert all(r["test"]=="axpy_right_bda" for r in rows), rows
assert any(r["api"]=="vulkan" and r["status"]=="ok" and r["verified"] for r in rows), rows
assert not any(r["status"]=="failed" for r in rows), rows
PY
    ;;
  example)  # an examples/*/*.toml at its own n, verified (CUDA compiled, not run, without a GPU)
    "$cuvk" run --pair "$3" "${common[@]}" --format json --output "$tmp/e.json" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    [ $rc -eq 0 ] || fail "exit $rc, want 0"
    python3 - "$tmp/e.json" <<'PY' || fail "rows"
import json,sys
rows=json.load(open(sys.argv[1]))["results"]
assert any(r["api"]=="vulkan" and r["status"]=="ok" and r["verified"] for r in rows), rows
assert not any(r["status"]=="failed" for r in rows), rows
# Issue 36: the head's n (settings.n) is the n the rows ran at; on a CPU device a pair's n is
# scaled down until its buffers hold 8 MiB (saxpy's 16M floats: 1M), and the rule says so.
s=json.load(open(sys.argv[1]))["settings"]
assert all(r["params"]["n"]==s["n"] for r in rows), (s["n"], [r["params"]["n"] for r in rows])
assert s["n_rule"].startswith("declared in ") or \
       "scaled down for CPU devices to 8 MiB of buffers" in s["n_rule"], s["n_rule"]
PY
    ;;
  *) echo "unknown case $case_"; exit 2 ;;
esac
if grep -q "^validation:" "$tmp/err"; then fail "validation messages"; fi
echo "ok: $case_"
