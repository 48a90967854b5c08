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
  # One error: line; lines indented below it are its detail (a compiler's log).
  [ "$(grep -vc '^  ' "$dir/err")" -eq 1 ] || { cat -v "$dir/err"; fail "$*: not one line on stderr"; }
  # The regex on the error: line or in its detail below (a compiler's log names the include chain).
  { grep -Eq "^error: .*$regex" "$dir/err" || { grep -q "^error: " "$dir/err" && grep -Eq "^  .*$regex" "$dir/err"; }; } ||
    { cat "$dir/err"; fail "$*: no 'error: ...$regex'"; }
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
  contradictory_files)  # class 9: a file that contradicts itself is refused, naming the field
    # mutate NAME PYTHON: results/h100.json with PYTHON applied to d (the document), as NAME.json.
    mutate() {
      python3 - "$src/results/h100.json" "$dir/$1.json" "$2" <<'PY' || fail "mutate $1"
import json, sys
d = json.load(open(sys.argv[1]))
exec(sys.argv[3])
open(sys.argv[2], "w").write(d if isinstance(d, str) else json.dumps(d))
PY
    }
    mutate not_verified 'd["results"][1]["verified"] = False'
    mutate mismatches 'd["results"][2]["mismatches"] = 5'
    mutate duplicate_key 'd["results"][3]["params"]["n"] = 123456789
d = json.dumps(d).replace("\"n\": 123456789", "\"n\": 123456789, \"n\": 1")'
    mutate vulkan_null 'd["devices"]["vulkan"] = None'
    mutate uuid 'd["devices"]["cuda"]["uuid"] = "x"'
    mutate date 'd["provenance"]["date_utc"] = "x"'
    mutate test 'd["results"][0]["test"] = "nosuch"'
    mutate variant 'd["results"][0]["variant"] = "vec8"'
    mutate layout 'd["results"][2]["layout"] = "csr"'
    mutate queue_family 'd["results"][71]["queue_family"] = 9'
    mutate queue_flags 'd["results"][71]["queue_flags"] = 5'
    mutate flags_contradict 'd["results"][71]["queue_flags"] = "transfer"'
    mutate pair_variant 'r = d["results"][0]; r["kernel"] = "pair:copy"; r["variant"] = "vec4"'
    expect_error 2 "not_verified.json: results\\[1\\].verified: false in an ok row" \
      "$cuvk" report "$dir/not_verified.json"
    expect_error 2 "mismatches.json: results\\[2\\].mismatches: 5 in an ok row" \
      "$cuvk" parity --from "$dir/mismatches.json"
    expect_error 2 "duplicate_key.json: results\\[3\\].params.n: the key appears twice" \
      "$cuvk" report "$dir/duplicate_key.json"
    expect_error 2 "vulkan_null.json: results\\[1\\].api: .vulkan. in a row that ran .* devices.vulkan is null" \
      "$cuvk" report "$dir/vulkan_null.json"
    expect_error 2 "uuid.json: devices.cuda.uuid: expected a UUID .* found 'x'" \
      "$cuvk" report "$dir/uuid.json"
    expect_error 2 "date.json: provenance.date_utc: expected a UTC date .* found 'x'" \
      "$cuvk" report "$dir/date.json"
    expect_error 2 "test.json: results\\[0\\].test: unknown test 'nosuch' \\(known: read_x, .*copy_engine, chain; a kernel pair" \
      "$cuvk" report "$dir/test.json"
    expect_error 2 "variant.json: results\\[0\\].variant: 'vec8' is not a variant of copy" \
      "$cuvk" report "$dir/variant.json"
    expect_error 2 "layout.json: results\\[2\\].layout: 'csr' is not a layout of read_x" \
      "$cuvk" report "$dir/layout.json"
    expect_error 2 "queue_family.json: results\\[71\\].queue_family: 9 is not a copy queue family of devices.vulkan \\(it lists 0, 1, 2, 3, 4\\)" \
      "$cuvk" report "$dir/queue_family.json"
    expect_error 2 "queue_flags.json: results\\[71\\].queue_flags: expected a string" \
      "$cuvk" report "$dir/queue_flags.json"
    expect_error 2 "flags_contradict.json: results\\[71\\].queue_flags: 'transfer' contradicts devices.vulkan" \
      "$cuvk" report "$dir/flags_contradict.json"
    expect_error 2 "pair_variant.json: results\\[0\\].variant: 'vec4' in a kernel pair's row" \
      "$cuvk" report "$dir/pair_variant.json"
    mkdir "$dir/fleet" && cp "$src/results/h100.json" "$dir/fleet/a.json" &&
      cp "$src/results/h100.json" "$dir/fleet/b.json"
    expect_error 2 "--fleet: '.*b.json' and '.*a.json' are the same run" \
      "$cuvk" report --fleet "$dir/fleet"
    # What cuvk wrote reads: every run file of results/, user kernel pairs' rows ("pair:<name>") too.
    for f in "$src"/results/pairs/*.json "$src"/results/h100.json "$src"/results/h200/*.json; do
      "$cuvk" report "$f" >/dev/null 2>"$dir/err" || { cat "$dir/err"; fail "report $f: exit $?"; }
    done
    cp "$src/results/h200.json" "$dir/fleet/b.json"
    "$cuvk" report --fleet "$dir/fleet" >/dev/null 2>"$dir/err" || { cat "$dir/err"; fail "fleet of two boards"; }
    ;;
  temporaries)  # class 5: beyond the file-size limit is an I/O error (3), and no temporary stays
    no_temporary() { ls -A "$dir" | grep -q '\.cuvk-' && { ls -A "$dir"; fail "$1: a temporary is left"; }; true; }
    expect_error 3 "cannot write '.*r.json': File too large" \
      bash -c 'ulimit -f 4; exec "$@"' - "$cuvk" run "${quick[@]}" --tests copy --variants scalar \
      --format json --output "$dir/r.json" --quiet
    no_temporary "run --output under ulimit -f 4"
    [ ! -e "$dir/r.json" ] || fail "run: r.json written"
    echo old >"$dir/rep.json"
    expect_error 3 "cannot write '.*rep.json': File too large" \
      bash -c 'ulimit -f 4; exec "$@"' - "$cuvk" report "$src/results/h100.json" --format json \
      --output "$dir/rep.json"
    no_temporary "report --output under ulimit -f 4"
    [ "$(cat "$dir/rep.json")" = old ] || fail "report: rep.json changed"
    ;;
  signals_on_outputs)  # class 7: an output that blocks (a FIFO without a reader) gives way to a signal
    mkfifo "$dir/fifo" || fail "mkfifo"
    # interrupt SIGNAL DELAY CMD...: CMD started, SIGNAL sent after DELAY s (a run's work is done
    # by then on lavapipe, so it waits for the FIFO's reader; earlier, it stops measuring: the same
    # rule): exit 128 + N within 20 s, one `error: interrupted by signal N` line.
    interrupt() {
      local sig=$1 delay=$2 want
      shift 2
      want=$((128 + $(kill -l "$sig")))
      "$@" >/dev/null 2>"$dir/err" &
      local pid=$! got=0 i
      sleep "$delay"
      kill -s "$sig" "$pid" 2>/dev/null
      for ((i = 0; i < 200; ++i)); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
      if kill -0 "$pid" 2>/dev/null; then
        kill -s KILL "$pid"; wait "$pid"; fail "$*: still blocked 20 s after SIG$sig"
      fi
      wait "$pid" || got=$?
      [ "$got" -eq "$want" ] || { cat "$dir/err"; fail "$*: exit $got after SIG$sig, expected $want"; }
      [ "$(grep -c '^error: ' "$dir/err")" -eq 1 ] || { cat "$dir/err"; fail "$*: not one error line"; }
      grep -q "^error: interrupted by signal $(kill -l "$sig")" "$dir/err" ||
        { cat "$dir/err"; fail "$*: no 'interrupted by signal' line"; }
    }
    interrupt TERM 4 "$cuvk" run "${quick[@]}" --tests copy --variants scalar --output "$dir/fifo"
    interrupt INT 4 "$cuvk" run "${quick[@]}" --tests copy --variants scalar --output "$dir/fifo"
    interrupt HUP 4 "$cuvk" run "${quick[@]}" --tests copy --variants scalar --output "$dir/fifo"
    interrupt TERM 1 "$cuvk" report "$src/results/h100.json" --output "$dir/fifo"
    interrupt HUP 1 "$cuvk" report "$src/results/h100.json" --output "$dir/fifo"
    interrupt TERM 1 "$cuvk" parity --from "$src/results/h100.json" --output "$dir/fifo"
    interrupt INT 2 "$cuvk" trace copy --n 1k --output "$dir/fifo"
    ls -A "$dir" | grep -q '\.cuvk-' && fail "a temporary is left"
    ;;
  inspect_temporaries)  # class 5 sibling: inspect's .cubin for cuobjdump, in $TMPDIR, gone on a signal
    mkdir "$dir/bin" "$dir/tmp"
    printf '#!/bin/sh\nexec sleep 5\n' >"$dir/bin/cuobjdump"  # a disassembler that takes its time
    chmod +x "$dir/bin/cuobjdump"
    TMPDIR="$dir/tmp" PATH="$dir/bin:$PATH" "$cuvk" inspect copy --no-listings >/dev/null 2>"$dir/err" &
    pid=$!
    for ((i = 0; i < 100; ++i)); do ls -A "$dir/tmp" | grep -q '\.cubin$' && break; sleep 0.1; done
    if ! ls -A "$dir/tmp" | grep -q '\.cubin$'; then
      kill -s KILL "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
      echo "reliability $case_name: skipped: no .cubin written in 10 s (built without nvcc: no cubin to disassemble)"
      exit 1
    fi
    kill -s TERM "$pid"
    got=0
    wait "$pid" || got=$?
    [ "$got" -eq 143 ] || { cat "$dir/err"; fail "inspect: exit $got after SIGTERM, expected 143"; }
    [ -z "$(ls -A "$dir/tmp")" ] || { ls -A "$dir/tmp"; fail "inspect left a temporary after SIGTERM"; }
    ;;
  true_messages)  # issue 37 class 8: a message says what is true (the cap; no contradiction)
    cp "$src"/tests/pairs/* "$dir/"
    python3 -c "import struct, sys; open(sys.argv[1], 'wb').write(b''.join(struct.pack('<f', 2.0 * i + 1.0) for i in range(1000)))" "$dir/expected.raw"
    sed 's/source = "axpy.comp"/source = "big.comp"/' "$dir/right.toml" >"$dir/big.toml"
    truncate -s 20M "$dir/big.comp"
    expect_error 2 "glsl.source: '.*big.comp' is larger than the 16 MiB cap \\(20971520 bytes\\)" \
      "$cuvk" run --pair "$dir/big.toml" --settle-ms 0
    # SIGTERM while a launch hangs: one line, no result file, and not "the rows ... are kept".
    # Vulkan alone: a GPU machine's CUDA context can take seconds to open (5 s on the 2-GPU H200
    # machines), and the signal must come while the launch hangs, not before it.
    "$cuvk" run --pair "$dir/forever.toml" --api vulkan --settle-ms 0 --timeout 5 >"$dir/out" 2>"$dir/err" &
    pid=$!
    sleep 2.5
    kill -s TERM "$pid"
    got=0
    wait "$pid" || got=$?
    [ "$got" -eq 143 ] || { cat "$dir/err"; fail "SIGTERM during a hung launch: exit $got, expected 143"; }
    [ "$(grep -c '' "$dir/err")" -eq 1 ] || { cat "$dir/err"; fail "SIGTERM during a hung launch: not one line on stderr"; }
    grep -q "^error: interrupted by signal 15 .*no result file written; vulkan: .*did not finish" "$dir/err" ||
      { cat "$dir/err"; fail "SIGTERM during a hung launch: the line names not both"; }
    ! grep -q "rows measured so far are kept" "$dir/err" || fail "says the rows are kept, with no file"
    ;;
  values_in_range)  # issue 37 class 10: a value beyond what its type or field can hold is refused
    cp "$src"/tests/pairs/* "$dir/"
    python3 -c "import struct, sys; open(sys.argv[1], 'wb').write(b''.join(struct.pack('<f', 2.0 * i + 1.0) for i in range(1000)))" "$dir/expected.raw"
    # f32 values beyond float's range would become infinity: a constant, a bound, a scalar.
    sed 's/^value = 1.0$/value = 1e39/' "$dir/right.toml" >"$dir/constant.toml"
    sed 's/^init = "index"$/init = "random"\nmin = -1e39/' "$dir/right.toml" >"$dir/bound.toml"
    sed 's/^value = 2.0$/value = -3.5e38/' "$dir/right.toml" >"$dir/scalar.toml"
    expect_error 2 "constant.toml:[0-9]+: buffer\\[1\\].value: is beyond the range of f32" \
      "$cuvk" run --pair "$dir/constant.toml" --settle-ms 0
    expect_error 2 "bound.toml:[0-9]+: buffer\\[0\\].min: is beyond the range of f32" \
      "$cuvk" run --pair "$dir/bound.toml" --settle-ms 0
    expect_error 2 "scalar.toml:[0-9]+: scalar\\[0\\].value: is beyond the range of f32" \
      "$cuvk" run --pair "$dir/scalar.toml" --settle-ms 0
    # A .npy header read as the dict it is: a 'descr' inside another value's string is not the dtype.
    python3 - "$dir/x.npy" <<'PY'
import struct, sys
h = "{'note': \"'descr': '<f4', \", 'descr': '<i4', 'fortran_order': False, 'shape': (1000,), }"
h += " " * ((64 - (10 + len(h) + 1) % 64) % 64) + "\n"
data = b"".join(struct.pack("<i", i) for i in range(1000))  # int32: read as f32, it ran (exit 0)
open(sys.argv[1], "wb").write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(h)) + h.encode() + data)
PY
    sed 's/^init = "index"$/init = "file"\nfile = "x.npy"/' "$dir/right.toml" >"$dir/npy.toml"
    expect_error 2 "buffer 'x': .*x.npy.*\\.npy header has keys other than 'descr', 'fortran_order' and 'shape'" \
      "$cuvk" run --pair "$dir/npy.toml" --settle-ms 0
    # A Vulkan row bound by `pointer` (CUDA's binding) is not a row cuvk writes.
    "$cuvk" run "${quick[@]}" --tests copy --variants scalar --format json --output "$dir/a.json" \
      --quiet || fail "the run: exit $?"
    python3 - "$dir/a.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
rows = [r for r in doc["results"] if r["api"] == "vulkan"]
assert len(rows) == 1, len(rows)
rows[0]["binding"] = "pointer"
json.dump(doc, open(sys.argv[1], "w"))
PY
    expect_error 2 "a vulkan row binds by descriptor or bda, not pointer" "$cuvk" report "$dir/a.json"
    ;;
  dump_cache_unwritable)  # issue 37 class 9: a pipeline cache that cannot be written is an error, not exit 0
    expect_error 2 "--dump-pipeline-cache '/proc': cannot create files there" \
      "$cuvk" inspect copy --variants scalar --no-listings --dump-pipeline-cache /proc
    mkdir "$dir/dump"
    "$cuvk" inspect copy --variants scalar --no-listings --dump-pipeline-cache "$dir/dump" \
      >/dev/null 2>"$dir/err" || { cat "$dir/err"; fail "inspect into a writable folder: exit $?"; }
    first=$(ls "$dir/dump" | head -1)
    [ -n "$first" ] || fail "inspect --dump-pipeline-cache wrote nothing"
    rm -f "$dir/dump"/*
    mkdir "$dir/dump/$first"  # the folder takes files, but not this one
    expect_error 3 "--dump-pipeline-cache: cannot write '.*/$first': Is a directory" \
      "$cuvk" inspect copy --variants scalar --no-listings --dump-pipeline-cache "$dir/dump"
    ;;
  pair_inputs_not_outputs)  # issue 37 class 2: --output may name none of the files a pair's run reads
    cp "$src"/tests/pairs/* "$dir/"
    python3 -c "import struct, sys; open(sys.argv[1], 'wb').write(b''.join(struct.pack('<f', 2.0 * i + 1.0) for i in range(1000)))" "$dir/expected.raw"
    python3 -c "import struct, sys; open(sys.argv[1], 'wb').write(b''.join(struct.pack('<f', float(i)) for i in range(1000)))" "$dir/x.raw"
    printf '#version 450\n#include "body.glsl"\n' >"$dir/main.comp"
    tail -n +2 "$dir/axpy.comp" >"$dir/body.glsl"
    sed -e 's/source = "axpy.comp"/source = "main.comp"/' \
        -e 's/^init = "index"$/init = "file"\nfile = "x.raw"/' "$dir/right.toml" >"$dir/p.toml"
    "$cuvk" run --pair "$dir/p.toml" --settle-ms 0 --api vulkan --format json --output "$dir/ok.json" \
      --quiet || fail "the pair's run: exit $?"
    (cd "$dir" && md5sum p.toml axpy.cu main.comp body.glsl x.raw expected.raw) >"$dir/sums"
    for f in p.toml axpy.cu main.comp body.glsl x.raw expected.raw; do
      expect_error 2 "--output '.*/$f' is the same file as the input .*'.*/$f': it would be overwritten" \
        "$cuvk" run --pair "$dir/p.toml" --settle-ms 0 --api vulkan --output "$dir/$f"
    done
    ln -s body.glsl "$dir/link.glsl"
    expect_error 2 "the same file as the input a GLSL #include" \
      "$cuvk" run --pair "$dir/p.toml" --settle-ms 0 --api vulkan --output "$dir/link.glsl"
    (cd "$dir" && md5sum -c --quiet sums) || fail "an input was overwritten"
    ;;
  pair_file_bounded)  # issue 37 class 3: a pair file is a regular file of at most 1 MiB, read no further
    mkfifo "$dir/fifo.toml"
    truncate -s 2M "$dir/big.toml"
    # Under 1 GB of address space: reading /dev/zero whole ended in bad_alloc (exit 3), not this.
    ( ulimit -v 1000000
      expect_error 2 "/dev/zero: cannot read the pair declaration: it is not a regular file \\(a character device\\)" \
        timeout 20 "$cuvk" run --pair /dev/zero
      expect_error 2 "/dev/zero: cannot read the pair declaration: it is not a regular file" \
        timeout 20 "$cuvk" inspect --pair /dev/zero
      expect_error 2 "fifo.toml: cannot read the pair declaration: it is not a regular file \\(a FIFO\\)" \
        timeout 20 "$cuvk" run --pair "$dir/fifo.toml"
      expect_error 2 "big.toml: cannot read the pair declaration: it is larger than the 1 MiB cap \\(2097152 bytes\\)" \
        timeout 20 "$cuvk" run --pair "$dir/big.toml" ) || exit 1
    ;;
  glsl_include_bounded)  # issue 37 class 4: #include bounded in depth, size and kind, the chain named
    cp "$src"/tests/pairs/* "$dir/"
    python3 -c "import struct, sys; open(sys.argv[1], 'wb').write(b''.join(struct.pack('<f', 2.0 * i + 1.0) for i in range(1000)))" "$dir/expected.raw"
    for case in loop fifo big; do
      sed "s/source = \"axpy.comp\"/source = \"$case.comp\"/" "$dir/right.toml" >"$dir/$case.toml"
      printf '#version 450\n#include "%s.glsl"\nvoid main() {}\n' "$case" >"$dir/$case.comp"
    done
    printf '#include "loop2.glsl"\n' >"$dir/loop.glsl"  # loop.glsl -> loop2.glsl -> loop.glsl ...
    printf '#include "loop.glsl"\n' >"$dir/loop2.glsl"
    mkfifo "$dir/fifo.glsl"
    for i in 1 2 3; do  # three includes of 6 MiB: each within the 16 MiB cap, not together
      head -c 6M /dev/zero | tr '\0' ' ' >"$dir/part$i.glsl"
      printf '#include "part%s.glsl"\n' "$i" >>"$dir/big.glsl"
    done
    ( ulimit -v 2000000
      expect_error 2 "#include nested deeper than 32 \\(includes: .*/loop.comp -> .*/loop.glsl -> .*/loop2.glsl -> .*/loop.glsl" \
        timeout 30 "$cuvk" run --pair "$dir/loop.toml" --settle-ms 0 --api vulkan
      expect_error 2 "'.*/fifo.glsl' is not a regular file \\(a FIFO\\) \\(includes: .*/fifo.comp -> .*/fifo.glsl\\)" \
        timeout 30 "$cuvk" run --pair "$dir/fifo.toml" --settle-ms 0 --api vulkan
      expect_error 2 "the #included files exceed 16 MiB in all \\(includes: .*/big.comp -> .*/big.glsl -> .*/part3.glsl\\)" \
        timeout 30 "$cuvk" run --pair "$dir/big.toml" --settle-ms 0 --api vulkan ) || exit 1
    ;;
  plotter_bounded)  # issue 37 class 5: the plotter child is bounded in time and output, killed with cuvk
    mkdir "$dir/idx"
    cp "$src/results/h100.json" "$dir/idx/"
    # A stand-in python3 (CUVK_PYTHON): the probe passes, then it does what $MODE says. $3 is
    # plot.py's command (python3 -B plot.py COMMAND ...).
    cat >"$dir/py" <<'PY'
#!/usr/bin/env bash
[ "$3" = probe ] && exit 0
case "$MODE" in
  hang) echo $$ >"$PIDFILE"; exec sleep 1000 ;;
  flood) head -c 3G /dev/zero | tr '\0' 'x'; echo; echo "last line" ;;
  nothing) exit 0 ;;
esac
PY
    chmod +x "$dir/py"
    export CUVK_PYTHON="$dir/py" PIDFILE="$dir/pid"
    running() {  # a process that runs (an unreaped zombie, whose parent has ended, does not)
      local state
      state=$(ps -o stat= -p "$1" 2>/dev/null) && [ "${state#Z}" = "$state" ]
    }
    start=$(date +%s)
    MODE=hang CUVK_PLOTTER_TIMEOUT_S=2 expect_error 3 "the plotter did not finish within 2 s \\(CUVK_PLOTTER_TIMEOUT_S\\) and was stopped" \
      timeout 60 "$cuvk" report --index "$dir/idx"
    [ $(($(date +%s) - start)) -lt 30 ] || fail "the hung plotter was waited for"
    ! running "$(cat "$dir/pid")" || fail "the hung plotter was left running"
    # 3 GB of output under a 1 GB address-space limit: the last MiB is kept, not all of it.
    ( ulimit -v 1000000
      MODE=flood expect_error 3 "the plotter exited 0 but did not write plots/figures.json; output: x+" \
        timeout 120 "$cuvk" report --index "$dir/idx" ) || exit 1
    MODE=nothing expect_error 3 "--index .*: the plotter exited 0 but did not write plots/figures.json; output: none" \
      "$cuvk" report --index "$dir/idx"
    # SIGINT while the plotter runs: cuvk ends (130) and takes the plotter with it.
    rm -f "$dir/pid"
    MODE=hang "$cuvk" report --index "$dir/idx" >/dev/null 2>"$dir/err" &
    pid=$!
    for ((i = 0; i < 100; ++i)); do [ -s "$dir/pid" ] && break; sleep 0.1; done
    [ -s "$dir/pid" ] || { kill -s KILL "$pid"; fail "the stand-in plotter did not start"; }
    kill -s INT "$pid"
    got=0
    wait "$pid" || got=$?
    [ "$got" -eq 130 ] || { cat "$dir/err"; fail "SIGINT: exit $got, expected 130"; }
    sleep 0.2
    if running "$(cat "$dir/pid")"; then
      kill -s KILL "$(cat "$dir/pid")"; fail "SIGINT left the plotter running"
    fi
    ;;
  findings_checked)  # issue 37 class 6: FINDINGS.md is copied into the index only as capped text
    mkdir "$dir/idx"
    cp "$src/results/h100.json" "$dir/idx/"
    "$cuvk" report --index "$dir/idx" --no-plots >/dev/null || fail "no FINDINGS.md: exit $?"
    printf '# Findings\n\nText.\n' >"$dir/idx/FINDINGS.md"
    "$cuvk" report --index "$dir/idx" --no-plots >/dev/null || fail "a small FINDINGS.md: exit $?"
    grep -q '^# Findings$' "$dir/idx/README.md" || fail "the findings are not in README.md"
    cp "$dir/idx/README.md" "$dir/readme.before"
    truncate -s 200M "$dir/idx/FINDINGS.md"  # sparse: 200 MB of NUL bytes
    expect_error 2 "FINDINGS.md' is larger than the 1 MiB cap \\(209715200 bytes\\)" \
      "$cuvk" report --index "$dir/idx" --no-plots
    printf '# Findings\n\0binary\n' >"$dir/idx/FINDINGS.md"
    expect_error 2 "FINDINGS.md' holds a NUL byte \\(at byte 11\\): not Markdown text" \
      "$cuvk" report --index "$dir/idx" --no-plots
    cmp -s "$dir/idx/README.md" "$dir/readme.before" || fail "README.md changed by a refused index"
    expect_error 2 "--output '.*FINDINGS.md' is the same file as the input findings page" \
      "$cuvk" report --index "$dir/idx" --no-plots --output "$dir/idx/FINDINGS.md"
    ;;
  timeout_outside_rows)  # issue 37 class 1: a --timeout that expires anywhere: exit 1, no crash
    # 16M floats on lavapipe outlast these timeouts: each expires in the flush scratch, settling, an
    # upload, a row or a download, wherever the machine's speed puts it; each try must end as the
    # reference says. Before vulkan/vk_raii.h's hung devices, 30 of 80 such runs (two at a time)
    # ended in SIGSEGV: a timed-out row's buffers and pipelines were destroyed under lavapipe's work.
    try=0
    for t in 0.01 0.02 0.03 0.05 0.08 0.12 0.2 0.3 0.01 0.03 0.08 0.2; do
      try=$((try + 1))
      got=0
      timeout 120 "$cuvk" run --tests copy --variants scalar,vec4 --api vulkan --n 16M --max-time 0.05 \
        --settle-ms $((try % 3)) --timeout "$t" >"$dir/out" 2>"$dir/err" || got=$?
      if [ "$got" -eq 0 ] && [ "$try" -eq 1 ]; then  # a GPU: nothing takes 0.01 s
        echo "reliability $case_name: skipped: the device finished everything within 0.01 s"
        exit 1
      fi
      [ "$got" -eq 0 ] && continue  # a long timeout the machine beat
      [ "$got" -eq 1 ] || { cat "$dir/err"; fail "try $try (--timeout $t): exit $got, expected 1"; }
      grep -q "^error: vulkan: a submission did not finish within the timeout (--timeout); the rows measured so far are kept$" "$dir/err" ||
        { cat "$dir/err"; fail "try $try (--timeout $t): no line naming the timeout"; }
      grep -Eq "^copy .* vulkan .*(failed|unavailable)" "$dir/out" || { cat "$dir/out"; fail "try $try (--timeout $t): no row says so"; }
    done
    # The deterministic form: a launch that never completes (tests/pairs/axpy.comp's FOREVER spins
    # on y) over 16 MiB buffers, which lavapipe maps and unmaps: freeing them under the spinning
    # shader crashed 2 of 3 runs of the unfixed binary.
    cp "$src/tests/pairs/axpy.comp" "$src/tests/pairs/axpy.cu" "$dir/"
    sed -e 's/^n = 1000/n = 4194304/' -e '/^expected = /d' -e 's/"axpy_forever"/"axpy_forever_big"/' \
      "$src/tests/pairs/forever.toml" >"$dir/spin.toml"
    for try in 1 2 3; do
      got=0
      timeout 120 "$cuvk" run --pair "$dir/spin.toml" --api vulkan --settle-ms 0 --timeout 0.3 \
        >"$dir/out" 2>"$dir/err" || got=$?
      [ "$got" -eq 1 ] || { cat "$dir/err"; fail "spinning pair, try $try: exit $got, expected 1"; }
      grep -q "^error: vulkan: a submission did not finish within the timeout" "$dir/err" ||
        { cat "$dir/err"; fail "spinning pair, try $try: no line naming the timeout"; }
    done
    ;;
  *) fail "unknown case $case_name" ;;
esac
echo "reliability $case_name: passed"
