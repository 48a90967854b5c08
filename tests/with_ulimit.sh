#!/usr/bin/env bash
# with_ulimit.sh KIB CMD...: runs CMD with its address space limited to KIB KiB (ulimit -v).
ulimit -v "$1" || exit 77
shift
exec "$@"
