// validate_config (runner.h): every run option judged once, before any device is touched.
#include <algorithm>
#include <iomanip>
#include <limits>
#include <sstream>
#include <string>
#include <utility>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "axes.h"
#include "error.h"
#include "host_data.h"
#include "kernel_model.h"
#include "runner.h"

namespace cuvk {
namespace {

std::string bound_text(double v) {
  std::ostringstream o;
  o << std::setprecision(15) << v;  // 1000000, 0.01, 600
  return o.str();
}

// "--reps must be between 1 and 10000": the option and its bounds.
void check_range(double value, double lo, double hi, const std::string& what,
                 const std::string& unit = "") {
  if (!(value >= lo && value <= hi))  // also NaN
    throw UsageError(what + " must be between " + bound_text(lo) + " and " + bound_text(hi) + unit +
                     ", not " + bound_text(value));
}

void check_count(std::size_t count, std::size_t bound, const std::string& what) {
  if (count > bound)
    throw UsageError(fmt::format("{}: more than {} values (at most {})", what, bound, bound));
}

// The product of the sweep lists, bounded: points x sizes x block sizes x Vulkan binding modes.
void check_sweep_size(const RunConfig& cfg) {
  std::uint64_t points = 0;
  for (const std::string& name : cfg.tests)
    if (const TestCase* t = find_test(name))
      points += points_of(*t, 1, cfg.axis_values, cfg.layouts, cfg.variants).size();
  const std::size_t sizes = std::max<std::size_t>(1, cfg.sizes.size());
  const std::uint64_t measured = points * sizes * cfg.block_sizes.size() * cfg.vk_bindings.size();
  if (measured > kMaxRunPoints)
    throw UsageError(
        fmt::format("the sweep has {} points ({} points x {}{} block sizes x {} Vulkan binding "
                    "modes); at most {} in one run: split it into several runs",
                    measured, points, sizes > 1 ? fmt::format("{} sizes (--n) x ", sizes) : "",
                    cfg.block_sizes.size(), cfg.vk_bindings.size(), kMaxRunPoints));
}

// A CPU device's defaults replace judged values after validate_config: they are within bounds.
static_assert(kDefaultCpuReps >= 1 && kDefaultCpuReps <= kMaxReps);
static_assert(kDefaultCpuWarmup >= 0 && kDefaultCpuWarmup <= kMaxWarmup);
static_assert(kDefaultCpuSettleMs >= 0.0 && kDefaultCpuSettleMs <= kMaxSettleMs);

}  // namespace

ValidatedConfig ValidatedConfig::with_cpu_defaults(bool reps, bool warmup, bool settle_ms) const {
  RunConfig cfg = cfg_;
  if (reps) cfg.reps = kDefaultCpuReps;
  if (warmup) cfg.warmup = kDefaultCpuWarmup;
  if (settle_ms) cfg.settle_ms = kDefaultCpuSettleMs;
  return ValidatedConfig(std::move(cfg));
}

ValidatedConfig ValidatedConfig::with_tests(const std::vector<std::string>& tests) const {
  RunConfig cfg = cfg_;
  cfg.tests.insert(cfg.tests.end(), tests.begin(), tests.end());
  check_sweep_size(cfg);
  return ValidatedConfig(std::move(cfg));
}

ValidatedConfig validate_config(RunConfig config) {
  const RunConfig& cfg = config;
  check_range(cfg.reps, 1, kMaxReps, "--reps");
  check_range(cfg.warmup, 0, kMaxWarmup, "--warmup");
  if (cfg.block_sizes.empty()) throw UsageError("no block size given");
  check_count(cfg.block_sizes.size(), kMaxBlockSizes, "--block-sizes");
  for (std::uint32_t b : cfg.block_sizes)
    if (b == 0 || b % kWarpSize != 0)
      throw UsageError(fmt::format("block size {} is not a positive multiple of 32", b));
  if (cfg.vk_bindings.empty()) throw UsageError("no Vulkan binding mode given");
  for (Binding b : cfg.vk_bindings)
    if (b == Binding::pointer) throw UsageError("Vulkan binding modes are descriptor and bda");
  if (!(cfg.target_ci >= kMinTargetCi) || cfg.target_ci >= 1.0)
    throw UsageError("--target-ci must be at least " + bound_text(100.0 * kMinTargetCi) +
                     " and below 100 (percent of the median)");
  check_range(cfg.max_time_s, 0.0, kMaxTimeS, "--max-time", " seconds (0: automatic)");
  check_range(cfg.settle_ms, 0.0, kMaxSettleMs, "--settle-ms");
  check_range(static_cast<double>(cfg.max_samples), 1, static_cast<double>(kMaxSamples),
              "max_samples");
  check_range(cfg.host_cost_samples, 0, kMaxHostCostSamples, "host_cost_samples");
  check_range(cfg.calibration_samples, 0, kMaxHostCostSamples, "calibration_samples");
  for (const auto& [name, values] : cfg.axis_values) {
    const Axis* axis = find_axis(name);
    if (axis == nullptr) throw UsageError("unknown sweep axis '" + name + "'");
    // An axis whose default is no values (copy_mib) is off unless given.
    if (values.empty() && !axis->defaults.empty())
      throw UsageError(axis->option + ": no values given");
    check_count(values.size(), kMaxAxisValues, axis->option);
    for (std::uint32_t v : values)
      if (v < axis->min_value)
        throw UsageError(fmt::format("{}: {} {} is not allowed (at least {})", axis->option, name,
                                     v, axis->min_value));
  }
  check_sweep_size(cfg);
  return ValidatedConfig(std::move(config));
}

namespace {

// A point's limits at the run's size: the devices' largest buffer, the host's memory.
DeviceLimits run_limits(std::uint64_t max_buffer_bytes) {
  DeviceLimits lim;
  lim.max_buffer = max_buffer_bytes;
  lim.max_host = host_memory_limit_bytes(&lim.max_host_name);
  return lim;
}

}  // namespace

void check_plan(const std::string& test, std::uint32_t n, const Plan& plan,
                std::uint64_t max_buffer_bytes) {
  check_plan_sizes(test, n, plan, run_limits(max_buffer_bytes));
}

std::uint64_t max_buffer_of(const DeviceChoice& choice, const std::vector<Api>& apis) {
  std::uint64_t m = std::numeric_limits<std::uint64_t>::max();
  for (Api api : apis) {
    const std::optional<DeviceInfo>& d = choice.device(api);
    if (d && d->max_buffer_bytes != 0) m = std::min(m, d->max_buffer_bytes);
  }
  return m;
}

void check_run_sizes(const RunConfig& cfg, std::uint32_t n, std::uint64_t max_buffer_bytes) {
  const DeviceLimits lim = run_limits(max_buffer_bytes);
  for (const std::string& name : cfg.tests) {
    const TestCase* t = find_test(name);
    if (!t) continue;  // an unknown test is named by parse_tests and plan_jobs
    for (const Point& p : points_of(*t, n, cfg.axis_values, cfg.layouts, cfg.variants)) {
      const Plan plan = t->plan(p);
      plan.check_at_size(name, n, lim);
    }
  }
}

std::vector<std::uint32_t> run_sizes(const RunConfig& cfg, bool on_gpu) {
  if (cfg.sizes.size() > 1) return cfg.sizes;
  return {cfg.n ? cfg.n : on_gpu ? kDefaultGpuN : kDefaultCpuN};
}

}  // namespace cuvk
