// Point dimensions as data, beside the lane dimensions (lanes.h), and the one column walk over
// both (nvbench's model: every dimension an axis, every printer walks the axis list). A point is
// test, layout, variant, n, one value per sweep axis (axes.h) and the block size; its label
// ("offset=4") is shown as a column of its own. Each dimension is declared once in dims.cpp with
// its file and column name, its table header, where it is shown (PointShow bits), how the reader
// sets it back, how rows sort by it and its part in the row identity. Every printer (run table,
// md, csv, parity, baseline, merge, fleet), the writer and the reader walk dim_columns() and
// never name one; a sweep axis added to axes.cpp is a point dimension with nothing more to do.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "lanes.h"

namespace cuvk {

// Where a point dimension is shown: one bit per output that lists a row's point.
enum PointShow : unsigned {
  kPointRunTable = 1u << 0,     // `cuvk run`'s table (and md)
  kPointRunCsv = 1u << 1,       // `cuvk run`'s CSV
  kPointCompare = 1u << 2,      // the parity and baseline tables, the run's CUDA vs Vulkan summary
  kPointLayouts = 1u << 3,      // the run's AoS vs SoA summary (the layout is what it compares)
  kPointMergeTable = 1u << 4,   // `cuvk report`'s tables (one per test: the test is the heading)
  kPointCompareCsv = 1u << 5,   // comparison CSV (parity, baseline)
  kPointMergeCsv = 1u << 6,     // `cuvk report`'s CSV
  kPointJson = 1u << 7,         // the derived documents' rows (point_json)
  kPointSummaryJson = 1u << 8,  // the run file's summary (parity and layouts)
  kPointFile = 1u << 9,         // a row of the run file: written and read back
  kPointLabel = 1u << 10,       // one-line row labels (fleet's furthest point, baseline notes)
  kPointNote = 1u << 11,        // the baseline notes' labels only, at their end ("n 1024")
};

// How a value is written to JSON and read back from it.
enum class DimKind {
  text,          // a string
  text_or_null,  // a string, null where empty (layout)
  number,        // an unsigned 32-bit number
};

// Where the lane dimensions go among the point dimensions: after the one marked `head` (the
// variant) or after the one marked `tail` (the block size).
enum class LaneSlot { none, head, tail };

struct PointDim {
  std::string name;    // JSON key and CSV column ("block_size")
  std::string header;  // table column header ("block")
  unsigned show = 0;
  DimKind kind = DimKind::text;
  std::string group;      // the run file's object holding it: "" (the row) or "params"
  bool identity = true;   // part of the point (the label is not: it is derived from the axes)
  bool required = true;   // the reader refuses a row without it; else absent reads as `neutral`
  std::string neutral;    // the value of a row whose file does not have it (an axis)
  bool dash = false;      // a table shows "-" where the value is "" (and a label leaves it out)
  std::string label_key;  // a label shows "<key> <value>" ("block 256"); "": the value alone
  std::size_t width = 0;  // the streamed run table's width
  // Where rows sort by it (`cuvk report`): by first appearance (text) or by value (numbers), in
  // sort_order; -1: not a sort key.
  int sort_order = -1;
  LaneSlot lanes_after = LaneSlot::none;
  std::function<std::string(const ResultRow&)> get;  // the value as files and CSV have it
  // As tables and labels show it on `lane` (the variant: "engine q1 (transfer)"); none: get.
  std::function<std::string(const ResultRow&, const Lane&)> shown;
  std::function<void(ResultRow&, const std::string&)> set;  // the reader's side
};

// In the order of columns and of the row identity.
const std::vector<PointDim>& point_dims();

// One column of a place: a point dimension, or a lane dimension (lane_dims() index).
struct DimColumn {
  const PointDim* point = nullptr;
  std::size_t lane = 0;  // where point is null
};

// The columns at a place: the point dimensions shown at `points` in order, the lane dimensions
// shown at `head_lanes` after the variant and those at `tail_lanes` after the block size
// (LaneShow bits; 0: none); `pair`: a CUDA vs Vulkan pair's lane, the API left out.
std::vector<DimColumn> dim_columns(unsigned points, unsigned head_lanes = 0,
                                   unsigned tail_lanes = 0, bool pair = false);

// A point dimension's table cell for `row` on `lane` ("-" where empty and `dash`).
std::string point_cell(const PointDim& dim, const ResultRow& row, const Lane& lane);

// A row's one-line label: "read_x aos vec2 block 256" (kPointLabel dimensions, then with
// `note` the kPointNote ones: " n 1024"), then the lane (lane_label, `all_lanes`).
std::string row_label(const ResultRow& row, bool note, bool all_lanes);

// The row identity: every identity dimension's value, '|' between them, the lane's untagged
// dimensions after the variant and its tagged ones after the block size (lane_identity).
std::string row_identity(const ResultRow& row);

// The sort key of `cuvk report`: per sort dimension, the value's rank of first appearance
// (`rank`) for text, the value itself for numbers.
std::vector<std::uint64_t> sort_key(const ResultRow& row,
                                    const std::function<std::size_t(const std::string&)>& rank);

}  // namespace cuvk
