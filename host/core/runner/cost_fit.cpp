#include "cost_fit.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>
#include <string>

#include <fmt/format.h>

#include "stats.h"

namespace cuvk {

namespace {

double median_of(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return quantile_sorted(v, 0.5);
}

// The Theil-Sen estimate alone; nullopt-like false where every x is equal.
bool estimate(const std::vector<double>& x, const std::vector<double>& y, double& a, double& b) {
  std::vector<double> slopes;
  slopes.reserve(x.size() * (x.size() - 1) / 2);
  for (std::size_t i = 0; i < x.size(); ++i)
    for (std::size_t j = i + 1; j < x.size(); ++j)
      if (x[j] != x[i]) slopes.push_back((y[j] - y[i]) / (x[j] - x[i]));
  if (slopes.empty()) return false;
  b = median_of(std::move(slopes));
  std::vector<double> intercepts(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) intercepts[i] = y[i] - b * x[i];
  a = median_of(std::move(intercepts));
  return true;
}

}  // namespace

LineFit theil_sen(const std::vector<double>& x, const std::vector<double>& y, std::uint64_t seed) {
  if (x.size() != y.size()) throw std::invalid_argument("theil_sen: x and y differ in length");
  if (x.size() < 3) throw std::invalid_argument("theil_sen: fewer than 3 points");
  LineFit fit;
  fit.points = x.size();
  if (!estimate(x, y, fit.a, fit.b)) throw std::invalid_argument("theil_sen: every x is equal");
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double r = y[i] - (fit.a + fit.b * x[i]);
    fit.residuals.push_back(r);
    if (y[i] != 0.0)
      fit.max_abs_rel_residual = std::max(fit.max_abs_rel_residual, std::abs(r / y[i]));
  }
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::size_t> pick(0, x.size() - 1);
  std::vector<double> as, bs, bx(x.size()), by(y.size());
  for (int r = 0; r < kBootstrapResamples; ++r) {
    for (std::size_t i = 0; i < x.size(); ++i) {
      const std::size_t k = pick(rng);
      bx[i] = x[k];
      by[i] = y[k];
    }
    double a = 0.0, b = 0.0;
    if (!estimate(bx, by, a, b)) continue;  // a resample of one x: no slope to take
    as.push_back(a);
    bs.push_back(b);
  }
  std::sort(as.begin(), as.end());
  std::sort(bs.begin(), bs.end());
  const double lo = (1.0 - kCiLevel) / 2.0, hi = 1.0 - lo;
  fit.a_low = quantile_sorted(as, lo);
  fit.a_high = quantile_sorted(as, hi);
  fit.b_low = quantile_sorted(bs, lo);
  fit.b_high = quantile_sorted(bs, hi);
  return fit;
}

DispatchCost fit_dispatch_cost(const std::vector<DispatchPoint>& points, double blocks_per_wave,
                               double waves) {
  if (!(blocks_per_wave > 0.0))
    throw std::invalid_argument("fit_dispatch_cost: no blocks per wave");
  DispatchCost cost;
  cost.min_blocks = waves * blocks_per_wave;
  std::vector<double> x, y;
  for (const DispatchPoint& p : points) {
    if (p.blocks >= cost.min_blocks) {
      x.push_back(p.blocks);
      y.push_back(p.median_us);
    } else {
      ++cost.points_left_out;
    }
  }
  if (x.size() < 3)
    throw std::invalid_argument(
        fmt::format("fit_dispatch_cost: fewer than 3 points at {:f} waves or more", waves));
  cost.fit = theil_sen(x, y);
  return cost;
}

}  // namespace cuvk
