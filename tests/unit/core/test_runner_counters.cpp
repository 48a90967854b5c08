// Counters in the runner: the order of the two instruments and the sampled batch.
// (Split from tests/test_runner.cpp by concern; the fake backend:
// tests/unit/core/runner_fixture.h.)
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstring>
#include <functional>
#include <limits>
#include <map>
#include <optional>
#include <thread>

#include "catalogue.h"
#include "error.h"
#include "host_data.h"
#include "input_pipeline.h"
#include "interrupt.h"
#include "nvml.h"
#include "runner.h"
#include "runner_fixture.h"

using namespace cuvk;
using namespace cuvk::runner_test;

// ---- issue 21 (counters): the order of the two instruments and the sampled batch ----

namespace {

// Counters that note which profiler holds the hardware and how often a row switched it, and
// give samples of a busy GPU: `busy` busy samples per batch (the first batch of each row gets
// `first_busy` where that is set).
class FakeCounters final : public CounterSession {
 public:
  std::string chip() const override { return "FAKE"; }
  std::vector<std::string> pm_names() const override { return std::vector<std::string>(kPmCount); }
  std::uint64_t interval_ns() const override { return 20000; }
  std::string kernel_unavailable() const override { return {}; }
  std::string sampling_unavailable() const override { return {}; }
  bool range_enabled() const override { return range_on; }
  std::vector<std::pair<std::string, double>> take_costs() override {
    return {{"switches", static_cast<double>(switches)}};
  }
  KernelCounters profile_kernel(const std::function<void()>& before,
                                const std::function<void()>& kernel, double ctas) override {
    if (!range_on) ++switches;
    range_on = true;
    calls.push_back("profile");
    if (fail_profiles > 0) {
      --fail_profiles;
      throw Error("cuptiRangeProfilerStart: the hardware is busy");
    }
    before();
    kernel();
    return decode_kernel({4, 1, 4, 1, 64, 64, ctas, 50, 100, 1000}, 4);
  }
  std::vector<PmSample> sample(const std::function<void()>& work) override {
    if (range_on) ++switches;
    range_on = false;
    calls.push_back("sample");
    work();
    const std::size_t n = first_of_row && first_busy ? first_busy : busy;
    first_of_row = !first_of_row && first_busy;  // the second batch is the row's last
    std::vector<PmSample> s(n + 1);
    for (std::size_t k = 0; k < s.size(); ++k) {
      s[k].start_ns = k * 20000;
      s[k].end_ns = s[k].start_ns + 20000;
      s[k].values.assign(kPmCount, 1.0);
      s[k].values[kPmGpcCycles] = 1000;
      s[k].values[kPmSmActiveCycles] = 900;
    }
    return s;
  }
  void dump(const std::string&, const std::string&, std::uint32_t, double) override {}

  bool range_on = false;
  int switches = 0;
  int fail_profiles = 0;           // the first this many profiles throw
  std::vector<std::string> calls;  // "profile" / "sample", in order
  std::size_t busy = 130, first_busy = 0;
  bool first_of_row = true;
};

RunOutcome run_with_counters(FakeBackend& cuda, FakeBackend& vulkan, FakeCounters& counters,
                             RunConfig cfg) {
  cuda.set_api(Api::cuda);
  cuda.copies_input = vulkan.copies_input = "copy";
  cfg.apis = {Api::cuda, Api::vulkan};
  cfg.counters = true;
  BackendSet set;
  set.backends[Api::cuda] = &cuda;
  set.backends[Api::vulkan] = &vulkan;
  set.counters = &counters;
  return run_suite(cfg, set);
}

// Every CUDA kernel launch is profiled before the first row, so the counters switch between the
// range profiler and the PM sampler twice in the run, not on every CUDA row (each switch
// re-enables a profiler: host time).
TEST(RunnerCounters, KernelsProfiledBeforeTheFirstRowSwitchTwice) {
  FakeBackend cuda, vulkan;
  FakeCounters counters;
  RunConfig cfg = config({"copy"});
  cfg.variants = {"scalar"};
  cfg.block_sizes = {64, 128, 256, 512, 1024, 32};
  const RunOutcome out = run_with_counters(cuda, vulkan, counters, cfg);
  std::size_t cuda_rows = 0;
  for (const ResultRow& r : out.rows) {
    ASSERT_EQ(r.status, Status::ok) << r.reason;
    ASSERT_TRUE(r.counters.has_value());
    EXPECT_TRUE(r.counters->sampled.has_value()) << r.counters->sampled_unavailable;
    if (r.api == Api::cuda) {
      ++cuda_rows;
      ASSERT_TRUE(r.counters->kernel.has_value()) << r.counters->kernel_unavailable;
      // The session is told the launch's CTAs (it refuses counts that are not the launch's).
      EXPECT_EQ(r.counters->kernel->ctas_launched,
                static_cast<double>(r.geometry.grid_x) * r.geometry.grid_y);
    }
  }
  ASSERT_EQ(cuda_rows, 6u);
  EXPECT_EQ(counters.switches, 2);  // twice per CUDA row: 12
  const std::vector<std::string> first(counters.calls.begin(), counters.calls.begin() + 6);
  EXPECT_EQ(first, std::vector<std::string>(6, "profile"));  // one per launch, before any row
  EXPECT_EQ(std::count(counters.calls.begin(), counters.calls.end(), "profile"), 6);
  // The session's costs reach the run's, beside the phase "counters".
  ASSERT_FALSE(out.counters_cost_s.empty());
  EXPECT_EQ(out.counters_cost_s.front().first, "switches");
  EXPECT_TRUE(std::any_of(out.phase_s.begin(), out.phase_s.end(),
                          [](const auto& p) { return p.first == "counters"; }));
}

// A launch the range profiler could not measure before the first row is measured with its row,
// the profiler the previous CUDA row left on first: about one switch per CUDA row, not two (the
// APIs take turns: c v | v c | c v ...).
TEST(RunnerCounters, KernelsNotProfiledFirstAreProfiledWithTheirRow) {
  FakeBackend cuda, vulkan;
  FakeCounters counters;
  counters.fail_profiles = 6;
  RunConfig cfg = config({"copy"});
  cfg.variants = {"scalar"};
  cfg.block_sizes = {64, 128, 256, 512, 1024, 32};
  const RunOutcome out = run_with_counters(cuda, vulkan, counters, cfg);
  for (const ResultRow& r : out.rows)
    if (r.api == Api::cuda) {
      ASSERT_TRUE(r.counters.has_value());
      EXPECT_TRUE(r.counters->kernel.has_value()) << r.counters->kernel_unavailable;
    }
  EXPECT_EQ(std::count(counters.calls.begin(), counters.calls.end(), "profile"), 12);
  EXPECT_LE(counters.switches, 8);  // twice per CUDA row: 13
}

// A batch that gave fewer than 100 busy samples (a kernel faster without the flush than its
// timed median said) is sampled again, longer; one that gave enough is not.
TEST(RunnerCounters, TooFewBusySamplesSampleALongerBatchOnce) {
  FakeBackend cuda, vulkan;
  FakeCounters counters;
  counters.first_busy = 60;
  RunConfig cfg = config({"copy"});
  cfg.variants = {"scalar"};
  const RunOutcome out = run_with_counters(cuda, vulkan, counters, cfg);
  ASSERT_EQ(out.rows.size(), 2u);
  for (const ResultRow& r : out.rows) {
    ASSERT_TRUE(r.counters && r.counters->sampled) << r.reason;
    EXPECT_EQ(r.counters->sampled->busy_samples, 130u);
  }
  // Per row: the timed batches, then the first sampled batch, then one larger.
  const std::vector<int>& b = vulkan.batch_sizes;
  ASSERT_GE(b.size(), 2u);
  EXPECT_GT(b.back(), b[b.size() - 2]);
  EXPECT_EQ(b.back(), rebatch_dispatches(b[b.size() - 2], 60));
}

}  // namespace
