#!/usr/bin/env bash
# sweep_files.sh CUVK SOURCE_DIR: issue 37's sweep, result files: a saved Vulkan run and its
# mutations field by field (run_mutations.py: removed, wrong type, out of range; the document
# truncated, not JSON, too deep), each read by `report FILE` and `parity --from FILE` (exit 2
# naming the field, or 0 where the reader ignores it; parity without CUDA rows then says it cannot
# compare: 2), a sample by `run --baseline FILE`. No input changes. Judged by lib.sh.
SWEEP_EVERY=${SWEEP_EVERY:-60}  # under ASan: about one case in 60
. "$(dirname "$0")/lib.sh"
"$cuvk" run "${q[@]}" --tests copy --variants scalar --format json --output "$dir/a.json" --quiet
mkdir "$dir/r"
python3 "$src/tests/adversarial/run_mutations.py" "$dir/a.json" "$dir/r" >"$dir/cases.tsv" || { note "run_mutations.py failed"; finish; exit 1; }
guard "$dir/a.json"
i=0
while IFS=$'\x1f' read -r codes regex file; do
  i=$((i + 1))
  sub || continue
  t "$codes" "$regex" "$cuvk" report "$dir/r/$file"
  # parity --from: the same refusal, else 2 (this run has no CUDA rows to compare)
  if [ "$codes" = 2 ]; then t 2 "$regex" "$cuvk" parity --from "$dir/r/$file"; else t 2 "" "$cuvk" parity --from "$dir/r/$file"; fi
  if [ $((i % 25)) -eq 0 ]; then
    # a baseline the reader takes compares timings: 0 or 1 by the noise, 2 when refused
    t "$codes|1" "$regex" "$cuvk" run "${q[@]}" --tests copy --variants scalar --baseline "$dir/r/$file"
  fi
done <"$dir/cases.tsv"
# the file itself: missing, a folder, a device (a FIFO is read as a pipe: `report <(...)`)
mkfifo "$dir/fifo.json"
t 0 "" bash -c 'cat "$1" >"$2" & exec "$0" report "$2"' "$cuvk" "$dir/a.json" "$dir/fifo.json"
t 2 "" bash -c 'cat "$1" >"$2" & exec "$0" parity --from "$2"' "$cuvk" "$dir/a.json" "$dir/fifo.json"
t 2 "binary data" bash -c 'printf "\001{}" >"$1" & exec "$0" report "$1"' "$cuvk" "$dir/fifo.json"
for f in "$dir/nope.json" "$dir" /dev/zero /dev/null "$dir/r"; do
  t 2 "" "$cuvk" report "$f"
  t 2 "" "$cuvk" parity --from "$f"
  t 2 "" "$cuvk" run "${q[@]}" --tests copy --variants scalar --baseline "$f"
done
finish
