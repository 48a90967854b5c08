// The stopping rule and its bounds: every bounded value refused with its bound, settling that
// ends, signals seen between batches, batch sizes.
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
#include <type_traits>

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

// ---- Issue 12, class 3: bounded work, prompt signals ----

namespace {

// Clears the interrupt flag however the test ends.
struct InterruptScope {
  InterruptScope() { install_interrupt_handlers(); }
  ~InterruptScope() { install_interrupt_handlers(); }
};

double wall_s(const std::function<void()>& f) {
  const auto t0 = std::chrono::steady_clock::now();
  f();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace

TEST(RunnerBounds, EveryBoundedValueIsRefusedNamingItsBound) {
  const std::vector<std::pair<std::function<void(RunConfig&)>, std::string>> cases = {
      {[](RunConfig& c) { c.reps = kMaxReps + 1; }, "--reps must be between 1 and 10000"},
      {[](RunConfig& c) { c.warmup = kMaxWarmup + 1; }, "--warmup must be between 0 and 10000"},
      {[](RunConfig& c) { c.warmup = -1; }, "--warmup must be between 0 and 10000"},
      {[](RunConfig& c) { c.settle_ms = 1e12; }, "--settle-ms must be between 0 and 60000"},
      {[](RunConfig& c) { c.settle_ms = std::nan(""); }, "--settle-ms must be between"},
      {[](RunConfig& c) { c.max_time_s = 1e9; }, "--max-time must be between 0 and 600 seconds"},
      {[](RunConfig& c) { c.max_time_s = std::numeric_limits<double>::infinity(); },
       "--max-time must be between 0 and 600"},
      {[](RunConfig& c) { c.target_ci = 1e-9; }, "--target-ci must be at least 0.01"},
      {[](RunConfig& c) { c.max_samples = kMaxSamples + 1; },
       "max_samples must be between 1 and 1000000"},
      {[](RunConfig& c) { c.host_cost_samples = kMaxHostCostSamples + 1; },
       "host_cost_samples must be between 0 and 100000"},
      {[](RunConfig& c) { c.block_sizes.assign(kMaxBlockSizes + 1, 256); },
       "--block-sizes: more than 64 values (at most 64)"},
      {[](RunConfig& c) { c.axis_values["offset"].assign(kMaxAxisValues + 1, 0); },
       "--offsets: more than 1024 values (at most 1024)"},
  };
  for (const auto& [change, message] : cases) {
    RunConfig cfg = config({"copy"});
    change(cfg);
    try {
      validate_config(cfg);
      ADD_FAILURE() << "accepted: " << message;
    } catch (const UsageError& e) {
      EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
    }
  }
  RunConfig at_bounds = config({"copy"});  // the bounds themselves are allowed
  at_bounds.reps = kMaxReps;
  at_bounds.warmup = kMaxWarmup;
  at_bounds.settle_ms = kMaxSettleMs;
  at_bounds.max_time_s = kMaxTimeS;
  at_bounds.target_ci = kMinTargetCi;
  EXPECT_NO_THROW(validate_config(at_bounds));
}

// Only validate_config makes a ValidatedConfig (what run_suite and start_first_inputs trust), and
// it never changes: the tests of pairs added after it make a new one, judged again for the sweep's
// bound (a refused addition leaves the configuration as it was), as do a CPU device's defaults.
TEST(RunnerBounds, AValidatedConfigIsMadeByValidationAndAddedTestsAreJudged) {
  static_assert(!std::is_default_constructible_v<ValidatedConfig>);
  static_assert(!std::is_constructible_v<ValidatedConfig, RunConfig>);
  const ValidatedConfig judged = validate_config(config({"copy"}));
  const ValidatedConfig cfg = judged.with_tests({"read_x"});
  EXPECT_EQ(cfg->tests, (std::vector<std::string>{"copy", "read_x"}));
  EXPECT_EQ(judged->tests, (std::vector<std::string>{"copy"}));
  const std::vector<std::string> many(kMaxRunPoints, "copy");  // a point each, at least
  try {
    static_cast<void>(cfg.with_tests(many));
    ADD_FAILURE() << "accepted " << many.size() << " more tests";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("in one run: split it"), std::string::npos) << e.what();
  }
  EXPECT_EQ(cfg->tests, (std::vector<std::string>{"copy", "read_x"}));
  const ValidatedConfig cpu = cfg.with_cpu_defaults(true, false, true);
  EXPECT_EQ(cpu->reps, kDefaultCpuReps);
  EXPECT_EQ(cpu->warmup, config({"copy"}).warmup);
  EXPECT_EQ(cpu->settle_ms, kDefaultCpuSettleMs);
  EXPECT_EQ(cfg->reps, config({"copy"}).reps);
}

// A driver whose timestamps read zero (or NaN) would make "settle until N ms of GPU time" endless.
TEST(RunnerSignals, SettlingEndsWhenTheGpuClockDoesNotAdvance) {
  for (double t : {0.0, std::nan(""), -1.0, std::numeric_limits<double>::infinity()}) {
    FakeBackend fake;
    fake.copies_input = "copy";
    fake.flush_ms = t;
    RunConfig cfg = config({"copy"});
    cfg.settle_ms = kMaxSettleMs;
    RunOutcome out;
    EXPECT_LT(wall_s([&] { out = run(fake, cfg); }), 30.0) << t;  // liveness, not speed
    EXPECT_FALSE(out.interrupted);
    EXPECT_EQ(out.settle.at("vulkan"), 0.0) << t;
    EXPECT_FALSE(out.rows.empty());
  }
}

// Timestamps that advance, but barely: the wall-time cap (2 x --settle-ms + 0.5 s) ends it.
TEST(RunnerSignals, SettlingEndsWithinItsWallTimeCap) {
  FakeBackend fake;
  fake.copies_input = "copy";
  fake.flush_ms = 1e-12;
  RunConfig cfg = config({"copy"});
  cfg.variants = {"scalar"};
  cfg.settle_ms = 100.0;  // cap 0.7 s of wall time
  RunOutcome out;
  EXPECT_LT(wall_s([&] { out = run(fake, cfg); }), 30.0);
  EXPECT_LT(out.settle.at("vulkan"), 100.0);
}

TEST(RunnerSignals, AnInterruptWhileSettlingStopsIt) {
  InterruptScope scope;
  FakeBackend fake;
  RunConfig cfg = config({"copy"});
  cfg.settle_ms = kMaxSettleMs;
  raise_interrupt_for_testing(SIGTERM);
  RunOutcome out;
  EXPECT_LT(wall_s([&] { out = run(fake, cfg); }), 30.0);
  EXPECT_TRUE(out.interrupted);
  EXPECT_EQ(out.settle.at("vulkan"), 0.0);
  EXPECT_EQ(fake.calls, 0);  // no point started
}

// SIGTERM in the middle of a row: no further batch, the unfinished row is not reported, the rows
// completed before it are.
TEST(RunnerSignals, AnInterruptMidMeasureStopsBeforeTheNextBatch) {
  InterruptScope scope;
  FakeBackend fake;
  fake.copies_input = "stride";
  RunConfig cfg = config({"stride"});  // two points, stride 1 and 2
  cfg.max_time_s = kMaxTimeS;
  cfg.target_ci = kMinTargetCi;
  fake.alternate_times = true;  // never converges: only the time budget would end a row
  cfg.max_samples = 20;         // ... or the sample budget, for the first point
  const RunOutcome first = run(fake, cfg);
  ASSERT_EQ(first.rows.size(), 2u);
  const int calls_per_point = fake.calls / 2;
  ASSERT_GE(calls_per_point, 3);  // correctness run, then at least two batches

  FakeBackend fake2;
  fake2.copies_input = "stride";
  fake2.alternate_times = true;
  fake2.interrupt_at_call = calls_per_point + 3;  // the second point's second batch
  const RunOutcome out = run(fake2, cfg);
  EXPECT_TRUE(out.interrupted);
  EXPECT_EQ(fake2.calls_after_interrupt, 0);
  ASSERT_EQ(out.rows.size(), 1u);
  EXPECT_EQ(out.rows[0].status, Status::ok);
  EXPECT_EQ(out.rows[0].axes.get("stride"), 1u);
}

TEST(RunnerSignals, AnInterruptDuringWarmUpStopsIt) {
  InterruptScope scope;
  FakeBackend fake;
  fake.copies_input = "copy";
  fake.interrupt_at_call = 2;  // the correctness run, then the first warm-up batch
  RunConfig cfg = config({"copy"});
  cfg.variants = {"scalar"};  // the one copy the fake performs (the ceiling would run first)
  cfg.warmup = kMaxWarmup;
  const RunOutcome out = run(fake, cfg);
  EXPECT_TRUE(out.interrupted);
  EXPECT_EQ(fake.calls_after_interrupt, 0);
  EXPECT_TRUE(out.rows.empty());
}

// A long repetition gets short batches (about 0.25 s each), so a signal is seen promptly; the
// first call has one repetition, to learn how long one takes.
TEST(RunnerSignals, LongRepetitionsGoInShortBatches) {
  FakeBackend fake;
  fake.copies_input = "copy";
  fake.sleep_ms_per_rep = 20.0;  // at most 12 repetitions fit in 0.25 s
  RunConfig cfg = config({"copy"});
  cfg.variants = {"scalar"};
  cfg.reps = 30;
  cfg.warmup = 5;
  cfg.max_time_s = 30.0;  // 30 repetitions fit in the budget (else the minimum yields to it)
  const RunOutcome out = run(fake, cfg);
  ASSERT_EQ(out.rows.size(), 1u);
  EXPECT_GE(out.rows[0].time_ms.samples, 30u);
  ASSERT_GE(fake.batch_sizes.size(), 3u);
  EXPECT_EQ(fake.batch_sizes[1], 1);  // [0] is the correctness run
  for (int b : fake.batch_sizes) EXPECT_LE(b, 12);
}

// Issue 49: a launch too slow for --reps repetitions in the budget keeps the budget: the warm-up
// ends after a quarter of it (one call at least) and the minimum yields down to 6 samples once
// the budget has passed (flagged ci_not_met). Counts of repetitions, not wall times, are asserted.
TEST(RunnerSignals, ALaunchTooSlowForTheMinimumKeepsTheBudget) {
  for (const double ms : {20.0, 60.0}) {
    SCOPED_TRACE(ms);
    FakeBackend fake;
    fake.copies_input = "copy";
    fake.sleep_ms_per_rep = ms;
    RunConfig cfg = config({"copy"});
    cfg.variants = {"scalar"};
    cfg.reps = 100;       // 2 s (or 6 s) of repetitions ...
    cfg.warmup = 1000;    // ... after 20 s (or 60 s) of warm-up, were they all run
    cfg.max_time_s = 0.1;
    const RunOutcome out = run(fake, cfg);
    ASSERT_EQ(out.rows.size(), 1u);
    const ResultRow& r = out.rows[0];
    ASSERT_EQ(r.status, Status::ok) << r.reason;
    int total = 0;
    for (int b : fake.batch_sizes) total += b;
    const int warm = total - 1 - static_cast<int>(r.time_ms.samples);  // [0]: correctness run
    EXPECT_LE(warm, 13) << "warm-up repetitions";  // the first call, then one batch of 0.25 s
    EXPECT_EQ(r.stop_reason, "time_budget");
    EXPECT_NE(std::find(r.flags.begin(), r.flags.end(), "ci_not_met"), r.flags.end());
    EXPECT_GE(r.time_ms.samples, 6u);
    EXPECT_LT(r.time_ms.samples, 30u);  // batches of about 0.25 s: 1 + 12 + 12, or 1 + 4 + 4
  }
}

// Quick repetitions keep whole batches of --reps.
TEST(RunnerSignals, QuickRepetitionsKeepWholeBatches) {
  FakeBackend fake;
  fake.copies_input = "copy";
  RunConfig cfg = config({"copy"});
  cfg.variants = {"scalar"};
  cfg.reps = 50;
  cfg.warmup = 10;
  const RunOutcome out = run(fake, cfg);
  ASSERT_EQ(out.rows.size(), 1u);
  EXPECT_EQ(out.rows[0].time_ms.samples, 50u);
  ASSERT_GE(fake.batch_sizes.size(), 3u);
  EXPECT_EQ(fake.batch_sizes[1], 1);  // [0] is the correctness run; then warm-up 1, 9
  // Far more than the 12 a 20 ms repetition gets (only a stall of ~0.2 s could shrink these).
  EXPECT_GT(*std::max_element(fake.batch_sizes.begin(), fake.batch_sizes.end()), 12);
}

TEST(RunnerSignals, ABackendReturningTooFewTimesFailsTheRow) {
  FakeBackend fake;
  fake.copies_input = "copy";
  fake.short_times = true;
  RunConfig cfg = config({"copy"});
  cfg.variants = {"scalar"};
  const RunOutcome out = run(fake, cfg);
  ASSERT_EQ(out.rows.size(), 1u);
  EXPECT_EQ(out.rows[0].status, Status::failed);
  EXPECT_NE(out.rows[0].reason.find("returned 0 times for 1 repetitions"), std::string::npos)
      << out.rows[0].reason;
}
