// A row's flags: clocks that fell, throttling, bandwidth above the peak, L2-resident data, a
// median that did not converge.
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

namespace {

// NVML stand-in: a clock that drops (or not) and throttle bits on demand.
class FakeClocks final : public ClockMonitor {
 public:
  ClockSample sample() override {
    ClockSample s;
    s.sm_mhz = drop ? 1980 - 15 * static_cast<std::uint32_t>(calls) : 1980;  // falls each sample
    s.mem_mhz = 2619;
    s.event_reasons = reasons;
    ++calls;
    return s;
  }
  std::uint32_t max_sm_mhz() const override { return 1980; }
  std::uint32_t max_mem_mhz() const override { return mem_mhz; }
  bool drop = false;
  std::uint64_t reasons = 0;
  std::uint32_t mem_mhz = 2619;
  int calls = 0;
};

RunOutcome run_with_clocks(FakeBackend& fake, const RunConfig& cfg, FakeClocks& clocks) {
  BackendSet set;
  set.backends[Api::vulkan] = &fake;
  set.clocks = &clocks;
  return run_suite(cfg, set);
}

std::vector<std::string> flags_of(const RunOutcome& out, const std::string& kernel) {
  for (const ResultRow& r : out.rows)
    if (r.kernel == kernel && r.status == Status::ok) return r.flags;
  return {"<no ok row>"};
}

bool has(const std::vector<std::string>& v, const std::string& x) {
  return std::find(v.begin(), v.end(), x) != v.end();
}

}  // namespace

TEST(RunnerFlags, SteadyClocksAndAConvergedMedianCarryNoFlags) {
  FakeBackend fake;
  fake.copies_input = "copy";
  FakeClocks clocks;
  const auto flags = flags_of(run_with_clocks(fake, config({"copy"}), clocks), "copy");
  EXPECT_TRUE(flags.empty()) << flags.front();
}

TEST(RunnerFlags, AClockThatFellDuringTheRowIsFlagged) {
  FakeBackend fake;
  fake.copies_input = "copy";
  FakeClocks clocks;
  clocks.drop = true;
  RunConfig cfg = config({"copy"});
  cfg.variants = {"scalar"};
  EXPECT_TRUE(has(flags_of(run_with_clocks(fake, cfg, clocks), "copy"), "clock_below_start"));
}

TEST(RunnerFlags, ThrottleReasonsAreFlaggedButIdleIsNot) {
  FakeBackend fake;
  fake.copies_input = "copy";
  FakeClocks clocks;
  RunConfig cfg = config({"copy"});
  cfg.variants = {"scalar"};
  clocks.reasons = 0x1;  // gpu_idle: not a throttle
  EXPECT_FALSE(has(flags_of(run_with_clocks(fake, cfg, clocks), "copy"), "throttled"));
  clocks.reasons = kNvmlSwPowerCap;
  EXPECT_TRUE(has(flags_of(run_with_clocks(fake, cfg, clocks), "copy"), "throttled"));
}

TEST(RunnerFlags, BandwidthAboveTheDramPeakIsFlagged) {
  FakeBackend fake;
  fake.copies_input = "copy";
  fake.set_bus_bits(8);  // a 1-byte bus: the fake's 1 ms per 8 KB copy is far above its "peak"
  FakeClocks clocks;
  clocks.mem_mhz = 1;  // peak = 2 * 1 MHz * 1 byte = 0.002 GB/s
  RunConfig cfg = config({"copy"});
  cfg.variants = {"scalar"};
  const RunOutcome out = run_with_clocks(fake, cfg, clocks);
  ASSERT_TRUE(out.dram_peak_gbps.has_value());
  EXPECT_NEAR(*out.dram_peak_gbps, 0.002, 1e-12);
  EXPECT_TRUE(has(flags_of(out, "copy"), "above_dram_peak"));
}

TEST(RunnerFlags, WarmL2WithDataThatFitsIsCacheResident) {
  FakeBackend fake;
  fake.copies_input = "copy";
  fake.set_l2_bytes(1 << 20);  // 1 MiB L2; the copy moves 8 KiB
  RunConfig cfg = config({"copy"});
  cfg.variants = {"scalar"};
  cfg.l2 = L2Mode::warm;
  EXPECT_TRUE(has(flags_of(run(fake, cfg), "copy"), "cache_resident"));
  cfg.l2 = L2Mode::cold;  // flushed: the same row is DRAM traffic
  EXPECT_FALSE(has(flags_of(run(fake, cfg), "copy"), "cache_resident"));
  fake.set_l2_bytes(4096);  // warm, but the data does not fit
  cfg.l2 = L2Mode::warm;
  EXPECT_FALSE(has(flags_of(run(fake, cfg), "copy"), "cache_resident"));
}

TEST(RunnerFlags, AMedianThatDidNotConvergeIsFlagged) {
  FakeBackend fake;
  fake.copies_input = "copy";
  fake.alternate_times = true;  // 1 ms, 3 ms, 1 ms, ...: the median's CI stays wide
  RunConfig cfg = config({"copy"});
  cfg.variants = {"scalar"};
  cfg.max_time_s = 0.01;
  const RunOutcome out = run(fake, cfg);
  EXPECT_TRUE(has(flags_of(out, "copy"), "ci_not_met"));
  ASSERT_EQ(std::count_if(out.rows.begin(), out.rows.end(),
                          [](const ResultRow& r) { return r.kernel == "copy"; }),
            1);
  for (const ResultRow& r : out.rows) {
    if (r.kernel == "copy") {
      EXPECT_EQ(r.stop_reason, "time_budget");
    }
  }
}
