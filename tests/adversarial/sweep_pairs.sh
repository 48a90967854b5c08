#!/usr/bin/env bash
# sweep_pairs.sh CUVK SOURCE_DIR: issue 37's sweep, pair declarations: a valid pair over
# tests/pairs/axpy.cu and axpy.comp and its mutations field by field (pair_mutations.py: each field
# missing, of each wrong type, out of range, an unknown key beside it; tables missing; broken TOML),
# each run with `run --pair` on Vulkan at n = 1k (a refused declaration stops before any device
# work): exit 2 with one `error:` line naming the file and the field, or 0 where it stays valid.
# Then the declaration's own files: missing, a folder, /dev/zero, a FIFO, empty. Judged by lib.sh.
SWEEP_EVERY=${SWEEP_EVERY:-20}  # under ASan: about one case in 20
. "$(dirname "$0")/lib.sh"
mkdir "$dir/p"
cp "$src/tests/pairs/axpy.cu" "$src/tests/pairs/axpy.comp" "$dir/p/"
python3 "$src/tests/adversarial/pair_mutations.py" "$dir/p" >"$dir/cases.tsv" || { note "pair_mutations.py failed"; finish; exit 1; }
guard "$dir/p/axpy.cu" "$dir/p/axpy.comp" "$dir/p/m0000.toml"
while IFS=$'\x1f' read -r code regex file; do
  sub || continue
  t "$code" "$regex" "$cuvk" run --pair "$dir/p/$file" "${q[@]}"
done <"$dir/cases.tsv"
# the same declarations through inspect, and beside a built-in test (a sample: every fifth case)
# (not parity: without CUDA it stops at "cannot compare" before reading the pair: see docs/TESTING.md)
i=0
while IFS=$'\x1f' read -r code regex file; do
  i=$((i + 1)); [ $((i % 5)) -eq 2 ] || continue
  sub || continue
  [ "$code" -eq 0 ] && continue  # the valid pair ran above
  t "$code" "$regex" "$cuvk" inspect --pair "$dir/p/$file"
  t "$code" "$regex" "$cuvk" run --pair "$dir/p/$file" --tests copy --variants scalar "${q[@]}"
done <"$dir/cases.tsv"
# the declaration file itself
mkfifo "$dir/p/fifo.toml"
: >"$dir/p/empty.toml"
for f in "$dir/p/nope.toml" "$dir/p" /dev/zero /dev/null "$dir/p/fifo.toml" "$dir/p/empty.toml" "$dir/p/axpy.cu" ""; do
  for cmd in run inspect; do
    sub || continue
    t 2 "" "$cuvk" $cmd --pair "$f"
  done
done
t 2 "" "$cuvk" run --pair "$dir/p/m0000.toml" --pair "$dir/p/m0000.toml" "${q[@]}"
finish
