// The dispatch cost model (issue 33): a dispatch of B blocks (workgroups) costs about a + b * B
// once the grid spans a few waves; within one wave the time is flat (every block starts at once),
// so points below `min_blocks` are left out of the fit. The line is fitted robustly (Theil-Sen:
// the median of the pairwise slopes, the intercept the median of y - b*x), so one slow sample or
// a step between waves moves it little; its 95% intervals come from a percentile bootstrap over
// the points with a fixed seed (the same data give the same intervals).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace cuvk {

struct LineFit {
  double a = 0.0;                     // intercept (y at x = 0)
  double b = 0.0;                     // slope (y per unit of x)
  double a_low = 0.0, a_high = 0.0;   // 95% bootstrap interval of a
  double b_low = 0.0, b_high = 0.0;   // 95% bootstrap interval of b
  std::vector<double> residuals;      // y - (a + b*x), per point, in the input's order
  double max_abs_rel_residual = 0.0;  // max |residual| / y over the points
  std::size_t points = 0;
};

constexpr int kBootstrapResamples = 1000;

// Theil-Sen line through (x, y). Throws std::invalid_argument with fewer than 3 points, different
// lengths, or where every x is equal (no slope).
LineFit theil_sen(const std::vector<double>& x, const std::vector<double>& y,
                  std::uint64_t seed = 1);

// One point of a dispatch-size sweep: blocks launched, median GPU time (us).
struct DispatchPoint {
  double blocks = 0.0;
  double median_us = 0.0;
};

struct DispatchCost {
  LineFit fit;              // us = a + b * blocks over the points with blocks >= min_blocks
  double min_blocks = 0.0;  // the first point fitted (`waves` waves of resident blocks)
  std::size_t points_left_out = 0;
};

// `blocks_per_wave`: the blocks resident at once on the whole device (SMs x blocks per SM); the
// fit keeps the points at `waves` waves or more. Throws std::invalid_argument where fewer than 3
// points remain.
DispatchCost fit_dispatch_cost(const std::vector<DispatchPoint>& points, double blocks_per_wave,
                               double waves = 4.0);

}  // namespace cuvk
