// The 32-byte sector model of global-memory traffic (compute capability >= 6.0): a warp's request
// is served in 32-byte sectors; DRAM moves each distinct sector a kernel touches once.
#pragma once

#include <cstdint>
#include <vector>

namespace cuvk {

constexpr std::uint32_t kSectorBytes = 32;
constexpr std::uint32_t kWarpSize = 32;

// One access stream of a kernel: thread i touches [base + i*stride, base + i*stride + elem).
struct AccessStream {
  std::uint64_t base_bytes = 0;
  std::uint64_t stride_bytes = 4;
  std::uint32_t elem_bytes = 4;
  std::uint64_t count = 0;  // threads that access
};

// Distinct sectors one full warp's request touches (lanes 0..31 of the first warp).
std::uint32_t sectors_per_request(const AccessStream& s);

// Sectors a warp's request needs at best: its useful bytes, packed and aligned.
std::uint32_t ideal_sectors_per_request(const AccessStream& s);

// Distinct sectors touched by all streams on one buffer (their union).
std::uint64_t sectors_touched(const std::vector<AccessStream>& streams_on_one_buffer);

// What a kernel moves: bytes it needs, bytes DRAM moves, and its worst stream's request figures.
struct Traffic {
  std::uint64_t useful_bytes = 0;
  std::uint64_t moved_bytes = 0;
  std::uint32_t sectors_per_request = 0;   // worst stream
  double request_efficiency = 1.0;         // worst stream: ideal / actual sectors per request
};

// `buffers`: for each buffer the kernel touches, the streams that touch it.
Traffic traffic(const std::vector<std::vector<AccessStream>>& buffers);

}  // namespace cuvk
