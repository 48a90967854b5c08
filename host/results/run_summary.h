// Derived comparisons over result rows: CUDA-vs-Vulkan per point and AoS-vs-SoA per API.
// Computed once here; reports only format them. Ratios use medians.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "runner.h"

namespace cuvk {

constexpr double kParityCallout = 0.03;  // ratios further than 3% from 1 are called out

struct ParityRow {
  std::string test, layout, variant, point;
  std::uint32_t block_size = 0;
  Binding vulkan_binding = Binding::descriptor;  // one row per Vulkan binding mode of the run
  std::optional<double> cuda_ms, vulkan_ms;
  std::optional<double> vulkan_over_cuda;  // > 1: Vulkan slower
  bool differs = false;                    // |ratio - 1| > kParityCallout
};

struct LayoutRow {
  std::string test, variant;
  std::uint32_t block_size = 0;
  Api api;
  double aos_ms = 0.0, soa_ms = 0.0;
  double aos_over_soa = 0.0;  // the seed's "SoA 3.4x faster"
  Binding binding = Binding::pointer;  // of both rows
};

std::vector<ParityRow> parity_rows(const std::vector<ResultRow>& rows);
std::vector<LayoutRow> layout_rows(const std::vector<ResultRow>& rows);

}  // namespace cuvk
