// The empty-dispatch calibration and the launch-bound flag.
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

// Issue 33: each API's empty dispatch is timed before the first point, by run() as rows are, and
// a row below 10x its API's is flagged launch_bound.
TEST(RunnerCalibration, EmptyDispatchIsMeasuredAndSmallRowsAreLaunchBound) {
  FakeBackend fake;
  fake.copies_input = "copy";
  RunConfig cfg = config({"copy"});
  cfg.variants = {"scalar"};
  cfg.calibration_samples = 50;
  RunOutcome out = run(fake, cfg);
  EXPECT_EQ(fake.empty_dispatches, kCalibrationWarmup + 50);
  ASSERT_EQ(out.calibration.size(), 1u);
  const Calibration& c = out.calibration[0];
  EXPECT_EQ(c.api, Api::vulkan);
  EXPECT_EQ(c.empty_dispatch_ms.samples, 50u);
  EXPECT_NEAR(c.empty_dispatch_ms.median, 0.01025, 1e-9);  // half 0.0100, half 0.0105
  EXPECT_EQ(c.timer.valid_bits, 64u);
  EXPECT_NEAR(c.observed_step_ns, 500.0, 1e-6);
  ASSERT_EQ(out.rows.size(), 1u);
  const auto flagged = [](const ResultRow& r) {
    return std::count(r.flags.begin(), r.flags.end(), "launch_bound") == 1;
  };
  EXPECT_FALSE(flagged(out.rows[0]));  // 1 ms against 10 x 0.01025 ms
  fake.empty_ms = 0.2;                 // 1 ms is below 10 x 0.2 ms
  out = run(fake, cfg);
  EXPECT_TRUE(flagged(out.rows[0]));
  cfg.calibration_samples = 0;  // none measured: nothing flagged
  out = run(fake, cfg);
  EXPECT_TRUE(out.calibration.empty());
  EXPECT_FALSE(flagged(out.rows[0]));
}

TEST(RunnerCalibration, LaunchBoundAndTheTimerStepOnSyntheticData) {
  EXPECT_NEAR(smallest_step_ns({1.0, 1.0, 1.002, 1.0005}), 500.0, 1e-6);
  EXPECT_DOUBLE_EQ(smallest_step_ns({2.0, 2.0}), 0.0);
  Calibration cuda;
  cuda.api = Api::cuda;
  cuda.empty_dispatch_ms.median = 0.002;
  ResultRow r;
  r.api = Api::cuda;
  r.status = Status::ok;
  r.time_ms.median = 0.0199;
  EXPECT_TRUE(launch_bound(r, {cuda}));
  r.time_ms.median = 0.02;  // exactly 10x: not below
  EXPECT_FALSE(launch_bound(r, {cuda}));
  r.time_ms.median = 0.001;
  r.api = Api::vulkan;  // no Vulkan calibration: not judged
  EXPECT_FALSE(launch_bound(r, {cuda}));
  r.api = Api::cuda;
  r.status = Status::failed;
  EXPECT_FALSE(launch_bound(r, {cuda}));
}
