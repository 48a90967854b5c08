// Move-only owners for Vulkan handles. Private to vulkan/.
// Device children are destroyed through the owning device's VolkDeviceTable (never volk's global
// device pointers, so two backends on two devices can coexist). Instance-level owners keep the
// destroy function they were created with.
#pragma once

#include <volk.h>

#include <utility>

namespace cuvk::vk {

// A device with a submission that did not finish within --timeout (CommandStream::wait) may still
// run it: on lavapipe another host thread goes on reading and writing the device's memory. From
// then on nothing made on that device is destroyed (every owner below leaves its handle to the
// process's end), so no buffer, memory or pool is freed under work still running. Freeing a
// timed-out row's buffers crashed one run in five on a loaded machine (issue 37 class 1).
void mark_device_hung(VkDevice device) noexcept;
bool device_hung(VkDevice device) noexcept;

// T: the handle type; Destroy: the VolkDeviceTable member that destroys it, all of the shape
// void(VkDevice, T, const VkAllocationCallbacks*) (vkDestroyXxx, vkFreeMemory).
template <typename T, auto Destroy>
class DeviceHandle {
 public:
  DeviceHandle() = default;
  DeviceHandle(const VolkDeviceTable* table, VkDevice device, T handle)
      : table_(table), device_(device), handle_(handle) {}
  ~DeviceHandle() { reset(); }
  DeviceHandle(const DeviceHandle&) = delete;
  DeviceHandle& operator=(const DeviceHandle&) = delete;
  DeviceHandle(DeviceHandle&& other) noexcept
      : table_(other.table_), device_(other.device_), handle_(std::exchange(other.handle_, T{})) {}
  DeviceHandle& operator=(DeviceHandle&& other) noexcept {
    if (this != &other) {
      reset();
      table_ = other.table_;
      device_ = other.device_;
      handle_ = std::exchange(other.handle_, T{});
    }
    return *this;
  }

  T get() const { return handle_; }
  explicit operator bool() const { return handle_ != T{}; }

  void reset() noexcept {
    if (handle_ != T{} && !device_hung(device_)) (table_->*Destroy)(device_, handle_, nullptr);
    handle_ = T{};
  }

 private:
  const VolkDeviceTable* table_ = nullptr;
  VkDevice device_ = VK_NULL_HANDLE;
  T handle_{};
};

using Buffer = DeviceHandle<VkBuffer, &VolkDeviceTable::vkDestroyBuffer>;
using Memory = DeviceHandle<VkDeviceMemory, &VolkDeviceTable::vkFreeMemory>;
using ShaderModule = DeviceHandle<VkShaderModule, &VolkDeviceTable::vkDestroyShaderModule>;
using Pipeline = DeviceHandle<VkPipeline, &VolkDeviceTable::vkDestroyPipeline>;
using PipelineCache = DeviceHandle<VkPipelineCache, &VolkDeviceTable::vkDestroyPipelineCache>;
using PipelineLayout = DeviceHandle<VkPipelineLayout, &VolkDeviceTable::vkDestroyPipelineLayout>;
using DescriptorSetLayout =
    DeviceHandle<VkDescriptorSetLayout, &VolkDeviceTable::vkDestroyDescriptorSetLayout>;
using DescriptorPool = DeviceHandle<VkDescriptorPool, &VolkDeviceTable::vkDestroyDescriptorPool>;
using CommandPool = DeviceHandle<VkCommandPool, &VolkDeviceTable::vkDestroyCommandPool>;
using QueryPool = DeviceHandle<VkQueryPool, &VolkDeviceTable::vkDestroyQueryPool>;
using Fence = DeviceHandle<VkFence, &VolkDeviceTable::vkDestroyFence>;

// Owns a VkInstance.
class Instance {
 public:
  Instance() = default;
  Instance(VkInstance handle, PFN_vkDestroyInstance destroy) : handle_(handle), destroy_(destroy) {}
  ~Instance() { reset(); }
  Instance(const Instance&) = delete;
  Instance& operator=(const Instance&) = delete;
  Instance(Instance&& other) noexcept
      : handle_(std::exchange(other.handle_, VK_NULL_HANDLE)), destroy_(other.destroy_) {}
  Instance& operator=(Instance&& other) noexcept {
    if (this != &other) {
      reset();
      handle_ = std::exchange(other.handle_, VK_NULL_HANDLE);
      destroy_ = other.destroy_;
    }
    return *this;
  }
  VkInstance get() const { return handle_; }
  void reset() noexcept {
    if (handle_ != VK_NULL_HANDLE && destroy_ != nullptr) destroy_(handle_, nullptr);
    handle_ = VK_NULL_HANDLE;
  }

 private:
  VkInstance handle_ = VK_NULL_HANDLE;
  PFN_vkDestroyInstance destroy_ = nullptr;
};

// Owns a VkDebugUtilsMessengerEXT (must die before its instance).
class Messenger {
 public:
  Messenger() = default;
  Messenger(VkInstance instance, VkDebugUtilsMessengerEXT handle,
            PFN_vkDestroyDebugUtilsMessengerEXT destroy)
      : instance_(instance), handle_(handle), destroy_(destroy) {}
  ~Messenger() { reset(); }
  Messenger(const Messenger&) = delete;
  Messenger& operator=(const Messenger&) = delete;
  Messenger(Messenger&& other) noexcept
      : instance_(other.instance_),
        handle_(std::exchange(other.handle_, VK_NULL_HANDLE)),
        destroy_(other.destroy_) {}
  Messenger& operator=(Messenger&& other) noexcept {
    if (this != &other) {
      reset();
      instance_ = other.instance_;
      handle_ = std::exchange(other.handle_, VK_NULL_HANDLE);
      destroy_ = other.destroy_;
    }
    return *this;
  }
  void reset() noexcept {
    if (handle_ != VK_NULL_HANDLE && destroy_ != nullptr) destroy_(instance_, handle_, nullptr);
    handle_ = VK_NULL_HANDLE;
  }

 private:
  VkInstance instance_ = VK_NULL_HANDLE;
  VkDebugUtilsMessengerEXT handle_ = VK_NULL_HANDLE;
  PFN_vkDestroyDebugUtilsMessengerEXT destroy_ = nullptr;
};

// Owns a VkDevice (must die after every device child and before the instance).
class Device {
 public:
  Device() = default;
  Device(VkDevice handle, PFN_vkDestroyDevice destroy) : handle_(handle), destroy_(destroy) {}
  ~Device() { reset(); }
  Device(const Device&) = delete;
  Device& operator=(const Device&) = delete;
  Device(Device&& other) noexcept
      : handle_(std::exchange(other.handle_, VK_NULL_HANDLE)), destroy_(other.destroy_) {}
  Device& operator=(Device&& other) noexcept {
    if (this != &other) {
      reset();
      handle_ = std::exchange(other.handle_, VK_NULL_HANDLE);
      destroy_ = other.destroy_;
    }
    return *this;
  }
  VkDevice get() const { return handle_; }
  void reset() noexcept {
    if (handle_ != VK_NULL_HANDLE && destroy_ != nullptr && !device_hung(handle_))
      destroy_(handle_, nullptr);
    handle_ = VK_NULL_HANDLE;
  }

 private:
  VkDevice handle_ = VK_NULL_HANDLE;
  PFN_vkDestroyDevice destroy_ = nullptr;
};

}  // namespace cuvk::vk
