#include "run_summary.h"

#include <algorithm>
#include <cmath>

namespace cuvk {
std::vector<ParityRow> parity_rows(const std::vector<ResultRow>& rows) {
  // One comparison per CUDA row and Vulkan binding mode of the run (descriptor when none ran).
  std::vector<Binding> bindings;
  for (const ResultRow& v : rows)
    if (v.api == Api::vulkan &&
        std::find(bindings.begin(), bindings.end(), v.binding) == bindings.end())
      bindings.push_back(v.binding);
  if (bindings.empty()) bindings.push_back(native_binding(Api::vulkan));
  std::vector<ParityRow> out;
  for (const ResultRow& c : rows) {
    if (c.api != Api::cuda) continue;
    for (Binding b : bindings) {
      // The copy engine is no shader: it has only the native binding.
      if (c.kernel == kCopyEngine && b != native_binding(Api::vulkan)) continue;
      ParityRow p;
      p.test = c.test;
      p.layout = c.layout;
      p.variant = c.variant;
      p.point = point_label(c);
      p.block_size = c.block_size;
      p.vulkan_binding = b;
      if (c.status == Status::ok) p.cuda_ms = c.time_ms.median;
      for (const ResultRow& v : rows)
        if (v.api == Api::vulkan && v.binding == b && same_point(c, v) && v.status == Status::ok)
          p.vulkan_ms = v.time_ms.median;
      if (p.cuda_ms && p.vulkan_ms && *p.cuda_ms > 0) {
        p.vulkan_over_cuda = *p.vulkan_ms / *p.cuda_ms;
        p.differs = std::fabs(*p.vulkan_over_cuda - 1.0) > kParityCallout;
      }
      out.push_back(p);
    }
  }
  return out;
}

std::vector<LayoutRow> layout_rows(const std::vector<ResultRow>& rows) {
  std::vector<LayoutRow> out;
  for (const ResultRow& a : rows) {
    if (a.layout != "aos" || a.status != Status::ok) continue;
    for (const ResultRow& s : rows) {
      if (s.layout != "soa" || s.status != Status::ok || s.api != a.api || s.test != a.test ||
          s.variant != a.variant || s.n != a.n || s.block_size != a.block_size ||
          s.binding != a.binding)
        continue;
      out.push_back({a.test, a.variant, a.block_size, a.api, a.time_ms.median, s.time_ms.median,
                     s.time_ms.median > 0 ? a.time_ms.median / s.time_ms.median : 0.0,
                     a.binding});
    }
  }
  return out;
}

}  // namespace cuvk
