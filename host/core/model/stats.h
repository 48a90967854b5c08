// Robust statistics of repeated GPU times. Ratios use medians, never means.
#pragma once

#include <cstddef>
#include <utility>
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
  // Distribution-free 95% confidence interval of the median (order statistics).
  double ci_low = 0.0;
  double ci_high = 0.0;
  double ci_rel_half_width = 0.0;  // (ci_high - ci_low) / 2 / median
};

constexpr double kCiLevel = 0.95;
constexpr double kCiZ = 1.959963984540054;  // two-sided 95% normal quantile

// Ranks (0-based, inclusive) of the order statistics that bound the median's 95% interval for
// n samples: n/2 -+ z*sqrt(n)/2, widened outward, clamped to the sample.
std::pair<std::size_t, std::size_t> median_ci_ranks(std::size_t n);

// The stopping rule: stop once the median's interval is within `target_rel_half_width` of the
// median (with at least `min_samples`), or when the time or sample budget is spent.
// The stopping rule: batches until the median's CI is within the target after at least
// min_samples, or max_samples, or the time budget. Where the budget cannot afford min_samples
// (a slow launch), the minimum yields down to kFloorSamples (the fewest whose order statistics
// give a 95% interval of the median) once max_time_s has passed (issue 49). Rows that reach
// min_samples within the budget stop exactly as before.
inline constexpr std::size_t kFloorSamples = 6;
struct StopRule {
  std::size_t min_samples = 100;
  std::size_t max_samples = 10000;
  double target_rel_half_width = 0.005;
  double max_time_s = 2.0;
};
enum class StopReason { more, converged, time_budget, sample_budget };
StopReason should_stop(const Summary& s, double elapsed_s, const StopRule& rule);

// Linear-interpolated quantile (q in [0, 1]) of sorted values.
double quantile_sorted(const std::vector<double>& sorted, double q);

// Throws std::invalid_argument on an empty sample.
Summary summarize(std::vector<double> values);

}  // namespace cuvk
