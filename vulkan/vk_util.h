// Small helpers shared by the Vulkan backend's files: version packing, the two-call enumeration,
// extension look-up, number formatting and the host clock. Private to vulkan/.
#pragma once

#include <volk.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "vk_check.h"

namespace cuvk::vk {

constexpr std::uint32_t make_version(std::uint32_t major, std::uint32_t minor,
                                     std::uint32_t patch) {
  return (major << 22U) | (minor << 12U) | patch;
}
constexpr std::uint32_t version_major(std::uint32_t v) {
  return (v >> 22U) & 0x7FU;
}
constexpr std::uint32_t version_minor(std::uint32_t v) {
  return (v >> 12U) & 0x3FFU;
}
constexpr std::uint32_t version_patch(std::uint32_t v) {
  return v & 0xFFFU;
}

constexpr std::uint32_t kVulkan11 = make_version(1, 1, 0);
constexpr std::uint32_t kVulkan12 = make_version(1, 2, 0);
constexpr std::uint32_t kVulkan13 = make_version(1, 3, 0);

inline std::string format_version(std::uint32_t v) {
  return std::to_string(version_major(v)) + "." + std::to_string(version_minor(v)) + "." +
         std::to_string(version_patch(v));
}

inline std::string hex32(std::uint32_t v) {
  char text[16];
  std::snprintf(text, sizeof(text), "0x%04x", v);
  return text;
}

inline std::string format_double(double v) {
  char text[64];
  std::snprintf(text, sizeof(text), "%.9g", v);
  return text;
}

using Clock = std::chrono::steady_clock;
inline double ms_since(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}
inline double us_since(Clock::time_point start) {
  return std::chrono::duration<double, std::micro>(Clock::now() - start).count();
}

// Calls f(&count, data) the Vulkan way until the list is complete.
template <typename T, typename F>
std::vector<T> enumerate(const char* call, const char* file, int line, F&& f) {
  for (;;) {
    std::uint32_t count = 0;
    check(f(&count, nullptr), call, file, line);
    std::vector<T> items(count);
    if (count == 0) return items;
    VkResult result = f(&count, items.data());
    if (result == VK_INCOMPLETE) continue;  // the list grew between the two calls
    check(result, call, file, line);
    items.resize(count);
    return items;
  }
}

inline bool has_extension(const std::vector<VkExtensionProperties>& extensions, const char* name) {
  return std::any_of(extensions.begin(), extensions.end(), [name](const VkExtensionProperties& e) {
    return std::strcmp(e.extensionName, name) == 0;
  });
}

}  // namespace cuvk::vk
