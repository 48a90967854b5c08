// The run's own summary tables, printed under its rows and kept in its file (`summary`): CUDA vs
// Vulkan median ratios per point, with the rows paired as `cuvk parity` pairs them (parity.h) and
// ratios beyond the tolerance (verdicts.h) called out; and AoS vs SoA per API. Medians only: the
// verdicts with intervals are parity's. Computed once here; the run printer and writer format them.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "lanes.h"
#include "row.h"

namespace cuvk {

// One pair of parity.h's pair_apis that has a CUDA row.
struct ParitySummaryRow {
  ResultRow point;  // the CUDA row: its point dimensions (dims.h)
  // One row per Vulkan lane of the point (lanes.h: binding mode, queue family at copy-engine
  // points): the pair's Vulkan lane.
  Lane vulkan_lane = Lane::native(Api::vulkan);
  std::optional<double> cuda_ms, vulkan_ms;
  std::optional<double> vulkan_over_cuda;  // > 1: Vulkan slower
  bool differs = false;                    // |ratio - 1| > kDefaultTolerance
};

struct LayoutSummaryRow {
  ResultRow point;  // the AoS row: its point dimensions (dims.h) but the layout
  double aos_ms = 0.0, soa_ms = 0.0;
  double aos_over_soa = 0.0;  // the seed's "SoA 3.4x faster"
  Lane lane;                  // of both rows (lanes.h: API, binding...)
};

// One point and lane measured at several sizes (--n list, issue 33): its useful GB/s at each n
// (ok rows, rising n), the plateau (the GB/s at the largest n measured) and the smallest n that
// reaches kPlateauFraction of it.
struct SizeCurveRow {
  ResultRow point;  // the largest n's row: its point and lane dimensions (n aside)
  std::vector<std::pair<std::uint32_t, double>> gbps;  // (n, median useful GB/s)
  std::uint32_t plateau_n = 0;
  double plateau_gbps = 0.0;
  std::uint32_t n_at_fraction = 0;  // smallest n with GB/s >= kPlateauFraction x plateau
};
constexpr double kPlateauFraction = 0.9;

std::vector<ParitySummaryRow> parity_summary(const std::vector<ResultRow>& rows);
// The points and lanes with ok rows at two sizes or more, in the order of their first row.
std::vector<SizeCurveRow> size_curves(const std::vector<ResultRow>& rows);
std::vector<LayoutSummaryRow> layout_summary(const std::vector<ResultRow>& rows);

}  // namespace cuvk
