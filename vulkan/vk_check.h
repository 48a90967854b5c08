// Checked Vulkan calls: CUVK_VK(fn, args...) calls fn(args...) and throws cuvk::Error carrying the
// call's name, the decoded VkResult and file:line for anything but VK_SUCCESS.
// Private to vulkan/.
#pragma once

#include <volk.h>

#include <string>

#include "error.h"

namespace cuvk::vk {

// The enumerant's name (the Debian headers carry no vk_enum_string_helper.h, hence this list:
// vulkan_core.h 1.3.239; aliases share values and so are not repeated).
inline const char* result_name(VkResult result) {
#define CUVK_RESULT_CASE(name) \
  case name:                   \
    return #name;
  switch (result) {
    CUVK_RESULT_CASE(VK_SUCCESS)
    CUVK_RESULT_CASE(VK_NOT_READY)
    CUVK_RESULT_CASE(VK_TIMEOUT)
    CUVK_RESULT_CASE(VK_EVENT_SET)
    CUVK_RESULT_CASE(VK_EVENT_RESET)
    CUVK_RESULT_CASE(VK_INCOMPLETE)
    CUVK_RESULT_CASE(VK_ERROR_OUT_OF_HOST_MEMORY)
    CUVK_RESULT_CASE(VK_ERROR_OUT_OF_DEVICE_MEMORY)
    CUVK_RESULT_CASE(VK_ERROR_INITIALIZATION_FAILED)
    CUVK_RESULT_CASE(VK_ERROR_DEVICE_LOST)
    CUVK_RESULT_CASE(VK_ERROR_MEMORY_MAP_FAILED)
    CUVK_RESULT_CASE(VK_ERROR_LAYER_NOT_PRESENT)
    CUVK_RESULT_CASE(VK_ERROR_EXTENSION_NOT_PRESENT)
    CUVK_RESULT_CASE(VK_ERROR_FEATURE_NOT_PRESENT)
    CUVK_RESULT_CASE(VK_ERROR_INCOMPATIBLE_DRIVER)
    CUVK_RESULT_CASE(VK_ERROR_TOO_MANY_OBJECTS)
    CUVK_RESULT_CASE(VK_ERROR_FORMAT_NOT_SUPPORTED)
    CUVK_RESULT_CASE(VK_ERROR_FRAGMENTED_POOL)
    CUVK_RESULT_CASE(VK_ERROR_UNKNOWN)
    CUVK_RESULT_CASE(VK_ERROR_OUT_OF_POOL_MEMORY)
    CUVK_RESULT_CASE(VK_ERROR_INVALID_EXTERNAL_HANDLE)
    CUVK_RESULT_CASE(VK_ERROR_FRAGMENTATION)
    CUVK_RESULT_CASE(VK_ERROR_INVALID_OPAQUE_CAPTURE_ADDRESS)
    CUVK_RESULT_CASE(VK_PIPELINE_COMPILE_REQUIRED)
    CUVK_RESULT_CASE(VK_ERROR_SURFACE_LOST_KHR)
    CUVK_RESULT_CASE(VK_ERROR_NATIVE_WINDOW_IN_USE_KHR)
    CUVK_RESULT_CASE(VK_SUBOPTIMAL_KHR)
    CUVK_RESULT_CASE(VK_ERROR_OUT_OF_DATE_KHR)
    CUVK_RESULT_CASE(VK_ERROR_INCOMPATIBLE_DISPLAY_KHR)
    CUVK_RESULT_CASE(VK_ERROR_VALIDATION_FAILED_EXT)
    CUVK_RESULT_CASE(VK_ERROR_INVALID_SHADER_NV)
    CUVK_RESULT_CASE(VK_ERROR_IMAGE_USAGE_NOT_SUPPORTED_KHR)
    CUVK_RESULT_CASE(VK_ERROR_VIDEO_PICTURE_LAYOUT_NOT_SUPPORTED_KHR)
    CUVK_RESULT_CASE(VK_ERROR_VIDEO_PROFILE_OPERATION_NOT_SUPPORTED_KHR)
    CUVK_RESULT_CASE(VK_ERROR_VIDEO_PROFILE_FORMAT_NOT_SUPPORTED_KHR)
    CUVK_RESULT_CASE(VK_ERROR_VIDEO_PROFILE_CODEC_NOT_SUPPORTED_KHR)
    CUVK_RESULT_CASE(VK_ERROR_VIDEO_STD_VERSION_NOT_SUPPORTED_KHR)
    CUVK_RESULT_CASE(VK_ERROR_INVALID_DRM_FORMAT_MODIFIER_PLANE_LAYOUT_EXT)
    CUVK_RESULT_CASE(VK_ERROR_NOT_PERMITTED_KHR)
    CUVK_RESULT_CASE(VK_ERROR_FULL_SCREEN_EXCLUSIVE_MODE_LOST_EXT)
    CUVK_RESULT_CASE(VK_THREAD_IDLE_KHR)
    CUVK_RESULT_CASE(VK_THREAD_DONE_KHR)
    CUVK_RESULT_CASE(VK_OPERATION_DEFERRED_KHR)
    CUVK_RESULT_CASE(VK_OPERATION_NOT_DEFERRED_KHR)
    CUVK_RESULT_CASE(VK_ERROR_COMPRESSION_EXHAUSTED_EXT)
    default:
      return nullptr;
  }
#undef CUVK_RESULT_CASE
}

inline std::string decode(VkResult result) {
  const char* name = result_name(result);
  return name != nullptr ? std::string(name)
                         : "VkResult " + std::to_string(static_cast<int>(result));
}

// "ctx.vk.vkCreateBuffer" or "table->vkCmdDispatch" -> the bare function name.
inline const char* call_name(const char* expression) {
  const char* name = expression;
  for (const char* p = expression; *p != '\0'; ++p) {
    if (*p == '.' || *p == '>' || *p == ':' || *p == '(' || *p == ' ') name = p + 1;
  }
  return name;
}

[[noreturn]] inline void throw_failure(VkResult result, const char* call, const char* file,
                                       int line) {
  throw Error(call_failure(call_name(call), decode(result), file, line));
}

inline void check(VkResult result, const char* call, const char* file, int line) {
  if (result != VK_SUCCESS) throw_failure(result, call, file, line);
}

}  // namespace cuvk::vk

// fn is a function pointer expression (a volk global or a VolkDeviceTable member).
#define CUVK_VK(fn, ...) ::cuvk::vk::check((fn)(__VA_ARGS__), #fn, __FILE__, __LINE__)
