#!/usr/bin/env bash
# sweep_options.sh CUVK SOURCE_DIR: issue 37's sweep, options: every value-taking option of every
# subcommand (run, parity, trace, inspect, report, devices) with each malformed, negative, huge,
# hexadecimal, blank, non-ASCII and control-character value: exit 2 with one `error:` line naming
# the option (or what it selects); an option without its value; an unknown option; an option
# given twice; plus the values that are valid with the cheap settings (exit 0). Judged by lib.sh.
SWEEP_EVERY=${SWEEP_EVERY:-30}  # under ASan: about one case in 30
. "$(dirname "$0")/lib.sh"
"$cuvk" run "${q[@]}" --tests copy --variants scalar --format json --output "$dir/a.json" --quiet
guard "$dir/a.json"
# option -> what its error names (besides the option itself)
declare -A names=([tests]="unknown test" [block-size]="block size" [block-sizes]="block size")
common=(n reps warmup block-size block-sizes target-ci max-time settle-ms offsets strides copy-mibs
        seed l2 device timeout api vk-binding layouts variants)
declare -A opts=(
  [run]="${common[*]} tests format columns tolerance baseline output"
  [parity]="${common[*]} tests format columns tolerance baseline output from save-run"
  [trace]="${common[*]} output plot"
  [inspect]="block-sizes vk-binding layouts variants offsets strides copy-mibs device pair dump-pipeline-cache"
  [report]="index format output tolerance"
  [devices]="device")
# Values no option takes (each an exit 2 for every option above): the text options (paths) are
# judged by the value's own rule in the second table.
vals=(banana -1 1e30 0x10 nan inf 99999999999999999999999 ' ' 'é' '1,,2' $'a\tb' $'x\033[2Jy' '--' '2k2' '1.5.5')
paths=(output plot baseline from save-run index pair dump-pipeline-cache)
is_path() { local p; for p in "${paths[@]}"; do [ "$p" = "$1" ] && return 0; done; return 1; }
pre() {  # the arguments a subcommand needs before the option under test
  case $1 in
    trace) echo copy ;;
    inspect) echo copy ;;
    report) echo "$dir/a.json" ;;
  esac
}
for cmd in run parity trace inspect report devices; do
  for o in ${opts[$cmd]}; do
    rx="(--$o|${names[$o]:-@@})"
    if is_path "$o"; then
      # a path that does not exist or is a folder: refused naming it, or the file's trouble
      for v in "$dir/missing/x.json" "$dir" ""; do
        case "$o:$v" in
          output:"$dir/missing/x.json"|plot:*|save-run:*|dump-pipeline-cache:*) continue ;;
        esac
        sub || continue
        # shellcheck disable=SC2046
        t 2 "" "$cuvk" $cmd $(pre $cmd) "--$o" "$v"
      done
      continue
    fi
    for v in "${vals[@]}"; do
      sub || continue
      # the value's name in the message may be escaped: the option (or what it names) is enough
      # shellcheck disable=SC2046
      t 2 "$rx" "$cuvk" $cmd $(pre $cmd) "--$o" "$v"
    done
    # the option without its value, and given twice
    sub && t 2 "" "$cuvk" $cmd $(pre $cmd) "--$o"
  done
  # shellcheck disable=SC2046
  sub && t 2 "no-such-option" "$cuvk" $cmd $(pre $cmd) --no-such-option
  # shellcheck disable=SC2046
  sub && t 2 "" "$cuvk" $cmd $(pre $cmd) --no-such-option=1
  sub && t 2 "" "$cuvk" $cmd stray-argument-$cmd extra
done
# options given twice (single-valued): refused, naming the option
for o in n reps warmup seed l2 format output settle-ms timeout; do
  sub || continue
  t 2 "--$o" "$cuvk" run "--$o" 1 "--$o" 2
done
# zero, per option: valid for some (run cheaply, exit 0), refused for the others
declare -A zero=([n]=2 [reps]=2 [block-size]=2 [block-sizes]=2 [target-ci]=2 [timeout]=2 [strides]=2
                 [copy-mibs]=2 [tolerance]=2 [warmup]=0 [max-time]=0 [seed]=0 [offsets]=0 [device]=0)
for o in "${!zero[@]}"; do
  sub || continue
  case $o in
    offsets) extra=(--tests read_offset) ;;
    strides) extra=(--tests stride) ;;
    copy-mibs) extra=(--tests copy_engine) ;;
    *) extra=(--tests copy --variants scalar) ;;
  esac
  cheap=()  # q without the option under test
  for ((k = 0; k < ${#q[@]}; k += 2)); do [ "${q[k]}" = "--$o" ] || cheap+=("${q[k]}" "${q[k + 1]}"); done
  t "${zero[$o]}" "(--$o|block size)" "$cuvk" run "${cheap[@]}" "${extra[@]}" "--$o" 0
done
# bounds: the last accepted value and the first refused one, per bounded option
for spec in "reps 10000 10001" "warmup 10000 10001" "max-time 600 601" "settle-ms 60000 60001" \
            "timeout 3600 3601" "target-ci 99.9 100" "tolerance 99.9 100" "block-size 1024 1056" \
            "block-size 32 31" "block-sizes 1024 2048" "n 4294967295 4294967296" "strides 4294967295 4294967296"; do
  set -- $spec
  sub || continue
  # the accepted value is checked by parsing alone (an unknown test stops the run before work)
  t 2 "unknown test 'zz'" "$cuvk" run --tests zz "--$1" "$2"
  t 2 "(--$1|block size|n must)" "$cuvk" run "--$1" "$3"
done
# valid values of the list options, run cheaply: exit 0 (each row's time capped: on a GPU a 1k
# row in batches of 2 may not reach the CI target before its 2 s budget, and --tests all has 32)
for v in copy read_x read_x3 update_xy 'copy,read_x' 'all'; do
  sub || continue
  t 0 "" "$cuvk" run "${q[@]}" --tests "$v" --variants scalar --block-sizes 32 --max-time 0.1
done
for f in table md csv json; do
  sub || continue
  t 0 "" "$cuvk" run "${q[@]}" --tests copy --variants scalar --format "$f"
  t 0 "" "$cuvk" report "$dir/a.json" --format "$f"
done
for c in test,api status,flags 'median_ms,status' 'useful_GB/s'; do
  sub || continue
  t 0 "" "$cuvk" run "${q[@]}" --tests copy --variants scalar --columns "$c"
done
for s in help list devices; do
  sub || continue
  t 0 "" "$cuvk" $s
done
t 0 "" "$cuvk" --help
t 2 "" "$cuvk"
t 2 "" "$cuvk" no-such-command
t 2 "" "$cuvk" ''
finish
