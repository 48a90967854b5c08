// One launch, checked against its kernel's shape and turned into handles (ResolvedLaunch), and its
// recording: a dispatch with its descriptor set or buffer device addresses, or the copy engine's
// vkCmdCopyBuffer. The Vulkan backend's one launch path: single launches, chains, sequences and
// traces all resolve and record here.
// Private to vulkan/.
#pragma once

#include <volk.h>

#include <string>
#include <vector>

#include "backend.h"
#include "vk_context.h"
#include "vk_memory.h"
#include "vk_pipelines.h"

namespace cuvk::vk {

// A validated launch, built-in and run-time kernels alike (one binding convention, backend.h):
// its buffers' views in binding order (a traced twin's trace buffer last) and the whole
// push-constant block (the scalars; in the bda form followed by the buffers' addresses).
struct ResolvedLaunch {
  bool engine = false;  // kCopyEngine: vkCmdCopyBuffer of `copy` from views[0] to views[1]
  VkPipelineStageFlagBits stage = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT;  // where its work runs
  VkPipeline pipeline = VK_NULL_HANDLE;
  VkPipelineLayout layout = VK_NULL_HANDLE;  // of the binding mode
  Binding binding = Binding::descriptor;     // bda: addresses in push constants, no descriptor set
  Geometry geometry;
  VkDescriptorSetLayout set_layout = VK_NULL_HANDLE;  // descriptor form: of the set made for it
  VkDescriptorSet set = VK_NULL_HANDLE;
  std::vector<VkDescriptorBufferInfo> views;
  std::vector<std::uint8_t> push;
  VkBufferCopy copy{};
};

// "" when launches with `binding` can run on a device with `features`, else why not.
std::string binding_unsupported(Binding binding, const EnabledFeatures& features);

// Checks `launch` against the device (`what` names it in errors) and makes its pipeline.
ResolvedLaunch resolve_launch(const Launch& launch, const char* what, const DeviceInfo& info,
                              const EnabledFeatures& features, const Allocator& allocator,
                              Pipelines& pipelines);

// One descriptor set per kernel launch that binds descriptors, from a pool reset each time.
void prepare_descriptor_sets(Pipelines& pipelines, std::vector<ResolvedLaunch>& launches);

// Records the launch's work alone (no barriers, no timestamps).
void record_launch(const VolkDeviceTable& table, VkCommandBuffer cb, const ResolvedLaunch& r);

}  // namespace cuvk::vk
