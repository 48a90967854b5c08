// A test-only API (docs/ADDING_AN_API.md's worked example): the Backend contract answered with host
// memory and CPU kernels (cpu_kernels.h). Its times come from std::chrono::steady_clock around
// each repetition: a host clock, not a GPU timer. Like cuda/cuda_backend.h and
// vulkan/vulkan_backend.h, it offers what the factory's table entry needs; it includes only the
// contract's headers.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "backend.h"

namespace cuvk::host_api {

// Its one device: is_cpu, a fixed UUID (kHostUuid), index 0.
std::vector<DeviceInfo> host_devices();
inline constexpr Uuid kHostUuid = {0x68, 0x6f, 0x73, 0x74, 0x2d, 0x61, 0x70, 0x69,
                                   0x2d, 0x74, 0x65, 0x73, 0x74, 0x00, 0x00, 0x01};
// A backend on device `index` (0 only); throws Error for any other.
std::unique_ptr<Backend> make_host_backend(int index);
// The kernels it carries (cpu_kernels()).
std::vector<std::string> host_kernel_names();

}  // namespace cuvk::host_api
