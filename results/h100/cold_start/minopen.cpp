// The drivers' own cold start, without cuvk: CUDA (cuInit, primary context, one allocation) and
// Vulkan (instance, device, one allocation) opened side by side, as cuvk opens them.
#include <cuda.h>
#include <vulkan/vulkan.h>
#include <chrono>
#include <cstdio>
#include <thread>
static double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
int main(int argc, char**) {
  const double t0 = now();
  double tc = 0, tv = 0;
  auto cuda = [&] {
    CUdevice d; CUcontext c; CUdeviceptr p;
    if (cuInit(0) || cuDeviceGet(&d, 0) || cuDevicePrimaryCtxRetain(&c, d) || cuCtxSetCurrent(c) ||
        cuMemAlloc(&p, 1 << 20) || cuCtxSynchronize()) std::printf("cuda failed\n");
    tc = now() - t0;
  };
  auto vk = [&] {
    VkApplicationInfo ai{VK_STRUCTURE_TYPE_APPLICATION_INFO}; ai.apiVersion = VK_API_VERSION_1_3;
    VkInstanceCreateInfo ii{VK_STRUCTURE_TYPE_INSTANCE_CREATE_INFO}; ii.pApplicationInfo = &ai;
    VkInstance inst; if (vkCreateInstance(&ii, nullptr, &inst)) { std::printf("vk instance failed\n"); return; }
    uint32_t n = 1; VkPhysicalDevice pd; vkEnumeratePhysicalDevices(inst, &n, &pd);
    float prio = 1; VkDeviceQueueCreateInfo qi{VK_STRUCTURE_TYPE_DEVICE_QUEUE_CREATE_INFO};
    qi.queueFamilyIndex = 0; qi.queueCount = 1; qi.pQueuePriorities = &prio;
    VkDeviceCreateInfo di{VK_STRUCTURE_TYPE_DEVICE_CREATE_INFO}; di.queueCreateInfoCount = 1; di.pQueueCreateInfos = &qi;
    VkDevice dev; if (vkCreateDevice(pd, &di, nullptr, &dev)) { std::printf("vk device failed\n"); return; }
    VkMemoryAllocateInfo mi{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO}; mi.allocationSize = 1 << 20; mi.memoryTypeIndex = 0;
    VkDeviceMemory m; vkAllocateMemory(dev, &mi, nullptr, &m);
    vkDeviceWaitIdle(dev);
    tv = now() - t0;
  };
  if (argc > 1) { cuda(); vk(); } else { std::thread a(cuda), b(vk); a.join(); b.join(); }
  std::printf("%s: cuda open %.3f s, vulkan open %.3f s\n", argc > 1 ? "one after the other" : "side by side", tc, tv);
}
