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
};

// Physical devices the loader reports. Throws cuvk::Error with the reason when Vulkan cannot be
// used at all (no loader, no driver, instance creation failed).
std::vector<DeviceInfo> vulkan_devices(const VulkanOptions& options);

// A backend on physical device `index` of vulkan_devices(). Throws cuvk::Error on failure
// (e.g. a compute queue without timestamps).
std::unique_ptr<Backend> make_vulkan_backend(int index, const VulkanOptions& options);

}  // namespace cuvk
