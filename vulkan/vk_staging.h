// Host <-> device transfers: one bounded, persistently mapped staging buffer serves every upload
// and download, chunk by chunk; fills are vkCmdFillBuffer. Private to vulkan/.
#pragma once

#include <volk.h>

#include <cstddef>
#include <cstdint>

#include "backend.h"
#include "vk_commands.h"
#include "vk_context.h"
#include "vk_memory.h"

namespace cuvk::vk {

// One staging buffer serves every upload and download, chunk by chunk.
constexpr VkDeviceSize kStagingBytes = VkDeviceSize{64} << 20U;

class Staging {
 public:
  Staging(const DeviceContext& context, const Allocator& allocator, CommandStream& commands);
  Staging(const Staging&) = delete;
  Staging& operator=(const Staging&) = delete;

  void upload(DeviceBuffer& dst, const void* src, std::size_t bytes);
  void download(const DeviceBuffer& src, void* dst, std::size_t bytes);
  void fill(DeviceBuffer& dst, std::uint32_t word);

 private:
  const VolkDeviceTable& vk() const { return context_.table; }
  VkDevice device() const { return context_.device.get(); }
  void ensure_staging();  // made at the first transfer

  const DeviceContext& context_;
  const Allocator& allocator_;
  CommandStream& commands_;
  BoundBuffer staging_;
  void* staging_map_ = nullptr;  // persistently mapped; unmapped when its memory is freed
};

}  // namespace cuvk::vk
