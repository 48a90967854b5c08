// Chains: one lane per submission mode, verified against the K-step reference, at their own sizes.
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
#include "params.h"
#include "runner.h"
#include "runner_fixture.h"
#include "runner_parts.h"

using namespace cuvk;
using namespace cuvk::runner_test;

// Issue 33: the chain test has one lane per submission mode of the API (Vulkan here), each chain
// verified against the K-step reference, its time the chain's span over K, and its host wall time
// per step measured; a mode the backend cannot run is unavailable with the reason.
TEST(RunnerChain, EveryVulkanModeIsARowVerifiedAndTimedPerStep) {
  FakeBackend fake;
  fake.unsupported_submission = Submission::wait_each;
  const RunOutcome out = run(fake, config({"chain"}));
  ASSERT_EQ(out.rows.size(), 4u);
  const std::vector<std::string> modes = {"recorded", "rerecorded", "submit-each", "wait-each"};
  for (std::size_t i = 0; i < out.rows.size(); ++i) {
    const ResultRow& r = out.rows[i];
    ASSERT_TRUE(r.submission.has_value());
    EXPECT_EQ(submission_name(*r.submission), modes[i]);
    EXPECT_EQ(r.n, 1024u);
    if (*r.submission == Submission::wait_each) {
      EXPECT_EQ(r.status, Status::unavailable);
      EXPECT_EQ(r.reason, "not here");
      continue;
    }
    EXPECT_EQ(r.status, Status::ok) << r.reason;
    EXPECT_TRUE(r.verified);
    EXPECT_DOUBLE_EQ(r.time_ms.median, 1.0 / kChainSteps);  // the fake's 1 ms span over K
    ASSERT_TRUE(r.host_us_per_step.has_value());
    EXPECT_GT(*r.host_us_per_step, 0.0);
    EXPECT_EQ(variant_label(r), "scalar " + modes[i]);
  }
  EXPECT_NE(std::find(fake.submissions.begin(), fake.submissions.end(), Submission::submit_each),
            fake.submissions.end());
}

// Issue 49: the host loop runs its ceil(1000 / K) whole chains where they fit in --max-time (the
// rows above: host_chains recorded), else as many as fit, at least one: a chain of 20 ms (the
// fake sleeps per repetition) gets 5 in a 0.1 s budget instead of ceil(1000 / K).
TEST(RunnerChain, TheHostLoopKeepsTheTimeBudget) {
  const std::uint32_t all = (1000 + kChainSteps - 1) / kChainSteps;  // kChainHostSteps: 16
  {
    FakeBackend fake;
    const RunOutcome out = run(fake, config({"chain"}));
    for (const ResultRow& r : out.rows) EXPECT_EQ(r.host_chains, std::optional<std::uint32_t>(all));
  }
  FakeBackend slow;
  slow.sleep_ms_per_rep = 20.0;
  RunConfig cfg = config({"chain"});
  cfg.max_time_s = 0.1;
  const RunOutcome out = run(slow, cfg);
  ASSERT_FALSE(out.rows.empty());
  for (const ResultRow& r : out.rows) {
    ASSERT_TRUE(r.host_chains.has_value()) << r.reason;
    EXPECT_GE(*r.host_chains, 1u);
    EXPECT_LE(*r.host_chains, 5u);
    EXPECT_LT(*r.host_chains, all);
  }
}

// A chain that leaves out one step (any of them) fails verification on every element: the
// K-step reference is what is checked, not a single dispatch.
TEST(RunnerChain, ASkippedStepFailsTheRow) {
  for (int skip : {0, 31, static_cast<int>(kChainSteps) - 1}) {
    FakeBackend fake;
    fake.skip_chain_step = skip;
    const RunOutcome out = run(fake, config({"chain"}));
    ASSERT_EQ(out.rows.size(), 4u);
    for (const ResultRow& r : out.rows) {
      EXPECT_EQ(r.status, Status::failed) << skip;
      EXPECT_EQ(r.mismatches, 1024u) << skip;
    }
  }
}

// Without --n the chain runs at its own sizes (a CPU device: cpu_sizes); other tests' rows and
// lanes are untouched by the submission lanes.
TEST(RunnerChain, OwnSizesWithoutNAndNoModesOnOtherTests) {
  FakeBackend fake;
  fake.copies_input = "copy";
  RunConfig cfg = config({"copy", "chain"});
  cfg.variants = {"scalar"};
  cfg.n = 0;
  const RunOutcome out = run(fake, cfg);
  std::vector<std::uint32_t> chain_sizes;
  for (const ResultRow& r : out.rows) {
    if (r.test != "chain") {
      EXPECT_FALSE(r.submission.has_value());
      EXPECT_EQ(r.n, kDefaultCpuN);
      continue;
    }
    if (r.submission == Submission::recorded) chain_sizes.push_back(r.n);
  }
  EXPECT_EQ(chain_sizes, find_test("chain")->cpu_sizes);
}

// Issue 49's mutation audit: the host time per step divided by K - 1 went unnoticed (at K = 64 an
// error of 1.6%, within any bound a wall clock allows). measure_chain_host on a chain of K = 2
// steps (no buffers: the fake only sleeps, 20 ms a chain): one warm-up chain, then host_chains
// chains in one call; the time per step times K times the chains is the runner's wall time around
// that call, so at least the call's own (the fake's clock, inside it) and far below twice it,
// which a divisor of K - 1 = 1 gives.
TEST(RunnerChain, TheHostTimePerStepIsTheCallsWallTimeOverItsSteps) {
  FakeBackend fake;
  fake.sleep_ms_per_rep = 20.0;
  Launch launch;
  launch.kernel = "chain";
  CuvkParams params{};
  params.n = 1;
  launch.scalars.resize(sizeof params);
  std::memcpy(launch.scalars.data(), &params, sizeof params);
  launch.chain = {2, Submission::recorded, nullptr};
  RunOutcome out;
  out.max_time_s = 0.2;
  ResultRow row;
  runner_detail::measure_chain_host(fake, launch, out, row);
  ASSERT_EQ(fake.batch_sizes.size(), 2u);  // the warm-up chain, then the measured ones
  ASSERT_EQ(fake.call_s.size(), 2u);
  EXPECT_EQ(fake.batch_sizes[0], 1);
  ASSERT_TRUE(row.host_chains.has_value());
  ASSERT_TRUE(row.host_us_per_step.has_value());
  EXPECT_EQ(fake.batch_sizes[1], static_cast<int>(*row.host_chains));
  EXPECT_GE(*row.host_chains, 1u);  // 0.2 s over a 20 ms chain: about 10 (the clock decides)
  const double call_us = fake.call_s[1] * 1e6;
  const double steps = 2.0 * *row.host_chains;
  EXPECT_GE(*row.host_us_per_step * steps, call_us * (1.0 - 1e-9));
  EXPECT_LT(*row.host_us_per_step * steps, 1.5 * call_us);
}
