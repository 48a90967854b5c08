#!/usr/bin/env bash
# output_targets.sh CASE CUVK: what `cuvk run --output TARGET` does to the file system, one case
# at a time, in a fresh folder. Exit 77 = skipped. The device-node case uses a copy of /dev/null
# made with mknod (root only), so a regression cannot damage the machine's own /dev/null.
set -euo pipefail
case_name=$1 cuvk=$2
dir=$(mktemp -d "${TMPDIR:-/tmp}/cuvk_targets.XXXXXX")
trap 'rm -rf "$dir"' EXIT
cd "$dir" || exit 1
run() { "$cuvk" run --api vulkan --tests copy --variants scalar --n 1k --settle-ms 0 --reps 2 \
  --warmup 0 --format json --quiet --output "$@"; }
fail() { echo "FAIL: $*"; ls -la "$dir"; exit 1; }
is_json() { head -c 1 "$1" | grep -q '{' && grep -q '"schema"' "$1"; }
# Only the expected names are left: no temporary, no probe.
only() { local got; got=$(ls -A | sort | tr '\n' ' '); [ "$got" = "$* " ] || fail "folder holds '$got', expected '$* '"; }

case "$case_name" in
  device_node)
    [ "$(id -u)" -eq 0 ] || { echo "skipped: needs root for mknod"; exit 77; }
    mknod null c 1 3 2>/dev/null || { echo "skipped: mknod not permitted"; exit 77; }
    run null || fail "exit $?"
    [ -c null ] || fail "null is no longer a character device"
    only null ;;
  fifo)
    mkfifo fifo
    cat fifo >got.json &
    reader=$!
    run fifo || fail "exit $?"
    wait "$reader"
    [ -p fifo ] || fail "fifo is no longer a FIFO"
    is_json got.json || fail "the reader did not get the JSON"
    only fifo got.json ;;
  symlink)
    echo old >real.json
    ln -s real.json link.json
    run link.json || fail "exit $?"
    [ -L link.json ] || fail "link.json is no longer a symbolic link"
    is_json real.json || fail "real.json does not hold the run"
    only link.json real.json ;;
  dangling_symlink)
    ln -s made.json link.json
    run link.json || fail "exit $?"
    [ -L link.json ] || fail "link.json is no longer a symbolic link"
    is_json made.json || fail "made.json was not created through the link"
    only link.json made.json ;;
  stdout_link)  # what /dev/stdout is, without touching /dev/stdout itself
    ln -s /proc/self/fd/1 out
    run out >captured.json || fail "exit $?"
    [ -L out ] || fail "out is no longer a symbolic link"
    is_json captured.json || fail "standard output did not get the JSON"
    only captured.json out ;;
  regular_file)  # replaced whole, permission bits kept, the old probe's name untouched
    echo old >r.json
    chmod 640 r.json
    echo "a user's file" >r.json.cuvk-probe
    run r.json || fail "exit $?"
    is_json r.json || fail "r.json does not hold the run"
    [ "$(stat -c %a r.json)" = 640 ] || fail "r.json lost its mode: $(stat -c %a r.json)"
    [ "$(cat r.json.cuvk-probe)" = "a user's file" ] || fail "r.json.cuvk-probe was touched"
    only r.json r.json.cuvk-probe ;;
  new_file)
    echo "a user's file" >new.json.cuvk-probe
    run new.json || fail "exit $?"
    is_json new.json || fail "new.json does not hold the run"
    [ "$(cat new.json.cuvk-probe)" = "a user's file" ] || fail "new.json.cuvk-probe was touched"
    only new.json new.json.cuvk-probe ;;
  *)
    echo "unknown case $case_name"; exit 2 ;;
esac
echo "ok: $case_name"
