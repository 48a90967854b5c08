// Which queue families can run the copy engine's vkCmdCopyBuffer, from the driver's list: pure
// logic on plain numbers (no Vulkan headers), so it is unit-tested without a device.
// Private to vulkan/.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "backend.h"

namespace cuvk::vk {

// One entry of vkGetPhysicalDeviceQueueFamilyProperties as plain numbers.
struct FamilyProperties {
  std::uint32_t flags = 0;  // VkQueueFlags
  std::uint32_t queue_count = 0;
  std::uint32_t timestamp_valid_bits = 0;
};

// The family's flags as text, bits in ascending order ("graphics|compute|transfer|sparse");
// unknown bits in hex; "none" for 0.
std::string queue_flags_text(std::uint32_t flags);

// Whether a family can copy buffers: TRANSFER, or GRAPHICS or COMPUTE (which imply transfer,
// whose bit they need not report). Video and optical-flow families without TRANSFER cannot.
bool can_copy(std::uint32_t flags);

// The families that can copy buffers, in index order; `own` (the backend's compute family) is
// marked. Families with no queues or no timestamps are listed too: their rows say why they are
// not measured.
std::vector<QueueFamily> copy_families(const std::vector<FamilyProperties>& families,
                                       std::uint32_t own);

// Whether a copy family gets a queue of its own at device creation: one to run on and
// timestamps to time it with.
bool measurable(const QueueFamily& family);

// One line for reports: "0 graphics|compute|transfer x16 ts64; 1 transfer x2 ts64".
std::string describe_copy_families(const std::vector<QueueFamily>& families);

}  // namespace cuvk::vk
