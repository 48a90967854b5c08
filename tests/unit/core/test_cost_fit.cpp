// The dispatch cost model's fit (host/core/runner/cost_fit.h) on synthetic data with known a and b.
#include <gtest/gtest.h>

#include <cmath>
#include <random>
#include <stdexcept>
#include <vector>

#include "cost_fit.h"

namespace cuvk {
namespace {

TEST(CostFit, AnExactLineIsRecoveredWithATightInterval) {
  const std::vector<double> x = {1, 2, 4, 8, 16, 32};
  std::vector<double> y;
  for (double v : x) y.push_back(3.0 + 0.5 * v);
  const LineFit f = theil_sen(x, y);
  EXPECT_DOUBLE_EQ(f.a, 3.0);
  EXPECT_DOUBLE_EQ(f.b, 0.5);
  EXPECT_NEAR(f.a_low, 3.0, 1e-9);
  EXPECT_NEAR(f.b_high, 0.5, 1e-9);
  EXPECT_EQ(f.points, 6u);
  for (double r : f.residuals) EXPECT_NEAR(r, 0.0, 1e-9);
}

// A GPU-like staircase: a dispatch of B blocks on a device that runs `wave` blocks at once costs
// a + b * (B rounded up to whole waves), with 1% noise and two samples three times too slow.
TEST(CostFit, TheStaircaseWithNoiseAndOutliersGivesTheKnownCosts) {
  const double a = 8.0, b = 0.004, wave = 132.0 * 8.0;
  std::mt19937_64 rng(7);
  std::normal_distribution<double> noise(0.0, 0.01);
  std::vector<DispatchPoint> points;
  for (double blocks = 1; blocks <= (1 << 20); blocks *= 1.5) {
    const double rounded = std::ceil(blocks / wave) * wave;
    points.push_back({blocks, (a + b * rounded) * (1.0 + noise(rng))});
  }
  points[points.size() - 3].median_us *= 3.0;
  points[points.size() - 7].median_us *= 3.0;
  const DispatchCost cost = fit_dispatch_cost(points, wave, 4.0);
  EXPECT_GT(cost.points_left_out, 10u) << "points within the first waves are not fitted";
  EXPECT_NEAR(cost.fit.b, b, 0.05 * b);
  EXPECT_NEAR(cost.fit.a, a, 0.5 * a);
  EXPECT_LE(cost.fit.b_low, b);
  EXPECT_GE(cost.fit.b_high, b);
  EXPECT_LE(cost.fit.a_low, a);
  EXPECT_GE(cost.fit.a_high, a);
  EXPECT_GT(cost.fit.max_abs_rel_residual, 0.5) << "the outliers show in the residuals";
}

TEST(CostFit, TooFewPointsOrNoSlopeIsRefused) {
  EXPECT_THROW(theil_sen({1, 2}, {1, 2}), std::invalid_argument);
  EXPECT_THROW(theil_sen({1, 2, 3}, {1, 2}), std::invalid_argument);
  EXPECT_THROW(theil_sen({5, 5, 5}, {1, 2, 3}), std::invalid_argument);
  EXPECT_THROW(fit_dispatch_cost({{1, 1}, {2, 2}, {3000, 5}}, 100.0), std::invalid_argument);
  EXPECT_THROW(fit_dispatch_cost({{1, 1}}, 0.0), std::invalid_argument);
}

TEST(CostFit, TheSameDataGiveTheSameIntervals) {
  const std::vector<double> x = {1, 2, 3, 4, 5, 6, 7, 8};
  const std::vector<double> y = {1.1, 2.3, 2.9, 4.2, 5.0, 5.8, 7.3, 8.1};
  const LineFit f1 = theil_sen(x, y), f2 = theil_sen(x, y);
  EXPECT_EQ(f1.a_low, f2.a_low);
  EXPECT_EQ(f1.b_high, f2.b_high);
}

}  // namespace
}  // namespace cuvk
