#include "backends.h"

#include <future>

#include "cuda_backend.h"
#include "error.h"
#include "spirv_modules.h"
#include "vulkan_backend.h"

namespace cuvk {

DeviceInventory take_inventory(const BackendOptions& options) {
  return take_inventory(options, nullptr);
}

DeviceInventory take_inventory(const BackendOptions& options, const Backend* vulkan) {
  DeviceInventory inv;
  // The two drivers start up independently: CUDA on another thread while Vulkan enumerates.
  auto cuda = std::async(std::launch::async, [&inv] {
    try {
      inv.cuda = cuda_devices();
    } catch (const std::exception& e) {
      inv.cuda_error = e.what();
    }
  });
  try {
    inv.vulkan = vulkan ? vulkan_devices_of(*vulkan) : vulkan_devices(options);
  } catch (const std::exception& e) {
    inv.vulkan_error = e.what();
  }
  cuda.get();
  return inv;
}

std::unique_ptr<Backend> make_backend(Api api, int index, const BackendOptions& options) {
  switch (api) {
    case Api::cuda:
      return make_cuda_backend(index, options.timeout_s);
    case Api::vulkan:
      return make_vulkan_backend(index, options);
  }
  throw Error("unknown API");
}

std::vector<std::string> built_kernels(Api api) {
  std::vector<std::string> names;
  switch (api) {
    case Api::cuda:
      return cuda_kernel_names();
    case Api::vulkan:
      for (const SpirvModule& m : spirv_modules()) names.emplace_back(m.name);
  }
  return names;
}

}  // namespace cuvk
