// Vulkan backend: volk opens the loader at run time, so a machine without one still runs CUDA.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "backend.h"

namespace cuvk {

struct VulkanOptions {
  // Enable VK_LAYER_KHRONOS_validation (with synchronization validation) and route every
  // message to on_message. Never used when timing for results: the layer changes timings.
  bool validation = false;
  std::function<void(const std::string&)> on_message;
  // Enable VK_KHR_pipeline_executable_properties where the driver offers it and create pipelines
  // with CAPTURE_STATISTICS, for vulkan_pipeline_statistics (`cuvk inspect`; never timed runs).
  bool pipeline_statistics = false;
};

// One executable of a pipeline as the driver describes it (VK_KHR_pipeline_executable_properties),
// e.g. the register count and binary size of the compute shader's machine code.
struct PipelineStatistic {
  std::string name, description, value;
};
struct PipelineExecutableReport {
  std::string name, description;
  std::uint32_t subgroup_size = 0;
  std::vector<PipelineStatistic> statistics;
};

// Physical devices the loader reports. Throws cuvk::Error with the reason when Vulkan cannot be
// used at all (no loader, no driver, instance creation failed).
std::vector<DeviceInfo> vulkan_devices(const VulkanOptions& options);

// A backend on physical device `index` of vulkan_devices(). Throws cuvk::Error on failure
// (e.g. a compute queue without timestamps).
std::unique_ptr<Backend> make_vulkan_backend(int index, const VulkanOptions& options);

// The driver's statistics for the pipeline of `kernel` in `binding` at `block_size` (created if
// needed). `backend` must come from make_vulkan_backend with options.pipeline_statistics; throws
// cuvk::Error with the reason when the driver offers no statistics.
std::vector<PipelineExecutableReport> vulkan_pipeline_statistics(Backend& backend,
                                                                 const std::string& kernel,
                                                                 Binding binding,
                                                                 std::uint32_t block_size);

}  // namespace cuvk
