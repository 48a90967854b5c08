#!/usr/bin/env bash
# pair_inspect.sh CUVK PAIR REGEX...: `cuvk inspect --pair PAIR --no-listings` exits 0 and its
# output has a line matching each REGEX (issue 20: inspect on a user's pair, here on lavapipe).
set -euo pipefail
cuvk=$1 pair=$2
shift 2
out=$("$cuvk" inspect --pair "$pair" --no-listings)
for regex in "$@"; do
  if ! grep -Eq -- "$regex" <<<"$out"; then
    echo "no line matches '$regex' in:"; echo "$out"; exit 1
  fi
done
