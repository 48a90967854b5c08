// GPU timer readings to milliseconds: the arithmetic of both backends' timing paths, as pure
// functions so that it is tested without a GPU (tests/test_timestamps.cpp) with the values real
// drivers give and lavapipe never does (periods other than 1 ns, counters narrower than 64 bits,
// a counter that wraps between start and end).
//   Vulkan: vkCmdWriteTimestamp pairs; each raw value masked to the queue family's
//           timestampValidBits, the interval taken modulo the counter's width (one wrap is
//           fine), times VkPhysicalDeviceLimits::timestampPeriod (ns per tick, a float).
//   CUDA:   cudaEventElapsedTime's milliseconds (a float), widened to double.
// An interval of half the counter's range or more, and a negative CUDA interval, is not a wrap
// but a stop read before its start (swapped queries or events): an error, never a time.
#pragma once

#include <cmath>
#include <cstdint>

namespace cuvk::timing {

constexpr double kNsPerMs = 1e6;

// The errors of the checks below, out of line (timestamps.cpp) so that this header, which the
// backends include, needs no libfmt: `end` before `start` (masked values) on a counter of
// `valid_bits`, and a CUDA interval that is negative or not finite.
[[noreturn]] void throw_out_of_order(std::uint64_t start, std::uint64_t end,
                                     std::uint32_t valid_bits);
[[noreturn]] void throw_events_out_of_order(float elapsed_ms);

// The bits of a raw timestamp that carry the counter (timestampValidBits; 64 or more: all).
constexpr std::uint64_t valid_mask(std::uint32_t valid_bits) {
  return valid_bits >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << valid_bits) - 1;
}

// Ticks from `start` to `end` (raw values: bits above `valid_bits` are ignored), modulo the
// counter's width so one wrap between them is counted right. Throws when the interval is half
// the range or more: `end` was written before `start`.
inline std::uint64_t elapsed_ticks(std::uint64_t start, std::uint64_t end,
                                   std::uint32_t valid_bits) {
  const std::uint64_t mask = valid_mask(valid_bits);
  const std::uint64_t ticks = ((end & mask) - (start & mask)) & mask;
  if (valid_bits > 0 && ticks > (mask >> 1))
    throw_out_of_order(start & mask, end & mask, valid_bits);
  return ticks;
}

// `ticks` of `period_ns` nanoseconds each, in milliseconds.
inline double ticks_to_ms(std::uint64_t ticks, double period_ns) {
  return static_cast<double>(ticks) * period_ns / kNsPerMs;
}

// A Vulkan timestamp pair's interval in milliseconds.
inline double timestamp_interval_ms(std::uint64_t start, std::uint64_t end,
                                    std::uint32_t valid_bits, double period_ns) {
  return ticks_to_ms(elapsed_ticks(start, end, valid_bits), period_ns);
}

// cudaEventElapsedTime(start, stop)'s milliseconds as a time: negative (stop recorded before
// start) or not finite is an error.
inline double event_interval_ms(float elapsed_ms) {
  if (!std::isfinite(elapsed_ms) || elapsed_ms < 0.0f) throw_events_out_of_order(elapsed_ms);
  return static_cast<double>(elapsed_ms);
}

}  // namespace cuvk::timing
