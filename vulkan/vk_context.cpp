// open_device(): instance, physical device checks, logical device with the optional features
// (bufferDeviceAddress, pipeline executable properties), the compute queue and a queue per other
// family that can copy buffers.
#include "vk_context.h"

#include <volk.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "error.h"
#include "vk_check.h"
#include "vk_queue_families.h"

namespace cuvk::vk {
namespace {

// Device `index` must offer Vulkan 1.1 and a compute queue family with timestamps.
void check_usable(const PhysicalFacts& facts, int index) {
  const DeviceInfo& info = facts.info;
  if (facts.api_version < kVulkan11) {
    throw Error("Vulkan device " + std::to_string(index) + " (" + info.name +
                ") supports only Vulkan " + format_version(facts.api_version) + "; cuvk needs 1.1");
  }
  if (facts.compute_family == kNoFamily) {
    throw Error("Vulkan device " + std::to_string(index) + " (" + info.name +
                ") has no compute queue");
  }
  if (facts.timestamp_valid_bits == 0) {
    throw Error("queue family " + std::to_string(facts.compute_family) +
                " has no timestamps (timestampValidBits = 0)");
  }
}

// What traced launches could use on this device (`asked`: BackendOptions::trace).
TraceSupport trace_support(const PhysicalFacts& facts, bool asked) {
  TraceSupport t;
  const std::string& name = facts.info.name;
  if (!asked) {
    t.unavailable = "this Vulkan backend was made without BackendOptions::trace";
  } else if (!facts.shader_device_clock) {
    t.unavailable = name +
                    " offers no VK_KHR_shader_clock shaderDeviceClock, the clock that "
                    "blocks on different SMs share (the subgroup clock is per SM)";
  }
  t.clock = "VK_KHR_shader_clock device clock (clockRealtime2x32EXT)";
  // NVIDIA's device clock is the %globaltimer CUDA reads, in ns (`cuvk trace` checks the span
  // against the dispatch's timestamp queries); other drivers document no unit.
  t.ticks_per_ns = 1.0;
  if (!t.unavailable.empty()) {
    t.sm_ids_unavailable = t.unavailable;
  } else if (!facts.shader_sm_builtins) {
    t.sm_ids_unavailable = name + " offers no VK_NV_shader_sm_builtins (gl_SMIDNV)";
  } else {
    t.sm_ids = true;
  }
  return t;
}

// The compute family first, then (with options.copy_queues) every other copy family that has
// queues and timestamps.
std::vector<std::uint32_t> families_to_open(const PhysicalFacts& facts, const BackendOptions& options) {
  std::vector<std::uint32_t> open = {facts.compute_family};
  if (!options.copy_queues) return open;
  for (const QueueFamily& f : facts.copy_families) {
    if (!f.own && measurable(f)) open.push_back(f.index);
  }
  return open;
}

// One queue of each of `families`, at `*priority` (which outlives the device's creation).
std::vector<VkDeviceQueueCreateInfo> queue_create_infos(const std::vector<std::uint32_t>& families,
                                                        const float* priority) {
  std::vector<VkDeviceQueueCreateInfo> infos;
  for (const std::uint32_t family : families) {
    VkDeviceQueueCreateInfo info{};
    info.sType = VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO;
    info.queueFamilyIndex = family;
    info.queueCount = 1;
    info.pQueuePriorities = priority;
    infos.push_back(info);
  }
  return infos;
}

// The optional features and extensions asked of the device, as a pNext chain. Its links point
// into this object, so it stays where it is until vkCreateDevice.
struct FeatureRequest {
  FeatureRequest() = default;
  FeatureRequest(const FeatureRequest&) = delete;
  FeatureRequest& operator=(const FeatureRequest&) = delete;

  std::vector<const char*> extensions;
  const void* chain = nullptr;
  VkPhysicalDeviceBufferDeviceAddressFeatures bda{};
  VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR exec{};
  VkPhysicalDeviceShaderClockFeaturesKHR clock{};
  VkPhysicalDeviceShaderSMBuiltinsFeaturesNV sm{};
};

// bufferDeviceAddress, where offered, for the bda binding mode. Core 1.2 features need a 1.2
// instance too; a 1.1 device gets it through VK_KHR_buffer_device_address.
void request_bda(FeatureRequest& r, const DeviceContext& context, const PhysicalFacts& facts,
                 EnabledFeatures& enabled) {
  r.bda.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_BUFFER_DEVICE_ADDRESS_FEATURES;
  const bool core12 = std::min(facts.api_version, context.instance.api_version()) >= kVulkan12;
  if (facts.buffer_device_address && (core12 || facts.bda_extension)) {
    r.bda.bufferDeviceAddress = VK_TRUE;
    r.chain = &r.bda;
    if (!core12) r.extensions.push_back(VK_KHR_BUFFER_DEVICE_ADDRESS_EXTENSION_NAME);
    enabled.bda = true;
  } else {
    enabled.bda_unsupported =
        "Vulkan device " + facts.info.name + " has no bufferDeviceAddress feature";
  }
}

// Pipeline statistics only when asked (`cuvk inspect`), never for timed runs.
void request_statistics(FeatureRequest& r, const PhysicalFacts& facts,
                        const BackendOptions& options, EnabledFeatures& enabled) {
  r.exec.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR;
  if (options.pipeline_statistics && facts.pipeline_executable_info) {
    r.exec.pipelineExecutableInfo = VK_TRUE;
    r.exec.pNext = const_cast<void*>(r.chain);
    r.chain = &r.exec;
    r.extensions.push_back(VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME);
    enabled.capture_statistics = true;
  }
}

// The device clock and SM ids only when asked (`cuvk trace`).
void request_trace(FeatureRequest& r, const PhysicalFacts& facts, const BackendOptions& options,
                   EnabledFeatures& enabled) {
  r.clock.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_CLOCK_FEATURES_KHR;
  r.sm.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_SM_BUILTINS_FEATURES_NV;
  enabled.trace = trace_support(facts, options.trace);
  if (!enabled.trace.unavailable.empty()) return;
  r.clock.shaderDeviceClock = VK_TRUE;
  r.clock.pNext = const_cast<void*>(r.chain);
  r.chain = &r.clock;
  r.extensions.push_back(VK_KHR_SHADER_CLOCK_EXTENSION_NAME);
  if (enabled.trace.sm_ids) {
    r.sm.shaderSMBuiltins = VK_TRUE;
    r.sm.pNext = const_cast<void*>(r.chain);
    r.chain = &r.sm;
    r.extensions.push_back(VK_NV_SHADER_SM_BUILTINS_EXTENSION_NAME);
  }
}

// Takes the new device into `context`: its dispatch table, ownership and a queue per family.
void take_device(DeviceContext& context, VkDevice raw_device,
                 const std::vector<std::uint32_t>& families) {
  volkLoadDeviceTable(&context.table, raw_device);
  context.device = vk::Device(raw_device, context.table.vkDestroyDevice);
  for (const std::uint32_t family : families) {
    VkQueue queue = VK_NULL_HANDLE;
    context.table.vkGetDeviceQueue(raw_device, family, 0, &queue);
    context.family_queues.emplace_back(family, queue);
  }
  context.queue = context.family_queues.front().second;
}

// The logical device with one queue per family of families_to_open, its dispatch table and the
// queues.
// No robustness features: no bounds checks, as in CUDA. `start`: set just before vkCreateDevice.
EnabledFeatures create_device(DeviceContext& context, const PhysicalFacts& facts,
                              const BackendOptions& options, Clock::time_point& start) {
  EnabledFeatures enabled;
  enabled.copy_queues = options.copy_queues;
  const float priority = 1.0F;
  const std::vector<std::uint32_t> open = families_to_open(facts, options);
  const std::vector<VkDeviceQueueCreateInfo> queue_infos = queue_create_infos(open, &priority);
  FeatureRequest request;
  // The portability subset: required if offered.
  if (facts.portability_subset) request.extensions.push_back(kPortabilitySubset);
  request_bda(request, context, facts, enabled);
  // Transfers straight from and into the runner's host memory (no staging copy), where offered.
  if (facts.external_memory_host && context.instance.api_version() >= kVulkan11) {
    request.extensions.push_back(VK_EXT_EXTERNAL_MEMORY_HOST_EXTENSION_NAME);
    enabled.host_import = true;
  }
  request_statistics(request, facts, options, enabled);
  request_trace(request, facts, options, enabled);
  VkDeviceCreateInfo device_info{};
  device_info.sType = VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO;
  device_info.pNext = request.chain;
  device_info.queueCreateInfoCount = static_cast<std::uint32_t>(queue_infos.size());
  device_info.pQueueCreateInfos = queue_infos.data();
  device_info.enabledExtensionCount = static_cast<std::uint32_t>(request.extensions.size());
  device_info.ppEnabledExtensionNames = request.extensions.data();
  device_info.pEnabledFeatures = nullptr;  // no robustBufferAccess: no bounds checks, as in CUDA
  start = Clock::now();
  VkDevice raw_device = VK_NULL_HANDLE;
  CUVK_VK(vkCreateDevice, context.physical, &device_info, nullptr, &raw_device);
  take_device(context, raw_device, open);
  return enabled;
}

}  // namespace

std::vector<std::uint32_t> DeviceContext::families() const {
  std::vector<std::uint32_t> out;
  for (const auto& family_queue : family_queues) out.push_back(family_queue.first);
  return out;
}

OpenedDevice open_device(int index, const BackendOptions& options) {
  OpenedDevice opened;
  const Clock::time_point instance_start = Clock::now();
  opened.context = std::make_shared<DeviceContext>(options);
  opened.startup.emplace_back("instance", ms_since(instance_start));
  DeviceContext& context = *opened.context;
  const std::vector<VkPhysicalDevice> physicals = context.instance.physical_devices();
  if (index < 0 || static_cast<std::size_t>(index) >= physicals.size()) {
    throw Error("Vulkan device index " + std::to_string(index) + " out of range (" +
                std::to_string(physicals.size()) + " device(s))");
  }
  context.physical = physicals[static_cast<std::size_t>(index)];
  opened.facts = describe(context.physical, index);
  check_usable(opened.facts, index);
  opened.features = create_device(context, opened.facts, options, opened.device_start);
  return opened;
}

}  // namespace cuvk::vk
