#!/usr/bin/env bash
# tests/mutants/run.sh: the suite catches real bugs (issue 25). Each tests/mutants/NAME.patch is
# a deliberate bug; NAME.tests names the build targets it needs and the ctest tests (-R) that
# must catch it. On a scratch copy of the tracked sources (build-mutants/src, the checkout is
# never touched), one mutant at a time: apply, rebuild those targets incrementally, run those
# tests, revert. Fails when a mutant leaves its tests green (SURVIVED), when a patch no longer
# applies (STALE: refresh it against the code it mutates), when a mutant does not build, or when
# the tests fail before any mutant (a baseline must be green for a kill to mean anything).
#
# Built like build/ (Release; CUDA when nvcc is there) and laid out like it (the build folder
# inside the copy), so with ccache (.ci/run sets CMAKE_*_COMPILER_LAUNCHER=ccache for build/)
# the copy's first build is mostly cache hits. Usage: tests/mutants/run.sh [NAME...], or
# tests/mutants/run.sh --check: only that every patch still applies (a ctest, seconds).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
mutants=$root/tests/mutants
scratch=${CUVK_MUTANT_DIR:-$root/build-mutants}
src=$scratch/src
build=$src/build
jobs=$(nproc)
started=$(date +%s)
say() { echo "mutants: $*"; }

if [ "${1:-}" = --check ]; then  # every patch still applies to the sources (ctest mutants.apply)
  # Without patch(1), a skip: bounded by tests/allowed_skips.txt (allowed on a GPU machine only).
  command -v patch >/dev/null || { echo "skipped: patch is not installed"; exit 77; }
  status=0
  for p in "$mutants"/*.patch; do
    [ -f "${p%.patch}.tests" ] || { say "$(basename "$p"): no .tests beside it"; status=1; }
    patch -d "$root" -p1 --dry-run --forward --quiet <"$p" >/dev/null ||
      { say "STALE: $(basename "$p") does not apply: refresh it"; status=1; }
  done
  [ "$status" -eq 0 ] && say "every patch applies ($(ls "$mutants"/*.patch | wc -l))"
  exit "$status"
fi
names=("$@")
if [ ${#names[@]} -eq 0 ]; then
  for p in "$mutants"/*.patch; do names+=("$(basename "$p" .patch)"); done
fi
field() { sed -n "s/^$2: //p" "$mutants/$1.tests"; }

# A fresh copy of the tracked sources (the old build folder kept: incremental). Only a file whose
# content differs from the copy's is replaced, with a new time; the others keep theirs (issue 49):
# extracted with the checkout's times, a file older than the last run's objects was not rebuilt, so
# a mutant reverted after its build stayed in the objects and a changed test compiled stale.
stage=$scratch/stage
rm -rf "$stage"
mkdir -p "$src" "$stage"
git -C "$root" ls-files -z | (cd "$root" && tar --null -T - -cf -) | tar -C "$stage" -xf -
(cd "$src" && find . -path ./build -prune -o -type f -print0) |
  while IFS= read -r -d '' f; do [ -e "$stage/$f" ] || rm -f "$src/$f"; done
(cd "$stage" && find . -type f -print0) | while IFS= read -r -d '' f; do
  cmp -s "$stage/$f" "$src/$f" ||
    { mkdir -p "$(dirname "$src/$f")" && cp --preserve=mode "$stage/$f" "$src/$f"; }
done
rm -rf "$stage"
launcher=()
if command -v ccache >/dev/null; then
  export CCACHE_BASEDIR=$src  # paths relative to the copy: the same as build/'s
  launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache -DCMAKE_CUDA_COMPILER_LAUNCHER=ccache)
fi
cmake -S "$src" -B "$build" -DCMAKE_BUILD_TYPE=Release -DCUVK_REQUIRE_CUDA="${CUVK_REQUIRE_CUDA:-OFF}" \
  "${launcher[@]}" >"$scratch/configure.log" 2>&1 || { cat "$scratch/configure.log"; exit 1; }

targets=() all_tests=""
for n in "${names[@]}"; do
  [ -f "$mutants/$n.patch" ] && [ -f "$mutants/$n.tests" ] || { say "no $n.patch/$n.tests"; exit 1; }
  read -r -a t <<<"$(field "$n" targets)"
  targets+=("${t[@]}")
  all_tests+="${all_tests:+|}$(field "$n" tests)"  # each anchored: no group needed
done
say "baseline: building ${targets[*]}"
cmake --build "$build" -j "$jobs" --target "${targets[@]}" >"$scratch/build.log" 2>&1 ||
  { tail -50 "$scratch/build.log"; say "the unmutated copy does not build"; exit 1; }
ctest --test-dir "$build" -R "$all_tests" --no-tests=error -j "$jobs" >"$scratch/baseline.log" 2>&1 ||
  { cat "$scratch/baseline.log"; say "the tests fail without any mutant"; exit 1; }
say "baseline: $(grep -c ' Passed ' "$scratch/baseline.log") tests green in $(($(date +%s) - started)) s"

status=0
for n in "${names[@]}"; do
  t0=$(date +%s)
  read -r -a t <<<"$(field "$n" targets)"
  regex=$(field "$n" tests)
  if ! patch -d "$src" -p1 --quiet --forward <"$mutants/$n.patch" >"$scratch/$n.log" 2>&1; then
    cat "$scratch/$n.log"; say "STALE: $n.patch does not apply"; status=1; continue
  fi
  verdict=""
  if ! cmake --build "$build" -j "$jobs" --target "${t[@]}" >>"$scratch/$n.log" 2>&1; then
    tail -30 "$scratch/$n.log"; verdict="DOES NOT BUILD"; status=1
  elif ctest --test-dir "$build" -R "$regex" --no-tests=error -j "$jobs" >>"$scratch/$n.log" 2>&1; then
    verdict="SURVIVED: $regex stayed green"; status=1
  else
    killers=$(sed -n 's/^.*Test *#[0-9]*: \([^ ]*\) \.*\*\*\*\(Failed\|Timeout\|Exception\).*/\1/p' \
      "$scratch/$n.log" | sort -u | tr '\n' ' ')
    verdict="killed by ${killers:-"(ctest failed: see $scratch/$n.log)"}"
  fi
  patch -d "$src" -p1 --quiet --reverse <"$mutants/$n.patch"
  say "$n: $verdict ($(($(date +%s) - t0)) s)"
done
say "$([ "$status" -eq 0 ] && echo "every mutant killed" || echo FAILED): ${#names[@]} mutants in $(($(date +%s) - started)) s"
exit "$status"
