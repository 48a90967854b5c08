// The Vulkan instance: opening the loader (volk, at run time), creating the instance with the
// validation layer and a debug messenger when asked, and listing the physical devices.
// Private to vulkan/.
#pragma once

#include <volk.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "backend.h"
#include "vk_raii.h"

namespace cuvk::vk {

using MessageSink = std::function<void(const std::string&)>;

// Opens the loader once per process; throws cuvk::Error with the reason when there is none.
void open_loader();

// An instance, with the validation layer and a messenger when asked. Not movable: the messenger
// keeps a pointer to sink_.
class VulkanInstance {
 public:
  explicit VulkanInstance(const BackendOptions& options);
  VulkanInstance(const VulkanInstance&) = delete;
  VulkanInstance& operator=(const VulkanInstance&) = delete;
  ~VulkanInstance() = default;

  VkInstance get() const { return instance_.get(); }

  // Every physical device; none is an error (where VK_DRIVER_FILES chose the drivers, it says so).
  std::vector<VkPhysicalDevice> physical_devices() const;

  std::uint32_t api_version() const { return api_version_; }  // what the instance asked for

 private:
  std::vector<VkPhysicalDevice> enumerate_physical_devices() const;
  std::uint32_t api_version_ = 0;
  // Declaration order is destruction order reversed: messenger, then instance, then the sink the
  // instance's create-info messenger still points to during vkDestroyInstance.
  std::unique_ptr<MessageSink> sink_;
  vk::Instance instance_;
  vk::Messenger messenger_;
};

}  // namespace cuvk::vk
