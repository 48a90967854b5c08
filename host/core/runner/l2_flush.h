// The L2 flush (`--l2 cold`, the default): before every timed repetition the catalogue's flush
// kernel reads a scratch buffer of 3x the L2, outside the timed interval. Sized and made here for
// the runner and for `cuvk trace`.
#pragma once

#include <cstdint>

#include "backend.h"

namespace cuvk {

constexpr std::uint64_t kFlushVecBytes = 16;  // one float4 per flush thread; the sink holds one

// Scratch bytes: 3x the L2 (at least 64 MiB) where a GPU reports its L2, 256 MiB where it does not
// (Vulkan), a CPU's last-level cache (8 MiB) on a CPU device; the largest where several apply.
std::uint64_t flush_scratch_bytes(bool any_gpu, bool any_cpu, std::uint64_t l2_bytes);

// The flush launch over `scratch` (zeroed by the caller) into `sink` (kFlushVecBytes): it stores
// only where a float4 of the scratch sums to a sentinel the zeroed scratch never reaches.
Launch flush_launch(DeviceBuffer* scratch, DeviceBuffer* sink, std::uint32_t block_size,
                    std::uint32_t max_x, std::uint32_t max_y);

}  // namespace cuvk
