#!/usr/bin/env bash
# sweep.sh CUVK SOURCE_DIR: issue 23's adversarial sweep, compact: each class of faults and its
# siblings across the subcommands (run, trace, inspect, report, parity, devices, list), on
# lavapipe. Every invocation is judged by the CLI's contract: the expected exit code; a non-zero
# exit says why in exactly one `error:` line; no abort, crash or hang; no raw control or bidi
# character printed; no temporary left; no input overwritten. Prints each misbehaviour and a tally
# "sweep: N invocations, M misbehaviours"; exits 1 when M > 0. A ctest (adversarial.sweep, label
# vulkan: CI runs it, about 25 s on lavapipe); last recorded run in docs/TESTING.md.
set -u
cuvk=$1 src=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
runs=0 bad=0
q=(--api vulkan --n 1k --settle-ms 0 --reps 2 --warmup 0)
note() { bad=$((bad + 1)); echo "MISBEHAVES: $*"; }
# t CODE REGEX CMD...: one invocation (30 s at most), judged.
t() {
  local want=$1 regex=$2
  shift 2
  runs=$((runs + 1))
  timeout -s KILL 30 "$@" >"$dir/out" 2>"$dir/err" </dev/null
  local got=$?
  if [ "$got" -ne "$want" ]; then note "exit $got, expected $want: $* :: $(head -c 300 "$dir/err")"; return; fi
  if LC_ALL=C grep -qP '[\x00-\x08\x0b-\x1f\x7f]|\xc2[\x80-\x9f]|\xe2\x80[\xa8-\xae]|\xe2\x81[\xa6-\xa9]' "$dir/out" "$dir/err"; then
    note "raw control or bidi character printed: $*"; fi
  [ "$got" -eq 0 ] && return
  # The NVIDIA Vulkan driver's own lines under an address-space limit (each with the empty line
  # after it) are the driver's, not cuvk's: not counted (as tests/cli/expect_exit.sh --driver-noise).
  awk 'skip && $0 == "" { skip = 0; next } { skip = 0 }
       /^The NVIDIA driver was unable to open .*This library is required at run time\. *$/ { skip = 1; next }
       { print }' "$dir/err" >"$dir/err.own" && mv "$dir/err.own" "$dir/err"
  [ "$(grep -vc '^  ' "$dir/err")" -eq 1 ] || note "not one line on stderr: $* :: $(head -c 300 "$dir/err")"
  grep -Eq "^error: .*$regex" "$dir/err" || note "no 'error: ...$regex': $* :: $(head -c 300 "$dir/err")"
}
"$cuvk" run "${q[@]}" --tests copy --variants scalar --format json --output "$dir/a.json" --quiet
cp "$dir/a.json" "$dir/keep.json"
# 1, 3: sizes before allocation; no wrapped arithmetic; siblings in trace and inspect
for v in scalar vec4 grid; do
  t 2 "needs a buffer" "$cuvk" run --api vulkan --tests copy --variants "$v" --n 4294967295
  t 2 "needs a buffer" "$cuvk" trace copy --variants "$v" --n 4294967295
done
t 2 "needs a buffer" "$cuvk" run --api vulkan --tests copy --n 1G
t 2 "needs a buffer" "$cuvk" run --api vulkan --tests read_x --n 1G
# (sizes are computed in 64 bits: 2^32 - 1 elements at offset 1 need more than the device allows)
t 2 "needs a buffer of 17179869184 bytes" "$cuvk" run --api vulkan --tests read_offset --n 4294967295 --offsets 1
t 2 "needs a buffer of 17179869180 bytes" "$cuvk" run --api vulkan --tests write_offset --n 4294967295 --offsets 1
t 0 "" "$cuvk" run --api vulkan --settle-ms 0 --reps 2 --warmup 0 --tests stride --strides 4294967295 --n 64K
t 2 "overflows 32-bit" "$cuvk" run --strides 4294967296
t 2 "needs a buffer of 4294967296 bytes" "$cuvk" run --api vulkan --tests copy_engine --copy-mibs 4096
t 2 "n must be between|--n" "$cuvk" trace copy --n 8G
# 2: out of host memory: exit 3 naming it, never an abort
# (not under a sanitizer: its shadow memory needs more address space than any such limit)
for kib in 30000 60000 120000 250000; do
  [ "${CUVK_SANITIZED:-0}" = 1 ] && break
  t 3 "host memory" bash -c "ulimit -v $kib; exec \"\$0\" \"\$@\"" "$cuvk" run --api vulkan --tests copy --variants vec4 --n 64K --settle-ms 0
  t 3 "host memory" bash -c "ulimit -v $kib; exec \"\$0\" \"\$@\"" "$cuvk" trace copy --n 64K
done
# 4: an output is never an input or another output
ln -s a.json "$dir/l.json"; ln "$dir/a.json" "$dir/h.json"
for o in a.json l.json h.json; do
  t 2 "same file" "$cuvk" report "$dir/a.json" --output "$dir/$o"
  t 2 "same file" "$cuvk" parity --from "$dir/a.json" --output "$dir/$o"
  t 2 "same file" "$cuvk" run "${q[@]}" --baseline "$dir/a.json" --output "$dir/$o"
  t 2 "same file" "$cuvk" parity --baseline "$dir/a.json" --save-run "$dir/$o"
done
t 2 "same file" "$cuvk" trace copy --n 1k --output "$dir/t.svg" --plot "$dir/t.svg"
t 2 "same file" "$cuvk" report --index "$dir" --output "$dir/a.json"
cmp -s "$dir/a.json" "$dir/keep.json" || note "a.json was overwritten"
# 5: temporaries: SIGXFSZ is an I/O error; no temporary left on a signal
t 3 "File too large" bash -c "ulimit -f 4; exec \"\$0\" \"\$@\"" "$cuvk" run "${q[@]}" --tests copy --format json --output "$dir/big.json"
t 3 "File too large" bash -c "ulimit -f 4; exec \"\$0\" \"\$@\"" "$cuvk" report "$src/results/h100.json" --output "$dir/big.md"
ls -a "$dir" | grep -q 'cuvk-' && note "a temporary was left: $(ls -a "$dir" | grep cuvk-)"
# 6: Markdown tables parse back (see tests/cli/reliability.sh markdown_cells)
"$cuvk" run "${q[@]}" --tests copy_engine --copy-mibs 1 --format json --output "$dir/e.json" --quiet
for cmd in "report $dir/e.json --format md" "parity --from $src/results/h100.json --format md" "run ${q[*]} --tests copy_engine --copy-mibs 1 --format md"; do
  runs=$((runs + 1))
  # shellcheck disable=SC2086
  "$cuvk" $cmd >"$dir/t.md" 2>/dev/null
  python3 -c '
import re,sys
cols=None
for l in open(sys.argv[1]):
    if not l.startswith("|"): cols=None; continue
    n=len(re.split(r"(?<!\\)\|", l.strip()))-2
    if cols is None: cols=n
    elif n!=cols: sys.exit(1)' "$dir/t.md" || note "a Markdown row splits: $cmd"
done
# 7: a FIFO without a reader gives way to SIGTERM/SIGINT/SIGHUP: exit 128 + N, one rule for every
# command (docs/REFERENCE.md)
mkfifo "$dir/fifo"
for sig in TERM INT HUP; do
  for cmd in "run ${q[*]} --tests copy --variants scalar --output $dir/fifo" "report $src/results/h100.json --output $dir/fifo" "parity --from $src/results/h100.json --output $dir/fifo"; do
    runs=$((runs + 1))
    # shellcheck disable=SC2086
    "$cuvk" $cmd >/dev/null 2>"$dir/err" &
    pid=$!; sleep 1.5; kill -s "$sig" "$pid"
    for _ in $(seq 30); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    if kill -0 "$pid" 2>/dev/null; then note "SIG$sig ignored while blocked: $cmd"; kill -9 "$pid"; fi
    wait "$pid"; code=$?
    want=$((128 + $(kill -l "$sig")))
    [ "$code" -eq "$want" ] || note "SIG$sig: exit $code, expected $want: $cmd"
    grep -q '^error: .*interrupted' "$dir/err" || note "SIG$sig: no 'error: ... interrupted' line: $cmd"
  done
done
# 8: every non-zero exit says why
# CUDA hidden too: with a GPU the CUDA side would run (tests/gpu.sh).
t 3 "no CUDA or Vulkan device" env VK_DRIVER_FILES=/nonexistent.json CUDA_VISIBLE_DEVICES=-1 "$cuvk" devices
t 3 "no API could trace" env VK_DRIVER_FILES=/nonexistent.json CUDA_VISIBLE_DEVICES=-1 "$cuvk" trace copy --n 1k
t 3 "no API can run" env VK_DRIVER_FILES=/nonexistent.json CUDA_VISIBLE_DEVICES=-1 "$cuvk" run --tests copy --n 1k
t 2 "no row of this run could be compared" "$cuvk" run "${q[@]}" --tests read_x --baseline "$dir/a.json"
t 2 "cannot compare|no CUDA" "$cuvk" parity --from "$dir/a.json"
t 0 "" env VK_DRIVER_FILES=/nonexistent.json "$cuvk" inspect copy --vk-binding descriptor --block-sizes 256  # no device needed
# 9: contradictory files, each refused naming the field
mut() {  # mut NAME PYTHON-EXPR-ON-d: a copy of a.json changed
  python3 -c "import json,sys; d=json.load(open(sys.argv[1])); $2; json.dump(d,open(sys.argv[2],'w'))" "$dir/a.json" "$dir/$1.json"
}
mut verified "d['results'][0]['verified']=False"
mut mismatches "d['results'][0]['mismatches']=5"
mut nodev "d['devices']['vulkan']=None"
mut uuid "d['devices']['vulkan']['uuid']='x'"
mut date "d['provenance']['date_utc']='x'"
mut test "d['results'][0]['test']='nosuch'"
mut variant "d['results'][0]['variant']='vec9'"
mut qflags "d['results'][0]['queue_family']=0; d['results'][0]['queue_flags']=7"
python3 -c "import sys; t=open(sys.argv[1]).read(); open(sys.argv[2],'w').write(t.replace('\"schema\"', '\"host\": \"x\", \"schema\"', 1))" "$dir/a.json" "$dir/dup.json"
for f in verified:verified mismatches:mismatches nodev:devices.vulkan.is.null uuid:uuid date:date_utc test:unknown.test variant:variant qflags:queue_flags dup:appears.twice; do
  t 2 "${f#*:}" "$cuvk" report "$dir/${f%%:*}.json"
  t 2 "${f#*:}" "$cuvk" parity --from "$dir/${f%%:*}.json"
done
mkdir "$dir/fleet"; cp "$dir/a.json" "$dir/fleet/x.json"; cp "$dir/a.json" "$dir/fleet/y.json"
t 2 "same run" "$cuvk" report --fleet "$dir/fleet"
# 10, 11: nonsense options refused, naming the value and what is allowed
t 2 "--tolerance 'banana'" "$cuvk" run --tolerance banana
t 2 "--tolerance '-3'" "$cuvk" parity --from "$src/results/h100.json" --tolerance -3
t 2 "--tolerance 'nan'" "$cuvk" report --index "$dir" --tolerance nan
t 2 "'nosuch'" "$cuvk" run --api all,nosuch
t 2 "'bogus'" "$cuvk" run --vk-binding all,bogus
t 2 "too large" "$cuvk" run --seed 99999999999999999999999
t 2 "too large" "$cuvk" trace copy --seed 99999999999999999999999
for o in n reps warmup output baseline device seed tests api format block-size; do
  t 2 "--$o: empty" "$cuvk" run "--$o" ""
done
t 2 "--index: empty" "$cuvk" report --index ""
t 2 "--output: empty" "$cuvk" trace copy --output ""
t 2 "empty item" "$cuvk" run --tests copy,
t 2 "empty item" "$cuvk" run --tests ,
t 2 "empty item" "$cuvk" run --tests , --n 64K
t 2 "empty item" "$cuvk" run --offsets 1,
t 2 "empty item" "$cuvk" parity --variants vec4,
t 2 "--reps must be between 1 and 10000, not 0" "$cuvk" trace copy --reps 0
t 2 "'1e30' is not an integer from 1 to 10000" "$cuvk" run --reps 1e30
t 2 "not 0" "$cuvk" run --reps 0
t 2 "'xml'" "$cuvk" report --index "$dir" --format xml
t 2 "Markdown" "$cuvk" report --index "$dir" --format csv
# Issue 35: a node run writes one file (a device such as /dev/null directly); CSV is refused
t 2 "a CSV holds one GPU's rows" "$cuvk" run --device all --format csv --output /dev/null
t 2 "give --device all or a list" "$cuvk" run --concurrent --tests copy
t 2 "at most 4096" "$cuvk" run --offsets 0-1023 --strides 1-1024 --block-sizes 32,64
t 2 "own buffer copy" "$cuvk" trace copy --variants engine
t 2 "not a number" "$cuvk" run --max-time banana
# 12: one escaping rule for paths and file text
esc=$(printf 'r\033[2J\xe2\x80\xae\xe2\x80\xa8x')
t 0 "" "$cuvk" run "${q[@]}" --tests copy --variants scalar --output "$dir/$esc.json"
t 1 "a comparison found a difference" "$cuvk" parity --from "$src/results/h100.json" --output "$dir/$esc.md"  # VULKAN SLOWER points: 1
t 0 "" "$cuvk" report "$src/results/h100.json" --output "$dir/$esc.2.md"
t 2 "" "$cuvk" report "$dir/$esc.missing.json"
sed 's/"name": "NVIDIA H100 80GB HBM3"/"name": "E\\u202eV\\u2028L"/' "$src/results/h100.json" >"$dir/evil.json"
t 0 "" "$cuvk" report "$dir/evil.json"
t 0 "" "$cuvk" report "$dir/evil.json" --format csv
# 13: a user's usual environment changes no answer
t 0 "" env CUDA_VISIBLE_DEVICES=0 TMPDIR=/tmp/no-such-dir LANG=de_DE.UTF-8 "$cuvk" run "${q[@]}" --tests copy --variants scalar
# VK_DRIVER_FILES set but empty: the loader loads no driver at all, so exit 3, naming the variable
t 3 "VK_DRIVER_FILES= \\(set, but empty" env VK_DRIVER_FILES= "$cuvk" run "${q[@]}" --tests copy --variants scalar
t 0 "" env LANG=de_DE.UTF-8 LC_ALL=de_DE.UTF-8 "$cuvk" report "$src/results/h100.json"
ls -a "$dir" | grep -q 'cuvk-' && note "a temporary was left: $(ls -a "$dir" | grep cuvk-)"
echo "sweep: $runs invocations, $bad misbehaviours"
[ "$bad" -eq 0 ]
