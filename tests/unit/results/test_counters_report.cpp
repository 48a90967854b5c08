// The counters' report (host/results/counters_report.h): a row without counters says why in its
// cells and its JSON. (Moved from tests/unit/counters/test_counters.cpp: the report is results'.)
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "counters_report.h"

using namespace cuvk;
using nlohmann::json;

TEST(CounterUnavailable, RowCellsSayWhy) {
  ResultRow r;
  r.moved_bytes = 536870912;
  RowCounters c;
  c.kernel_unavailable = c.sampled_unavailable = "a CPU device (llvmpipe) has no hardware counters";
  r.counters = c;
  const auto cells = counter_cells(r);
  ASSERT_EQ(cells.size(), counter_header_cells().size());
  EXPECT_EQ(cells.back(), "unavailable: a CPU device (llvmpipe) has no hardware counters");
  EXPECT_EQ(cells[0], "-");      // no measured sectors/request
  EXPECT_EQ(cells[1], "536.9");  // the model's MB stays: it is labelled model
  EXPECT_EQ(cells[2], "-");      // and nothing is labelled measured
  const json j = counters_json(c);
  EXPECT_EQ(j["sampled"]["unavailable"], c.sampled_unavailable);
  EXPECT_TRUE(j["measured_dram_bytes_per_dispatch"].is_null());
}
