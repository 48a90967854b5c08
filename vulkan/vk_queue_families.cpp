// The copy-capable queue families and how they read in reports.
#include "vk_queue_families.h"

#include <cstdio>
#include <string>
#include <vector>

namespace cuvk::vk {
namespace {

// VkQueueFlagBits by value, so this file needs no Vulkan headers (the unit test checks them).
struct FlagName {
  std::uint32_t bit;
  const char* name;
};
constexpr FlagName kFlagNames[] = {
    {0x1, "graphics"},   {0x2, "compute"},       {0x4, "transfer"},      {0x8, "sparse"},
    {0x10, "protected"}, {0x20, "video_decode"}, {0x40, "video_encode"}, {0x100, "optical_flow"},
};
constexpr std::uint32_t kGraphics = 0x1, kCompute = 0x2, kTransfer = 0x4;

}  // namespace

std::string queue_flags_text(std::uint32_t flags) {
  std::string text;
  std::uint32_t rest = flags;
  for (const FlagName& f : kFlagNames) {
    if ((flags & f.bit) == 0) continue;
    text += (text.empty() ? "" : "|") + std::string(f.name);
    rest &= ~f.bit;
  }
  if (rest != 0) {
    char hex[16];
    std::snprintf(hex, sizeof hex, "0x%x", rest);
    text += (text.empty() ? "" : "|") + std::string(hex);
  }
  return text.empty() ? "none" : text;
}

bool can_copy(std::uint32_t flags) {
  return (flags & (kGraphics | kCompute | kTransfer)) != 0;
}

std::vector<QueueFamily> copy_families(const std::vector<FamilyProperties>& families,
                                       std::uint32_t own) {
  std::vector<QueueFamily> out;
  for (std::uint32_t i = 0; i < families.size(); ++i) {
    const FamilyProperties& f = families[i];
    if (!can_copy(f.flags)) continue;
    QueueFamily q;
    q.index = i;
    q.flags = queue_flags_text(f.flags);
    q.queue_count = f.queue_count;
    q.timestamp_valid_bits = f.timestamp_valid_bits;
    q.compute = (f.flags & kCompute) != 0;
    q.own = i == own;
    out.push_back(q);
  }
  return out;
}

bool measurable(const QueueFamily& family) {
  return family.queue_count > 0 && family.timestamp_valid_bits > 0;
}

std::string describe_copy_families(const std::vector<QueueFamily>& families) {
  std::string text;
  for (const QueueFamily& f : families) {
    text += (text.empty() ? "" : "; ") + std::to_string(f.index) + " " + f.flags + " x" +
            std::to_string(f.queue_count) + " ts" + std::to_string(f.timestamp_valid_bits);
  }
  return text.empty() ? "none" : text;
}

}  // namespace cuvk::vk
