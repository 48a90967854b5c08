// Vulkan backend: volk opens the loader at run time, so a machine without one still runs CUDA.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "backend.h"

namespace cuvk {

// Physical devices the loader reports. Throws cuvk::Error with the reason when Vulkan cannot be
// used at all (no loader, no driver, instance creation failed).
std::vector<DeviceInfo> vulkan_devices(const BackendOptions& options);

// vulkan_devices() through the instance of an open Vulkan backend (no second instance: creating
// one takes 0.1-0.6 s on NVIDIA). Throws cuvk::Error when `opened` is not a Vulkan backend.
std::vector<DeviceInfo> vulkan_devices_of(const Backend& opened);

// A backend on physical device `index` of vulkan_devices(). Throws cuvk::Error on failure
// (e.g. a compute queue without timestamps).
std::unique_ptr<Backend> make_vulkan_backend(int index, const BackendOptions& options);

}  // namespace cuvk
