// Finding the devices to compare: the CUDA device and the Vulkan physical device that are the same
// GPU, matched by UUID (cudaDeviceProp::uuid == VkPhysicalDeviceIDProperties::deviceUUID).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "backend.h"

namespace cuvk {

struct DeviceInventory {
  std::vector<DeviceInfo> cuda, vulkan;
  std::string cuda_error, vulkan_error;  // why an API could not enumerate ("" when it could)
};

// The chosen device for each API, or the reason it has none.
struct DeviceChoice {
  std::optional<DeviceInfo> cuda, vulkan;
  std::string cuda_reason, vulkan_reason;
  bool same_gpu = false;  // both chosen and their UUIDs match
  std::string note;       // one line for the output: how the choice was made

  // The chosen device of `api` and the reason it has none, for code that goes over the APIs.
  const std::optional<DeviceInfo>& device(Api api) const;
  const std::string& reason(Api api) const;
  std::string& reason(Api api);
};

// `spec`: "" (automatic), a CUDA device index (a Vulkan index when CUDA is unavailable), or a
// UUID prefix (hex, dashes optional) matching a device of either API (parse_device_token's rule).
// Automatic: the first CUDA device that has a Vulkan twin; without CUDA, the first Vulkan GPU,
// else the first Vulkan device (e.g. lavapipe). With CUDA present, Vulkan runs only on the CUDA
// device's twin: a comparison across different GPUs would be meaningless.
// Throws UsageError for an index out of range or a UUID that matches nothing.
DeviceChoice choose_devices(const DeviceInventory& inv, const std::string& spec);

// The least hex digits a UUID prefix has (fewer would name a device by chance).
inline constexpr std::size_t kMinUuidPrefix = 4;

// One --device token (not "all", not a list), by one rule for every command: digits below the
// device count (CUDA's, else Vulkan's) are an index; otherwise a UUID prefix of at least
// kMinUuidPrefix hex digits (dashes optional) of a CUDA, else a Vulkan device. A token that is
// both is refused naming both; one that is neither, saying why (UsageError).
struct DeviceToken {
  std::optional<std::size_t> index;
  std::optional<DeviceInfo> uuid_of;
};
DeviceToken parse_device_token(const DeviceInventory& inv, const std::string& spec);

}  // namespace cuvk
