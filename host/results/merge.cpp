#include "merge.h"

#include <algorithm>
#include <tuple>

#include "parity.h"

namespace cuvk {

std::string run_label(std::size_t i) {
  return i < 26 ? std::string(1, static_cast<char>('A' + i)) : "R" + std::to_string(i + 1);
}

std::vector<MergedRow> merge_runs(const std::vector<RunFile>& runs) {
  std::vector<MergedRow> out;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    for (ApiPair& p : pair_apis(runs[i].rows)) {
      MergedRow* m = nullptr;
      for (MergedRow& x : out)
        if (same_point(x.point, p.point) && x.vulkan_lane == p.vulkan_lane) m = &x;
      if (!m) {
        out.push_back({p.point, p.vulkan_lane, std::vector<MergedCell>(runs.size())});
        m = &out.back();
      }
      // A label one run left empty (queue flags of a family inferred from an older file):
      // another's.
      for (std::size_t d = 0; d < lane_dims().size(); ++d)
        if (!lane_dims()[d].identity && m->vulkan_lane.values[d].value_or("").empty())
          m->vulkan_lane.values[d] = p.vulkan_lane.values[d];
      m->runs[i].cuda = std::move(p.cuda);
      m->runs[i].vulkan = std::move(p.vulkan);
    }
  }
  // Rows of a block-size sweep or of a later run's extra points next to their siblings: tests,
  // layouts and variants keep their order of first appearance; numbers sort within them.
  std::vector<std::string> order;
  auto rank = [&order](const std::string& s) {
    const auto it = std::find(order.begin(), order.end(), s);
    if (it != order.end()) return static_cast<std::size_t>(it - order.begin());
    order.push_back(s);
    return order.size() - 1;
  };
  for (const MergedRow& m : out)
    rank("t:" + m.point.test), rank("l:" + m.point.layout), rank("v:" + m.point.variant);
  std::stable_sort(out.begin(), out.end(), [&rank](const MergedRow& x, const MergedRow& y) {
    const ResultRow& a = x.point;
    const ResultRow& b = y.point;
    auto key = [&rank](const ResultRow& r) {
      return std::make_tuple(rank("t:" + r.test), rank("l:" + r.layout), rank("v:" + r.variant),
                             r.axes.values(), r.n, r.block_size);
    };
    if (key(a) != key(b)) return key(a) < key(b);
    return x.vulkan_lane < y.vulkan_lane;
  });
  for (MergedRow& m : out)
    for (MergedCell& c : m.runs)
      if (c.cuda && c.vulkan && c.cuda->status == Status::ok && c.vulkan->status == Status::ok)
        c.vulkan_over_cuda = ratio_ci(median_ci(c.vulkan->time_ms), median_ci(c.cuda->time_ms));
  return out;
}

}  // namespace cuvk
