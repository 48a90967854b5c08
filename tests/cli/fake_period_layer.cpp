// A test-only Vulkan layer (issue 31's mutation audit): it reports every physical device's
// timestampPeriod multiplied by CUVK_FAKE_PERIOD_SCALE (default 1000) and passes everything else
// through. lavapipe's period is 1 ns, so a timer that ignored the period gave the right times
// there; under this layer a correct timer's times grow by the scale, an ignoring one's do not
// (tests/cli/fake_period.sh). One instance and one device at a time, as cuvk opens them.
#include <vulkan/vk_layer.h>
#include <vulkan/vulkan.h>

#include <atomic>
#include <cstdlib>
#include <cstring>

namespace {

// The next layer's (or the driver's) entry points, taken once an instance exists: the same for
// every instance of the chain (cuvk may open two at once on two threads).
std::atomic<PFN_vkGetInstanceProcAddr> g_next_gipa{nullptr};
std::atomic<PFN_vkGetDeviceProcAddr> g_next_gdpa{nullptr};
std::atomic<PFN_vkCreateDevice> g_next_create_device{nullptr};
std::atomic<PFN_vkGetPhysicalDeviceProperties> g_next_props{nullptr};
std::atomic<PFN_vkGetPhysicalDeviceProperties2> g_next_props2{nullptr};

float scale() {
  const char* s = std::getenv("CUVK_FAKE_PERIOD_SCALE");
  const float v = s ? static_cast<float>(std::atof(s)) : 0.0f;
  return v > 0.0f ? v : 1000.0f;
}

template <typename T>
T* find_link(const void* chain, VkStructureType type) {
  for (auto* p = static_cast<const VkBaseInStructure*>(chain); p; p = p->pNext)
    if (p->sType == type && reinterpret_cast<const T*>(p)->function == VK_LAYER_LINK_INFO)
      return const_cast<T*>(reinterpret_cast<const T*>(p));
  return nullptr;
}

VKAPI_ATTR VkResult VKAPI_CALL CreateInstance(const VkInstanceCreateInfo* info,
                                              const VkAllocationCallbacks* alloc,
                                              VkInstance* instance) {
  auto* link = find_link<VkLayerInstanceCreateInfo>(info->pNext,
                                                    VK_STRUCTURE_TYPE_LOADER_INSTANCE_CREATE_INFO);
  if (!link || !link->u.pLayerInfo) return VK_ERROR_INITIALIZATION_FAILED;
  const PFN_vkGetInstanceProcAddr gipa = link->u.pLayerInfo->pfnNextGetInstanceProcAddr;
  link->u.pLayerInfo = link->u.pLayerInfo->pNext;
  const auto create =
      reinterpret_cast<PFN_vkCreateInstance>(gipa(VK_NULL_HANDLE, "vkCreateInstance"));
  const VkResult r = create(info, alloc, instance);
  if (r != VK_SUCCESS) return r;
  g_next_gipa = gipa;
  g_next_create_device = reinterpret_cast<PFN_vkCreateDevice>(gipa(*instance, "vkCreateDevice"));
  g_next_props = reinterpret_cast<PFN_vkGetPhysicalDeviceProperties>(
      gipa(*instance, "vkGetPhysicalDeviceProperties"));
  auto props2 = reinterpret_cast<PFN_vkGetPhysicalDeviceProperties2>(
      gipa(*instance, "vkGetPhysicalDeviceProperties2"));
  if (!props2)
    props2 = reinterpret_cast<PFN_vkGetPhysicalDeviceProperties2>(
        gipa(*instance, "vkGetPhysicalDeviceProperties2KHR"));
  g_next_props2 = props2;
  return r;
}

VKAPI_ATTR VkResult VKAPI_CALL CreateDevice(VkPhysicalDevice gpu, const VkDeviceCreateInfo* info,
                                            const VkAllocationCallbacks* alloc, VkDevice* device) {
  auto* link = find_link<VkLayerDeviceCreateInfo>(info->pNext,
                                                  VK_STRUCTURE_TYPE_LOADER_DEVICE_CREATE_INFO);
  if (!link || !link->u.pLayerInfo) return VK_ERROR_INITIALIZATION_FAILED;
  g_next_gdpa = link->u.pLayerInfo->pfnNextGetDeviceProcAddr;
  link->u.pLayerInfo = link->u.pLayerInfo->pNext;
  return g_next_create_device.load()(gpu, info, alloc, device);
}

VKAPI_ATTR void VKAPI_CALL GetPhysicalDeviceProperties(VkPhysicalDevice gpu,
                                                       VkPhysicalDeviceProperties* props) {
  g_next_props.load()(gpu, props);
  props->limits.timestampPeriod *= scale();
}

VKAPI_ATTR void VKAPI_CALL GetPhysicalDeviceProperties2(VkPhysicalDevice gpu,
                                                        VkPhysicalDeviceProperties2* props) {
  g_next_props2.load()(gpu, props);
  props->properties.limits.timestampPeriod *= scale();
}

PFN_vkVoidFunction intercepted(const char* name) {
  if (!std::strcmp(name, "vkCreateInstance"))
    return reinterpret_cast<PFN_vkVoidFunction>(&CreateInstance);
  if (!std::strcmp(name, "vkCreateDevice"))
    return reinterpret_cast<PFN_vkVoidFunction>(&CreateDevice);
  if (!std::strcmp(name, "vkGetPhysicalDeviceProperties"))
    return reinterpret_cast<PFN_vkVoidFunction>(&GetPhysicalDeviceProperties);
  if (!std::strcmp(name, "vkGetPhysicalDeviceProperties2") ||
      !std::strcmp(name, "vkGetPhysicalDeviceProperties2KHR"))
    return reinterpret_cast<PFN_vkVoidFunction>(&GetPhysicalDeviceProperties2);
  return nullptr;
}

}  // namespace

extern "C" {

VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL cuvk_fake_period_GetDeviceProcAddr(VkDevice device,
                                                                            const char* name) {
  const PFN_vkGetDeviceProcAddr next = g_next_gdpa;
  return next ? next(device, name) : nullptr;
}

VKAPI_ATTR PFN_vkVoidFunction VKAPI_CALL cuvk_fake_period_GetInstanceProcAddr(VkInstance instance,
                                                                              const char* name) {
  if (!std::strcmp(name, "vkGetInstanceProcAddr"))
    return reinterpret_cast<PFN_vkVoidFunction>(&cuvk_fake_period_GetInstanceProcAddr);
  if (!std::strcmp(name, "vkGetDeviceProcAddr"))
    return reinterpret_cast<PFN_vkVoidFunction>(&cuvk_fake_period_GetDeviceProcAddr);
  if (PFN_vkVoidFunction f = intercepted(name)) return f;
  const PFN_vkGetInstanceProcAddr next = g_next_gipa;
  return next ? next(instance, name) : nullptr;
}

VKAPI_ATTR VkResult VKAPI_CALL
vkNegotiateLoaderLayerInterfaceVersion(VkNegotiateLayerInterface* v) {
  if (v->loaderLayerInterfaceVersion < 2) return VK_ERROR_INITIALIZATION_FAILED;
  v->loaderLayerInterfaceVersion = 2;
  v->pfnGetInstanceProcAddr = &cuvk_fake_period_GetInstanceProcAddr;
  v->pfnGetDeviceProcAddr = &cuvk_fake_period_GetDeviceProcAddr;
  v->pfnGetPhysicalDeviceProcAddr = nullptr;
  return VK_SUCCESS;
}

}  // extern "C"
