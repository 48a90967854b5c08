// One launch, checked and turned into handles (ResolvedLaunch), and its recording: a dispatch
// with its descriptor set or buffer device addresses, or the copy engine's vkCmdCopyBuffer.
// Private to vulkan/.
#pragma once

#include <volk.h>

#include <string>
#include <vector>

#include "backend.h"
#include "params.h"
#include "vk_context.h"
#include "vk_memory.h"
#include "vk_pipelines.h"

namespace cuvk::vk {

struct ResolvedLaunch {  // a validated launch
  bool engine = false;   // kCopyEngine: vkCmdCopyBuffer of copy_bytes, no pipeline
  VkPipelineStageFlagBits stage = VK_PIPELINE_STAGE_COMPUTE_SHADER_BIT;  // where its work runs
  VkPipeline pipeline = VK_NULL_HANDLE;
  VkPipelineLayout layout = VK_NULL_HANDLE;  // of the binding mode
  Binding binding = Binding::descriptor;     // bda: addresses in push constants, no descriptor set
  VkBuffer in = VK_NULL_HANDLE;
  VkBuffer out = VK_NULL_HANDLE;
  VkDeviceAddress in_address = 0;  // bda only
  VkDeviceAddress out_address = 0;
  VkDeviceSize copy_bytes = 0;
  Geometry geometry;
  CuvkParams params{};
  VkDescriptorSet set = VK_NULL_HANDLE;
  Trace trace = Trace::none;  // a traced twin (Launch::trace) writes its records to:
  VkBuffer trace_buffer = VK_NULL_HANDLE;
  VkDeviceAddress trace_address = 0;  // bda only
  // A run-time kernel (Backend::load_module): its buffers' views (descriptor form) and the whole
  // push-constant block (the scalars; in the bda form followed by the buffers' addresses).
  const RuntimeKernel* runtime = nullptr;
  std::vector<VkDescriptorBufferInfo> views;
  std::vector<std::uint8_t> push;
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
