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

std::unique_ptr<Backend> make_cuda_backend(int index);

// Kernels compiled into this binary (empty when built without CUDA); needs no device.
std::vector<std::string> cuda_kernel_names();

// What the CUDA runtime says about one kernel on device `index` (`cuvk inspect`): its attributes
// (cudaFuncGetAttributes) and, per block size, cudaOccupancyMaxActiveBlocksPerMultiprocessor, with
// the device limits that bound occupancy. Throws cuvk::Error without a usable device.
struct CudaKernelResources {
  std::string device;             // name and compute capability
  int registers = 0;              // per thread, of the kernel as linked into this binary
  int binary_version = 0;         // e.g. 90: the SASS the driver runs
  int ptx_version = 0;
  std::size_t local_bytes = 0, shared_bytes = 0, const_bytes = 0;
  int max_threads_per_block = 0;  // for this kernel
  int multiprocessors = 0, max_threads_per_sm = 0, max_blocks_per_sm = 0, regs_per_sm = 0,
      regs_per_block = 0, warp_size = 0;
  std::vector<std::pair<std::uint32_t, int>> blocks_per_sm;  // (block size, active blocks per SM)
};
CudaKernelResources cuda_kernel_resources(int index, const std::string& kernel,
                                          const std::vector<std::uint32_t>& block_sizes);

}  // namespace cuvk
