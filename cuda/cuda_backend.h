// CUDA backend (built only when CMake finds nvcc; otherwise cuda_stub.cpp says why it is absent).
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "backend.h"

namespace cuvk {

// CUDA devices the driver reports. Throws cuvk::Error with the reason when CUDA cannot be used
// (not built, no driver, no device).
std::vector<DeviceInfo> cuda_devices();

// `timeout_s`: BackendOptions::timeout_s.
std::unique_ptr<Backend> make_cuda_backend(int index, double timeout_s = 120.0);

// Kernels compiled into this binary (empty when built without CUDA); needs no device.
std::vector<std::string> cuda_kernel_names();

}  // namespace cuvk
