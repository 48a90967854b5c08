#!/usr/bin/env bash
# with_empty_arg.sh CMD...: runs CMD with one more argument, an empty one (ctest drops "" from a
# test's command line).
exec "$@" ""
