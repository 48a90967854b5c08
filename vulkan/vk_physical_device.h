// What a physical device is and offers: describe() turns its properties, extensions, features,
// memory heaps and queue families into a DeviceInfo plus what device creation needs.
// Private to vulkan/.
#pragma once

#include <volk.h>

#include <cstdint>
#include <string>
#include <vector>

#include "backend.h"

namespace cuvk::vk {

constexpr std::uint32_t kNoFamily = ~0U;
constexpr const char* kPortabilitySubset = "VK_KHR_portability_subset";  // a beta extension

// Everything describe() learns about a physical device, including what device creation needs.
struct PhysicalFacts {
  DeviceInfo info;
  std::uint32_t api_version = 0;
  std::uint32_t compute_family = kNoFamily;
  std::uint32_t timestamp_valid_bits = 0;
  double timestamp_period_ns = 0.0;
  bool portability_subset = false;
  bool memory_budget = false;  // VK_EXT_memory_budget: the driver reports what is still free
  // VK_EXT_external_memory_host: host memory imported as device memory (Backend::register_host).
  bool external_memory_host = false;
  // The `bda` binding mode: the bufferDeviceAddress feature (core in Vulkan 1.2; on a 1.1 device
  // through VK_KHR_buffer_device_address, bda_extension).
  bool buffer_device_address = false;
  bool bda_extension = false;
  // `cuvk inspect`: VK_KHR_pipeline_executable_properties with pipelineExecutableInfo.
  bool pipeline_executable_info = false;
  // `cuvk trace`: VK_KHR_shader_clock with shaderDeviceClock (the device clock the records use)
  // and VK_NV_shader_sm_builtins with shaderSMBuiltins (the SM id).
  bool shader_device_clock = false;
  bool shader_sm_builtins = false;
  VkPhysicalDeviceMemoryProperties memory{};
  // Queue families that can copy buffers (vk_queue_families.h), the compute family among them.
  std::vector<QueueFamily> copy_families;
};

// Device `index` of the instance's enumeration, described. Needs an instance (volk's
// instance-level pointers loaded).
PhysicalFacts describe(VkPhysicalDevice physical, int index);

// The device groups the driver reports (vkEnumeratePhysicalDeviceGroups) and the one holding
// `physical`, in words: "group 1 of 4, 1 GPU in it (groups: 1,1,1,1 GPUs)".
std::string describe_device_group(VkInstance instance, VkPhysicalDevice physical);

}  // namespace cuvk::vk
