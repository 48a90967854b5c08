#include "run_summary.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>

#include "dims.h"
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

std::vector<SizeCurveRow> size_curves(const std::vector<ResultRow>& rows) {
  std::vector<SizeCurveRow> curves;
  std::map<std::string, std::size_t> index;  // the identity with n aside -> curves
  for (const ResultRow& r : rows) {
    if (r.status != Status::ok || !(r.gbps_useful > 0.0)) continue;
    ResultRow any_n = r;
    any_n.n = 0;
    const auto [it, fresh] = index.emplace(row_identity(any_n), curves.size());
    if (fresh) curves.push_back({r, {}, 0, 0.0, 0});
    SizeCurveRow& c = curves[it->second];
    c.gbps.emplace_back(r.n, r.gbps_useful);
    if (r.n > c.point.n) c.point = r;
  }
  curves.erase(std::remove_if(curves.begin(), curves.end(),
                              [](const SizeCurveRow& c) { return c.gbps.size() < 2; }),
               curves.end());
  for (SizeCurveRow& c : curves) {
    std::sort(c.gbps.begin(), c.gbps.end());
    std::tie(c.plateau_n, c.plateau_gbps) = c.gbps.back();
    for (const auto& [n, gbps] : c.gbps)
      if (gbps >= kPlateauFraction * c.plateau_gbps) {
        c.n_at_fraction = n;
        break;
      }
  }
  return curves;
}

}  // namespace cuvk
