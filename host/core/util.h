// Small shared helpers: one ceil_div, unit conversions with the unit in the name.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>

namespace cuvk {

template <typename T>
constexpr T ceil_div(T a, T b) {
  return (a + b - 1) / b;
}

constexpr double kBytesPerGB = 1e9;  // GB/s here is 10^9 bytes per second, as GPU vendors quote

inline double gbps(std::uint64_t bytes, double time_ms) {
  return time_ms > 0.0 ? static_cast<double>(bytes) / (time_ms * 1e-3) / kBytesPerGB : 0.0;
}

// printf-style formatting of one number, for report cells ("%.4f", "%.1f").
inline std::string fmt(const char* format, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

}  // namespace cuvk
