// Checking a kernel pair's outputs (issue 31): what "verified" rests on.
//
// - Each lane's write-only outputs (an output buffer without declared contents) start from that
//   lane's own poison (lane_poison_word: CUDA, Vulkan descriptor and Vulkan bda differ in each of
//   the low three bytes), so an element that no kernel writes differs between two lanes even where
//   both kernels skip it alike. An element still holding its lane's poison is "unwritten": a
//   failure unless the buffer is declared `partial`, where the two lanes' unwritten sets must be
//   equal.
// - NaNs fail by default, even where both sides agree bit for bit (a kernel that reads an output
//   it never initialised); a buffer may allow a fraction of them (`nan_fraction`).
// - Elements compare bit for bit, or within the buffer's declared tolerance (ulp, abs).
// An output with initial contents (an in/out buffer such as saxpy's y) cannot show which elements
// were written: there only the comparisons catch a wrong or a missing write.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "backend.h"
#include "kernel_model.h"

namespace cuvk {

// The poison of a lane's write-only outputs: CUDA, Vulkan descriptor, Vulkan bda (and any other).
// Each is a NaN as an f32 and as an f64 (repeated), and the three differ in every one of the low
// three bytes, so 2-byte and struct elements differ too.
std::uint32_t lane_poison_word(Api api, Binding binding);
// Byte `offset` (from the buffer's first element) of a buffer filled with `word`, little endian.
inline std::uint8_t poison_byte(std::uint32_t word, std::uint64_t offset) {
  return static_cast<std::uint8_t>(word >> (8 * (offset % 4)));
}

// Byte `at` of a guard band (kernel_model.h): kGuardWord, little endian, repeated.
inline std::uint8_t guard_byte(std::uint64_t at) {
  return static_cast<std::uint8_t>(kGuardWord >> (8 * (at % 4)));
}

// One lane's output on its own: elements still holding the lane's poison, and NaNs among the rest.
struct OutputScan {
  std::uint64_t unwritten = 0, nans = 0;
  std::optional<std::uint64_t> first_unwritten, first_nan;
};
// `poison`: the lane's poison word where the buffer started poisoned, else nothing.
OutputScan scan_output(const ModelBuffer& b, const std::uint8_t* data,
                       std::optional<std::uint32_t> poison);

// Element `i` of `data` still holds `poison` (the element's bytes at their buffer offsets).
bool is_unwritten(const ModelBuffer& b, const std::uint8_t* data, std::uint64_t i,
                  std::uint32_t poison);

// One buffer of one lane compared with another result, element by element.
struct Comparison {
  std::uint64_t checked = 0, mismatches = 0;  // elements compared / that differ
  std::uint64_t skipped = 0;  // partial outputs: elements unwritten on both sides (not compared)
  std::optional<std::uint64_t> first_bad;  // element index within the buffer
  std::string message;                     // the first difference, both values
  double worst = 0.0;                      // the largest difference found within the tolerance
};

// One side of a comparison: a buffer's elements, the poison it started with where it was
// poisoned (which says which elements are unwritten), and what messages call it.
struct OutputSide {
  const std::uint8_t* data;
  std::optional<std::uint32_t> poison;
  std::string name;
};

// `got` compared with `want` under `b`'s tolerance. Each side's poison says which of its elements
// are unwritten: for a `partial` buffer an element unwritten on both sides is skipped, on one side
// only it differs; an expected file (no poison) is compared only on the elements `got` wrote.
// Elsewhere every element is compared, bytes as they are.
Comparison compare_output(const ModelBuffer& b, const OutputSide& got, const OutputSide& want);

// An element as a message shows it: "2.5 (0x40200000)", "17", "0x00ff...".
std::string element_text(const ModelBuffer& b, const std::uint8_t* p);

}  // namespace cuvk
