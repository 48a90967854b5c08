// Lanes: a row per copy queue family, the plan of the rows a run streams, the copy-engine sweep.
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

// Copy-engine points get a row per copy queue family: the own family's on the native lane, one
// lane per other family; a family without timestamps or queues is unavailable with the reason,
// and one that runs no kernels copies without the L2 flush (flagged). Other tests get no such rows.
TEST(RunnerQueues, EveryCopyFamilyGetsItsOwnEngineRow) {
  FakeBackend fake;
  fake.copies_input = kCopyEngine;
  fake.families = {{0, "graphics|compute|transfer", 16, 64, true, true},
                   {1, "transfer", 2, 64, false, false},
                   {2, "compute|transfer", 8, 0, true, false},
                   {3, "compute|transfer", 0, 64, true, false}};
  RunConfig cfg = config({"copy_engine", "copy"});
  cfg.variants = {"scalar", "engine"};
  cfg.axis_values["copy_mib"] = {1};
  const RunOutcome out = run(fake, cfg);
  std::map<std::uint32_t, int> engine_rows;  // per queue family, over copy/engine and copy_engine
  for (const ResultRow& r : out.rows) {
    SCOPED_TRACE(r.test + " " + r.variant);
    if (r.kernel != kCopyEngine) {
      EXPECT_FALSE(r.queue_family.has_value());
      EXPECT_TRUE(r.queue_flags.empty());
      continue;
    }
    ASSERT_TRUE(r.queue_family.has_value());
    ++engine_rows[*r.queue_family];
    EXPECT_EQ(r.binding, Binding::descriptor);
    EXPECT_EQ(r.queue_flags, fake.families[*r.queue_family].flags);
    const bool no_flush =
        std::find(r.flags.begin(), r.flags.end(), "l2_not_flushed") != r.flags.end();
    switch (*r.queue_family) {
      case 0:
      case 2:
      case 3:
        EXPECT_FALSE(no_flush);
        break;
      case 1:
        EXPECT_TRUE(no_flush);
        break;
    }
    if (*r.queue_family <= 1) {
      EXPECT_EQ(r.status, Status::ok) << r.reason;
      EXPECT_TRUE(r.verified);
    } else {
      EXPECT_EQ(r.status, Status::unavailable);
      EXPECT_NE(r.reason.find(*r.queue_family == 2 ? "timestampValidBits = 0" : "no queues"),
                std::string::npos)
          << r.reason;
    }
  }
  EXPECT_EQ(engine_rows, (std::map<std::uint32_t, int>{{0, 2}, {1, 2}, {2, 2}, {3, 2}}));
  // The own family runs on the backend's own queue (-1); the flush is skipped only on family 1.
  int own = 0, other = 0;
  for (const FakeBackend::Seen& s : fake.launches) {
    if (s.kernel != kCopyEngine) continue;
    EXPECT_TRUE(s.queue_family == -1 || s.queue_family == 1) << s.queue_family;
    (s.queue_family == -1 ? own : other) += 1;
    if (s.queue_family == 1) {
      EXPECT_FALSE(s.flushed);
    }
  }
  EXPECT_GT(own, 0);
  EXPECT_GT(other, 0);
}

// The streamed table sizes its columns before the first row from RunOutcome::planned (issue 36
// item 7): every row the run streams is planned, in order, with its variant label and lane.
TEST(RunnerQueues, ThePlanListsEveryRowTheRunStreams) {
  FakeBackend fake;
  fake.copies_input = kCopyEngine;
  fake.families = {{0, "graphics|compute|transfer|sparse", 16, 64, true, true},
                   {1, "transfer", 2, 64, false, false}};
  RunConfig cfg = config({"copy_engine", "copy"});
  cfg.variants = {"scalar", "engine"};
  cfg.axis_values["copy_mib"] = {1};
  cfg.block_sizes = {128, 256};
  std::vector<ResultRow> planned;
  RunObserver observer;
  observer.on_start = [&planned](const RunOutcome& settings) { planned = settings.planned; };
  const RunOutcome out = run(fake, cfg, observer);
  ASSERT_GE(out.rows.size(), 6u);
  ASSERT_EQ(planned.size(), out.rows.size());
  for (std::size_t i = 0; i < out.rows.size(); ++i) {
    SCOPED_TRACE(i);
    EXPECT_TRUE(same_point(planned[i], out.rows[i]));
    EXPECT_TRUE(same_lane(planned[i], out.rows[i]));
    EXPECT_EQ(variant_label(planned[i]), variant_label(out.rows[i]));
  }
}

// A lane is (API, binding, queue family): rows of one point on two queue families are two lanes.
TEST(RunnerQueues, SameLaneTellsQueueFamiliesApart) {
  ResultRow a;
  a.api = Api::vulkan;
  a.binding = Binding::descriptor;
  a.queue_family = 0;
  ResultRow b = a;
  EXPECT_TRUE(same_lane(a, b));
  b.queue_family = 1;
  EXPECT_FALSE(same_lane(a, b));
  EXPECT_TRUE(same_point(a, b));
}

// The copy-engine size sweep is off unless --copy-mibs gives sizes: the default run has no
// copy_engine rows, and selecting only copy_engine without sizes says which option turns it on.
TEST(RunnerQueues, CopyEngineSweepIsOffWithoutSizes) {
  FakeBackend fake;
  fake.copies_input = kCopyEngine;
  RunConfig cfg = config({"copy_engine", "copy"});
  cfg.variants = {"scalar"};
  cfg.axis_values["copy_mib"] = {};
  const RunOutcome out = run(fake, cfg);
  ASSERT_EQ(out.rows.size(), 1u);  // copy scalar alone: copy_engine has no points
  for (const ResultRow& r : out.rows) EXPECT_EQ(r.test, "copy");
  cfg.tests = {"copy_engine"};
  try {
    run(fake, cfg);
    FAIL() << "an empty selection ran";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("copy_engine runs only with --copy-mibs"),
              std::string::npos)
        << e.what();
  }
}
