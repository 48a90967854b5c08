// Robust statistics of repeated GPU times. Ratios use medians, never means.
#pragma once

#include <cstddef>
#include <vector>

namespace cuvk {

struct Summary {
  double median = 0.0;
  double min = 0.0;
  double max = 0.0;
  double q1 = 0.0;  // 25th percentile
  double q3 = 0.0;  // 75th percentile
  // Interquartile range over the median: the typical relative run-to-run spread, insensitive to
  // the odd outlier that min/max report.
  double rel_spread = 0.0;
  std::size_t samples = 0;
};

// Linear-interpolated quantile (q in [0, 1]) of sorted values.
double quantile_sorted(const std::vector<double>& sorted, double q);

// Throws std::invalid_argument on an empty sample.
Summary summarize(std::vector<double> values);

}  // namespace cuvk
