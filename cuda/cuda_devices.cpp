// The CUDA devices the runtime reports, described for DeviceInfo (cuda_devices, describe).
#include <cstring>
#include <string>
#include <vector>

#include "cuda_backend.h"
#include "cuda_check.h"
#include "libcuda_probe.h"

namespace cuvk {
namespace {

constexpr double kCudaEventResolutionNs = 500.0;  // cudaEventElapsedTime's documented step

std::string version_string(int v) {  // CUDA packs 13000 as 13.0
  return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

}  // namespace

namespace cuda {

DeviceInfo describe(int index) {
  cudaDeviceProp prop{};
  CUVK_CUDA_CHECK(cudaGetDeviceProperties(&prop, index));
  int driver = 0, runtime = 0;
  CUVK_CUDA_CHECK(cudaDriverGetVersion(&driver));
  CUVK_CUDA_CHECK(cudaRuntimeGetVersion(&runtime));
  char pci[32] = {};
  CUVK_CUDA_CHECK(cudaDeviceGetPCIBusId(pci, sizeof pci, index));

  DeviceInfo info;
  info.api = Api::cuda;
  info.index = index;
  info.name = prop.name;
  std::memcpy(info.uuid.data(), prop.uuid.bytes, info.uuid.size());
  info.memory_bytes = prop.totalGlobalMem;
  info.max_buffer_bytes = prop.totalGlobalMem;
  info.max_block_size = static_cast<std::uint32_t>(prop.maxThreadsPerBlock);
  info.max_grid_x = static_cast<std::uint32_t>(prop.maxGridSize[0]);
  info.max_grid_y = static_cast<std::uint32_t>(prop.maxGridSize[1]);
  info.max_scalar_bytes = kMaxScalarBytes;  // 4 KB of kernel parameters
  info.l2_bytes = static_cast<std::uint64_t>(prop.l2CacheSize);
  info.memory_bus_bits = static_cast<std::uint32_t>(prop.memoryBusWidth);
  // Events have no queryable tick; the Runtime API's cudaEventElapsedTime documents the step.
  info.timer = {kCudaEventResolutionNs, 0,
                "cudaEventElapsedTime: documented resolution of around 0.5 microseconds"};
  info.driver = "CUDA driver " + version_string(driver) + ", runtime " + version_string(runtime);
  info.properties = {
      {"compute_capability", std::to_string(prop.major) + "." + std::to_string(prop.minor)},
      {"multiprocessors", std::to_string(prop.multiProcessorCount)},
      {"max_threads_per_multiprocessor", std::to_string(prop.maxThreadsPerMultiProcessor)},
      {"max_blocks_per_multiprocessor", std::to_string(prop.maxBlocksPerMultiProcessor)},
      {"l2_cache_bytes", std::to_string(prop.l2CacheSize)},
      {"memory_bus_width_bits", std::to_string(prop.memoryBusWidth)},
      {"pci_bus_id", pci},
      {"cuda_driver_version", version_string(driver)},
      {"cuda_runtime_version", version_string(runtime)},
  };
  return info;
}

}  // namespace cuda

std::vector<DeviceInfo> cuda_devices() {
  int driver = 0;
  cudaDriverGetVersion(&driver);
  // The runtime says only that no driver answered; libcuda_problem says what the library is.
  if (driver == 0) {
    const std::string problem = libcuda_problem();
    throw Error(problem.empty() ? "no CUDA driver found (cudaDriverGetVersion reports none)"
                                : problem);
  }
  int count = 0;
  const cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess) {
    cudaGetLastError();  // clear the sticky-free error so later calls are not confused
    const std::string problem = libcuda_problem();
    throw Error("no usable CUDA device: cudaGetDeviceCount failed: " + cuda::decode(e) +
                (problem.empty() ? "" : "; " + problem));
  }
  if (count == 0) throw Error("no CUDA device found");
  std::vector<DeviceInfo> devices;
  for (int i = 0; i < count; ++i) devices.push_back(cuda::describe(i));
  return devices;
}

}  // namespace cuvk
