#include <gtest/gtest.h>

#include <stdexcept>

#include "stats.h"

using cuvk::summarize;

TEST(Stats, MedianOfOddAndEvenSamples) {
  EXPECT_DOUBLE_EQ(summarize({3.0, 1.0, 2.0}).median, 2.0);
  EXPECT_DOUBLE_EQ(summarize({4.0, 1.0, 3.0, 2.0}).median, 2.5);
}

TEST(Stats, MinMaxAndCount) {
  const cuvk::Summary s = summarize({5.0, 1.0, 9.0, 2.0});
  EXPECT_DOUBLE_EQ(s.min, 1.0);
  EXPECT_DOUBLE_EQ(s.max, 9.0);
  EXPECT_EQ(s.samples, 4u);
}

TEST(Stats, RelativeSpreadIsIqrOverMedianAndIgnoresOneOutlier) {
  // 1..9: q1 = 3, q3 = 7, median 5 -> (7 - 3) / 5.
  EXPECT_NEAR(summarize({1, 2, 3, 4, 5, 6, 7, 8, 9}).rel_spread, 0.8, 1e-12);
  std::vector<double> v(99, 1.0);
  v.push_back(1000.0);  // one outlier moves max, not the spread
  const cuvk::Summary s = summarize(v);
  EXPECT_DOUBLE_EQ(s.rel_spread, 0.0);
  EXPECT_DOUBLE_EQ(s.max, 1000.0);
}

TEST(Stats, QuantileInterpolates) {
  EXPECT_DOUBLE_EQ(cuvk::quantile_sorted({0.0, 10.0}, 0.25), 2.5);
}

TEST(Stats, EmptySampleThrows) { EXPECT_THROW(summarize({}), std::invalid_argument); }
