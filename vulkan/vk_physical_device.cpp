// describe(): a physical device's facts, queried in this order: base properties, device
// extensions, Vulkan 1.1 properties (UUID, largest allocation, driver), optional features
// (bufferDeviceAddress, pipelineExecutableInfo), memory heaps, the first compute queue family and
// the families that can copy buffers.
#include "vk_physical_device.h"

#include <volk.h>

#include <algorithm>
#include <cstdint>
#include <iterator>
#include <string>
#include <vector>

#include "vk_queue_families.h"
#include "vk_util.h"

namespace cuvk::vk {
namespace {

constexpr std::uint32_t kVendorNvidia = 0x10DE;

const char* device_type_name(VkPhysicalDeviceType type) {
  switch (type) {
    case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU:
      return "integrated_gpu";
    case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU:
      return "discrete_gpu";
    case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU:
      return "virtual_gpu";
    case VK_PHYSICAL_DEVICE_TYPE_CPU:
      return "cpu";
    default:
      return "other";
  }
}

// The device's properties: `base` (vkGetPhysicalDeviceProperties), replaced on a 1.1 device by
// those of vkGetPhysicalDeviceProperties2 with the ID, maintenance3 and driver structs chained.
struct Properties {
  VkPhysicalDeviceProperties base{};
  VkPhysicalDeviceDriverProperties driver{};
  bool have_driver_props = false;
  VkDeviceSize max_allocation = 0;  // 0: not reported
};

Properties query_properties(VkPhysicalDevice physical, const VkPhysicalDeviceProperties& base,
                            const std::vector<VkExtensionProperties>& device_ext,
                            DeviceInfo& info) {
  Properties props;
  props.base = base;
  const std::uint32_t api_version = base.apiVersion;
  VkPhysicalDeviceIDProperties id{};
  id.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_ID_PROPERTIES;
  VkPhysicalDeviceMaintenance3Properties maintenance3{};
  maintenance3.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_MAINTENANCE_3_PROPERTIES;
  props.driver.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_DRIVER_PROPERTIES;
  const bool is_11 = api_version >= kVulkan11;
  props.have_driver_props =
      is_11 && (api_version >= kVulkan12 ||
                has_extension(device_ext, VK_KHR_DRIVER_PROPERTIES_EXTENSION_NAME));
  if (is_11) {
    VkPhysicalDeviceProperties2 props2{};
    props2.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PROPERTIES_2;
    props2.pNext = &id;
    id.pNext = &maintenance3;
    if (props.have_driver_props) maintenance3.pNext = &props.driver;
    vkGetPhysicalDeviceProperties2(physical, &props2);
    props.base = props2.properties;
    std::copy(std::begin(id.deviceUUID), std::end(id.deviceUUID), info.uuid.begin());
    props.max_allocation = maintenance3.maxMemoryAllocationSize;
  }
  return props;
}

// Optional features: bufferDeviceAddress (the bda binding mode), pipelineExecutableInfo
// (`cuvk inspect`), shaderDeviceClock and shaderSMBuiltins (`cuvk trace`). A feature struct may be
// chained only where its version or extension is.
void query_features(VkPhysicalDevice physical, const Properties& props,
                    const std::vector<VkExtensionProperties>& device_ext, PhysicalFacts& facts) {
  const bool is_11 = facts.api_version >= kVulkan11;
  const bool bda_core = props.base.apiVersion >= kVulkan12;
  const bool bda_ext = has_extension(device_ext, VK_KHR_BUFFER_DEVICE_ADDRESS_EXTENSION_NAME);
  const bool exec_ext =
      has_extension(device_ext, VK_KHR_PIPELINE_EXECUTABLE_PROPERTIES_EXTENSION_NAME);
  const bool clock_ext = has_extension(device_ext, VK_KHR_SHADER_CLOCK_EXTENSION_NAME);
  const bool sm_ext = has_extension(device_ext, VK_NV_SHADER_SM_BUILTINS_EXTENSION_NAME);
  if (!is_11 || !(bda_core || bda_ext || exec_ext || clock_ext || sm_ext)) return;
  VkPhysicalDeviceShaderClockFeaturesKHR clock{};
  clock.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_CLOCK_FEATURES_KHR;
  VkPhysicalDeviceShaderSMBuiltinsFeaturesNV sm{};
  sm.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_SHADER_SM_BUILTINS_FEATURES_NV;
  VkPhysicalDeviceBufferDeviceAddressFeatures bda{};
  bda.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_BUFFER_DEVICE_ADDRESS_FEATURES;
  VkPhysicalDevicePipelineExecutablePropertiesFeaturesKHR exec{};
  exec.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_PIPELINE_EXECUTABLE_PROPERTIES_FEATURES_KHR;
  VkPhysicalDeviceFeatures2 features{};
  features.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_FEATURES_2;
  void** next = &features.pNext;
  if (bda_core || bda_ext) {
    *next = &bda;
    next = &bda.pNext;
  }
  if (exec_ext) {
    *next = &exec;
    next = &exec.pNext;
  }
  if (clock_ext) {
    *next = &clock;
    next = &clock.pNext;
  }
  if (sm_ext) *next = &sm;
  vkGetPhysicalDeviceFeatures2(physical, &features);
  facts.shader_device_clock = clock_ext && clock.shaderDeviceClock == VK_TRUE;
  facts.shader_sm_builtins = sm_ext && sm.shaderSMBuiltins == VK_TRUE;
  facts.buffer_device_address = (bda_core || bda_ext) && bda.bufferDeviceAddress == VK_TRUE;
  facts.bda_extension = facts.buffer_device_address && !bda_core;
  facts.pipeline_executable_info = exec_ext && exec.pipelineExecutableInfo == VK_TRUE;
}

// Device-local memory, the largest buffer and the launch limits.
void query_memory_and_limits(VkPhysicalDevice physical, const Properties& props,
                             PhysicalFacts& facts) {
  DeviceInfo& info = facts.info;
  const VkPhysicalDeviceLimits& limits = props.base.limits;
  vkGetPhysicalDeviceMemoryProperties(physical, &facts.memory);
  for (std::uint32_t h = 0; h < facts.memory.memoryHeapCount; ++h) {
    if ((facts.memory.memoryHeaps[h].flags & VK_MEMORY_HEAP_DEVICE_LOCAL_BIT) != 0) {
      info.memory_bytes += facts.memory.memoryHeaps[h].size;
    }
  }

  // Whole 32-bit words, so that allocate()'s rounding up never passes the limit.
  std::uint64_t max_buffer = limits.maxStorageBufferRange;
  if (props.max_allocation != 0) {
    max_buffer = std::min<std::uint64_t>(max_buffer, props.max_allocation);
  }
  info.max_buffer_bytes = max_buffer & ~std::uint64_t{3};
  info.max_block_size =
      std::min(limits.maxComputeWorkGroupSize[0], limits.maxComputeWorkGroupInvocations);
  info.max_grid_x = limits.maxComputeWorkGroupCount[0];
  info.max_grid_y = limits.maxComputeWorkGroupCount[1];
  info.max_scalar_bytes = limits.maxPushConstantsSize;
  info.l2_bytes = 0;  // Vulkan does not report cache sizes
}

// The first queue family with compute, and its timestamp width; then every family that can copy
// buffers (the copy engine's rows).
void find_queue_families(VkPhysicalDevice physical, PhysicalFacts& facts) {
  std::uint32_t family_count = 0;
  vkGetPhysicalDeviceQueueFamilyProperties(physical, &family_count, nullptr);
  std::vector<VkQueueFamilyProperties> families(family_count);
  vkGetPhysicalDeviceQueueFamilyProperties(physical, &family_count, families.data());
  std::vector<FamilyProperties> plain;
  for (std::uint32_t f = 0; f < family_count; ++f) {
    plain.push_back(
        {families[f].queueFlags, families[f].queueCount, families[f].timestampValidBits});
    if (facts.compute_family == kNoFamily && (families[f].queueFlags & VK_QUEUE_COMPUTE_BIT) != 0) {
      facts.compute_family = f;
      facts.timestamp_valid_bits = families[f].timestampValidBits;
    }
  }
  facts.copy_families = copy_families(plain, facts.compute_family);
}

// DeviceInfo::driver and the ordered key/value properties of reports.
void add_report_properties(const Properties& props, PhysicalFacts& facts) {
  const VkPhysicalDeviceProperties& base = props.base;
  const VkPhysicalDeviceDriverProperties& driver = props.driver;
  DeviceInfo& info = facts.info;
  std::string driver_version = std::to_string(base.driverVersion);
  if (base.vendorID == kVendorNvidia) {  // NVIDIA packs major.minor into 10.8 bits
    driver_version += " (" + std::to_string(base.driverVersion >> 22U) + "." +
                      std::to_string((base.driverVersion >> 14U) & 0xFFU) + ")";
  }
  if (props.have_driver_props) {
    info.driver = std::string(driver.driverName) + " " + driver.driverInfo;
  } else {
    info.driver = "vendor " + hex32(base.vendorID) + " driver " + driver_version;
  }

  auto& p = info.properties;
  p.emplace_back("api_version", format_version(base.apiVersion));
  p.emplace_back("driver_version", driver_version);
  if (props.have_driver_props) {
    const VkConformanceVersion& c = driver.conformanceVersion;
    p.emplace_back("driver_name", driver.driverName);
    p.emplace_back("driver_info", driver.driverInfo);
    p.emplace_back("conformance_version", std::to_string(c.major) + "." + std::to_string(c.minor) +
                                              "." + std::to_string(c.subminor) + "." +
                                              std::to_string(c.patch));
  } else {
    p.emplace_back("driver_name", "unknown (no VkPhysicalDeviceDriverProperties)");
    p.emplace_back("driver_info", "unknown");
    p.emplace_back("conformance_version", "unknown");
  }
  p.emplace_back("vendor_id", hex32(base.vendorID));
  p.emplace_back("device_id", hex32(base.deviceID));
  p.emplace_back("device_type", device_type_name(base.deviceType));
  p.emplace_back("timestamp_period_ns", format_double(facts.timestamp_period_ns));
  if (facts.compute_family == kNoFamily) {
    p.emplace_back("timestamp_valid_bits", "no compute queue");
  } else {
    p.emplace_back("timestamp_valid_bits", std::to_string(facts.timestamp_valid_bits));
    p.emplace_back("compute_queue_family", std::to_string(facts.compute_family));
  }
  p.emplace_back("copy_queue_families", describe_copy_families(facts.copy_families));
  p.emplace_back("buffer_device_address", !facts.buffer_device_address ? "no"
                                          : facts.bda_extension
                                              ? "yes (VK_KHR_buffer_device_address)"
                                              : "yes (Vulkan 1.2)");
  p.emplace_back("pipeline_executable_properties", facts.pipeline_executable_info ? "yes" : "no");
  if (facts.api_version < kVulkan11) {
    p.emplace_back("unsupported", "device supports only Vulkan " + format_version(base.apiVersion));
  }
}

}  // namespace

PhysicalFacts describe(VkPhysicalDevice physical, int index) {
  PhysicalFacts facts;
  DeviceInfo& info = facts.info;
  info.api = Api::vulkan;
  info.index = index;

  VkPhysicalDeviceProperties base{};
  vkGetPhysicalDeviceProperties(physical, &base);
  facts.api_version = base.apiVersion;

  const auto device_ext = enumerate<VkExtensionProperties>(
      "vkEnumerateDeviceExtensionProperties", __FILE__, __LINE__,
      [physical](std::uint32_t* n, VkExtensionProperties* p) {
        return vkEnumerateDeviceExtensionProperties(physical, nullptr, n, p);
      });
  facts.portability_subset = has_extension(device_ext, kPortabilitySubset);
  facts.memory_budget = has_extension(device_ext, "VK_EXT_memory_budget");
  facts.external_memory_host =
      has_extension(device_ext, VK_EXT_EXTERNAL_MEMORY_HOST_EXTENSION_NAME) &&
      base.apiVersion >= kVulkan11;

  const Properties props = query_properties(physical, base, device_ext, info);
  query_features(physical, props, device_ext, facts);

  info.name = props.base.deviceName;
  info.is_cpu = props.base.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU;
  query_memory_and_limits(physical, props, facts);
  find_queue_families(physical, facts);
  facts.timestamp_period_ns = static_cast<double>(props.base.limits.timestampPeriod);
  info.timer = {facts.timestamp_period_ns, facts.timestamp_valid_bits,
                "timestampPeriod: ns per tick of the compute queue's timestamps"};
  add_report_properties(props, facts);
  return facts;
}

std::string describe_device_group(VkInstance instance, VkPhysicalDevice physical) {
  if (vkEnumeratePhysicalDeviceGroups == nullptr) return "unknown (no Vulkan 1.1 instance)";
  std::uint32_t count = 0;
  if (vkEnumeratePhysicalDeviceGroups(instance, &count, nullptr) != VK_SUCCESS)
    return "unknown (vkEnumeratePhysicalDeviceGroups failed)";
  std::vector<VkPhysicalDeviceGroupProperties> groups(count);
  for (auto& g : groups) g.sType = VK_STRUCTURE_TYPE_PHYSICAL_DEVICE_GROUP_PROPERTIES;
  if (vkEnumeratePhysicalDeviceGroups(instance, &count, groups.data()) != VK_SUCCESS)
    return "unknown (vkEnumeratePhysicalDeviceGroups failed)";
  std::string sizes, mine = "in no group";
  for (std::uint32_t g = 0; g < count; ++g) {
    const std::uint32_t n = groups[g].physicalDeviceCount;
    sizes += (sizes.empty() ? "" : ",") + std::to_string(n);
    for (std::uint32_t d = 0; d < n; ++d)
      if (groups[g].physicalDevices[d] == physical)
        mine = "group " + std::to_string(g) + " of " + std::to_string(count) + ", " +
               std::to_string(n) + (n == 1 ? " GPU" : " GPUs") + " in it";
  }
  return mine + " (groups: " + sizes + " GPUs)";
}

}  // namespace cuvk::vk
