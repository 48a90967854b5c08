// The runner's verdict as cuvk run's exit code (host/app/run.h run_exit_code), over the fake
// backend of tests/unit/core/runner_fixture.h. (Split from tests/test_runner.cpp.)
#include <gtest/gtest.h>

#include "cmd_run.h"
#include "runner.h"
#include "runner_fixture.h"

using namespace cuvk;
using namespace cuvk::runner_test;

// Issue 31's mutation audit: a built-in row stayed ok and verified while some, not all, of its
// elements mismatched. Wrong at random positions, the tail among them: the row fails, counts
// every wrong element, names the first, and the run exits 1.
TEST(Runner, APartlyWrongBuiltInOutputFailsTheRowAndTheExitCode) {
  FakeBackend fake;
  fake.copies_input = "copy";
  fake.corrupt = {1023, 5, 700, 512, 64};
  RunConfig cfg = config({"copy"});
  cfg.variants = {"scalar"};
  RunDocument doc;
  doc.outcome = run(fake, cfg);
  ASSERT_EQ(doc.outcome.rows.size(), 1u);
  const ResultRow& r = doc.outcome.rows[0];
  EXPECT_EQ(r.status, Status::failed);
  EXPECT_FALSE(r.verified);
  EXPECT_EQ(r.checked, 1024u);
  EXPECT_EQ(r.mismatches, 5u);
  ASSERT_TRUE(r.first_bad_index.has_value());
  EXPECT_EQ(*r.first_bad_index, 5u);
  EXPECT_NE(r.reason.find("5 of 1024 elements wrong, first at index 5"), std::string::npos)
      << r.reason;
  EXPECT_EQ(run_exit_code(doc), 1);
  fake.corrupt = {1023};  // the last element alone
  doc.outcome = run(fake, cfg);
  ASSERT_EQ(doc.outcome.rows.size(), 1u);
  EXPECT_EQ(doc.outcome.rows[0].status, Status::failed);
  EXPECT_EQ(doc.outcome.rows[0].mismatches, 1u);
  EXPECT_EQ(run_exit_code(doc), 1);
}
