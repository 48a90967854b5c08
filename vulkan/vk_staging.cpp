// Uploads, downloads and fills, each a submission waited for before returning.
#include "vk_staging.h"

#include <volk.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "error.h"
#include "vk_check.h"

namespace cuvk::vk {

// Host memory imported as device memory, with a buffer over it that transfers copy from and to.
class ImportedHost final : public HostRegistration {
 public:
  ImportedHost(Staging& owner, const char* base, std::size_t bytes, BoundBuffer bound)
      : owner_(owner), base_(base), bytes_(bytes), bound_(std::move(bound)) {}
  ~ImportedHost() override { owner_.forget(this); }
  ImportedHost(const ImportedHost&) = delete;
  ImportedHost& operator=(const ImportedHost&) = delete;
  bool holds(const void* p, std::size_t bytes) const {
    const auto* c = static_cast<const char*>(p);
    return c >= base_ && bytes <= bytes_ && static_cast<std::size_t>(c - base_) <= bytes_ - bytes;
  }
  VkDeviceSize offset_of(const void* p) const {
    return static_cast<VkDeviceSize>(static_cast<const char*>(p) - base_);
  }
  VkBuffer buffer() const { return bound_.buffer.get(); }

 private:
  Staging& owner_;
  const char* base_;
  std::size_t bytes_;
  BoundBuffer bound_;
};

Staging::Staging(const DeviceContext& context, const Allocator& allocator, CommandStream& commands,
                 bool host_import)
    : context_(context), allocator_(allocator), commands_(commands), host_import_(host_import) {}

std::unique_ptr<HostRegistration> Staging::register_host(void* data, std::size_t bytes) {
  if (!host_import_ || data == nullptr || bytes == 0) return nullptr;
  VkMemoryHostPointerPropertiesEXT pointer{};
  pointer.sType = VK_STRUCTURE_TYPE_MEMORY_HOST_POINTER_PROPERTIES_EXT;
  constexpr auto kHandle = VK_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION_BIT_EXT;
  if (vk().vkGetMemoryHostPointerPropertiesEXT(device(), kHandle, data, &pointer) != VK_SUCCESS)
    return nullptr;  // e.g. a pointer the driver cannot import: transfers use the staging buffer
  VkExternalMemoryBufferCreateInfo external{};
  external.sType = VK_STRUCTURE_TYPE_EXTERNAL_MEMORY_BUFFER_CREATE_INFO;
  external.handleTypes = kHandle;
  VkBufferCreateInfo buffer_info{};
  buffer_info.sType = VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO;
  buffer_info.pNext = &external;
  buffer_info.size = bytes;
  buffer_info.usage = VK_BUFFER_USAGE_TRANSFER_SRC_BIT | VK_BUFFER_USAGE_TRANSFER_DST_BIT;
  buffer_info.sharingMode = VK_SHARING_MODE_EXCLUSIVE;  // transfers run on the compute queue
  VkBuffer raw_buffer = VK_NULL_HANDLE;
  CUVK_VK(vk().vkCreateBuffer, device(), &buffer_info, nullptr, &raw_buffer);
  BoundBuffer bound;
  bound.buffer = vk::Buffer(&vk(), device(), raw_buffer);
  VkMemoryRequirements requirements{};
  vk().vkGetBufferMemoryRequirements(device(), raw_buffer, &requirements);
  const std::uint32_t type = find_memory_type(
      allocator_.memory_properties(), requirements.memoryTypeBits & pointer.memoryTypeBits,
      VK_MEMORY_PROPERTY_HOST_VISIBLE_BIT | VK_MEMORY_PROPERTY_HOST_COHERENT_BIT, 0, 0);
  if (type == ~0U || bytes % requirements.alignment != 0) return nullptr;
  VkImportMemoryHostPointerInfoEXT import{};
  import.sType = VK_STRUCTURE_TYPE_IMPORT_MEMORY_HOST_POINTER_INFO_EXT;
  import.handleType = kHandle;
  import.pHostPointer = data;
  VkMemoryAllocateInfo alloc_info{};
  alloc_info.sType = VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO;
  alloc_info.pNext = &import;
  alloc_info.allocationSize = bytes;
  alloc_info.memoryTypeIndex = type;
  VkDeviceMemory raw_memory = VK_NULL_HANDLE;
  if (vk().vkAllocateMemory(device(), &alloc_info, nullptr, &raw_memory) != VK_SUCCESS)
    return nullptr;  // e.g. alignment the driver wants larger: transfers use the staging buffer
  bound.memory = vk::Memory(&vk(), device(), raw_memory);
  CUVK_VK(vk().vkBindBufferMemory, device(), raw_buffer, raw_memory, 0);
  auto imported = std::make_unique<ImportedHost>(*this, static_cast<const char*>(data), bytes,
                                                 std::move(bound));
  const std::lock_guard<std::mutex> lock(imported_mutex_);
  imported_.push_back(imported.get());
  return imported;
}

void Staging::forget(const ImportedHost* imported) {
  const std::lock_guard<std::mutex> lock(imported_mutex_);
  imported_.erase(std::remove(imported_.begin(), imported_.end(), imported), imported_.end());
}

const ImportedHost* Staging::imported_for(const void* p, std::size_t bytes,
                                          VkDeviceSize& offset) const {
  const std::lock_guard<std::mutex> lock(imported_mutex_);
  for (const ImportedHost* h : imported_)
    if (h->holds(p, bytes)) {
      offset = h->offset_of(p);
      return h;
    }
  return nullptr;
}

VkBuffer Staging::imported_buffer(const void* p, std::size_t bytes, VkDeviceSize& offset) const {
  const ImportedHost* h = imported_for(p, bytes, offset);
  return h != nullptr ? h->buffer() : VK_NULL_HANDLE;
}

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
  VkDeviceSize offset = 0;
  if (const ImportedHost* h = imported_for(src, bytes, offset)) {  // host writes: visible at submit
    VkCommandBuffer cb = commands_.begin();
    const VkBufferCopy region{offset, 0, bytes};
    vk().vkCmdCopyBuffer(cb, h->buffer(), buffer.handle(), 1, &region);
    commands_.submit_and_wait();
    return;
  }
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
  VkDeviceSize offset = 0;
  if (const ImportedHost* h = imported_for(dst, bytes, offset)) {
    VkCommandBuffer cb = commands_.begin();
    const VkBufferCopy region{0, offset, bytes};
    vk().vkCmdCopyBuffer(cb, buffer.handle(), h->buffer(), 1, &region);
    commands_.barrier(cb, VK_PIPELINE_STAGE_TRANSFER_BIT, VK_ACCESS_TRANSFER_WRITE_BIT,
                      VK_PIPELINE_STAGE_HOST_BIT, VK_ACCESS_HOST_READ_BIT);
    commands_.submit_and_wait();
    return;
  }
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
