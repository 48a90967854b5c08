// Uploads, downloads and fills, each a submission waited for before returning.
#include "vk_staging.h"

#include <volk.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <utility>

#include "error.h"
#include "vk_check.h"

namespace cuvk::vk {

Staging::Staging(const DeviceContext& context, const Allocator& allocator, CommandStream& commands)
    : context_(context), allocator_(allocator), commands_(commands) {}

void Staging::ensure_staging() {
  if (staging_.buffer) return;
  BoundBuffer bound = allocator_.make_buffer(
      kStagingBytes, VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT,
      VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT,
      VK_MEMORY_PROPERTY_HOST_CACHED_BIT,  // fast host reads for download()
      VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, /*dedicated=*/false);
  void* mapped = nullptr;
  CUVK_VK(vk().vkMapMemory, device(), bound.memory.get(), 0, VK_WHOLE_SIZE, 0, &mapped);
  staging_ = std::move(bound);
  staging_map_ = mapped;
}

void Staging::upload(DeviceBuffer& dst, const void* src, std::size_t bytes) {
  const VulkanBuffer& buffer = allocator_.own(dst, "upload destination");
  if (bytes > dst.bytes()) {
    throw Error("upload of " + std::to_string(bytes) + " bytes into a buffer of " +
                std::to_string(dst.bytes()) + " bytes");
  }
  if (bytes == 0) return;
  if (src == nullptr) throw Error("upload from a null host pointer");
  commands_.ensure_usable();
  ensure_staging();
  const auto* from = static_cast<const unsigned char*>(src);
  for (std::size_t done = 0; done < bytes;) {
    const std::size_t chunk = std::min<std::size_t>(bytes - done, kStagingBytes);
    std::memcpy(staging_map_, from + done, chunk);  // coherent: visible to the submit below
    VkCommandBuffer cb = commands_.begin();
    VkBufferCopy region{};
    region.srcOffset = 0;
    region.dstOffset = done;
    region.size = chunk;
    vk().vkCmdCopyBuffer(cb, staging_.buffer.get(), buffer.handle(), 1, &region);
    commands_.submit_and_wait();
    done += chunk;
  }
}

void Staging::download(const DeviceBuffer& src, void* dst, std::size_t bytes) {
  const VulkanBuffer& buffer = allocator_.own(src, "download source");
  if (bytes > src.bytes()) {
    throw Error("download of " + std::to_string(bytes) + " bytes from a buffer of " +
                std::to_string(src.bytes()) + " bytes");
  }
  if (bytes == 0) return;
  if (dst == nullptr) throw Error("download into a null host pointer");
  commands_.ensure_usable();
  ensure_staging();
  auto* to = static_cast<unsigned char*>(dst);
  for (std::size_t done = 0; done < bytes;) {
    const std::size_t chunk = std::min<std::size_t>(bytes - done, kStagingBytes);
    VkCommandBuffer cb = commands_.begin();
    VkBufferCopy region{};
    region.srcOffset = done;
    region.dstOffset = 0;
    region.size = chunk;
    vk().vkCmdCopyBuffer(cb, buffer.handle(), staging_.buffer.get(), 1, &region);
    commands_.barrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                      VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
    commands_.submit_and_wait();
    std::memcpy(to + done, staging_map_, chunk);
    done += chunk;
  }
}

void Staging::fill(DeviceBuffer& dst, std::uint32_t word) {
  const VulkanBuffer& buffer = allocator_.own(dst, "fill destination");
  VkCommandBuffer cb = commands_.begin();
  vk().vkCmdFillBuffer(cb, buffer.handle(), 0, VK_WHOLE_SIZE, word);
  commands_.submit_and_wait();
}

}  // namespace cuvk::vk
