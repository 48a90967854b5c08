#!/usr/bin/env bash
# Cold-start probe (issue 22): is the cold first row the page cache of the driver's libraries?
set -u
for f in .gl/*.deb; do dpkg -x "$f" /; done; ldconfig
[ -f /usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json ] && export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
R=$OUT/cold; mkdir -p $R
C=./.dev/cold/cuvk
echo "up $(cut -d' ' -f1 /proc/uptime)" > $R/probe.txt
libs=$(ldconfig -p | grep -E 'libcuda\.so|libnvidia-|libGLX_nvidia|libEGL_nvidia|libnvcuvid' | awk '{print $NF}' | xargs -n1 readlink -f | sort -u)
icd=$(cat ${VK_DRIVER_FILES:-/usr/share/vulkan/icd.d/nvidia_icd.json} 2>/dev/null)
echo "icd: $icd" >> $R/probe.txt
echo "== fincore before anything" >> $R/probe.txt
fincore $libs >> $R/probe.txt 2>&1 || echo "no fincore" >> $R/probe.txt
df -h /usr/lib/x86_64-linux-gnu /usr/local/nvidia 2>&1 | tee -a $R/probe.txt >/dev/null
mount | grep -E "nvidia|overlay| / " | head -20 >> $R/probe.txt
MODE=${1:-cat}
if [ "$MODE" = cat ]; then
  t0=$(date +%s.%N); cat $libs > /dev/null; t1=$(date +%s.%N)
  echo "== cat of $(echo $libs | wc -w) libs ($(du -cb $libs | tail -1 | cut -f1) bytes): $(awk "BEGIN{print $t1-$t0}") s" >> $R/probe.txt
fi
t0=$(date +%s.%N)
$C run --format json --output $R/run1.json > $R/run1.txt 2>&1 &
pid=$!; sleep 2.5; cat /proc/$pid/maps > $R/maps1.txt 2>/dev/null; wait $pid
echo "run1 rc=$? $(awk "BEGIN{print $(date +%s.%N)-$t0}") s" >> $R/probe.txt
echo "== fincore after run1" >> $R/probe.txt
fincore $libs >> $R/probe.txt 2>&1
$C run --format json --output $R/run2.json > $R/run2.txt 2>&1
echo "run2 rc=$?" >> $R/probe.txt
for r in run1 run2; do grep -E "first row|before the first row|beside them, on" $R/$r.txt | head -3 >> $R/probe.txt; done
awk '{print $6}' $R/maps1.txt | sort -u | grep -v '^$' > $R/mapped.txt
for f in $(grep '\.so' $R/mapped.txt); do echo "$(stat -c %s $f) $f"; done >> $R/probe.txt
cd $OUT && tar czf cold.tgz cold && rm -rf cold
