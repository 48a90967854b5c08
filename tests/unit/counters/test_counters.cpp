// Hardware counters (issue 21): the decode of CUPTI's values, the attribution of PM samples to a
// batch of dispatches, measured against modeled, the metric names against the chip's own list,
// and the paths where there are no counters. The fixtures in tests/fixtures/counters/ were
// recorded on an H100 (`CUVK_COUNTERS_DUMP`, see docs/COUNTERS.md); no GPU is needed here.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iterator>
#include <optional>

#include <nlohmann/json.hpp>

#include "counter_data.h"
#include "counters.h"
#include "error.h"

using namespace cuvk;
using nlohmann::json;

namespace {

constexpr std::uint64_t kInterval = 20000;

// A sample of `ns` nanoseconds from `start` with SMs active `active` of the time and `gbps`
// of DRAM reads; the other metrics at fixed plausible values.
PmSample sample(std::uint64_t start, double active, double gbps, std::uint64_t ns = kInterval) {
  PmSample s;
  s.start_ns = start;
  s.end_ns = start + ns;
  s.values.assign(kPmCount, 0.0);
  const double cycles = 1.98e9 * static_cast<double>(ns) * 1e-9;
  s.values[kPmGpcCycles] = cycles;
  s.values[kPmSmActiveCycles] = active * cycles;
  s.values[kPmDramRead] = gbps * 1e9 * static_cast<double>(ns) * 1e-9;
  s.values[kPmDramWrite] = s.values[kPmDramRead] / 2;
  s.values[kPmCtasActive] = active * 6;
  s.values[kPmWarpsActive] = active * 96;
  s.values[kPmSmThroughput] = active * 50;
  return s;
}

// Idle, then `busy` busy samples, then idle: a batch as the sampler sees it.
std::vector<PmSample> window(int idle_before, int busy, int idle_after) {
  std::vector<PmSample> s;
  std::uint64_t t = 1000000;
  for (int i = 0; i < idle_before; ++i, t += kInterval) s.push_back(sample(t, 0.0, 0.1));
  for (int i = 0; i < busy; ++i, t += kInterval) s.push_back(sample(t, 0.9, 2000));
  for (int i = 0; i < idle_after; ++i, t += kInterval) s.push_back(sample(t, 0.0, 0.1));
  return s;
}

json read_json(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw Error("cannot read " + path);
  return json::parse(in);
}

std::vector<std::uint8_t> read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

}  // namespace

// ---- attribution ----

TEST(CounterAttribution, BusySpanAndBytesPerDispatch) {
  const auto c = attribute(window(5, 200, 7), kInterval, 10, 3.9);
  EXPECT_EQ(c.samples, 212u);
  EXPECT_EQ(c.dropped_samples, 1u);  // the first sample after Start
  EXPECT_EQ(c.busy_samples, 200u);
  EXPECT_NEAR(c.busy_ms, 200 * 0.02, 1e-9);
  EXPECT_NEAR(c.dram_read_gbps, 2000, 1e-6);
  EXPECT_NEAR(c.dram_write_gbps, 1000, 1e-6);
  // 200 samples x 20 us x 2000 GB/s = 8 GB over 10 dispatches, plus the idle trickle.
  EXPECT_NEAR(c.dram_read_bytes_per_dispatch, 0.8e9, 0.8e9 * 1e-4);
  EXPECT_NEAR(c.sm_active_pct, 90, 1e-9);
  EXPECT_NEAR(c.ctas_per_sm, 5.4, 1e-9);
  EXPECT_NEAR(c.warps_per_sm, 0.9 * 96, 1e-9);
  EXPECT_EQ(c.series.size(), 200u);
  EXPECT_DOUBLE_EQ(c.series.front().t_us, 0.0);
}

TEST(CounterAttribution, FirstAndIrregularSamplesAreDropped) {
  auto s = window(3, 100, 3);
  s.front().values[kPmDramRead] = 5e10;            // what the counters held before Start
  s[50].end_ns = s[50].start_ns + 10 * kInterval;  // not a regular sample
  const auto c = attribute(s, kInterval, 4, 1.0);
  EXPECT_EQ(c.dropped_samples, 2u);
  EXPECT_LT(c.dram_read_bytes_per_dispatch, 1.1e9);  // the 50 GB of sample 0 are not in it
  EXPECT_EQ(c.busy_samples, 99u);                    // nor the irregular one
}

TEST(CounterAttribution, CopyEngineIsBusyWithIdleSms) {
  auto s = window(2, 0, 0);
  for (int i = 0; i < 150; ++i) s.push_back(sample(s.back().end_ns, 0.0, 850));
  const auto c = attribute(s, kInterval, 5, 1.0);
  EXPECT_EQ(c.busy_samples, 150u);
  EXPECT_NEAR(c.sm_active_pct, 0.0, 1e-12);
  EXPECT_NEAR(c.dram_read_gbps, 850, 1e-6);
}

TEST(CounterAttribution, NoBusySampleIsAnError) {  // the sampler saw nothing of the work
  EXPECT_THROW(attribute(window(50, 0, 50), kInterval, 3, 1.0), Error);
  EXPECT_THROW(attribute(window(1, 10, 1), kInterval, 0, 1.0), Error);
}

// ---- recorded on the H100 (tests/fixtures/counters/) ----

std::string fixture(const std::string& name) {
  return std::string(CUVK_SOURCE_DIR) + "/tests/fixtures/counters/" + name;
}

// A dump's samples and batch, as cuvk decoded them on the GPU.
struct Recorded {
  std::vector<std::string> metrics;  // per value: the metric as sampled
  std::vector<PmSample> samples;
  std::uint64_t interval_ns = 0;
  std::uint32_t dispatches = 0;
  double batch_gpu_ms = 0;
};

Recorded recorded(const std::string& name) {
  const json j = read_json(fixture(name))["pm"];
  Recorded r;
  r.interval_ns = j["interval_ns"];
  r.dispatches = j["dispatches"];
  r.batch_gpu_ms = j["batch_gpu_ms"];
  for (const json& m : j["metrics"]) r.metrics.push_back(m.is_null() ? "" : m.get<std::string>());
  for (const json& s : j["samples"]) {
    PmSample x;
    x.start_ns = s["start_ns"];
    x.end_ns = s["end_ns"];
    for (const json& v : s["values"]) x.values.push_back(v.is_null() ? std::nan("") : double(v));
    r.samples.push_back(std::move(x));
  }
  return r;
}

// CUDA's and Vulkan's copy scalar at block 256, the first 64 samples of each batch: the sampler
// sees both APIs' dispatches, and Vulkan keeps fewer workgroups resident (FINDINGS section 1).
TEST(CounterRecorded, BothApisSampledVulkanFewerResident) {
  const Recorded cu = recorded("pm_copy_scalar_cuda.json");
  const Recorded vk = recorded("pm_copy_scalar_vulkan.json");
  const auto c = attribute(cu.samples, cu.interval_ns, cu.dispatches, cu.batch_gpu_ms);
  const auto v = attribute(vk.samples, vk.interval_ns, vk.dispatches, vk.batch_gpu_ms);
  EXPECT_EQ(c.dropped_samples, 1u);  // the first: seconds long, counts from before Start
  EXPECT_GE(c.busy_samples, 50u);
  EXPECT_GE(v.busy_samples, 50u);
  EXPECT_GT(c.sm_active_pct, 90);
  EXPECT_GT(v.sm_active_pct, 90);
  EXPECT_NEAR(c.dram_read_gbps, 1150, 100);  // 64M floats each way at 0.23 ms
  EXPECT_NEAR(v.dram_read_gbps, 1100, 100);
  EXPECT_NEAR(c.ctas_per_sm, 7.3, 0.2);
  EXPECT_NEAR(v.ctas_per_sm, 6.7, 0.2);
  EXPECT_LT(v.ctas_per_sm, c.ctas_per_sm - 0.4);
}

// vkCmdCopyBuffer on the compute-capable family 0 runs on the SMs (CTAs, instructions); on the
// video-decode family 3 the SMs stay idle while DRAM moves the data (a copy engine).
TEST(CounterRecorded, CopyEngineOnSmsOrNot) {
  const Recorded q0 = recorded("pm_copy_engine_vulkan_q0.json");
  const Recorded q3 = recorded("pm_copy_engine_vulkan_q3.json");
  const auto a = attribute(q0.samples, q0.interval_ns, q0.dispatches, q0.batch_gpu_ms);
  const auto b = attribute(q3.samples, q3.interval_ns, q3.dispatches, q3.batch_gpu_ms);
  EXPECT_GT(a.sm_active_pct, 90);
  EXPECT_GT(a.ctas_per_sm, 5);
  EXPECT_GT(a.inst_per_dispatch, 1e6);
  EXPECT_NEAR(a.dram_read_gbps, 420, 40);
  EXPECT_LT(b.sm_active_pct, 1);
  EXPECT_EQ(b.inst_per_dispatch, 0);
  EXPECT_NEAR(b.dram_read_gbps, 450, 40);
}

// Busy samples' mean of metric `name` of a recording (NaN if it was not sampled).
double recorded_mean(const Recorded& r, const std::string& name) {
  const auto it = std::find(r.metrics.begin(), r.metrics.end(), name);
  if (it == r.metrics.end()) return std::nan("");
  const std::size_t i = static_cast<std::size_t>(it - r.metrics.begin());
  double sum = 0;
  std::size_t n = 0;
  for (std::size_t k = 1; k < r.samples.size(); ++k) {
    const std::vector<double>& v = r.samples[k].values;
    if (v[kPmGpcCycles] > 0 && v[kPmSmActiveCycles] / v[kPmGpcCycles] >= kBusySmActive) {
      sum += v[i];
      ++n;
    }
  }
  return n ? sum / static_cast<double>(n) : std::nan("");
}

// Warps resident, recorded on the H100 with every shader type's sm__warps_active in the warps
// slot (CUVK_COUNTERS_WARPS=1) and the compute shaders' counter beside it: the latter reads half,
// at 1, 4 and 32 warps per CTA, on both APIs, and pm_calibrations() makes up exactly that.
TEST(CounterRecorded, ComputeShaderWarpsCalibratedAgainstEveryShaderType) {
  const std::string cs = pm_metrics()[kPmWarpsActive].names.front();
  const std::string ctas = "SM_B.TriageCompute.sm__ctas_active";
  for (const char* name :
       {"pm_warps_copy_grid_b128_cuda.json", "pm_warps_copy_scalar_b32_vulkan.json",
        "pm_warps_copy_scalar_b1024_cuda.json"}) {
    SCOPED_TRACE(name);
    const Recorded r = recorded(name);
    ASSERT_EQ(r.metrics[kPmWarpsActive], "sm__warps_active.avg.per_cycle_elapsed");
    const auto all = attribute(r.samples, r.interval_ns, r.dispatches, r.batch_gpu_ms);
    // The compute shaders' warps per SM and cycle, from its sum: sum x (CTAs per SM and cycle) /
    // (CTAs' sum) divides by cycles x SMs, both of the same samples.
    const double raw = recorded_mean(r, "sm__warps_active_shader_cs.sum") *
                       recorded_mean(r, ctas + ".avg.per_cycle_elapsed") /
                       recorded_mean(r, ctas + ".sum");
    ASSERT_TRUE(std::isfinite(raw) && raw > 1);
    const std::optional<double> scale = pm_scale("GH100", cs);
    ASSERT_TRUE(scale);
    EXPECT_NEAR(*scale * raw / all.warps_per_sm, 1.0, 0.05) << raw << " " << all.warps_per_sm;
  }
  // Every shader type's warps agree with CTAs x warps per CTA where warps live as long as their
  // CTA (the grid-stride copy, 4 warps per CTA); with 32-warp CTAs of one element per thread,
  // warps that finished leave their CTA resident a while, so fewer warps than CTAs x 32.
  const Recorded g = recorded("pm_warps_copy_grid_b128_cuda.json");
  const auto ga = attribute(g.samples, g.interval_ns, g.dispatches, g.batch_gpu_ms);
  EXPECT_NEAR(ga.warps_per_sm / (ga.ctas_per_sm * 4), 1.0, 0.05);
  const Recorded b = recorded("pm_warps_copy_scalar_b1024_cuda.json");
  const auto ba = attribute(b.samples, b.interval_ns, b.dispatches, b.batch_gpu_ms);
  EXPECT_LT(ba.warps_per_sm, 0.85 * ba.ctas_per_sm * 32);
}

// The range profiler's counter data image of read_offset offset 1 (CUDA), evaluated again
// offline by CUPTI's host API: the values cuvk decoded on the GPU, 5 sectors per load request.
TEST(CounterRecorded, RangeImageDecodesToTheSeedsFigures) {
  const json j = read_json(fixture("raw_read_offset1_cuda.json"));
  const std::vector<std::string> metrics = j["range"]["metrics"];
  ASSERT_EQ(metrics, kernel_metrics());
  const std::vector<double> on_gpu = j["range"]["values"];
  const KernelCounters k = decode_kernel(on_gpu, j["range"]["passes"]);
  EXPECT_DOUBLE_EQ(*k.ld_sectors_per_request(), 5.0);
  EXPECT_DOUBLE_EQ(*k.st_sectors_per_request(), 4.0);
  EXPECT_DOUBLE_EQ(k.ctas_launched, 262144);          // 64M threads in blocks of 256
  EXPECT_DOUBLE_EQ(k.ld_bytes_per_sector_pct, 80.0);  // ncu's figure for the seed's offset 1
  std::string why;
  const auto again =
      evaluate_counter_data(CounterKind::range_profiler, j["chip"],
                            read_bytes(fixture("raw_read_offset1_cuda.range_avail.bin")), metrics,
                            read_bytes(fixture("raw_read_offset1_cuda.range_data.bin")), 1, &why);
  if (again.empty()) GTEST_SKIP() << "no CUPTI host library here: " << why;
  ASSERT_EQ(again.front().size(), on_gpu.size());
  for (std::size_t i = 0; i < on_gpu.size(); ++i)
    EXPECT_DOUBLE_EQ(again.front()[i], on_gpu[i]) << metrics[i];
}

// ---- the range profiler's values ----

TEST(CounterDecode, KernelValuesInMetricOrder) {
  std::vector<double> v(kernel_metrics().size());
  v[0] = 10485760, v[1] = 2097152, v[2] = 8388608, v[3] = 2097152;  // read_offset 1, as ncu
  v[4] = 268.46e6, v[5] = 253.35e6, v[6] = 262144, v[7] = 80, v[8] = 80, v[9] = 3e5;
  const KernelCounters k = decode_kernel(v, 4);
  EXPECT_DOUBLE_EQ(*k.ld_sectors_per_request(), 5.0);
  EXPECT_DOUBLE_EQ(*k.st_sectors_per_request(), 4.0);
  EXPECT_DOUBLE_EQ(*k.sectors_per_request(), 5.0);  // the worse stream, as the model's
  EXPECT_DOUBLE_EQ(k.ctas_launched, 262144);
  EXPECT_EQ(k.passes, 4u);
  v.pop_back();
  EXPECT_THROW(decode_kernel(v, 4), Error);
}

TEST(CounterDecode, NoRequestsNoRatio) {
  const KernelCounters k = decode_kernel(std::vector<double>(kernel_metrics().size(), 0.0), 1);
  EXPECT_FALSE(k.sectors_per_request());
}

// ---- measured against modeled ----

TEST(CounterModel, FlagsBeyondFivePercent) {
  EXPECT_FALSE(differs_from_model(4.0, 4.0));
  EXPECT_FALSE(differs_from_model(4.19, 4.0));
  EXPECT_TRUE(differs_from_model(4.21, 4.0));
  EXPECT_TRUE(differs_from_model(5.0, 4.0));
  EXPECT_FALSE(differs_from_model(std::nullopt, 4.0));  // not measured: never flagged
  EXPECT_TRUE(differs_from_model(10.0, 0.0));
}

// ---- metric names ----

TEST(CounterMetrics, BaseNames) {
  EXPECT_EQ(metric_base_name("dram__bytes_read.sum"), "dram__bytes_read");
  EXPECT_EQ(metric_base_name("TPC.TriageCompute.tpc__warps_active_realtime.avg.per_cycle_elapsed"),
            "TPC.TriageCompute.tpc__warps_active_realtime");
  EXPECT_EQ(metric_base_name("sm__warps_active.avg.pct_of_peak_sustained_active"),
            "sm__warps_active");
  const auto bad =
      unknown_metrics({"dram__bytes_read.sum", "dram__bytez.sum"}, {"dram__bytes_read"});
  ASSERT_EQ(bad.size(), 1u);
  EXPECT_EQ(bad[0], "dram__bytez.sum");
}

// Every name cuvk asks for is in the GH100's own lists (CUPTI's host API, no GPU needed).
TEST(CounterMetrics, NamesAreTheChipsOwn) {
  std::string why;
  const auto range = chip_metrics(CounterKind::range_profiler, "GH100", {}, &why);
  if (range.empty()) GTEST_SKIP() << "no CUPTI host library here: " << why;
  EXPECT_TRUE(unknown_metrics(kernel_metrics(), range).empty());
  const auto pm = chip_metrics(CounterKind::pm_sampling, "GH100", {}, &why);
  ASSERT_FALSE(pm.empty()) << why;
  for (const PmMetric& m : pm_metrics())
    if (!m.names.empty()) {
      EXPECT_TRUE(unknown_metrics({m.names.front()}, pm).empty()) << m.key;
    }
  EXPECT_FALSE(unknown_metrics({"dram__bytez.sum"}, pm).empty());
}

// The PM set, warps resident per SM included, is one pass on the GH100 (PM sampling takes one
// configuration of one pass: a metric beyond it would need a second batch); the range
// profiler's set needs 4 replays of the launch (the requests and the bytes per sector each
// add one: the cost of a CUDA row's per-kernel counters).
TEST(CounterMetrics, PmSetIsOnePassWithWarpsAndRangeSetFourReplays) {
  std::string why;
  std::vector<std::string> pm;
  for (const PmMetric& m : pm_metrics())
    if (!m.names.empty()) pm.push_back(m.names.front());
  const std::size_t pm_passes = config_passes(CounterKind::pm_sampling, "GH100", {}, pm, &why);
  if (pm_passes == 0) GTEST_SKIP() << "no CUPTI host library here: " << why;
  EXPECT_EQ(pm_passes, 1u);
  EXPECT_FALSE(pm_metrics()[kPmWarpsActive].names.empty());  // sampled, not only on request
  EXPECT_EQ(config_passes(CounterKind::range_profiler, "GH100", {}, kernel_metrics(), &why), 4u)
      << why;
  // Why the warps of every shader type are a second configuration (CUVK_COUNTERS_WARPS=1).
  pm.push_back("sm__warps_active.avg.per_cycle_elapsed");
  EXPECT_EQ(config_passes(CounterKind::pm_sampling, "GH100", {}, pm, &why), 2u);
}

// The compute-shader warps counter is sampled only where its calibration is known: on the GH100
// with its factor, on another chip not at all (no uncalibrated figure), the rest unchanged.
TEST(CounterMetrics, WarpsSampledOnlyWhereCalibrated) {
  const std::string cs = pm_metrics()[kPmWarpsActive].names.front();
  EXPECT_EQ(pm_scale("GH100", cs), 2.0);
  EXPECT_EQ(pm_scale("GH100", "sm__warps_active.avg.per_cycle_elapsed"), 1.0);
  EXPECT_EQ(pm_scale("AD102", "dram__bytes_read.sum"), 1.0);
  EXPECT_FALSE(pm_scale("AD102", cs));
  std::vector<std::string> chip = {"dram__bytes_read", "dram__bytes_write", "gpc__cycles_elapsed",
                                   "sm__cycles_active", "sm__warps_active_shader_cs"};
  const auto gh = choose_pm_metrics("GH100", chip);
  EXPECT_EQ(gh[kPmWarpsActive], cs);
  EXPECT_EQ(gh[kPmSmActiveCycles], "sm__cycles_active.avg");  // the plain name after Triage's
  EXPECT_EQ(gh[kPmCtasActive], "");
  const auto ad = choose_pm_metrics("AD102", chip);
  EXPECT_EQ(ad[kPmWarpsActive], "");
  EXPECT_EQ(ad[kPmDramRead], "dram__bytes_read.sum");
  const auto more = choose_pm_metrics("GH100", chip, comma_list("sm__cycles_active.max,,"));
  ASSERT_EQ(more.size(), pm_metrics().size() + 1);  // a developer's extra metric, last
  EXPECT_EQ(more.back(), "sm__cycles_active.max");
  EXPECT_THROW(choose_pm_metrics("GH100", chip, {"sm__nothing.sum"}), Error);
  EXPECT_TRUE(comma_list(nullptr).empty());
  chip.erase(chip.begin());  // no DRAM bytes read: no sampling
  EXPECT_THROW(choose_pm_metrics("GH100", chip), Error);
}

// ---- the sampled batch ----

// The first batch is about kSampleBatchMs of the row's median time; a second, where the first
// gave fewer than 100 busy samples, scales it to 130% of what 100 need.
TEST(CounterBatch, ShortBatchThenLongerWhereTooFewSamples) {
  EXPECT_EQ(batch_dispatches(0.2), 13);  // 2.6 ms / 0.2 ms
  EXPECT_EQ(batch_dispatches(10.0), kMinDispatches);
  EXPECT_EQ(batch_dispatches(2.98), 1);  // 149 samples; 3 such copies held 490 of a 512 image
  EXPECT_EQ(batch_dispatches(0.0), kMinDispatches);
  EXPECT_EQ(batch_dispatches(1e-6), kMaxDispatches);
  EXPECT_GE(kSampleBatchMs * 1e6 / 20000, 1.2 * kMinBusySamples);  // at the 20 us interval
  EXPECT_EQ(rebatch_dispatches(13, 130), 0);
  EXPECT_EQ(rebatch_dispatches(13, kMinBusySamples), 0);
  EXPECT_EQ(rebatch_dispatches(13, 50), 34);   // 13 * 1.3 * 100 / 50 = 33.8
  EXPECT_EQ(rebatch_dispatches(13, 0), 1690);  // no busy sample: as if one
  EXPECT_EQ(rebatch_dispatches(kMaxDispatches, 10), 0);
  EXPECT_EQ(rebatch_dispatches(15000, 10), kMaxDispatches);
}

// ---- without counters ----

TEST(CounterUnavailable, NoGpuHereSaysWhy) {
  std::string why;
  const auto s = open_counters(Uuid{}, &why);
  if (s) GTEST_SKIP() << "a GPU with counters is here";
  EXPECT_FALSE(why.empty());
}
