// Problem size as a point dimension.
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

// Issue 33: problem size is a point dimension. Every point runs at every size, next to each
// other, each verified at its own n; the label names n; "% ceiling" divides by the ceiling at the
// same n.
TEST(RunnerSizes, EveryPointRunsAtEverySizeVerifiedAtItsOwnN) {
  FakeBackend fake;
  fake.copies_input = "copy";
  fake.also_copies = "copy_vec4";
  RunConfig cfg = config({"copy"});
  cfg.variants = {"scalar", "vec4"};
  cfg.sizes = {1024, 4096};
  const RunOutcome out = run(fake, cfg);
  EXPECT_EQ(out.sizes, cfg.sizes);
  ASSERT_EQ(out.rows.size(), 4u);
  const std::vector<std::pair<std::string, std::uint32_t>> order = {
      {"vec4", 1024}, {"vec4", 4096}, {"scalar", 1024}, {"scalar", 4096}};  // the ceiling first
  for (std::size_t i = 0; i < order.size(); ++i) {
    const ResultRow& r = out.rows[i];
    EXPECT_EQ(r.variant, order[i].first);
    EXPECT_EQ(r.n, order[i].second);
    EXPECT_EQ(r.status, Status::ok) << r.reason;
    EXPECT_EQ(r.checked, r.n);
    EXPECT_TRUE(r.n_in_label);
    EXPECT_EQ(point_label(r), r.n == 1024 ? "n=1k" : "n=4k");
    ASSERT_TRUE(r.pct_of_ceiling) << i;
    EXPECT_DOUBLE_EQ(*r.pct_of_ceiling, 100.0) << i;  // same bytes, same time, same n
  }
  EXPECT_EQ(out.planned.size(), 4u);
  // One size: labels as before.
  cfg.sizes = {};
  for (const ResultRow& r : run(fake, cfg).rows) EXPECT_EQ(point_label(r), "");
}
