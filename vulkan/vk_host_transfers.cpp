// Asynchronous copies between device buffers and imported host memory (HostTransfers).
#include "vk_host_transfers.h"

#include <volk.h>

#include <string>

#include "error.h"

namespace cuvk::vk {

AsyncTransfers::AsyncTransfers(const DeviceContext& context, std::uint32_t family,
                               const std::string& name, const Allocator& allocator,
                               const Staging& staging, std::uint64_t timeout_ns)
    : allocator_(allocator), staging_(staging) {
  for (auto& stream : streams_) {
    stream = std::make_unique<CommandStream>(context, family, context.queue, name);
    stream->set_timeout_ns(timeout_ns);
  }
}

VkBuffer AsyncTransfers::imported(const void* host, std::size_t bytes, VkDeviceSize& offset) const {
  const VkBuffer buffer = staging_.imported_buffer(host, bytes, offset);
  if (buffer == VK_NULL_HANDLE) {
    throw Error("host range of " + std::to_string(bytes) +
                " bytes is not imported into this Vulkan device (register_host first)");
  }
  return buffer;
}

VkCommandBuffer AsyncTransfers::begin_next() {
  const std::size_t slot = next_ % kRing;
  if (pending_[slot] != 0) wait(pending_[slot]);
  // begin() records the barrier that orders this copy after every earlier submission on the
  // queue (the copy that filled a host chunk before the one that reads it, on one device).
  return streams_[slot]->begin();
}

std::uint64_t AsyncTransfers::submit_next(VkCommandBuffer cb) {
  const std::size_t slot = next_ % kRing;
  CommandStream& stream = *streams_[slot];
  const VolkDeviceTable& table = allocator_.table();
  if (const VkResult r = table.vkEndCommandBuffer(cb); r != VK_SUCCESS)
    throw Error("vkEndCommandBuffer failed on a host transfer");
  stream.submit(cb);
  pending_[slot] = next_;
  return next_++;
}

std::uint64_t AsyncTransfers::to_host_async(const DeviceBuffer& src, std::size_t offset, void* dst,
                                            std::size_t bytes) {
  const VulkanBuffer& from = allocator_.own(src, "host transfer source");
  if (offset > src.bytes() || bytes > src.bytes() - offset)
    throw Error("host transfer past the end of a " + std::to_string(src.bytes()) + "-byte buffer");
  VkDeviceSize host_offset = 0;
  const VkBuffer to = imported(dst, bytes, host_offset);
  VkCommandBuffer cb = begin_next();
  const VkBufferCopy region{offset, host_offset, bytes};
  allocator_.table().vkCmdCopyBuffer(cb, from.handle(), to, 1, &region);
  streams_[next_ % kRing]->barrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT,
                                   VK_ACCESS_TRANSFER_WRITE_BIT, VK_PIPELINE_STAGE_HOST_BIT,
                                   VK_ACCESS_HOST_READ_BIT);
  return submit_next(cb);
}

std::uint64_t AsyncTransfers::from_host_async(const void* src, DeviceBuffer& dst,
                                              std::size_t offset, std::size_t bytes) {
  const VulkanBuffer& to = allocator_.own(dst, "host transfer destination");
  if (offset > dst.bytes() || bytes > dst.bytes() - offset)
    throw Error("host transfer past the end of a " + std::to_string(dst.bytes()) + "-byte buffer");
  VkDeviceSize host_offset = 0;
  const VkBuffer from = imported(src, bytes, host_offset);
  VkCommandBuffer cb = begin_next();  // host writes: visible at vkQueueSubmit
  const VkBufferCopy region{host_offset, offset, bytes};
  allocator_.table().vkCmdCopyBuffer(cb, from, to.handle(), 1, &region);
  return submit_next(cb);
}

void AsyncTransfers::wait(std::uint64_t ticket) {
  if (ticket == 0 || ticket >= next_) throw Error("wait for an unknown host transfer");
  const std::size_t slot = ticket % kRing;
  if (pending_[slot] != ticket) return;  // waited for already (its stream was reused since)
  // Copies finish in submission order on the one queue: wait for the earlier ones first, so
  // that "every copy issued before it" holds.
  for (std::uint64_t t = ticket + 1 > kRing ? ticket + 1 - kRing : 1; t < ticket; ++t)
    if (pending_[t % kRing] == t) wait(t);
  pending_[slot] = 0;
  streams_[slot]->wait();
}

}  // namespace cuvk::vk
