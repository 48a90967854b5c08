// Private to cuda/: CUDA runtime errors decoded and thrown, and the pieces of the backend that
// live beside cuda_backend.cu (device facts, kernel resources).
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <string>
#include <vector>

#include "backend.h"
#include "error.h"

namespace cuvk::cuda {

inline std::string decode(cudaError_t e) {
  return std::string(cudaGetErrorName(e)) + " (" + cudaGetErrorString(e) + ")";
}

// What CUDA device `index` is (cuda_devices.cpp).
DeviceInfo describe(int index);

// KernelResourceReports for the kernel at host stub or handle `fn` on device `index`
// (cuda_resources.cpp).
KernelResources kernel_resources(int index, const void* fn,
                                 const std::vector<std::uint32_t>& block_sizes);

}  // namespace cuvk::cuda

#define CUVK_CUDA_CHECK(call)                                                                \
  do {                                                                                       \
    const cudaError_t cuvk_err_ = (call);                                                    \
    if (cuvk_err_ != cudaSuccess)                                                            \
      throw ::cuvk::Error(                                                                   \
          ::cuvk::call_failure(#call, ::cuvk::cuda::decode(cuvk_err_), __FILE__, __LINE__)); \
  } while (0)
