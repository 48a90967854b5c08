#include "run_summary.h"

#include <cmath>

#include "parity.h"
#include "verdicts.h"

namespace cuvk {

std::vector<ParitySummaryRow> parity_summary(const std::vector<ResultRow>& rows) {
  std::vector<ParitySummaryRow> out;
  for (const ApiPair& pair : pair_apis(rows)) {
    if (!pair.cuda) continue;  // a Vulkan row without a CUDA row has nothing to be a ratio of
    const ResultRow& c = *pair.cuda;
    ParitySummaryRow p;
    p.point = c;
    p.vulkan_lane = pair.vulkan_lane;
    if (c.status == Status::ok) p.cuda_ms = c.time_ms.median;
    if (pair.vulkan && pair.vulkan->status == Status::ok) p.vulkan_ms = pair.vulkan->time_ms.median;
    if (p.cuda_ms && p.vulkan_ms && *p.cuda_ms > 0) {
      p.vulkan_over_cuda = *p.vulkan_ms / *p.cuda_ms;
      p.differs = std::fabs(*p.vulkan_over_cuda - 1.0) > kDefaultTolerance;
    }
    out.push_back(p);
  }
  return out;
}

std::vector<LayoutSummaryRow> layout_summary(const std::vector<ResultRow>& rows) {
  std::vector<LayoutSummaryRow> out;
  for (const ResultRow& a : rows) {
    if (a.layout != "aos" || a.status != Status::ok) continue;
    for (const ResultRow& s : rows) {
      if (s.layout != "soa" || s.status != Status::ok || s.test != a.test ||
          s.variant != a.variant || s.n != a.n || s.block_size != a.block_size ||
          Lane::of(s) != Lane::of(a))
        continue;
      out.push_back({a, a.time_ms.median, s.time_ms.median,
                     s.time_ms.median > 0 ? a.time_ms.median / s.time_ms.median : 0.0,
                     Lane::of(a)});
    }
  }
  return out;
}

}  // namespace cuvk
