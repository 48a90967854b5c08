#!/usr/bin/env bash
# Cold-start probe 2 (issue 22): does reading the driver's libraries in parallel threads, beside
# the opening, shorten a cold first row? The libraries sit on a squashfs (/usr/local/nvidia).
set -u
for f in .gl/*.deb; do dpkg -x "$f" /; done; ldconfig
[ -f /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json ] && export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
R=$OUT/cold2; mkdir -p $R; P=$R/probe.txt
C=./.dev/cold/cuvk
L=/usr/local/nvidia/lib64; V=580.159.04
libs="$L/libcuda.so.$V $L/libnvidia-gpucomp.so.$V $L/libnvidia-glcore.so.$V $L/libnvidia-eglcore.so.$V $L/libnvidia-glvkspirv.so.$V $L/libnvidia-ml.so.$V $L/libGLX_nvidia.so.$V $L/libEGL_nvidia.so.$V $L/libnvidia-glsi.so.$V"
chunks() { for f in $libs; do s=$(stat -c %s $f); o=0; while [ $o -lt $s ]; do echo "$f $o"; o=$((o+4194304)); done; done; }
chunks > $R/chunks.txt
pf() { xargs -P ${1:-16} -L1 sh -c 'dd if=$0 of=/dev/null bs=1M iflag=skip_bytes,count_bytes skip=$1 count=4194304 status=none' < $R/chunks.txt; }
now() { date +%s.%N; }
fr() { grep -oE "first row after [0-9.]+ s" $1 | head -1; grep -oE "open cuda \(beside vulkan\) [0-9.]+ s; open vulkan \(beside cuda\) [0-9.]+ s" $1 | head -1; }
echo "up $(cut -d' ' -f1 /proc/uptime); $(wc -l < $R/chunks.txt) chunks of 4 MiB" > $P
# 1. the true cold start, with the parallel read beside it
t0=$(now); (pf 16; echo "prefetch done after $(awk "BEGIN{print $(now)-$t0}") s" >> $P) &
$C run --format json --output $R/cold_pf.json > $R/cold_pf.txt 2>&1; wait
echo "1 cold+prefetch: $(fr $R/cold_pf.txt | tr '\n' ' ')" >> $P
drop() { sync; echo 3 > /proc/sys/vm/drop_caches; }
drop && echo "drop_caches works" >> $P
t0=$(now); pf 16; echo "parallel read (16): $(awk "BEGIN{print $(now)-$t0}") s" >> $P
drop; t0=$(now); pf 4; echo "parallel read (4): $(awk "BEGIN{print $(now)-$t0}") s" >> $P
drop; t0=$(now); cat $libs > /dev/null; echo "serial cat: $(awk "BEGIN{print $(now)-$t0}") s" >> $P
for i in 1 2; do
  drop; $C run --format json --output $R/nopf$i.json > $R/nopf$i.txt 2>&1
  echo "cache dropped, no prefetch $i: $(fr $R/nopf$i.txt | tr '\n' ' ')" >> $P
  drop; t0=$(now); (pf 16; echo "  prefetch done after $(awk "BEGIN{print $(now)-$t0}") s" >> $P) &
  $C run --format json --output $R/pf$i.json > $R/pf$i.txt 2>&1; wait
  echo "cache dropped, prefetch $i: $(fr $R/pf$i.txt | tr '\n' ' ')" >> $P
done
$C run --format json --output $R/warm.json > $R/warm.txt 2>&1
echo "warm: $(fr $R/warm.txt | tr '\n' ' ')" >> $P
cat $P
cd $OUT && tar czf cold2.tgz cold2 && rm -rf cold2
