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

TEST(Stats, MedianCiRanksBracketTheMedian) {
  // n = 100: 49.5 -+ 9.8 -> ranks 39 and 60 (0-based).
  EXPECT_EQ(cuvk::median_ci_ranks(100), (std::pair<std::size_t, std::size_t>{39, 60}));
  EXPECT_EQ(cuvk::median_ci_ranks(1), (std::pair<std::size_t, std::size_t>{0, 0}));
  const auto [lo, hi] = cuvk::median_ci_ranks(5);  // tiny samples: the whole range
  EXPECT_EQ(lo, 0u);
  EXPECT_EQ(hi, 4u);
}

TEST(Stats, CiCoversTheTrueMedianAboutNinetyFivePercentOfTheTime) {
  // Uniform(0,1) samples of 101 from a fixed LCG: the true median is 0.5.
  std::uint64_t state = 12345;
  auto uniform = [&state] {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<double>(state >> 11) / static_cast<double>(1ull << 53);
  };
  int covered = 0;
  const int trials = 2000;
  for (int t = 0; t < trials; ++t) {
    std::vector<double> v(101);
    for (double& x : v) x = uniform();
    const cuvk::Summary s = summarize(v);
    covered += (s.ci_low <= 0.5 && 0.5 <= s.ci_high) ? 1 : 0;
  }
  const double coverage = static_cast<double>(covered) / trials;
  EXPECT_GT(coverage, 0.93);
  EXPECT_LT(coverage, 0.99);
}

TEST(Stats, StoppingRule) {
  cuvk::StopRule rule;
  rule.min_samples = 10;
  rule.max_samples = 1000;
  rule.target_rel_half_width = 0.01;
  rule.max_time_s = 1.0;
  cuvk::Summary tight = summarize(std::vector<double>(10, 2.0));
  EXPECT_EQ(cuvk::should_stop(tight, 0.1, rule), cuvk::StopReason::converged);
  cuvk::Summary few = summarize(std::vector<double>(5, 2.0));
  EXPECT_EQ(cuvk::should_stop(few, 0.5, rule), cuvk::StopReason::more);  // below min samples
  // Issue 49: past the budget the minimum yields down to 6 samples (a slow launch keeps the
  // budget), never below.
  EXPECT_EQ(cuvk::should_stop(few, 1.5, rule), cuvk::StopReason::more);
  EXPECT_EQ(cuvk::should_stop(few, 100.0, rule), cuvk::StopReason::more);
  std::vector<double> six_noisy{1.0, 3.0, 1.0, 3.0, 1.0, 3.0};
  const cuvk::Summary six = summarize(six_noisy);
  EXPECT_EQ(cuvk::should_stop(six, 0.9, rule), cuvk::StopReason::more);
  EXPECT_EQ(cuvk::should_stop(six, 1.0, rule), cuvk::StopReason::time_budget);
  EXPECT_EQ(cuvk::should_stop(cuvk::Summary{}, 5.0, rule), cuvk::StopReason::more);  // none yet
  std::vector<double> noisy;
  for (int i = 0; i < 20; ++i) noisy.push_back(i % 2 ? 1.0 : 3.0);
  const cuvk::Summary wide = summarize(noisy);
  EXPECT_EQ(cuvk::should_stop(wide, 0.1, rule), cuvk::StopReason::more);
  EXPECT_EQ(cuvk::should_stop(wide, 1.5, rule), cuvk::StopReason::time_budget);
  std::vector<double> many(1000, 1.0);
  many[0] = 100.0;
  cuvk::Summary capped = summarize(many);
  capped.ci_rel_half_width = 1.0;  // pretend it never converges
  EXPECT_EQ(cuvk::should_stop(capped, 0.1, rule), cuvk::StopReason::sample_budget);
}

// Issue 49's mutation audit: the rule satisfied at twice the target half-width went unnoticed.
// Converged exactly up to the target, not a step beyond it (the half-width set, the rest fixed).
TEST(Stats, TheStoppingRuleConvergesAtTheTargetHalfWidthNotBeyond) {
  cuvk::StopRule rule;
  rule.min_samples = 10;
  rule.max_samples = 1000;
  rule.target_rel_half_width = 0.01;
  rule.max_time_s = 1.0;
  cuvk::Summary s = summarize(std::vector<double>(20, 2.0));
  for (const double w : {0.0, 0.005, 0.01}) {
    s.ci_rel_half_width = w;
    EXPECT_EQ(cuvk::should_stop(s, 0.1, rule), cuvk::StopReason::converged) << w;
  }
  for (const double w : {0.0101, 0.015, 0.02, 0.0199}) {
    s.ci_rel_half_width = w;
    EXPECT_EQ(cuvk::should_stop(s, 0.1, rule), cuvk::StopReason::more) << w;
  }
}

// Issue 31's mutation audit: the CI's relative half-width doubled went unnoticed. It is half the
// interval over the median: 1..100 (n = 100: ranks 39 and 60, values 40 and 61; median 50.5).
TEST(Stats, TheCisRelativeHalfWidthIsHalfTheIntervalOverTheMedian) {
  std::vector<double> v;
  for (int i = 1; i <= 100; ++i) v.push_back(i);
  const cuvk::Summary s = summarize(v);
  EXPECT_DOUBLE_EQ(s.ci_low, 40.0);
  EXPECT_DOUBLE_EQ(s.ci_high, 61.0);
  EXPECT_DOUBLE_EQ(s.ci_rel_half_width, (61.0 - 40.0) / 2.0 / 50.5);
}
