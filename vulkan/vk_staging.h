// Host <-> device transfers: one bounded, persistently mapped staging buffer serves every upload
// and download, chunk by chunk; fills are vkCmdFillBuffer. Private to vulkan/.
#pragma once

#include <volk.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "backend.h"
#include "vk_commands.h"
#include "vk_context.h"
#include "vk_memory.h"

namespace cuvk::vk {

// One staging buffer serves every upload and download, chunk by chunk.
constexpr VkDeviceSize kStagingBytes = VkDeviceSize{64} << 20U;

class ImportedHost;

class Staging {
 public:
  // `host_import`: VK_EXT_external_memory_host is enabled (register_host can import).
  Staging(const DeviceContext& context, const Allocator& allocator, CommandStream& commands,
          bool host_import = false);
  Staging(const Staging&) = delete;
  Staging& operator=(const Staging&) = delete;

  // Transfers whose host side lies inside registered (imported) host memory are one copy
  // between the two buffers; others go through the staging buffer.
  void upload(DeviceBuffer& dst, const void* src, std::size_t bytes);
  void download(const DeviceBuffer& src, void* dst, std::size_t bytes);
  void fill(DeviceBuffer& dst, std::uint32_t word);
  // Imports [data, data + bytes) as device memory with a transfer buffer over it; null where the
  // extension is off, the alignment does not fit, or the driver refuses the pointer. Safe from
  // several threads at once (the runner registers two arrays side by side) and beside transfers.
  std::unique_ptr<HostRegistration> register_host(void* data, std::size_t bytes);
  void forget(const ImportedHost* imported);  // by ~ImportedHost
  // The imported buffer holding [p, p + bytes) and p's offset in it; VK_NULL_HANDLE if none.
  VkBuffer imported_buffer(const void* p, std::size_t bytes, VkDeviceSize& offset) const;

 private:
  // The imported buffer holding [p, p + bytes) and p's offset in it; null if none.
  const ImportedHost* imported_for(const void* p, std::size_t bytes, VkDeviceSize& offset) const;
  const VolkDeviceTable& vk() const { return context_.table; }
  VkDevice device() const { return context_.device.get(); }
  void ensure_staging();  // made at the first transfer

  const DeviceContext& context_;
  const Allocator& allocator_;
  CommandStream& commands_;
  BoundBuffer staging_;
  void* staging_map_ = nullptr;  // persistently mapped; unmapped when its memory is freed
  bool host_import_ = false;
  mutable std::mutex imported_mutex_;          // guards imported_: registrations come and go
  std::vector<const ImportedHost*> imported_;  // on other threads; live registrations
};

}  // namespace cuvk::vk
