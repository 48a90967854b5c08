// Buffers and their memory: vkCreateBuffer, the memory type choice, vkAllocateMemory (dedicated
// for test buffers, with DEVICE_ADDRESS where the buffer has one), vkBindBufferMemory; and the
// free-memory budget. Test buffers are device-local only; the host reaches them through staging.
#include "vk_memory.h"

#include <volk.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "error.h"
#include "vk_check.h"

namespace cuvk::vk {

std::uint32_t find_memory_type(const VkPhysicalDeviceMemoryProperties& memory,
                               std::uint32_t type_bits, VkMemoryPropertyFlags required,
                               VkMemoryPropertyFlags preferred, VkMemoryPropertyFlags avoided) {
  std::uint32_t best = ~0U;
  int best_score = -1;
  for (std::uint32_t t = 0; t < memory.memoryTypeCount; ++t) {
    const VkMemoryPropertyFlags flags = memory.memoryTypes[t].propertyFlags;
    if ((type_bits & (1U << t)) == 0 || (flags & required) != required) continue;
    const int score = ((flags & preferred) == preferred ? 2 : 0) + ((flags & avoided) == 0 ? 1 : 0);
    if (score > best_score) {
      best = t;
      best_score = score;
    }
  }
  return best;
}

Allocator::Allocator(std::shared_ptr<DeviceContext> context, const PhysicalFacts& facts, bool bda)
    : context_(std::move(context)), facts_(facts), bda_(bda) {}

BoundBuffer Allocator::make_buffer(VkDeviceSize size, VkBufferUsageFlags usage,
                                   VkMemoryPropertyFlags required, VkMemoryPropertyFlags preferred,
                                   VkMemoryPropertyFlags avoided, bool dedicated,
                                   bool shared) const {
  const VolkDeviceTable* table = &context_->table;
  VkBufferCreateInfo buffer_info{};
  buffer_info.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
  buffer_info.size = size;
  buffer_info.usage = usage;
  buffer_info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
  const std::vector<std::uint32_t> families = context_->families();
  if (shared && families.size() > 1) {  // copies on other families need no ownership transfer
    buffer_info.sharingMode = VK_SHARING_MODE_CONCURRENT;
    buffer_info.queueFamilyIndexCount = static_cast<std::uint32_t>(families.size());
    buffer_info.pQueueFamilyIndices = families.data();
  }
  VkBuffer raw_buffer = VK_NULL_HANDLE;
  CUVK_VK(vk().vkCreateBuffer, device(), &buffer_info, nullptr, &raw_buffer);
  BoundBuffer bound;
  bound.buffer = vk::Buffer(table, device(), raw_buffer);

  VkMemoryRequirements requirements{};
  vk().vkGetBufferMemoryRequirements(device(), raw_buffer, &requirements);
  const std::uint32_t type =
      find_memory_type(facts_.memory, requirements.memoryTypeBits, required, preferred, avoided);
  if (type == ~0U) {
    throw Error("Vulkan device " + facts_.info.name +
                " has no suitable memory type for a buffer of " + std::to_string(size) + " bytes");
  }
  VkMemoryDedicatedAllocateInfo dedicated_info{};
  dedicated_info.sType = VK_STRUCTURE_TYPE_MEMORY_DEDICATED_ALLOCATE_INFO;
  dedicated_info.buffer = raw_buffer;
  VkMemoryAllocateInfo alloc_info{};
  alloc_info.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
  alloc_info.pNext = dedicated ? &dedicated_info : nullptr;
  alloc_info.allocationSize = requirements.size;
  alloc_info.memoryTypeIndex = type;
  VkMemoryAllocateFlagsInfo flags_info{};  // a buffer with a device address needs it on its memory
  flags_info.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO;
  flags_info.flags = VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT;
  if ((usage & VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT) != 0) {
    flags_info.pNext = alloc_info.pNext;
    alloc_info.pNext = &flags_info;
  }
  VkDeviceMemory raw_memory = VK_NULL_HANDLE;
  CUVK_VK(vk().vkAllocateMemory, device(), &alloc_info, nullptr, &raw_memory);
  bound.memory = vk::Memory(table, device(), raw_memory);
  CUVK_VK(vk().vkBindBufferMemory, device(), raw_buffer, raw_memory, 0);
  return bound;
}

std::unique_ptr<DeviceBuffer> Allocator::allocate(std::size_t bytes) const {
  const DeviceInfo& info = facts_.info;
  if (bytes > info.max_buffer_bytes) {
    throw Error("buffer of " + std::to_string(bytes) +
                " bytes exceeds the largest Vulkan storage buffer of " + info.name + " (" +
                std::to_string(info.max_buffer_bytes) + " bytes)");
  }
  // Whole words (vkCmdFillBuffer, VK_WHOLE_SIZE descriptors), never zero (Vulkan forbids it).
  const VkDeviceSize size =
      std::max<VkDeviceSize>((static_cast<VkDeviceSize>(bytes) + 3) & ~VkDeviceSize{3}, 4);
  VkBufferUsageFlags usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                             VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  if (bda_) usage |= VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT;  // same buffers for both modes
  BoundBuffer bound =
      make_buffer(size, usage, VK_MEMORY_PROPERTY_DEVICE_LOCAL_BIT, 0,
                  VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT,  // plain VRAM rather than the BAR window
                  /*dedicated=*/true, /*shared=*/true);
  VkDeviceAddress address = 0;
  if (bda_) {
    VkBufferDeviceAddressInfo address_info{};
    address_info.sType = VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO;
    address_info.buffer = bound.buffer.get();
    const PFN_vkGetBufferDeviceAddress get_address = vk().vkGetBufferDeviceAddress != nullptr
                                                         ? vk().vkGetBufferDeviceAddress
                                                         : vk().vkGetBufferDeviceAddressKHR;
    address = get_address(device(), &address_info);
  }
  return std::make_unique<VulkanBuffer>(context_, bytes, std::move(bound.buffer),
                                        std::move(bound.memory), address);
}

const VulkanBuffer& Allocator::own(const DeviceBuffer& buffer, const char* what) const {
  const auto* vb = dynamic_cast<const VulkanBuffer*>(&buffer);
  if (vb == nullptr || vb->context() != context_.get()) {
    throw Error(std::string("Vulkan backend: ") + what + " is not a buffer of this backend");
  }
  return *vb;
}

std::uint64_t Allocator::free_memory_bytes() const {
  VkPhysicalDeviceMemoryBudgetPropertiesEXT budget{};
  budget.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_BUDGET_PROPERTIES_EXT;
  VkPhysicalDeviceMemoryProperties2 props{};
  props.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MEMORY_PROPERTIES_2;
  if (facts_.memory_budget) props.pNext = &budget;
  vkGetPhysicalDeviceMemoryProperties2(context_->physical, &props);
  std::uint64_t free_bytes = 0;
  for (std::uint32_t h = 0; h < props.memoryProperties.memoryHeapCount; ++h) {
    const VkMemoryHeap& heap = props.memoryProperties.memoryHeaps[h];
    if ((heap.flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT) == 0) continue;
    if (!facts_.memory_budget) {
      free_bytes += heap.size;
    } else if (budget.heapBudget[h] > budget.heapUsage[h]) {
      free_bytes += budget.heapBudget[h] - budget.heapUsage[h];
    }
  }
  return free_bytes;
}

}  // namespace cuvk::vk
