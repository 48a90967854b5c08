// Recording and submission: the command pool and its one command buffer, barriers, the fence,
// submit and wait (with a deadline; a missed one leaves the device marked unusable).
// Private to vulkan/.
#pragma once

#include <volk.h>

#include <cstdint>
#include <string>

#include "vk_context.h"
#include "vk_raii.h"

namespace cuvk::vk {

// Generous but finite: a GPU that has not finished a submission by then is reported, not waited on.
constexpr std::uint64_t kFenceTimeoutNs = 120ULL * 1000 * 1000 * 1000;

// The stages cuvk records work in (transfers and compute shaders), and their access masks.
constexpr VkPipelineStageFlags kWorkStages =
    VK_PIPELINE_STAGE_TRANSFER_BIT | VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT;
VkAccessFlags write_access(VkPipelineStageFlags stages);
VkAccessFlags read_write_access(VkPipelineStageFlags stages);

class CommandStream {
 public:
  // Creates the command pool (transient) of `family`, its command buffer and the fence; submits to
  // `queue` (of that family). `stages`: the work stages the family supports (kWorkStages on a
  // compute family; TRANSFER alone on a transfer-only one), which the opening barrier covers.
  CommandStream(const DeviceContext& context, std::uint32_t family, VkQueue queue,
                std::string device_name, VkPipelineStageFlags stages = kWorkStages);
  CommandStream(const CommandStream&) = delete;
  CommandStream& operator=(const CommandStream&) = delete;

  // Throws once a submission has missed its deadline.
  void ensure_usable() const;
  bool hung() const { return hung_; }
  // How long wait() waits for the fence (BackendOptions::timeout_s); kFenceTimeoutNs by default.
  void set_timeout_ns(std::uint64_t ns) { timeout_ns_ = ns; }

  // Resets the pool and begins the one command buffer for a single submission.
  VkCommandBuffer begin();
  // Begins `cb` with `flags` and records the barrier that orders it after earlier submissions.
  void begin(VkCommandBuffer cb, VkCommandBufferUsageFlags flags);
  // To the queue, signalling the fence (unless `fenced` is false: a submission whose successor
  // is waited for instead).
  void submit(VkCommandBuffer cb, bool fenced = true);
  void wait();                      // for the fence, then resets it
  void submit_and_wait();           // ends, submits and waits for the one command buffer

  void barrier(VkCommandBuffer cb, VkPipelineStageFlags src_stage, VkAccessFlags src_access,
               VkPipelineStageFlags dst_stage, VkAccessFlags dst_access);
  // Serialises work like a CUDA stream: what follows sees the earlier writes and never overtakes.
  void serialise(VkCommandBuffer cb, VkPipelineStageFlags stages);

 private:
  const VolkDeviceTable& vk() const { return context_.table; }
  VkDevice device() const { return context_.device.get(); }

  const DeviceContext& context_;
  VkQueue queue_ = VK_NULL_HANDLE;
  std::string device_name_;
  VkPipelineStageFlags stages_ = kWorkStages;
  vk::CommandPool pool_;
  VkCommandBuffer command_buffer_ = VK_NULL_HANDLE;  // freed with its pool
  vk::Fence fence_;
  bool hung_ = false;
  std::uint64_t timeout_ns_ = kFenceTimeoutNs;  // a submission missed its deadline: the device cannot be used safely
};

}  // namespace cuvk::vk
