// Memory: memory types, buffers with their own allocations, the device-local test buffers
// (VulkanBuffer) and the free-memory budget. Private to vulkan/.
#pragma once

#include <volk.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>

#include "backend.h"
#include "vk_context.h"
#include "vk_raii.h"

namespace cuvk::vk {

// A memory type allowed by type_bits with every `required` flag; among those, the first with the
// most `preferred` and fewest `avoided` flags; ~0U when there is none.
std::uint32_t find_memory_type(const VkPhysicalDeviceMemoryProperties& memory,
                               std::uint32_t type_bits, VkMemoryPropertyFlags required,
                               VkMemoryPropertyFlags preferred, VkMemoryPropertyFlags avoided);

// A device-local buffer handed to the host. It keeps the device context alive.
class VulkanBuffer final : public DeviceBuffer {
 public:
  VulkanBuffer(std::shared_ptr<DeviceContext> context, std::size_t bytes, vk::Buffer buffer,
               vk::Memory memory, VkDeviceAddress address)
      : DeviceBuffer(bytes),
        context_(std::move(context)),
        memory_(std::move(memory)),
        buffer_(std::move(buffer)),
        address_(address) {}
  VkBuffer handle() const { return buffer_.get(); }
  VkDeviceAddress address() const { return address_; }  // 0 without bufferDeviceAddress
  const DeviceContext* context() const { return context_.get(); }

 private:
  std::shared_ptr<DeviceContext> context_;  // first: outlives the handles below
  vk::Memory memory_;                       // freed after the buffer bound to it
  vk::Buffer buffer_;
  VkDeviceAddress address_ = 0;
};

struct BoundBuffer {
  vk::Memory memory;  // declared first: the buffer is destroyed before its memory is freed
  vk::Buffer buffer;
};

class Allocator {
 public:
  // `bda`: bufferDeviceAddress is enabled, so every test buffer gets a device address.
  Allocator(std::shared_ptr<DeviceContext> context, const PhysicalFacts& facts, bool bda);

  // A buffer bound to its own allocation of the best memory type for the flags; `shared`: usable
  // on every queue family of the context (concurrent sharing where it has several).
  BoundBuffer make_buffer(VkDeviceSize size, VkBufferUsageFlags usage,
                          VkMemoryPropertyFlags required, VkMemoryPropertyFlags preferred,
                          VkMemoryPropertyFlags avoided, bool dedicated, bool shared = false) const;
  // A device-local test buffer (Backend::allocate).
  std::unique_ptr<DeviceBuffer> allocate(std::size_t bytes) const;
  // `buffer` as a buffer of this device; throws when it belongs to another backend.
  const VulkanBuffer& own(const DeviceBuffer& buffer, const char* what) const;
  // Budget minus usage of the device-local heaps (VK_EXT_memory_budget), else their size.
  std::uint64_t free_memory_bytes() const;
  const VkPhysicalDeviceMemoryProperties& memory_properties() const { return facts_.memory; }
  const VolkDeviceTable& table() const { return context_->table; }

 private:
  const VolkDeviceTable& vk() const { return context_->table; }
  VkDevice device() const { return context_->device.get(); }

  std::shared_ptr<DeviceContext> context_;
  const PhysicalFacts& facts_;
  bool bda_ = false;
};

}  // namespace cuvk::vk
