#include "verdicts.h"

#include <algorithm>
#include <cmath>
#include <cstdlib>

#include "error.h"

namespace cuvk {

MedianCi median_ci(const Summary& s) {
  return {s.median, s.ci_low, s.ci_high};
}

// The ratio's interval combines the two medians' intervals in log space, in quadrature:
//   low  = r * exp(-sqrt(ln(n/n_low)^2  + ln(d_high/d)^2))
//   high = r * exp(+sqrt(ln(n_high/n)^2 + ln(d/d_low)^2))
// Why: the two medians are measured independently, so the variance of ln(n/d) = ln n - ln d is the
// sum of their variances; reading each (possibly asymmetric, order-statistic) 95% half-width in log
// space as 1.96 sigma gives a 95% interval for the log ratio. Log space keeps the ratio positive
// and treats "2x slower" and "2x faster" alike. The conservative box [n_low/d_high, n_high/d_low]
// adds the half-widths instead: with two equal widths it is sqrt(2) times wider (z = 2.77, ~99.4%
// coverage rather than 95%), so it would call UNCERTAIN on points the data already decide. With
// one exact side the two agree. A zero lower bound gives an unbounded side (UNCERTAIN).
RatioCi ratio_ci(const MedianCi& n, const MedianCi& d) {
  auto log_gap = [](double big, double small) {  // ln(big/small) >= 0; +inf when small <= 0
    if (!(small > 0.0)) return HUGE_VAL;
    return std::max(0.0, std::log(big / small));
  };
  RatioCi r;
  r.ratio = n.median / d.median;
  r.low = r.ratio * std::exp(-std::hypot(log_gap(n.median, n.low), log_gap(d.high, d.median)));
  r.high = r.ratio * std::exp(std::hypot(log_gap(n.high, n.median), log_gap(d.median, d.low)));
  return r;
}

Verdict judge(const RatioCi& r, double tolerance) {
  const double lo = 1.0 - tolerance, hi = 1.0 + tolerance;
  if (r.low >= lo && r.high <= hi) return Verdict::same;
  if (r.high < lo) return Verdict::faster;
  if (r.low > hi) return Verdict::slower;
  return Verdict::uncertain;
}

void VerdictCounts::add(Verdict v) {
  switch (v) {
    case Verdict::same:
      ++same;
      break;
    case Verdict::faster:
      ++faster;
      break;
    case Verdict::slower:
      ++slower;
      break;
    case Verdict::uncertain:
      ++uncertain;
      break;
  }
}

const char* parity_verdict_name(Verdict v) {
  switch (v) {
    case Verdict::same:
      return "SAME";
    case Verdict::faster:
      return "VULKAN FASTER";
    case Verdict::slower:
      return "VULKAN SLOWER";
    case Verdict::uncertain:
      return "UNCERTAIN";
  }
  return "?";
}

const char* baseline_verdict_name(Verdict v) {
  switch (v) {
    case Verdict::same:
      return "SAME";
    case Verdict::faster:
      return "FASTER";
    case Verdict::slower:
      return "SLOWER";
    case Verdict::uncertain:
      return "UNCERTAIN";
  }
  return "?";
}

double parse_tolerance(const std::string& text) {
  std::string s = text;
  if (!s.empty() && s.back() == '%') s.pop_back();
  char* end = nullptr;
  const double pct = s.empty() ? -1.0 : std::strtod(s.c_str(), &end);
  // Decimal only: strtod also takes hex floats ("0x1p1" is 2).
  if (s.empty() || *end != '\0' || s.find_first_of("xX") != std::string::npos ||
      !(pct > 0.0 && pct < 100.0))
    throw UsageError("--tolerance '" + text +
                     "': expected a percentage above 0 and below 100 (e.g. 3)");
  return pct / 100.0;
}

}  // namespace cuvk
