#!/usr/bin/env bash
# with_ulimit.sh KIB CMD...: runs CMD with its address space limited to KIB KiB (ulimit -v).
# Exit 77 = skipped, only where CUVK_SANITIZED=1 (an AddressSanitizer build, whose shadow memory
# cannot be mapped under the limit: tests/allowed_skips.txt, `asan`).
if [ "${CUVK_SANITIZED:-0}" = 1 ]; then
  echo "skipped: a sanitizer build cannot start under ulimit -v $1"; exit 77
fi
ulimit -v "$1" || exit 1
shift
exec "$@"
