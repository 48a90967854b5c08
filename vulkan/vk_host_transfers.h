// HostTransfers (`cuvk p2p`): asynchronous copies between device buffers and imported host memory,
// on the compute queue, through a ring of command streams (each its own pool, buffer and fence).
// Private to vulkan/.
#pragma once

#include <volk.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

#include "backend.h"
#include "vk_commands.h"
#include "vk_context.h"
#include "vk_memory.h"
#include "vk_staging.h"

namespace cuvk::vk {

class AsyncTransfers final : public HostTransfers {
 public:
  AsyncTransfers(const DeviceContext& context, std::uint32_t family, const std::string& name,
                 const Allocator& allocator, const Staging& staging, std::uint64_t timeout_ns);

  std::uint64_t to_host_async(const DeviceBuffer& src, std::size_t offset, void* dst,
                              std::size_t bytes) override;
  std::uint64_t from_host_async(const void* src, DeviceBuffer& dst, std::size_t offset,
                                std::size_t bytes) override;
  void wait(std::uint64_t ticket) override;

 private:
  static constexpr std::size_t kRing = 4;  // copies in flight at most; the oldest is waited for
  // The next ticket's stream, begun (its earlier copy waited for first); the imported buffer
  // holding [host, host + bytes) and host's offset in it; throws where none does.
  VkCommandBuffer begin_next();
  VkBuffer imported(const void* host, std::size_t bytes, VkDeviceSize& offset) const;
  std::uint64_t submit_next(VkCommandBuffer cb);

  const Allocator& allocator_;
  const Staging& staging_;
  std::array<std::unique_ptr<CommandStream>, kRing> streams_;
  std::array<std::uint64_t, kRing> pending_{};  // the ticket each stream's fence waits for; 0: none
  std::uint64_t next_ = 1;
};

}  // namespace cuvk::vk
