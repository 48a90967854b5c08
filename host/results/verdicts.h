// The statistics behind every verdict: the ratio of two medians with its 95% interval, the
// verdict against a tolerance, and the tolerance itself. Used by CUDA vs Vulkan (parity.h) and new
// vs saved (baseline.h) alike.
#pragma once

#include <cstddef>
#include <string>

#include "stats.h"

namespace cuvk {

constexpr double kDefaultTolerance = 0.03;  // SAME means within +-3%

// A median and its 95% confidence interval, in ms.
struct MedianCi {
  double median = 0.0, low = 0.0, high = 0.0;
};
MedianCi median_ci(const Summary& s);

// The ratio of two medians (numerator / denominator) with an approximate 95% interval.
struct RatioCi {
  double ratio = 0.0, low = 0.0, high = 0.0;
};
RatioCi ratio_ci(const MedianCi& numerator, const MedianCi& denominator);

// faster: the numerator's time is lower (Vulkan faster / the new run faster).
enum class Verdict { same, faster, slower, uncertain };

// same: [low, high] inside [1 - tol, 1 + tol] (edges included); faster: high < 1 - tol;
// slower: low > 1 + tol; uncertain: otherwise (the interval crosses a tolerance edge).
Verdict judge(const RatioCi& r, double tolerance);

// How many points of a comparison (parity, baseline) got each verdict: one tally for both.
struct VerdictCounts {
  std::size_t same = 0, faster = 0, slower = 0, uncertain = 0;
  void add(Verdict v);
};

const char* parity_verdict_name(Verdict v);    // SAME, VULKAN FASTER, VULKAN SLOWER, UNCERTAIN
const char* baseline_verdict_name(Verdict v);  // SAME, FASTER, SLOWER, UNCERTAIN

// --tolerance: a percentage with an optional '%' ("3", "0.5%"); returns a fraction. UsageError
// unless 0 < value < 100.
double parse_tolerance(const std::string& text);

}  // namespace cuvk
