// The devices that hung (vk_raii.h). Private to vulkan/.
#include "vk_raii.h"

#include <algorithm>
#include <atomic>
#include <mutex>
#include <vector>

namespace cuvk::vk {

namespace {

std::atomic<bool> g_any_hung{false};  // the common case answers without the lock

std::mutex& hung_mutex() {
  static std::mutex m;
  return m;
}

std::vector<VkDevice>& hung_devices() {
  static std::vector<VkDevice> devices;
  return devices;
}

}  // namespace

void mark_device_hung(VkDevice device) noexcept {
  try {
    const std::lock_guard<std::mutex> lock(hung_mutex());
    hung_devices().push_back(device);
  } catch (...) {  // out of memory: every device counts as hung, which only leaks more
  }
  g_any_hung.store(true);
}

bool device_hung(VkDevice device) noexcept {
  if (!g_any_hung.load()) return false;
  try {
    const std::lock_guard<std::mutex> lock(hung_mutex());
    const std::vector<VkDevice>& all = hung_devices();
    return all.empty() || std::find(all.begin(), all.end(), device) != all.end();
  } catch (...) {
    return true;
  }
}

}  // namespace cuvk::vk
