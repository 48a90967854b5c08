# lib.sh: the judge shared by issue 37's sweep scripts (tests/adversarial/sweep_*.sh); sourced with
# CUVK and SOURCE_DIR as $1 and $2. t CODE[|CODE...] REGEX CMD... runs one invocation (20 s at most, stdin
# empty) and judges it by the CLI's contract: the expected exit code; a non-zero exit says why in
# exactly one `error:` line matching REGEX (indented lines below it are that error's detail); no
# raw control or bidi character printed; no guarded input changed (guard FILE...); no temporary
# (`cuvk-*`, `.*.tmp*`) left in the sweep's folder or its TMPDIR (inside it). A sweep prints each misbehaviour and
# ends with `finish`: the tally "sweep: N invocations, M misbehaviours", exit 1 when M > 0.
# CUVK_SANITIZED=1 (ASan build): `sub` is true for the subset the sanitized job runs.
set -u
cuvk=$1 src=$2
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
# its own TMPDIR: a temporary left there is this sweep's (ctest -j runs other tests beside it)
mkdir "$dir/tmp" && export TMPDIR=$dir/tmp
runs=0 bad=0 nth=0 started=$(date +%s)
q=(--api vulkan --n 1k --settle-ms 0 --reps 2 --warmup 0)
guarded=()
note() { bad=$((bad + 1)); echo "MISBEHAVES: $*"; }
# sub: under CUVK_SANITIZED=1, true for about one invocation in SWEEP_EVERY (default 10)
sub() {
  [ "${CUVK_SANITIZED:-0}" = 1 ] || return 0
  nth=$((nth + 1))
  [ $((nth % ${SWEEP_EVERY:-10})) -eq 1 ]
}
guard() { local f; for f in "$@"; do guarded+=("$f"); cp -p "$f" "$dir/.guard.$(echo "$f" | md5sum | cut -c1-12)"; done; }
check_guards() {
  local f
  for f in "${guarded[@]}"; do
    cmp -s "$f" "$dir/.guard.$(echo "$f" | md5sum | cut -c1-12)" || { note "input changed: $f: $*"; cp -p "$dir/.guard.$(echo "$f" | md5sum | cut -c1-12)" "$f"; }
  done
}
check_temporaries() {
  local left
  left=$(find "$dir" -maxdepth 3 -newer "$dir/.start" \( -name 'cuvk-*' -o -name '.*.tmp*' -o -name '*.cuvk-tmp*' \) 2>/dev/null | head -3)
  [ -z "$left" ] || { note "a temporary was left: $left: $*"; rm -rf $left; }
}
touch "$dir/.start"
# judge CODE REGEX GOT DESCRIPTION: the checks of one finished invocation (stdout in $dir/out,
# stderr in $dir/err)
judge() {
  local want=$1 regex=$2 got=$3
  shift 3
  # CODE may list the codes a case allows ("0|2": a field the reader may ignore or refuse)
  case "|$want|" in *"|$got|"*) want=$got ;; esac
  if [ "$got" != "$want" ]; then note "exit $got, expected $want: $* :: $(head -c 300 "$dir/err")"; return; fi
  if LC_ALL=C grep -qP '[\x00-\x08\x0b-\x1f\x7f]|\xc2[\x80-\x9f]|\xe2\x80[\xa8-\xae]|\xe2\x81[\xa6-\xa9]' "$dir/out" "$dir/err"; then
    note "raw control or bidi character printed: $*"; fi
  [ "$got" -eq 0 ] && return
  # The NVIDIA Vulkan driver's own lines under an address-space limit (each with the empty line
  # after it) are the driver's, not cuvk's: not counted (as tests/cli/expect_exit.sh --driver-noise).
  awk 'skip && $0 == "" { skip = 0; next } { skip = 0 }
       /^The NVIDIA driver was unable to open .*This library is required at run time\. *$/ { skip = 1; next }
       { print }' "$dir/err" >"$dir/err.own" && mv "$dir/err.own" "$dir/err"
  [ "$(grep -vc '^  ' "$dir/err")" -eq 1 ] || note "not one line on stderr: $* :: $(head -c 300 "$dir/err")"
  grep -Eq -- "^error: .*$regex" "$dir/err" || note "no 'error: ...$regex': $* :: $(head -c 300 "$dir/err")"
}
t() {
  local want=$1 regex=$2
  shift 2
  runs=$((runs + 1))
  timeout -s KILL 20 "$@" >"$dir/out" 2>"$dir/err" </dev/null
  local got=$?
  judge "$want" "$regex" "$got" "$@"
  check_guards "$@"
  check_temporaries "$@"
}
finish() {
  echo "sweep: $runs invocations, $bad misbehaviours ($(($(date +%s) - started)) s)"
  [ "$bad" -eq 0 ]
}
