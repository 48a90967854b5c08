#include "counters.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "error.h"

namespace cuvk {

// ---- the range profiler ----

namespace {
enum KernelIndex : std::size_t {
  kLdSectors,
  kLdRequests,
  kStSectors,
  kStRequests,
  kDramRead,
  kDramWrite,
  kCtasLaunched,
  kOccupancy,
  kLdBytesPerSector,
  kGpuTime,
  kKernelCount
};

std::optional<double> ratio(double a, double b) {
  if (!(b > 0)) return std::nullopt;
  return a / b;
}

double finite_or_zero(double v) {
  return std::isfinite(v) ? v : 0.0;
}
}  // namespace

const std::vector<std::string>& kernel_metrics() {
  // The seed's ncu metrics (l1tex sectors and requests of global loads and stores), DRAM bytes,
  // CTAs launched and achieved occupancy: four passes on the GH100.
  static const std::vector<std::string> names = {
      "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
      "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
      "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
      "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
      "dram__bytes_read.sum",
      "dram__bytes_write.sum",
      "sm__ctas_launched.sum",
      "sm__warps_active.avg.pct_of_peak_sustained_active",
      "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct",
      "gpu__time_duration.sum"};
  return names;
}

std::optional<double> KernelCounters::ld_sectors_per_request() const {
  return ratio(ld_sectors, ld_requests);
}
std::optional<double> KernelCounters::st_sectors_per_request() const {
  return ratio(st_sectors, st_requests);
}
std::optional<double> KernelCounters::sectors_per_request() const {
  const auto ld = ld_sectors_per_request(), st = st_sectors_per_request();
  if (ld && st) return std::max(*ld, *st);
  return ld ? ld : st;
}

KernelCounters decode_kernel(const std::vector<double>& v, std::size_t passes) {
  if (v.size() != kKernelCount)
    throw Error(fmt::format("range profiler returned {} values for {} metrics", v.size(),
                            static_cast<int>(kKernelCount)));
  KernelCounters k;
  k.ld_sectors = v[kLdSectors];
  k.ld_requests = v[kLdRequests];
  k.st_sectors = v[kStSectors];
  k.st_requests = v[kStRequests];
  k.dram_read_bytes = v[kDramRead];
  k.dram_write_bytes = v[kDramWrite];
  k.ctas_launched = v[kCtasLaunched];
  k.achieved_occupancy_pct = v[kOccupancy];
  k.ld_bytes_per_sector_pct = v[kLdBytesPerSector];
  k.gpu_time_ns = v[kGpuTime];
  k.passes = passes;
  return k;
}

// ---- PM sampling ----

const std::vector<PmMetric>& pm_metrics() {
  // One pass on the GH100 (checked with cuptiProfilerHostGetNumOfPasses); the plain names
  // after the Triage ones serve chips without that group (then perhaps not in one pass: cupti.cpp
  // drops optional metrics until one pass remains).
  static const std::vector<PmMetric> m = {
      {"dram_read_bytes", {"dram__bytes_read.sum"}, true},
      {"dram_write_bytes", {"dram__bytes_write.sum"}, true},
      {"sm_throughput_pct",
       {"TriageCompute.sm__throughput.avg.pct_of_peak_sustained_elapsed",
        "sm__throughput.avg.pct_of_peak_sustained_elapsed"},
       false},
      {"sm_active_cycles",
       {"TPC.TriageCompute.sm__cycles_active.avg", "sm__cycles_active.avg"},
       true},
      {"gpc_cycles", {"gpc__cycles_elapsed.max"}, true},
      {"ctas_per_sm",
       {"SM_B.TriageCompute.sm__ctas_active.avg.per_cycle_elapsed",
        "sm__ctas_active.avg.per_cycle_elapsed"},
       false},
      // Warps resident per SM, of compute shaders (CUDA kernels and Vulkan compute dispatches
      // alike): one pass with the rest on the GH100 (CUPTI's host API, tests/test_counters.cpp),
      // calibrated (pm_calibrations(): it reads half on the GH100's sampler). sm__warps_active
      // (every shader type) does not fit one pass with the CTAs resident: with
      // CUVK_COUNTERS_WARPS=1 it comes from a second configuration over a second, identical
      // batch (cupti_pm.cpp), the check of this one. The one-pass TPC.TriageCompute.
      // tpc__warps_active_realtime and tpc__warps_active_shader_cs_realtime disagreed with the
      // CTAs resident on the H100 (results/h100/counters/warps_calibration/) and are not used.
      {"warps_per_sm", {"sm__warps_active_shader_cs.avg.per_cycle_elapsed"}, false},
      {"ctas_launched", {"FE_B.TriageCompute.gr__ctas_launched_realtime.sum"}, false},
      {"smem_kib_per_tpc",
       {"TPC.TriageCompute.tpc__l1tex_mem_shared_data_compute_kilobytes_configured_realtime.avg."
        "per_cycle_elapsed"},
       false},
      {"registers_per_tpc",
       {"TPC.TriageCompute.tpc__sm_rf_registers_allocated_shader_cs_realtime.avg.per_cycle_"
        "elapsed"},
       false},
      {"dram_pct", {"dram__throughput.avg.pct_of_peak_sustained_elapsed"}, false},
      {"inst_executed", {"TPC.TriageCompute.sm__inst_executed_realtime.sum"}, false},
  };
  return m;
}

// The GH100's PM sampler counts sm__warps_active_shader_cs at half the rate of sm__warps_active
// (whose per-cycle figure equals CTAs resident x warps per CTA where warps live as long as their
// CTA): recorded on the H100 over the copy kernels at blocks of 32 to 1024 threads, CUDA and
// Vulkan, 2.00 +- 0.04 on every row, every SM alike (its minimum and maximum over SMs are half
// too), while CUPTI gives both the same peak (64 a cycle). results/h100/counters/
// warps_calibration/, tests/fixtures/counters/pm_warps_*.json. A chip not listed here samples no
// compute-shader warps (CUVK_COUNTERS_WARPS=1 still measures every shader type's).
const std::vector<PmCalibration>& pm_calibrations() {
  static const std::vector<PmCalibration> c = {
      {"GH100", "sm__warps_active_shader_cs.avg.per_cycle_elapsed", 2.0},
  };
  return c;
}

std::optional<double> pm_scale(const std::string& chip, const std::string& metric) {
  bool listed = false;
  for (const PmCalibration& c : pm_calibrations()) {
    if (metric != c.metric) continue;
    listed = true;
    if (chip == c.chip) return c.scale;
  }
  if (listed) return std::nullopt;
  return 1.0;
}

std::vector<std::string> choose_pm_metrics(const std::string& chip,
                                           const std::vector<std::string>& chip_base_metrics,
                                           const std::vector<std::string>& extra) {
  std::vector<std::string> names(pm_metrics().size());
  for (std::size_t i = 0; i < pm_metrics().size(); ++i) {
    for (const char* name : pm_metrics()[i].names)
      if (unknown_metrics({name}, chip_base_metrics).empty() && pm_scale(chip, name)) {
        names[i] = name;
        break;
      }
    if (names[i].empty() && pm_metrics()[i].required)
      throw Error("the " + chip + " cannot sample " + pm_metrics()[i].key);
  }
  for (const std::string& m : extra) {
    if (!unknown_metrics({m}, chip_base_metrics).empty())
      throw Error("CUVK_COUNTERS_PM_EXTRA: the " + chip + " has no PM metric " + m);
    names.push_back(m);
  }
  return names;
}

std::vector<std::string> comma_list(const char* text) {
  std::vector<std::string> out;
  std::stringstream in(text ? text : "");
  for (std::string item; std::getline(in, item, ',');)
    if (!item.empty()) out.push_back(item);
  return out;
}

namespace {

double value(const PmSample& s, std::size_t i) {
  return i < s.values.size() ? s.values[i] : std::nan("");
}

double active_fraction(const PmSample& s) {
  const double cycles = value(s, kPmGpcCycles);
  return cycles > 0 ? finite_or_zero(value(s, kPmSmActiveCycles)) / cycles : 0.0;
}

double dram_bytes(const PmSample& s) {
  return finite_or_zero(value(s, kPmDramRead)) + finite_or_zero(value(s, kPmDramWrite));
}

double seconds(const PmSample& s) {
  return s.end_ns > s.start_ns ? static_cast<double>(s.end_ns - s.start_ns) * 1e-9 : 0.0;
}

// Average of metric `i` over samples [first, last], weighted by each sample's duration; NaN
// where the chip had no such metric.
double mean_over(const std::vector<PmSample>& s, std::size_t first, std::size_t last,
                 std::size_t i) {
  double sum = 0, weight = 0;
  for (std::size_t k = first; k <= last; ++k) {
    const double v = value(s[k], i);
    if (!std::isfinite(v)) return std::nan("");
    sum += v * seconds(s[k]);
    weight += seconds(s[k]);
  }
  return weight > 0 ? sum / weight : std::nan("");
}

double sum_over(const std::vector<PmSample>& s, std::size_t first, std::size_t last,
                std::size_t i) {
  double sum = 0;
  for (std::size_t k = first; k <= last; ++k) {
    const double v = value(s[k], i);
    if (!std::isfinite(v)) return std::nan("");
    sum += v;
  }
  return sum;
}

}  // namespace

SampledCounters attribute(const std::vector<PmSample>& all, std::uint64_t interval_ns,
                          std::uint32_t dispatches, double batch_gpu_ms) {
  if (dispatches == 0) throw Error("PM sampling: a batch of 0 dispatches");
  std::vector<PmSample> s;
  for (std::size_t k = 1; k < all.size(); ++k)
    if (all[k].end_ns > all[k].start_ns &&
        static_cast<double>(all[k].end_ns - all[k].start_ns) <=
            kMaxSampleIntervals * static_cast<double>(interval_ns))
      s.push_back(all[k]);
  auto busy = [&](const PmSample& x) {
    return active_fraction(x) >= kBusySmActive ||
           (seconds(x) > 0 && dram_bytes(x) / seconds(x) / 1e9 >= kBusyDramGbps);
  };
  std::size_t first = s.size(), last = 0;
  for (std::size_t k = 0; k < s.size(); ++k)
    if (busy(s[k])) {
      first = std::min(first, k);
      last = k;
    }
  if (first == s.size())
    throw Error(fmt::format(
        "PM sampling: none of {} samples saw the GPU busy (the counters did not see the work)",
        all.size()));
  SampledCounters c;
  c.interval_ns = interval_ns;
  c.samples = all.size();
  c.dropped_samples = all.size() - s.size();
  c.busy_samples = last - first + 1;
  c.dispatches = dispatches;
  c.batch_gpu_ms = batch_gpu_ms;
  c.busy_ms = static_cast<double>(s[last].end_ns - s[first].start_ns) * 1e-6;
  const double n = dispatches;
  c.dram_read_bytes_per_dispatch = sum_over(s, 0, s.size() - 1, kPmDramRead) / n;
  c.dram_write_bytes_per_dispatch = sum_over(s, 0, s.size() - 1, kPmDramWrite) / n;
  const double busy_s = c.busy_ms * 1e-3;
  c.dram_read_gbps = busy_s > 0 ? sum_over(s, first, last, kPmDramRead) / busy_s / 1e9 : 0;
  c.dram_write_gbps = busy_s > 0 ? sum_over(s, first, last, kPmDramWrite) / busy_s / 1e9 : 0;
  c.dram_pct = mean_over(s, first, last, kPmDramPct);
  c.sm_throughput_pct = mean_over(s, first, last, kPmSmThroughput);
  double active = 0, weight = 0;
  for (std::size_t k = first; k <= last; ++k) {
    active += active_fraction(s[k]) * seconds(s[k]);
    weight += seconds(s[k]);
  }
  c.sm_active_pct = weight > 0 ? 100.0 * active / weight : 0;
  c.warps_per_sm = mean_over(s, first, last, kPmWarpsActive);
  c.ctas_per_sm = mean_over(s, first, last, kPmCtasActive);
  c.ctas_launched_per_dispatch = sum_over(s, 0, s.size() - 1, kPmCtasLaunched) / n;
  c.smem_kib_per_sm = mean_over(s, first, last, kPmSmemKib) / kSmsPerTpc;
  c.registers_per_sm = mean_over(s, first, last, kPmRegisters) / kSmsPerTpc;
  c.inst_per_dispatch = sum_over(s, 0, s.size() - 1, kPmInstExecuted) / n;
  for (std::size_t k = first; k <= last; ++k) {
    const PmSample& x = s[k];
    const double sec = seconds(x);
    PmPoint p;
    p.t_us = static_cast<double>(x.start_ns - s[first].start_ns) * 1e-3;
    p.dram_read_gbps = sec > 0 ? finite_or_zero(value(x, kPmDramRead)) / sec / 1e9 : 0;
    p.dram_write_gbps = sec > 0 ? finite_or_zero(value(x, kPmDramWrite)) / sec / 1e9 : 0;
    p.sm_throughput_pct = finite_or_zero(value(x, kPmSmThroughput));
    p.warps_per_sm = finite_or_zero(value(x, kPmWarpsActive));
    p.ctas_per_sm = finite_or_zero(value(x, kPmCtasActive));
    c.series.push_back(p);
  }
  return c;
}

// ---- the batch ----

int batch_dispatches(double median_ms) {
  if (!(median_ms > 0)) return kMinDispatches;
  const double n = std::ceil(kSampleBatchMs / median_ms);
  return static_cast<int>(std::clamp(n, double{kMinDispatches}, double{kMaxDispatches}));
}

int rebatch_dispatches(int dispatches, std::size_t busy_samples) {
  if (busy_samples >= kMinBusySamples || dispatches >= kMaxDispatches) return 0;
  const double scale = 1.3 * static_cast<double>(kMinBusySamples) /
                       static_cast<double>(std::max<std::size_t>(busy_samples, 1));
  const double n = std::ceil(static_cast<double>(dispatches) * scale);
  return static_cast<int>(std::min(n, double{kMaxDispatches}));
}

// ---- measured against modeled ----

std::optional<double> measured_sectors_per_request(const RowCounters& c) {
  return c.kernel ? c.kernel->sectors_per_request() : std::nullopt;
}

std::optional<double> measured_dram_bytes(const RowCounters& c) {
  if (!c.sampled) return std::nullopt;
  return c.sampled->dram_read_bytes_per_dispatch + c.sampled->dram_write_bytes_per_dispatch;
}

bool differs_from_model(std::optional<double> measured, double modeled) {
  if (!measured || !std::isfinite(*measured)) return false;
  if (modeled <= 0) return *measured > 0;
  return std::fabs(*measured - modeled) > kModelTolerance * modeled;
}

// ---- metric names ----

std::string metric_base_name(const std::string& metric) {
  const std::size_t unit = metric.find("__");
  if (unit == std::string::npos) return metric;
  const std::size_t dot = metric.find('.', unit);
  return dot == std::string::npos ? metric : metric.substr(0, dot);
}

std::vector<std::string> unknown_metrics(const std::vector<std::string>& metrics,
                                         const std::vector<std::string>& chip_base_metrics) {
  const std::set<std::string> known(chip_base_metrics.begin(), chip_base_metrics.end());
  std::vector<std::string> unknown;
  for (const std::string& m : metrics)
    if (!known.count(metric_base_name(m))) unknown.push_back(m);
  return unknown;
}

}  // namespace cuvk
