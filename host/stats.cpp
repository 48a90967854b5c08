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
  return s;
}

}  // namespace cuvk
