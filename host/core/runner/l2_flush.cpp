#include "l2_flush.h"

#include <algorithm>
#include <cstring>

#include "catalogue.h"
#include "launch_geometry.h"

namespace cuvk {
namespace {

constexpr std::uint64_t kCpuFlushBytes = 8ull << 20;          // a CPU device's last-level cache
constexpr std::uint64_t kUnknownL2FlushBytes = 256ull << 20;  // Vulkan does not report L2 size
constexpr std::uint64_t kMinGpuFlushBytes = 64ull << 20;
constexpr std::uint64_t kFlushL2Multiple = 3;  // read 3x the L2 size to evict it
constexpr float kFlushSentinel = 1.0f;         // the zeroed scratch never sums to it

}  // namespace

std::uint64_t flush_scratch_bytes(bool any_gpu, bool any_cpu, std::uint64_t l2_bytes) {
  std::uint64_t bytes = any_cpu ? kCpuFlushBytes : 0;
  if (any_gpu)
    bytes = std::max(bytes, l2_bytes ? std::max(kMinGpuFlushBytes, kFlushL2Multiple * l2_bytes)
                                     : kUnknownL2FlushBytes);
  return bytes;
}

Launch flush_launch(DeviceBuffer* scratch, DeviceBuffer* sink, std::uint32_t block_size,
                    std::uint32_t max_x, std::uint32_t max_y) {
  const auto vecs = static_cast<std::uint32_t>(scratch->bytes() / kFlushVecBytes);
  CuvkParams params{};
  params.n = vecs;
  std::memcpy(&params.aux, &kFlushSentinel, sizeof kFlushSentinel);
  return builtin_launch(suite_kernels().l2_flush_kernel,
                        launch_geometry(vecs, block_size, max_x, max_y), params, *scratch, *sink);
}

}  // namespace cuvk
