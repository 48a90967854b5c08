#include "dims.h"

#include <algorithm>

#include "axes.h"

namespace cuvk {
namespace {

// Shown wherever a point is listed.
constexpr unsigned kEverywhere = kPointRunTable | kPointRunCsv | kPointCompare | kPointLayouts |
                                 kPointMergeTable | kPointCompareCsv | kPointMergeCsv | kPointJson |
                                 kPointSummaryJson | kPointFile | kPointLabel;

std::uint32_t to_u32(const std::string& v) {
  return static_cast<std::uint32_t>(std::stoul(v));
}

PointDim test_dim() {
  PointDim d;
  d.name = d.header = "test";
  d.show = kEverywhere & ~kPointMergeTable;  // a report's table is the test's: its heading
  d.width = 12;
  d.sort_order = 0;
  d.get = [](const ResultRow& r) { return r.test; };
  d.set = [](ResultRow& r, const std::string& v) { r.test = v; };
  return d;
}

PointDim layout_dim() {
  PointDim d;
  d.name = d.header = "layout";
  d.show = kEverywhere & ~kPointLayouts;  // AoS vs SoA compares the layouts
  d.kind = DimKind::text_or_null;
  d.dash = true;
  d.width = 6;
  d.sort_order = 1;
  d.get = [](const ResultRow& r) { return r.layout; };
  d.set = [](ResultRow& r, const std::string& v) { r.layout = v; };
  return d;
}

// Shown with the lane's queue family where it has one ("engine q1 (transfer)").
PointDim variant_dim() {
  PointDim d;
  d.name = d.header = "variant";
  d.show = kEverywhere;
  d.width = 7;
  d.sort_order = 2;
  d.lanes_after = LaneSlot::head;
  d.get = [](const ResultRow& r) { return r.variant; };
  d.shown = [](const ResultRow& r, const Lane& lane) { return variant_label(r, lane); };
  d.set = [](ResultRow& r, const std::string& v) { r.variant = v; };
  return d;
}

// The sweep point as one label ("offset=4"): derived from the axes, so no part of the identity.
PointDim point_label_dim() {
  PointDim d;
  d.name = d.header = "point";
  d.show = kPointRunTable | kPointCompare | kPointMergeTable | kPointMergeCsv | kPointJson |
           kPointSummaryJson | kPointLabel;
  d.identity = false;
  d.dash = true;
  d.width = 9;
  d.get = [](const ResultRow& r) { return point_label(r); };
  return d;
}

PointDim n_dim() {
  PointDim d;
  d.name = d.header = d.label_key = "n";
  d.show = kPointRunCsv | kPointMergeTable | kPointCompareCsv | kPointMergeCsv | kPointJson |
           kPointFile | kPointNote;
  d.kind = DimKind::number;
  d.group = "params";
  d.sort_order = 4;
  d.get = [](const ResultRow& r) { return std::to_string(r.n); };
  d.set = [](ResultRow& r, const std::string& v) { r.n = to_u32(v); };
  return d;
}

// A sweep axis (axes.h): a file from before the axis existed reads as its neutral value.
PointDim axis_dim(const Axis& axis) {
  PointDim d;
  d.name = d.header = axis.name;
  d.show = kPointRunCsv | kPointCompareCsv | kPointMergeCsv | kPointJson | kPointFile;
  d.kind = DimKind::number;
  d.group = "params";
  d.required = false;
  d.neutral = std::to_string(axis.neutral);
  d.sort_order = 3;
  d.get = [name = axis.name](const ResultRow& r) { return std::to_string(r.axes.get(name)); };
  d.set = [name = axis.name](ResultRow& r, const std::string& v) { r.axes.set(name, to_u32(v)); };
  return d;
}

PointDim block_dim() {
  PointDim d;
  d.name = "block_size";
  d.header = d.label_key = "block";
  d.show = kEverywhere;
  d.kind = DimKind::number;
  d.group = "params";
  d.width = 5;
  d.sort_order = 5;
  d.lanes_after = LaneSlot::tail;
  d.get = [](const ResultRow& r) { return std::to_string(r.block_size); };
  d.set = [](ResultRow& r, const std::string& v) { r.block_size = to_u32(v); };
  return d;
}

std::vector<PointDim> make_point_dims() {
  std::vector<PointDim> dims = {test_dim(), layout_dim(), variant_dim(), point_label_dim(),
                                n_dim()};
  for (const Axis& axis : axes()) dims.push_back(axis_dim(axis));
  dims.push_back(block_dim());
  return dims;
}

std::string shown_value(const PointDim& dim, const ResultRow& row, const Lane& lane) {
  return dim.shown ? dim.shown(row, lane) : dim.get(row);
}

}  // namespace

const std::vector<PointDim>& point_dims() {
  static const std::vector<PointDim> dims = make_point_dims();
  return dims;
}

std::vector<DimColumn> dim_columns(unsigned points, unsigned head_lanes, unsigned tail_lanes,
                                   bool pair) {
  std::vector<DimColumn> out;
  for (const PointDim& d : point_dims()) {
    if ((d.show & points) != 0) out.push_back({&d, 0});
    const unsigned lanes = d.lanes_after == LaneSlot::head   ? head_lanes
                           : d.lanes_after == LaneSlot::tail ? tail_lanes
                                                             : 0u;
    if (lanes != 0)
      for (std::size_t l : lane_columns(lanes, pair)) out.push_back({nullptr, l});
  }
  return out;
}

std::string point_cell(const PointDim& dim, const ResultRow& row, const Lane& lane) {
  const std::string v = shown_value(dim, row, lane);
  return dim.dash && v.empty() ? "-" : v;
}

std::string row_label(const ResultRow& row, bool note, bool all_lanes) {
  const Lane lane = Lane::of(row);
  std::string s;
  bool first = true;
  // A row whose point label names its n (several sizes) needs no note of it.
  const bool n_note = note && !row.n_in_label;
  for (unsigned place : {unsigned{kPointLabel}, n_note ? unsigned{kPointNote} : 0u}) {
    for (const PointDim& d : point_dims()) {
      if ((d.show & place) == 0) continue;
      const std::string v = shown_value(d, row, lane);
      if (d.dash && v.empty()) continue;
      s += (first ? "" : " ") + (d.label_key.empty() ? v : d.label_key + " " + v);
      first = false;
    }
  }
  return s + lane_label(lane, all_lanes);
}

std::string row_identity(const ResultRow& row) {
  const Lane lane = Lane::of(row);
  std::string id;
  bool first = true;
  for (const PointDim& d : point_dims()) {
    if (d.identity) {
      id += (first ? "" : "|") + d.get(row);
      first = false;
    }
    if (d.lanes_after != LaneSlot::none) id += lane_identity(lane, d.lanes_after == LaneSlot::tail);
  }
  return id;
}

std::vector<std::uint64_t> sort_key(const ResultRow& row,
                                    const std::function<std::size_t(const std::string&)>& rank) {
  std::vector<const PointDim*> order;
  for (const PointDim& d : point_dims())
    if (d.sort_order >= 0) order.push_back(&d);
  std::stable_sort(order.begin(), order.end(), [](const PointDim* a, const PointDim* b) {
    return a->sort_order < b->sort_order;
  });
  std::vector<std::uint64_t> key;
  for (const PointDim* d : order)
    key.push_back(d->kind == DimKind::number ? std::stoull(d->get(row))
                                             : rank(d->name + ":" + d->get(row)));
  return key;
}

}  // namespace cuvk
