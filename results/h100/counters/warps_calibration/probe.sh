set -u
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
CUVK_BUILD=.dev/probe bash results/fast_run.sh > $OUT/fast.log 2>&1
echo "fast rc=$?"; tail -15 $OUT/fast/summary.txt 2>/dev/null
EXTRA=sm__warps_active_shader_cs.sum,sm__warps_active_shader_cs.min.per_cycle_elapsed,sm__warps_active_shader_cs.max.per_cycle_elapsed,TPC.TriageCompute.tpc__warps_active_shader_cs_realtime.avg.per_cycle_elapsed,TPC.TriageCompute.tpc__warps_active_shader_cs_realtime.sum,TPC.TriageCompute.tpc__warps_active_realtime.avg.per_cycle_elapsed,TPC.TriageCompute.tpc__warps_inactive_sm_active_realtime.avg.per_cycle_elapsed,TPC.TriageCompute.tpc__warps_inactive_sm_idle_realtime.avg.per_cycle_elapsed,SM_B.TriageCompute.sm__ctas_active.max.per_cycle_elapsed,SM_B.TriageCompute.sm__ctas_active.min.per_cycle_elapsed,SM_B.TriageCompute.sm__ctas_active.sum,gpc__cycles_elapsed.avg,gpc__cycles_elapsed.sum,TPC.TriageCompute.tpc__warps_launched_shader_cs.sum
mkdir -p $OUT/w/dump
CUVK_COUNTERS_PM_EXTRA=$EXTRA CUVK_COUNTERS_DUMP=$OUT/w/dump CUVK_COUNTERS_WARPS=1 timeout 150 .dev/probe/cuvk run --counters --tests copy --variants scalar,grid --block-sizes 32,64,128,256,512,1024 --format json --output $OUT/w/warps.json > $OUT/w/warps.txt 2>&1
echo "warps rc=$?"; tail -5 $OUT/w/warps.txt; ls $OUT/w/dump | wc -l
cd $OUT && tar czf all.tgz fast w fast.log && rm -rf fast w fast.log; ls -la $OUT
