#!/usr/bin/env bash
# `cuvk run --pair` end to end on the first Vulkan device (lavapipe in CI), validation on (any
# message fails the run's output check below), NVRTC compiling the CUDA side where present.
# Usage: pairs_e2e.sh CUVK CASE [TOML]    CASE: right | wrong | oob | forever | mixed | here |
# example, or issue 31's cases (what `verified` means): half_lanes | half_expected | partial |
# no_output | timing_only | unchecked | consistent | all_nan | nan_allowed | lanes_disagree | tail |
# readme; issue 34's multi-step pairs: steps_modes | steps_middle | steps_drift | steps_no_state |
# steps_sizes; issue 49's validation_message; issue 46's api_vulkan_no_cuda, push_room
set -u
cuvk=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")  # absolute: a case runs from its folder
case_=$2
src=$(cd "$(dirname "$0")/../pairs" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cp "$src"/* "$tmp"/
# expected.raw: y = 2 * i + 1 for i < 1000, little-endian f32.
python3 -c "
import struct,sys
open(sys.argv[1],'wb').write(b''.join(struct.pack('<f', 2.0*i+1.0) for i in range(1000)))" "$tmp/expected.raw"
fail() { echo "FAIL: $*"; echo "--- stdout"; cat "$tmp/out"; echo "--- stderr"; cat "$tmp/err"; exit 1; }
# axpy NAME DEFINES Y_FIELDS [TOP_FIELDS]: a variant of the test pair written to $tmp/NAME.toml:
# DEFINES (space-separated) for the GLSL forms and NVRTC alike, Y_FIELDS the lines of buffer y
# after its name, type and count.
axpy() {
  local name=$1 defs="" opts="" d
  for d in $2; do defs+="\"$d\", "; opts+="\"-D$d\", "; done
  cat >"$tmp/$1.toml" <<TOML
name = "axpy_$name"
n = 1000
useful_bytes = "12 * n"
${4:-}

[cuda]
source = "axpy.cu"
entry = "axpy"
options = [${opts%, }]

[glsl]
source = "axpy.comp"
defines = [${defs%, }]
bda_defines = [${defs}"CUVK_BDA"]

[launch]
threads = "n"

[[buffer]]
name = "x"
type = "f32"
count = "n"
init = "index"

[[buffer]]
name = "y"
type = "f32"
count = "n"
$3

[[scalar]]
name = "a"
type = "f32"
value = 2.0

[[scalar]]
name = "n"
type = "u32"
value = "n"
TOML
}
# rows FILE PYTHON: the run file's rows as `rows` for the assertions in PYTHON.
rows() {
  python3 - "$1" "$2" <<'PY' || fail "rows: $2"
import json,sys
rows=json.load(open(sys.argv[1]))["results"]
exec(sys.argv[2])
PY
}
run_json() {  # run_json WANT_RC ARGS...: cuvk run ARGS into $tmp/r.json (both bindings unless named)
  local want=$1
  shift
  local opts=("${common[@]:0:${#common[@]}-2}")
  case " $* " in *" --vk-binding "*) ;; *) opts+=(--vk-binding all) ;; esac
  "$cuvk" run "$@" "${opts[@]}" --format json --output "$tmp/r.json" >"$tmp/out" 2>"$tmp/err"
  local rc=$?
  [ $rc -eq "$want" ] || fail "exit $rc, want $want"
}
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
  forever_node)  # issue 35: the same in a node run: the node file is written, then no wait
    timeout 60 "$cuvk" run --device all --pair "$tmp/forever.toml" --settle-ms 0 --timeout 2 \
      --format json --output "$tmp/node.json" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    [ $rc -eq 1 ] || fail "exit $rc, want 1 (124: it hung)"
    grep -q "^error: vulkan: .*the rows measured so far are kept" "$tmp/err" || fail "no error line"
    grep -q '"schema": "cuvk.node/1"' "$tmp/node.json" || fail "no node file"
    ;;
  node_pair)  # issue 35: a pair on every GPU of a node run (here the one device twice, the test
              # hook): each GPU's run registers the pair again (was: exit 2, "a test of that
              # name exists already", on every machine with two GPUs)
    CUVK_TEST_SAME_GPU_AGAIN=1 "$cuvk" run --device 0,0 --pair "$tmp/right.toml" "${common[@]}" \
      --format json --output "$tmp/node.json" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    [ $rc -eq 0 ] || fail "exit $rc, want 0"
    python3 - "$tmp/node.json" <<'PY' || fail "node file"
import json,sys
d=json.load(open(sys.argv[1]))
assert d["schema"]=="cuvk.node/1" and len(d["gpus"])==2, d.keys()
for g in d["gpus"]:
  assert any(r["test"]=="axpy_right" and r["status"]=="ok" for r in g["run"]["results"]), g.keys()
PY
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
# Issue 31: verified only against an expected file or CUDA (a GPU: every row); without CUDA,
# Vulkan's two bindings alone agree (consistent), one binding alone is unchecked and says why.
vk=[r for r in rows if r["api"]=="vulkan" and r["status"]=="ok"]
cuda_ok=any(r["api"]=="cuda" and r["status"]=="ok" for r in rows)
assert vk and all(r["check"]=="verified" or not cuda_ok for r in vk), rows
for r in vk:
  assert (r["checked_elements"]>0)==(r["check"]!="unchecked"), r
  assert (r["check_note"]!="")==(r["check"]!="verified"), r
assert not any(r["status"]=="failed" for r in rows), rows
# Issue 36: the head's n (settings.n) is the n the rows ran at; on a CPU device a pair's n is
# scaled down until its buffers hold 8 MiB (saxpy's 16M floats: 1M), and the rule says so.
s=json.load(open(sys.argv[1]))["settings"]
assert all(r["params"]["n"]==s["n"] for r in rows), (s["n"], [r["params"]["n"] for r in rows])
assert s["n_rule"].startswith("declared in ") or \
       "scaled down for CPU devices to 8 MiB of buffers" in s["n_rule"], s["n_rule"]
PY
    ;;
  half_lanes)  # every lane leaves the odd elements alone, alike: each row fails on its own
    axpy half "WRITE_ONLY HALF" "output = true"
    run_json 1 --pair "$tmp/half.toml"
    rows "$tmp/r.json" "
ran=[r for r in rows if r['status']!='unavailable']
assert len(ran)>=2 and all(r['status']=='failed' for r in ran), ran
for r in ran: assert \"buffer 'y': 500 of 1000 elements never written\" in r['reason'] and 'first at index 1 ' in r['reason'], r['reason']"
    ;;
  half_expected)  # one lane against an expected file that says what every element must be
    axpy half "WRITE_ONLY HALF" 'output = true
expected = "expected.raw"'
    run_json 1 --pair "$tmp/half.toml" --api vulkan --vk-binding descriptor
    grep -q "never written" "$tmp/r.json" || fail "no unwritten elements named"
    ;;
  partial)  # declared partial: the lanes must leave the same elements; the written ones checked
    axpy partial "WRITE_ONLY HALF" 'output = true
partial = true
expected = "expected.raw"'
    run_json 0 --pair "$tmp/partial.toml"
    rows "$tmp/r.json" "
ok=[r for r in rows if r['status']=='ok']
assert len(ok)>=2 and all(r['check']=='verified' and r['verified'] for r in ok), ok
for r in ok: assert 'unwritten_y=500' in r['flags'] and r['checked_elements']>=500, r"
    ;;
  no_output)  # no output, no verdict: refused when read, naming the file
    axpy none "WRITE_ONLY" ""
    "$cuvk" run --pair "$tmp/none.toml" "${common[@]}" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    [ $rc -eq 2 ] || fail "exit $rc, want 2"
    grep -q "^error: .*none.toml: no buffer is an output" "$tmp/err" || fail "no one-line error naming the file"
    ;;
  timing_only)  # declared timing only: timed, never verified, exit 0 (1 under --require-verified)
    axpy timed "WRITE_ONLY" "" "timing_only = true"
    run_json 0 --pair "$tmp/timed.toml"
    rows "$tmp/r.json" "
ok=[r for r in rows if r['status']=='ok']
assert ok and all(r['check']=='timing_only' and not r['verified'] for r in ok), ok"
    grep -Eq "^axpy_timed .* ok, timing only" "$tmp/out" || fail "the table does not say timing only"
    run_json 1 --pair "$tmp/timed.toml" --require-verified
    ;;
  unchecked)  # one API, one binding, no expected file: ran, compared with nothing
    axpy alone "WRITE_ONLY" "output = true"
    run_json 0 --pair "$tmp/alone.toml" --api vulkan --vk-binding descriptor
    rows "$tmp/r.json" "
ok=[r for r in rows if r['status']=='ok']
assert len(ok)==1 and ok[0]['check']=='unchecked' and not ok[0]['verified'] and ok[0]['checked_against']==[], ok
assert 'no other API ran' in ok[0]['check_note'] and \"buffer 'y' has no expected file\" in ok[0]['check_note'], ok"
    grep -q "ok, unchecked" "$tmp/out" || fail "the table does not say unchecked"
    grep -q "unchecked: nothing to compare with: no other API ran" "$tmp/out" || fail "no note below the table"
    run_json 1 --pair "$tmp/alone.toml" --api vulkan --vk-binding descriptor --require-verified
    ;;
  consistent)  # two bindings of one API agree: consistent, not verified; both name each other
    axpy both "WRITE_ONLY" "output = true"
    run_json 0 --pair "$tmp/both.toml" --api vulkan
    rows "$tmp/r.json" "
ok=[r for r in rows if r['status']=='ok']
assert len(ok)==2 and all(r['check']=='consistent' for r in ok), ok
assert sorted(r['checked_against'][0] for r in ok)==['vulkan bda','vulkan descriptor'], ok"
    ;;
  all_nan)  # every element NaN, bit-identical on every lane: fails, counting them
    axpy nan "WRITE_ONLY ALL_NAN" "output = true"
    run_json 1 --pair "$tmp/nan.toml"
    rows "$tmp/r.json" "
ran=[r for r in rows if r['status']!='unavailable']
assert ran and all(r['status']=='failed' and \"buffer 'y': 1000 of 1000 elements are NaN\" in r['reason'] for r in ran), ran"
    ;;
  nan_allowed)  # a declared fraction of NaNs passes, and the row counts them
    axpy nan_ok "WRITE_ONLY ALL_NAN" 'output = true
nan_fraction = 1.0'
    run_json 0 --pair "$tmp/nan_ok.toml"
    rows "$tmp/r.json" "
ok=[r for r in rows if r['status']=='ok']
assert ok and all('nan_y=1000' in r['flags'] for r in ok), ok"
    ;;
  lanes_disagree)  # no expected file: the lanes differ at bda's element 500, neither known right
    # (issue 47: both rows fail 'disagree', the earlier one too; no row says "no other API ran")
    axpy apart "WRITE_ONLY BDA_OFF" "output = true"
    run_json 1 --pair "$tmp/apart.toml" --api vulkan
    rows "$tmp/r.json" "
bad=[r for r in rows if r['status']=='failed']
assert len(bad)==2 and all(r['reason'].startswith('disagree: ') and \"first buffer 'y' element 500\" in r['reason'] and 'neither is known right' in r['reason'] for r in bad), rows
assert not any('no other API ran' in (r.get('check_note') or '') for r in rows), rows"
    ;;
  push_room)  # issue 46: push constants as the pair declares them; the bda layout only for a bda form
    # 30 scalars (120 bytes) and 2 buffers: the addresses after them would take 136 > lavapipe's
    # 128, but the pair has no bda form, so no such layout is made (it drew
    # VUID-VkPushConstantRange-size-00298 under --validation) and the run verifies.
    { echo '#version 450'; echo 'layout(local_size_x_id = 0) in;'
      echo 'layout(std430, set = 0, binding = 0) buffer X { float x[]; };'
      echo 'layout(std430, set = 0, binding = 1) buffer Y { float y[]; };'
      echo 'layout(push_constant) uniform S { float a; uint n;'
      for i in $(seq 0 27); do echo "  float p$i;"; done
      echo '};'
      echo 'void main() { uint i = gl_GlobalInvocationID.x; if (i < n) y[i] = a * x[i] + p27; }'
    } >"$tmp/room.comp"
    { echo 'extern "C" __global__ void room(const float* x, float* y, float a, unsigned n,'
      for i in $(seq 0 26); do echo "  float p$i,"; done
      echo '  float p27) {'
      echo '  unsigned i = blockIdx.x * blockDim.x + threadIdx.x;'
      echo '  if (i < n) y[i] = a * x[i] + p27;'
      echo '}'
    } >"$tmp/room.cu"
    { echo 'name = "room"'; echo 'n = 1000'; echo 'useful_bytes = "8 * n"'
      echo '[cuda]'; echo 'source = "room.cu"'; echo 'entry = "room"'
      echo '[glsl]'; echo 'source = "room.comp"'
      echo '[launch]'; echo 'threads = "n"'
      echo '[[buffer]]'; echo 'name = "x"'; echo 'type = "f32"'; echo 'count = "n"'
      echo '[[buffer]]'; echo 'name = "y"'; echo 'type = "f32"'; echo 'count = "n"'; echo 'output = true'
      echo '[[scalar]]'; echo 'name = "a"'; echo 'type = "f32"'; echo 'value = 2.0'
      echo '[[scalar]]'; echo 'name = "n"'; echo 'type = "u32"'; echo 'value = "n"'
      for i in $(seq 0 27); do echo '[[scalar]]'; echo "name = \"p$i\""; echo 'type = "f32"'; echo 'value = 0.0'; done
    } >"$tmp/room.toml"
    run_json 0 --pair "$tmp/room.toml" --api vulkan --vk-binding descriptor
    rows "$tmp/r.json" "
assert rows and all(r['status']=='ok' for r in rows), rows"
    grep -q "VUID" "$tmp/err" && fail "a validation message"
    ;;
  api_vulkan_no_cuda)  # issue 46: --api vulkan compiles no CUDA: a CUDA compile error does not block the shader
    sed 's/^source = "axpy.cu"/source = "cuda_error.cu"/; s/^name = "axpy_right"/name = "nocuda"/' \
      "$tmp/right.toml" >"$tmp/nocuda.toml"  # the right pair, its CUDA side not compiling
    run_json 0 --pair "$tmp/nocuda.toml" --api vulkan
    rows "$tmp/r.json" "
ok=[r for r in rows if r['status']=='ok']
assert ok and all(r['api']=='vulkan' and r['verified'] for r in ok), rows"
    "$cuvk" run --pair "$tmp/nocuda.toml" "${common[@]}" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    [ $rc -eq 2 ] || fail "with CUDA in the run: exit $rc, want 2 (the CUDA compile error)"
    grep -q "undeclared_two" "$tmp/err" || fail "the CUDA compile error not shown"
    ;;
  tail)  # the last element off: every element is compared, the tail too
    axpy tail "TAIL_OFF" 'init = "constant"
value = 1.0
output = true
expected = "expected.raw"'
    run_json 1 --pair "$tmp/tail.toml" --api vulkan --vk-binding descriptor
    grep -q "element 999: vulkan descriptor 2000 (0x44fa0000), expected 1999 (0x44f9e000)" "$tmp/r.json" || fail "the tail's element not named"
    ;;
  readme)  # the README's declaration as printed: Vulkan alone unchecked; with CUDA verified
    root=$(cd "$(dirname "$0")/../.." && pwd)
    sed -n '/^```toml$/,/^```$/p' "$root/README.md" | sed '1d;$d' >"$tmp/readme.toml"
    cp "$root/examples/saxpy/saxpy.cu" "$root/examples/saxpy/saxpy.comp" "$tmp/"
    run_json 0 --pair "$tmp/readme.toml" --n 4096
    rows "$tmp/r.json" "
cuda=[r for r in rows if r['api']=='cuda' and r['status']=='ok']
vk=[r for r in rows if r['api']=='vulkan' and r['status']=='ok']
assert vk, rows
want='verified' if cuda else 'unchecked'
assert all(r['check']==want for r in vk+cuda), (want, rows)
if cuda: assert vk[0]['checked_against']==['cuda'] and cuda[0]['checked_against']==['vulkan descriptor'], rows"
    ;;
  # ---- issue 34: multi-step pairs (examples/scan: three kernels; examples/jacobi: two, repeated) ----
  steps_modes)  # a lane per submission mode, each verified against the expected file (or CUDA)
    root=$(cd "$(dirname "$0")/../.." && pwd)
    run_json 0 --pair "$root/examples/scan/scan.toml" --vk-binding descriptor
    rows "$tmp/r.json" "
vk=[r for r in rows if r['api']=='vulkan']
assert sorted(r['submission'] for r in vk)==['recorded','rerecorded','submit-each'], vk
assert all(r['status']=='ok' and r['check']=='verified' for r in vk), vk
assert all('expected file' in r['checked_against'] for r in vk), vk
cu=[r for r in rows if r['api']=='cuda']
assert sorted(r['submission'] for r in cu)==['graph','stream'], cu
assert all(r['status'] in ('ok','unavailable') for r in cu), cu"
    ;;
  steps_middle)  # the middle of three steps wrong: the output after the last step is caught
    root=$(cd "$(dirname "$0")/../.." && pwd)
    cp "$root"/examples/scan/* "$tmp/"
    sed -e 's/glsl = { source = "scan_sums.comp" }/glsl = { source = "scan_sums.comp", defines = ["SCAN_BREAK_SUMS"] }/' \
        -e 's/cuda = { entry = "scan_sums" }/cuda = { entry = "scan_sums", options = ["-DSCAN_BREAK_SUMS"] }/' \
        "$tmp/scan.toml" >"$tmp/scan_broken.toml"
    grep -q SCAN_BREAK_SUMS "$tmp/scan_broken.toml" || fail "the edit did not apply"
    run_json 1 --pair "$tmp/scan_broken.toml" --vk-binding descriptor
    rows "$tmp/r.json" "
ran=[r for r in rows if r['status']!='unavailable']
assert ran and all(r['status']=='failed' and 'elements differ' in r['reason'] and \"buffer 'out'\" in r['reason'] for r in ran), ran"
    ;;
  steps_drift)  # an in-place loop declared idempotent drifts: caught after the timed repetitions
    root=$(cd "$(dirname "$0")/../.." && pwd)
    cp "$root"/examples/jacobi/* "$tmp/"
    sed -e 's/^state = "restore"/state = "idempotent"/' "$tmp/jacobi.toml" >"$tmp/drift.toml"
    run_json 1 --pair "$tmp/drift.toml" --vk-binding descriptor --api vulkan
    rows "$tmp/r.json" "
ran=[r for r in rows if r['status']!='unavailable']
assert ran and all(r['status']=='failed' and 'the sequence is not idempotent' in r['reason'] for r in ran), ran
assert all(r['checked_elements']>0 for r in ran), ran  # verified first: the first run was right"
    # restore (the example as written) passes the same check
    run_json 0 --pair "$tmp/jacobi.toml" --vk-binding descriptor --api vulkan
    rows "$tmp/r.json" "
assert rows and all(r['status']=='ok' and r['check']=='verified' for r in rows), rows"
    ;;
  steps_no_state)  # a sequence that reads and writes a buffer must say what holds between repetitions
    root=$(cd "$(dirname "$0")/../.." && pwd)
    cp "$root"/examples/jacobi/* "$tmp/"
    sed -e '/^state = "restore"/d' "$tmp/jacobi.toml" >"$tmp/nostate.toml"
    "$cuvk" run --pair "$tmp/nostate.toml" "${common[@]}" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    [ $rc -eq 2 ] || fail "exit $rc, want 2"
    grep -q "^error: .*nostate.toml:[0-9]*: state: missing: buffer 'a' is read" "$tmp/err" || fail "no one-line error naming file and field"
    [ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "more than one line"
    ;;
  steps_sizes)  # --n outside the sizes a pair declares: refused, naming the file and the field
    root=$(cd "$(dirname "$0")/../.." && pwd)
    "$cuvk" run --pair "$root/examples/scan/scan.toml" --n 1M "${common[@]}" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    [ $rc -eq 2 ] || fail "exit $rc, want 2"
    grep -q "^error: .*scan.toml: sizes: --n 1048576 is not a size this pair declares (65536)" "$tmp/err" || fail "no error naming sizes"
    [ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "more than one line"
    "$cuvk" run --pair "$root/examples/scan/scan.toml" --n 1k,1M "${common[@]}" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    [ $rc -eq 2 ] || fail "list: exit $rc, want 2"
    grep -q "^error: .*scan.toml: sizes: none of --n 1024, 1048576 is a size this pair declares (65536)" "$tmp/err" || fail "no error for an empty intersection"
    # a list runs the sizes within those declared and says which it skips, in one line
    run_json 0 --pair "$root/examples/scan/scan.toml" --n 1k,64k,1M --vk-binding descriptor --api vulkan
    grep -q "^note: .*scan.toml: skips --n 1024, 1048576: not among the sizes it declares (sizes: 65536)$" "$tmp/err" || fail "no note naming the skipped sizes"
    rows "$tmp/r.json" "
assert rows and all(r['params']['n']==65536 and r['check']=='verified' for r in rows), rows"
    # several declared sizes: a point each, the size in the label (saxpy declares none: any n)
    run_json 0 --pair "$root/examples/saxpy/saxpy.toml" --n 1k,4k --vk-binding descriptor --api vulkan
    rows "$tmp/r.json" "
assert sorted(r['params']['n'] for r in rows)==[1024,4096], rows"
    ;;
  validation_message)
    # Issue 49, item 6: under --validation any message of the layer fails the run (exit 1, the
    # message shown, one error line), a pair's too. A u64 scalar makes the shader declare the
    # Int64 capability, which cuvk's device does not enable: VUID-VkShaderModuleCreateInfo-pCode-01091
    # (tests/pairs/i64.toml).
    for dev in "" "--device all"; do  # one device, and each in turn (run_devices.cpp)
      # shellcheck disable=SC2086
      "$cuvk" run --pair "$tmp/i64.toml" --api vulkan $dev "${common[@]}" >"$tmp/out" 2>"$tmp/err"
      rc=$?
      [ $rc -eq 1 ] || fail "${dev:-one device}: exit $rc, want 1 (a validation message)"
      grep -q "^validation: .*VUID-" "$tmp/err" || fail "${dev:-one device}: the message not shown"
      [ "$(grep -c '^error:' "$tmp/err")" -eq 1 ] || fail "${dev:-one device}: want one error line"
      grep -q "^error: the Vulkan validation layer sent [0-9]* messages\? (above); under --validation any message fails the run$" "$tmp/err" ||
        fail "${dev:-one device}: no error line for the messages"
    done
    # without --validation the same pair runs clean: the exit code is the layer's doing
    "$cuvk" run --pair "$tmp/i64.toml" --api vulkan "${common[@]:1}" >"$tmp/out" 2>"$tmp/err"
    rc=$?
    [ $rc -eq 0 ] || fail "without --validation: exit $rc, want 0"
    ;;
  *) echo "unknown case $case_"; exit 2 ;;
esac
if grep -q "^validation:" "$tmp/err"; then fail "validation messages"; fi
echo "ok: $case_"
