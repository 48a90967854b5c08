// `cuvk inspect`: the driver's description of a pipeline's executables and their statistics
// (VK_KHR_pipeline_executable_properties; the pipeline made with CAPTURE_STATISTICS).
// Private to vulkan/.
#pragma once

#include <volk.h>

#include <vector>

#include "backend.h"

namespace cuvk::vk {

std::vector<PipelineExecutableReport> executable_statistics(const VolkDeviceTable& table,
                                                            VkDevice device, VkPipeline pipeline);

}  // namespace cuvk::vk
