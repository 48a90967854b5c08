// A run's rows against its outputs: a kernel that writes nothing or writes some elements wrong
// fails its row; a right one is verified and timed; on a GPU the check beside the measuring still
// decides.
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

TEST(Runner, KernelThatWritesNothingFailsVerificationWithCountAndIndex) {
  FakeBackend fake;
  const RunOutcome out = run(fake, config({"read_x"}));
  ASSERT_EQ(out.rows.size(), 2u);
  for (const ResultRow& r : out.rows) {
    EXPECT_EQ(r.status, Status::failed);
    EXPECT_FALSE(r.verified);
    EXPECT_EQ(r.mismatches, 1024u);
    ASSERT_TRUE(r.first_bad_index.has_value());
    EXPECT_EQ(*r.first_bad_index, 0u);
    EXPECT_NE(r.reason.find("1024 of 1024 elements wrong"), std::string::npos) << r.reason;
    EXPECT_EQ(r.time_ms.samples, 0u);  // a failed check is never a number
  }
}

TEST(Runner, ACorrectKernelIsVerifiedAndTimed) {
  FakeBackend fake;
  fake.copies_input = "copy";
  const RunOutcome out = run(fake, config({"copy"}));
  const auto ok = std::count_if(out.rows.begin(), out.rows.end(),
                                [](const ResultRow& r) { return r.status == Status::ok; });
  EXPECT_EQ(ok, 1);  // the fake executes only the kernel named "copy"; vec4 and engine fail
  EXPECT_EQ(std::count_if(out.rows.begin(), out.rows.end(),
                          [](const ResultRow& r) { return r.variant == "scalar"; }),
            1);
  for (const ResultRow& r : out.rows)
    if (r.variant == "scalar") {
      EXPECT_TRUE(r.verified);
      EXPECT_EQ(r.check, Check::verified);  // against the CPU's own result: independent
      EXPECT_EQ(r.checked_against, std::vector<std::string>{"cpu reference"});
      EXPECT_EQ(r.checked, 1024u);
      EXPECT_DOUBLE_EQ(r.time_ms.median, 1.0);
      EXPECT_EQ(r.stop_reason, "converged");
    }
}

// Issue 22: on a GPU each lane's output is checked on the host while the GPU measures. The check
// still decides: a wrong output fails its row and its timings are dropped, never reported.
TEST(RunnerCheckBesideMeasuring, AWrongOutputOnAGpuFailsAndIsNeverANumber) {
  FakeBackend fake;
  fake.set_gpu();
  const RunOutcome out = run(fake, config({"read_x"}));
  ASSERT_EQ(out.rows.size(), 2u);
  for (const ResultRow& r : out.rows) {
    EXPECT_EQ(r.status, Status::failed);
    EXPECT_FALSE(r.verified);
    EXPECT_EQ(r.mismatches, 1024u);
    EXPECT_NE(r.reason.find("1024 of 1024 elements wrong"), std::string::npos) << r.reason;
    EXPECT_EQ(r.time_ms.samples, 0u);
    EXPECT_TRUE(r.stop_reason.empty()) << r.stop_reason;
    EXPECT_TRUE(r.flags.empty());
  }
}

TEST(RunnerCheckBesideMeasuring, ARightOutputOnAGpuIsVerifiedTimedAndAccounted) {
  FakeBackend fake;
  fake.set_gpu();
  fake.copies_input = "copy";
  RunConfig cfg = config({"copy"});
  cfg.variants = {"scalar"};
  const RunOutcome out = run(fake, cfg);
  ASSERT_EQ(out.rows.size(), 1u);
  const ResultRow& r = out.rows[0];
  EXPECT_EQ(r.status, Status::ok) << r.reason;
  EXPECT_TRUE(r.verified);
  EXPECT_EQ(r.checked, 1024u);
  EXPECT_TRUE(r.output_hash.has_value());
  EXPECT_DOUBLE_EQ(r.time_ms.median, 1.0);
  const auto named = [](const std::vector<std::pair<std::string, double>>& v, const char* name) {
    return std::any_of(v.begin(), v.end(), [name](const auto& p) { return p.first == name; });
  };
  EXPECT_TRUE(named(out.background_s, "verify (beside measuring)"));
  EXPECT_TRUE(named(out.phase_s, "vulkan verify"));  // the wait for it after measuring
}
