// Small shared helpers: one ceil_div, unit conversions with the unit in the name.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <type_traits>

#include <fmt/format.h>

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

// Longest fixed-point text format_number() writes; longer (a time of 1e308 ms from a hostile
// file) is written in scientific notation instead. Every real measurement fits with room to spare.
constexpr std::size_t kMaxFixedChars = 16;

// One number formatted for a report cell ("{:.4f}", "{:.2f}x"), by magnitude: the text as the
// format gives it where it has at most kMaxFixedChars characters, else the same text with the
// number as "{:.4g}" ("1e+308", "1.235e+17x"; printf's "%.4g").
inline std::string format_number(fmt::format_string<double> format, double v) {
  std::string text = fmt::format(format, v);
  if (text.size() <= kMaxFixedChars) return text;
  const fmt::string_view view = format;
  const std::string f(view.data(), view.size());
  std::size_t start = f.find('{');  // the replacement field: the first '{' that is not "{{"
  while (start != std::string::npos && f.compare(start, 2, "{{") == 0)
    start = f.find('{', start + 2);
  const std::size_t end = start == std::string::npos ? start : f.find('}', start);
  if (end == std::string::npos) return text;
  return fmt::format(fmt::runtime(f.substr(0, start) + "{:.4g}" + f.substr(end + 1)), v);
}

}  // namespace cuvk
