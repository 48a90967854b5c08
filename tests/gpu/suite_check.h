// Shared by the integration tests: run every catalogue test on one backend and check each row.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "runner.h"

namespace cuvk::suite {

// A small configuration that still covers every test, layout, variant and sweep point kind,
// with sizes that are not multiples of the block size (tail threads must do nothing). Tests that
// run only where named (the chain: 1000 steps per submission mode) have their own tests.
inline RunConfig small_suite(Api api) {
  RunConfig cfg;
  for (const TestCase& t : catalogue())
    if (!t.named_only) cfg.tests.push_back(t.name);
  cfg.apis = {api};
  cfg.n = 100003;
  cfg.reps = 3;
  cfg.max_time_s = 0.05;  // keep the suite quick: stop soon even if the CI is wide
  cfg.warmup = 1;
  cfg.axis_values["offset"] = {0, 1, 7, 32};
  cfg.axis_values["stride"] = {1, 3, 32};
  cfg.axis_values["copy_mib"] = {1, 3};  // copy_engine: small copies
  cfg.settle_ms = 1.0;
  cfg.host_cost_samples = 5;
  return cfg;
}

// CI sets CUVK_REQUIRE_VALIDATION=1 (.ci/run): there, a Vulkan device with the Khronos validation
// layer must exist, and its absence fails the validated tests instead of skipping them.
inline bool validation_required() {
  const char* v = std::getenv("CUVK_REQUIRE_VALIDATION");
  return v != nullptr && std::string(v) == "1";
}

inline void expect_all_ok(const RunOutcome& out, Api api) {
  ASSERT_FALSE(out.rows.empty());
  for (const ResultRow& r : out.rows) {
    SCOPED_TRACE(r.kernel + " " + point_label(r));
    EXPECT_EQ(r.api, api);
    EXPECT_EQ(r.status, Status::ok) << r.reason;
    EXPECT_TRUE(r.verified);
    EXPECT_EQ(r.mismatches, 0u);
    EXPECT_GT(r.checked, 0u);
    EXPECT_GE(r.time_ms.samples, 3u);  // more if the CI target was not met yet
    EXPECT_FALSE(r.stop_reason.empty());
    EXPECT_LE(r.time_ms.ci_low, r.time_ms.median);
    EXPECT_GE(r.time_ms.ci_high, r.time_ms.median);
    EXPECT_GT(r.time_ms.median, 0.0);
    EXPECT_GT(r.gbps_useful, 0.0);
  }
}

}  // namespace cuvk::suite
