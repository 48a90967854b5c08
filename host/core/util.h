// Small shared helpers: one ceil_div, unit conversions with the unit in the name.
#pragma once

#include <cstdint>
#include <cstdio>
#include <string>
#include <type_traits>

namespace cuvk {

// ceil(a / b) for unsigned a, b > 0, without the wrap of (a + b - 1) / b near the type's maximum
// (ceil_div(4294967295u, 4u) is 1073741824, not 0).
template <typename T>
constexpr T ceil_div(T a, T b) {
  static_assert(std::is_unsigned_v<T>, "ceil_div: unsigned operands");
  return a / b + (a % b != 0 ? 1 : 0);
}

constexpr double kBytesPerGB = 1e9;  // GB/s here is 10^9 bytes per second, as GPU vendors quote

inline double gbps(std::uint64_t bytes, double time_ms) {
  return time_ms > 0.0 ? static_cast<double>(bytes) / (time_ms * 1e-3) / kBytesPerGB : 0.0;
}

// Longest fixed-point text fmt() writes; longer (a time of 1e308 ms from a hostile file) is
// written in scientific notation instead. Every real measurement fits with room to spare.
constexpr int kMaxFixedChars = 16;

// printf-style formatting of one number, for report cells ("%.4f", "%.2fx"), by magnitude: the
// format as given where its text has at most kMaxFixedChars characters, else the same text with
// the number as "%.4g" ("1e+308", "1.235e+17x").
inline std::string fmt(const char* format, double v) {
  char buf[64];
  const int n = std::snprintf(buf, sizeof buf, format, v);
  if (n >= 0 && n <= kMaxFixedChars) return buf;
  const std::string f = format;
  const std::size_t start = f.find('%');
  const std::size_t end = f.find_first_of("aAeEfFgG", start);
  if (start == std::string::npos || end == std::string::npos) return buf;
  std::snprintf(buf, sizeof buf, "%.4g", v);
  return f.substr(0, start) + buf + f.substr(end + 1);
}

}  // namespace cuvk
