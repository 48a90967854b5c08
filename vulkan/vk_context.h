// The device context every part of the backend shares: instance, physical device, logical device
// with its dispatch table, the compute queue and one queue per other family that can copy.
// open_device() makes one. Private to vulkan/.
#pragma once

#include <volk.h>

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "backend.h"
#include "vk_instance.h"
#include "vk_physical_device.h"
#include "vk_raii.h"
#include "vk_util.h"

namespace cuvk::vk {

// The device and what outlives the backend object: buffers keep it alive through a shared_ptr, so
// freeing a buffer after the backend is still valid.
struct DeviceContext {
  explicit DeviceContext(const BackendOptions& options) : instance(options) {}
  VulkanInstance instance;  // first: destroyed last
  VkPhysicalDevice physical = VK_NULL_HANDLE;
  VolkDeviceTable table{};
  vk::Device device;  // destroyed before the instance, after every child (they hold the context)
  VkQueue queue = VK_NULL_HANDLE;  // of the compute family: every launch but other families' copies
  // One queue per family opened: the compute family's (`queue`) first, then one per other copy
  // family with queues and timestamps (copy-engine launches on Launch::queue_family).
  std::vector<std::pair<std::uint32_t, VkQueue>> family_queues;
  // The families of family_queues: where several, every test buffer is shared between them
  // (VK_SHARING_MODE_CONCURRENT), so a copy on any of them needs no ownership transfer.
  std::vector<std::uint32_t> families() const;
};

// Optional device features, as enabled at device creation.
struct EnabledFeatures {
  bool bda = false;                 // bufferDeviceAddress enabled: bda launches can run
  std::string bda_unsupported;      // why not, when !bda
  bool capture_statistics = false;  // VK_KHR_pipeline_executable_properties enabled (inspect)
  // `cuvk trace` (BackendOptions::trace): what traced launches can use, or why not.
  TraceSupport trace;
  // VK_EXT_external_memory_host enabled: host memory can be imported (Backend::register_host).
  bool host_import = false;
  // BackendOptions::copy_queues: a queue on every other copy family was asked for.
  bool copy_queues = false;
};

// A context on physical device `index` with its logical device and compute queue.
struct OpenedDevice {
  std::shared_ptr<DeviceContext> context;
  PhysicalFacts facts;
  EnabledFeatures features;
  std::vector<std::pair<std::string, double>> startup;  // "instance"
  Clock::time_point device_start;  // just before vkCreateDevice ("device" ends after the pools)
};

// Creates the instance, checks that device `index` can run cuvk (Vulkan 1.1, a compute queue with
// timestamps), and creates its logical device. Throws cuvk::Error with the reason.
OpenedDevice open_device(int index, const BackendOptions& options);

}  // namespace cuvk::vk
