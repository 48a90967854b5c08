#!/usr/bin/env bash
# revision.sh CUVK SOURCE_DIR: the revision `cuvk --version` names (and every result file's
# provenance.git_revision) is the commit the binary was built from, taken at build time
# (cmake/git_revision.cmake), not when CMake last configured. The "-dirty" mark is not compared:
# the tree may change between the build and this test.
set -euo pipefail
cuvk=$1 src=$2
if ! head=$(git -C "$src" rev-parse --short=12 HEAD 2>/dev/null); then
  echo "revision: passed (not a git checkout: the binary says $("$cuvk" --version))"
  exit 0
fi
got=$("$cuvk" --version)
case "$got" in
  "cuvk "*" ($head)" | "cuvk "*" ($head-dirty)") echo "revision: passed ($got)" ;;
  *) echo "revision: FAILED: '$got' does not name HEAD $head"; exit 1 ;;
esac
