#!/usr/bin/env bash
# timeout_stress.sh CUVK [PAIRS]: issue 37 class 1's stress, by hand (not in ctest: its point is a
# count over many runs). Two runs at a time of the class's command with --timeout drawn from
# 0.01-0.3 s, PAIRS times (default 40); prints how many ended with each exit code and timeout.
# Every run must end 1 (or 0 where the machine beat a long timeout); a 139 is the crash class 1
# was. Before vulkan/vk_raii.h's hung devices: 30 x 139 of 80 on the 2-core CI machine; after: 0.
cuvk=${1:?usage: timeout_stress.sh CUVK [PAIRS]}
pairs=${2:-40}
timeouts=(0.01 0.02 0.03 0.05 0.08 0.12 0.2 0.3)
one() {
  local t=${timeouts[RANDOM % ${#timeouts[@]}]} got=0
  timeout 120 "$cuvk" run --tests copy --variants scalar,vec4 --api vulkan --n 16M --max-time 0.05 \
    --settle-ms $((RANDOM % 3)) --timeout "$t" >/dev/null 2>&1 || got=$?
  echo "exit $got (--timeout $t)"
}
for ((i = 0; i < pairs; i++)); do
  one &
  one &
  wait
done | sort | uniq -c
