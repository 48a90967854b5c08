// Lane dimensions as data (nvbench's model: every dimension an axis, every printer walks the axis
// list). A point (test, layout, variant, n, sweep axes, block size) is measured on one or more
// lanes side by side: the API, the Vulkan binding mode, the copy engine's queue family. Each lane
// dimension is declared once in lanes.cpp, with what it is called in files and tables and where it
// is shown; the results layer (writer, reader, run printer, parity, baseline, merge, fleet) walks
// them, beside the point dimensions, through dim_columns() (dims.h) and never names one. Adding
// a lane dimension = its ResultRow field (row.h), one entry in lanes.cpp, and the runner filling
// the field.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "row.h"

namespace cuvk {

// Where a lane dimension is shown: one bit per place that lists a row's lane. The places are
// named after the slot they fill in each output (results/SCHEMA.md describes the outputs).
enum LaneShow : unsigned {
  kLaneRunTable = 1u << 0,    // a column of `cuvk run`'s table (after "block")
  kLaneRunCsvHead = 1u << 1,  // run CSV: a column after "variant"
  kLaneRunCsvTail = 1u << 2,  // run CSV: a column at the end
  kLaneCompare = 1u << 3,     // a column of the parity, baseline and merge tables (see below)
  kLaneCsvHead = 1u << 4,     // comparison CSV (parity, baseline): a column after "variant"
  kLaneCsvTail = 1u << 5,     // comparison CSV: "vulkan_<name>" at the end
  kLaneMergeCsv = 1u << 6,    // `cuvk report` CSV: "vulkan_<name>" after "block_size"
  kLaneSummary = 1u << 7,     // the run's summary tables (CUDA vs Vulkan; AoS vs SoA)
  kLaneLabel = 1u << 8,       // the one-line row labels (baseline notes, fleet's furthest point)
  kLaneJson = 1u << 9,        // JSON: rows, derived documents ("vulkan_<name>" in API pairs)
  kLaneDefault = kLaneRunTable | kLaneRunCsvTail | kLaneCompare | kLaneCsvHead | kLaneMergeCsv |
                 kLaneSummary | kLaneLabel | kLaneJson,
};

// One lane dimension. Values travel as text ("descriptor", "1"); nullopt: the row has none (a
// queue family outside the copy engine), so it is neither written nor shown.
struct LaneDim {
  std::string name;    // JSON key and CSV column ("binding"); "vulkan_binding" in API pairs
  std::string header;  // table column header ("binding"; "Vulkan binding" in API pairs)
  unsigned show = kLaneDefault;
  bool identity = true;   // part of the lane key (a label of another dimension is not)
  bool number = false;    // JSON writes the value as a number (an index), not a string
  bool required = false;  // the reader refuses a row without it
  std::function<std::optional<std::string>(const ResultRow&)> get;
  // The reader's side: `value` is the file's (nullopt: absent); returns "" or what is wrong with
  // it ("expected pointer, descriptor or bda"). Called after the dimensions before it were set.
  std::function<std::string(ResultRow&, const std::optional<std::string>& value)> set;
  // The API's own value: comparison tables show the column only where some lane is off it; row
  // labels leave it out. Never neutral: always shown.
  std::function<bool(Api, const std::optional<std::string>&)> neutral;
  // Where a lane sorts (within a point): by rank (none: 0), then by text.
  std::function<std::uint32_t(const std::optional<std::string>&)> rank;
  // The row identity (results/run_file.h) lists untagged dimensions after the variant and tagged
  // ones, "|<tag><value>" where the row has a value, after the block size ("|q1").
  std::string id_tag;
  std::size_t width = 0;  // the streamed run table's column width (0: the header's)
};

// In the order of columns, labels and the row identity.
const std::vector<LaneDim>& lane_dims();

// One row's lane: its API and a value per lane_dims() entry.
struct Lane {
  Api api = Api::cuda;
  std::vector<std::optional<std::string>> values;

  static Lane of(const ResultRow& row);
  // A lane with every dimension at `api`'s neutral value (nullopt, or the API's own binding).
  static Lane native(Api api);
  const std::optional<std::string>& value(const std::string& dim) const;  // throws for unknown
  void apply(ResultRow& row) const;         // sets the row's lane fields to this lane's values
  std::string text(std::size_t dim) const;  // the value as cells show it ("" where none)
  bool neutral(std::size_t dim) const;
  // Equal lanes agree on every identity dimension; lanes of one point sort by rank.
  friend bool operator==(const Lane& a, const Lane& b);
  friend bool operator!=(const Lane& a, const Lane& b) { return !(a == b); }
  friend bool operator<(const Lane& a, const Lane& b);
};

// The lane dimensions shown at `place` (a LaneShow bit); `pair`: in a CUDA vs Vulkan pair, where
// the API is what is compared and is left out.
std::vector<std::size_t> lane_columns(unsigned place, bool pair = false);

// A label's lane part: " vulkan bda" (kLaneLabel dimensions; `all`: neutral values too).
std::string lane_label(const Lane& lane, bool all);

// The variant as tables show it for `point` measured on `lane` (variant_label: "engine q1
// (transfer)").
std::string variant_label(const ResultRow& point, const Lane& lane);

// Chain rows whose submission modes correspond, which parity pairs (docs/MEASURING.md, "Chains"):
// graph with recorded ("recorded once"), stream with rerecorded ("issued each time"), wait-each
// with wait-each; pdl and submit-each have no counterpart. "" for a row without a mode.
std::string submission_group(const ResultRow& row);

// The row identity's lane parts: the untagged dimensions ("|vulkan|descriptor") or the tagged
// ones ("|q1").
std::string lane_identity(const Lane& lane, bool tagged);

}  // namespace cuvk
