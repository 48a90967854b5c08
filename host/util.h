// Small shared helpers: one ceil_div, unit conversions with the unit in the name.
#pragma once

#include <cstdint>

namespace cuvk {

template <typename T>
constexpr T ceil_div(T a, T b) {
  return (a + b - 1) / b;
}

constexpr double kBytesPerGB = 1e9;  // GB/s here is 10^9 bytes per second, as GPU vendors quote

inline double gbps(std::uint64_t bytes, double time_ms) {
  return time_ms > 0.0 ? static_cast<double>(bytes) / (time_ms * 1e-3) / kBytesPerGB : 0.0;
}

}  // namespace cuvk
