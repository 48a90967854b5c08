// KernelResourceReports for the CUDA backend (`cuvk inspect`): a kernel's attributes as linked
// (cudaFuncGetAttributes) and its occupancy per block size, with the limits that bound it.
#include <string>
#include <vector>

#include "cuda_check.h"

namespace cuvk::cuda {

KernelResources kernel_resources(int index, const void* fn,
                                 const std::vector<std::uint32_t>& block_sizes) {
  CUVK_CUDA_CHECK(cudaSetDevice(index));
  cudaDeviceProp prop{};
  CUVK_CUDA_CHECK(cudaGetDeviceProperties(&prop, index));
  cudaFuncAttributes attr{};
  CUVK_CUDA_CHECK(cudaFuncGetAttributes(&attr, fn));
  KernelResources r;
  r.device = std::string(prop.name) + " (compute capability " + std::to_string(prop.major) + "." +
             std::to_string(prop.minor) + ")";
  r.registers = attr.numRegs;
  r.binary_version = attr.binaryVersion;
  r.ptx_version = attr.ptxVersion;
  r.local_bytes = attr.localSizeBytes;
  r.shared_bytes = attr.sharedSizeBytes;
  r.const_bytes = attr.constSizeBytes;
  r.max_threads_per_block = attr.maxThreadsPerBlock;
  r.multiprocessors = prop.multiProcessorCount;
  r.max_threads_per_sm = prop.maxThreadsPerMultiProcessor;
  r.max_blocks_per_sm = prop.maxBlocksPerMultiProcessor;
  r.regs_per_sm = prop.regsPerMultiprocessor;
  r.regs_per_block = prop.regsPerBlock;
  r.warp_size = prop.warpSize;
  for (std::uint32_t block : block_sizes) {
    int blocks = 0;
    CUVK_CUDA_CHECK(
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, fn, static_cast<int>(block), 0));
    r.blocks_per_sm.emplace_back(block, blocks);
  }
  return r;
}

}  // namespace cuvk::cuda
