#include "size_printer.h"

#include "dims.h"
#include "printing.h"
#include "run_summary.h"
#include "util.h"

namespace cuvk {

// Per point and lane measured at several sizes: the plateau and where 90% of it is reached.
std::string size_curve_table(const std::vector<ResultRow>& rows, bool markdown) {
  const std::vector<SizeCurveRow> curves = size_curves(rows);
  if (curves.empty()) return "";
  std::vector<std::vector<std::string>> t = {
      {"point", "sizes", "plateau GB/s", "at n",
       format_number("{:.0f}% of it from n", 100 * kPlateauFraction)}};
  for (const SizeCurveRow& c : curves) {
    ResultRow point = c.point;
    point.n_in_label = false;
    t.push_back({row_label(point, false, true), std::to_string(c.gbps.size()),
                 format_number("{:.1f}", c.plateau_gbps), size_label(c.plateau_n),
                 size_label(c.n_at_fraction)});
  }
  return "\n" + heading(3, markdown, "Size curves (useful GB/s; plateau = at the largest n)") +
         format_text_table(t, markdown);
}

// Each API's empty dispatch (issue 33): the floor of its GPU times; rows below 10x it are
// flagged launch_bound.
std::string calibration_table(const std::vector<Calibration>& calibration, bool markdown) {
  if (calibration.empty()) return "";
  std::vector<std::vector<std::string>> t = {{"api", "empty dispatch us", "spread %", "samples",
                                              "timer step ns", "launch_bound below us"}};
  for (const Calibration& c : calibration)
    t.push_back({api_name(c.api), format_number("{:.2f}", 1e3 * c.empty_dispatch_ms.median),
                 format_number("{:.1f}", 100.0 * c.empty_dispatch_ms.rel_spread),
                 std::to_string(c.empty_dispatch_ms.samples),
                 format_number("{:.3g}", c.timer.resolution_ns),
                 format_number("{:.1f}", 1e3 * kLaunchBoundFactor * c.empty_dispatch_ms.median)});
  return "\n" + heading(3, markdown, "Empty dispatch (GPU time of one block that does nothing)") +
         format_text_table(t, markdown);
}

}  // namespace cuvk
