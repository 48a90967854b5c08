#!/usr/bin/env bash
# Cold-start probe 3 (issue 22): the drivers' own first start, in a minimal program (minopen.cpp),
# first thing on a freshly lent machine; then warm, then with the page cache dropped.
set -u
for f in .gl/*.deb; do dpkg -x "$f" /; done; ldconfig
[ -f /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json ] && export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
R=$OUT/cold3; mkdir -p $R; P=$R/probe.txt; M=./.dev/cold/minopen
echo "up $(cut -d' ' -f1 /proc/uptime) s" > $P
drop() { sync; echo 3 > /proc/sys/vm/drop_caches; }
t0=$(date +%s.%N); $M >> $P 2>&1; echo "  ^ fresh machine, first process ($(awk "BEGIN{print $(date +%s.%N)-$t0}") s until exit)" >> $P
$M >> $P 2>&1; echo "  ^ warm" >> $P
$M seq >> $P 2>&1; echo "  ^ warm" >> $P
for i in 1 2; do drop; $M >> $P 2>&1; echo "  ^ page cache dropped" >> $P; done
for i in 1 2; do drop; $M seq >> $P 2>&1; echo "  ^ page cache dropped" >> $P; done
drop; ./.dev/cold/cuvk run --api cuda --format json --output $R/cuda_only.json > $R/cuda_only.txt 2>&1
echo "cuvk --api cuda, page cache dropped: $(grep -oE 'first row after [0-9.]+ s' $R/cuda_only.txt | head -1); $(grep -oE 'start-up: devices [0-9.]+ s' $R/cuda_only.txt | head -1)" >> $P
cat $P
