#include "merge.h"

#include <algorithm>
#include <tuple>

#include <fmt/format.h>

#include "dims.h"
#include "parity.h"

namespace cuvk {

std::string run_label(std::size_t i) {
  return i < 26 ? std::string(1, static_cast<char>('A' + i)) : fmt::format("R{}", i + 1);
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
  std::vector<std::vector<std::uint64_t>> keys;  // dims.h sort_key, in the rows' order
  for (const MergedRow& m : out) keys.push_back(sort_key(m.point, rank));
  std::vector<std::size_t> order_of(out.size());
  for (std::size_t i = 0; i < out.size(); ++i) order_of[i] = i;
  std::stable_sort(order_of.begin(), order_of.end(), [&](std::size_t x, std::size_t y) {
    if (keys[x] != keys[y]) return keys[x] < keys[y];
    return out[x].vulkan_lane < out[y].vulkan_lane;
  });
  std::vector<MergedRow> sorted;
  for (std::size_t i : order_of) sorted.push_back(std::move(out[i]));
  out = std::move(sorted);
  for (MergedRow& m : out)
    for (MergedCell& c : m.runs)
      if (c.cuda && c.vulkan && c.cuda->status == Status::ok && c.vulkan->status == Status::ok)
        c.vulkan_over_cuda = ratio_ci(median_ci(c.vulkan->time_ms), median_ci(c.cuda->time_ms));
  return out;
}

}  // namespace cuvk
