// Command buffers, barriers, submit and wait. Every command buffer starts with a global barrier
// from all earlier transfer/compute work: a fence wait orders only the host, so without it
// submissions would not be ordered on the device.
#include "vk_commands.h"

#include <volk.h>

#include <string>
#include <utility>

#include "error.h"
#include "vk_check.h"

namespace cuvk::vk {

VkAccessFlags write_access(VkPipelineStageFlags stages) {
  VkAccessFlags access = 0;
  if ((stages & VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT) != 0) access |= VK_ACCESS_SHADER_WRITE_BIT;
  if ((stages & VK_PIPELINE_STAGE_TRANSFER_BIT) != 0) access |= VK_ACCESS_TRANSFER_WRITE_BIT;
  return access;
}

VkAccessFlags read_write_access(VkPipelineStageFlags stages) {
  VkAccessFlags access = write_access(stages);
  if ((stages & VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT) != 0) access |= VK_ACCESS_SHADER_READ_BIT;
  if ((stages & VK_PIPELINE_STAGE_TRANSFER_BIT) != 0) access |= VK_ACCESS_TRANSFER_READ_BIT;
  return access;
}

CommandStream::CommandStream(const DeviceContext& context, std::uint32_t family, VkQueue queue,
                             std::string device_name, VkPipelineStageFlags stages)
    : context_(context), queue_(queue), device_name_(std::move(device_name)), stages_(stages) {
  const VolkDeviceTable* table = &context_.table;
  VkCommandPoolCreateInfo pool_info{};
  pool_info.sType = VK_STRUCTURE_TYPE_COMMAND_POOL_CREATE_INFO;
  pool_info.flags = VK_COMMAND_POOL_CREATE_TRANSIENT_BIT;
  pool_info.queueFamilyIndex = family;
  VkCommandPool raw_pool = VK_NULL_HANDLE;
  CUVK_VK(vk().vkCreateCommandPool, device(), &pool_info, nullptr, &raw_pool);
  pool_ = vk::CommandPool(table, device(), raw_pool);

  VkCommandBufferAllocateInfo cb_info{};
  cb_info.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_ALLOCATE_INFO;
  cb_info.commandPool = raw_pool;
  cb_info.level = VK_COMMAND_BUFFER_LEVEL_PRIMARY;
  cb_info.commandBufferCount = 1;
  CUVK_VK(vk().vkAllocateCommandBuffers, device(), &cb_info, &command_buffer_);

  VkFenceCreateInfo fence_info{};
  fence_info.sType = VK_STRUCTURE_TYPE_FENCE_CREATE_INFO;
  VkFence raw_fence = VK_NULL_HANDLE;
  CUVK_VK(vk().vkCreateFence, device(), &fence_info, nullptr, &raw_fence);
  fence_ = vk::Fence(table, device(), raw_fence);
}

void CommandStream::ensure_usable() const {
  if (hung_) {
    throw Error("Vulkan device " + device_name_ +
                " is unusable: an earlier submission did not finish in time");
  }
}

VkCommandBuffer CommandStream::begin() {
  ensure_usable();
  CUVK_VK(vk().vkResetCommandPool, device(), pool_.get(), 0);
  begin(command_buffer_, VK_COMMAND_BUFFER_USAGE_ONE_TIME_SUBMIT_BIT);
  return command_buffer_;
}

void CommandStream::begin(VkCommandBuffer cb, VkCommandBufferUsageFlags flags) {
  VkCommandBufferBeginInfo begin_info{};
  begin_info.sType = VK_STRUCTURE_TYPE_COMMAND_BUFFER_BEGIN_INFO;
  begin_info.flags = flags;
  CUVK_VK(vk().vkBeginCommandBuffer, cb, &begin_info);
  // Order this submission after every earlier one on its queue: their transfer and shader writes
  // become visible here (RAW, WAW) and their reads finish before anything here writes (WAR).
  // Work on another queue (a copy family's) was waited for on the host before this submission.
  barrier(cb, stages_, write_access(stages_), stages_, read_write_access(stages_));
}

// The fence is unsignalled here: created so, and reset by every successful wait().
void CommandStream::submit(VkCommandBuffer cb, bool fenced) {
  VkSubmitInfo submit_info{};
  submit_info.sType = VK_STRUCTURE_TYPE_SUBMIT_INFO;
  submit_info.commandBufferCount = 1;
  submit_info.pCommandBuffers = &cb;
  CUVK_VK(vk().vkQueueSubmit, queue_, 1, &submit_info, fenced ? fence_.get() : VK_NULL_HANDLE);
}

void CommandStream::wait() {
  VkFence fence = fence_.get();
  const VkResult result = vk().vkWaitForFences(device(), 1, &fence, VK_TRUE, timeout_ns_);
  if (result == VK_TIMEOUT) {
    hung_ = true;
    mark_device_hung(device());
    throw Error("GPU did not finish within " + std::to_string(static_cast<double>(timeout_ns_) / 1e9) +
                " s (vkWaitForFences timed out on " + device_name_ +
                "; --timeout); the shader may never end");
  }
  vk::check(result, "vkWaitForFences", __FILE__, __LINE__);
  CUVK_VK(vk().vkResetFences, device(), 1, &fence);
}

void CommandStream::submit_and_wait() {
  CUVK_VK(vk().vkEndCommandBuffer, command_buffer_);
  submit(command_buffer_);
  wait();
}

void CommandStream::barrier(VkCommandBuffer cb, VkPipelineStageFlags src_stage,
                            VkAccessFlags src_access, VkPipelineStageFlags dst_stage,
                            VkAccessFlags dst_access) {
  VkMemoryBarrier memory_barrier{};
  memory_barrier.sType = VK_STRUCTURE_TYPE_MEMORY_BARRIER;
  memory_barrier.srcAccessMask = src_access;
  memory_barrier.dstAccessMask = dst_access;
  vk().vkCmdPipelineBarrier(cb, src_stage, dst_stage, 0, 1, &memory_barrier, 0, nullptr, 0,
                            nullptr);
}

// `stages` are those the run's work uses, so kernel-only runs get a compute->compute barrier.
void CommandStream::serialise(VkCommandBuffer cb, VkPipelineStageFlags stages) {
  barrier(cb, stages, write_access(stages), stages, read_write_access(stages));
}

}  // namespace cuvk::vk
