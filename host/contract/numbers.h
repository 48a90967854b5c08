// Small helpers every room shares (the contract is the lowest library, so backends, core,
// counters, inspect and pairs use the same ones): one round_up, one seconds_since.
#pragma once

#include <chrono>
#include <type_traits>

namespace cuvk {

// `v` rounded up to a multiple of `to` (unsigned; `to` of 0 leaves `v` as it is). The quotient is
// taken without the wrap of (v + to - 1) near the type's maximum: a multiple that fits is found.
template <typename T>
constexpr T round_up(T v, T to) {
  static_assert(std::is_unsigned_v<T>, "round_up: unsigned operands");
  return to == 0 ? v : (v / to + (v % to != 0 ? 1 : 0)) * to;
}

// Seconds of the steady clock since `t0`.
inline double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace cuvk
