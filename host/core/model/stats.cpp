#include "stats.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace cuvk {

double quantile_sorted(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) throw std::invalid_argument("quantile of an empty sample");
  const double pos = q * static_cast<double>(sorted.size() - 1);
  const std::size_t lo = static_cast<std::size_t>(std::floor(pos));
  const std::size_t hi = std::min(lo + 1, sorted.size() - 1);
  const double frac = pos - static_cast<double>(lo);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * frac;
}

Summary summarize(std::vector<double> values) {
  if (values.empty()) throw std::invalid_argument("summary of an empty sample");
  std::sort(values.begin(), values.end());
  Summary s;
  s.samples = values.size();
  s.min = values.front();
  s.max = values.back();
  s.median = quantile_sorted(values, 0.5);
  s.q1 = quantile_sorted(values, 0.25);
  s.q3 = quantile_sorted(values, 0.75);
  s.rel_spread = s.median > 0.0 ? (s.q3 - s.q1) / s.median : 0.0;
  const auto [lo, hi] = median_ci_ranks(values.size());
  s.ci_low = values[lo];
  s.ci_high = values[hi];
  s.ci_rel_half_width = s.median > 0.0 ? (s.ci_high - s.ci_low) / 2.0 / s.median : 0.0;
  return s;
}

std::pair<std::size_t, std::size_t> median_ci_ranks(std::size_t n) {
  if (n == 0) throw std::invalid_argument("confidence interval of an empty sample");
  const double half = kCiZ * std::sqrt(static_cast<double>(n)) / 2.0;
  const double centre = static_cast<double>(n - 1) / 2.0;
  const double lo = std::floor(centre - half), hi = std::ceil(centre + half);
  return {lo < 0.0 ? 0 : static_cast<std::size_t>(lo),
          std::min(n - 1, static_cast<std::size_t>(hi))};
}

StopReason should_stop(const Summary& s, double elapsed_s, const StopRule& rule) {
  if (s.samples >= rule.min_samples && s.ci_rel_half_width <= rule.target_rel_half_width)
    return StopReason::converged;
  if (s.samples >= rule.max_samples) return StopReason::sample_budget;
  if (elapsed_s >= rule.max_time_s &&
      s.samples >= std::min(rule.min_samples, kFloorSamples))  // the minimum yields to the budget
    return StopReason::time_budget;
  return StopReason::more;
}

}  // namespace cuvk
