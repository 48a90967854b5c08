#include "backends.h"

#include <future>

#include "cuda_backend.h"
#include "error.h"
#include "spirv_modules.h"
#include "vulkan_backend.h"

namespace cuvk {
namespace {

// The table: one entry per API built into this binary, in kApis order.
std::vector<BackendEntry>& table() {
  static std::vector<BackendEntry> entries = {
      {Api::cuda, api_name(Api::cuda), [](const BackendOptions&) { return cuda_devices(); },
       [](int index, const BackendOptions& o) { return make_cuda_backend(index, o.timeout_s); },
       [] { return cuda_kernel_names(); }},
      {Api::vulkan, api_name(Api::vulkan),
       [](const BackendOptions& o) { return vulkan_devices(o); },
       [](int index, const BackendOptions& o) { return make_vulkan_backend(index, o); },
       [] {
         std::vector<std::string> names;
         for (const SpirvModule& m : spirv_modules()) names.emplace_back(m.name);
         return names;
       }},
  };
  return entries;
}

}  // namespace

const std::vector<BackendEntry>& backend_table() {
  return table();
}

void register_backend(BackendEntry entry) {
  for (const BackendEntry& e : table())
    if (e.api == entry.api) throw Error("the backend table has " + e.name + " already");
  table().push_back(std::move(entry));
}

const BackendEntry& backend_entry(Api api) {
  for (const BackendEntry& e : table())
    if (e.api == api) return e;
  throw Error(std::string("no ") + api_name(api) + " backend is built into this binary");
}

DeviceInventory take_inventory(const BackendOptions& options) {
  return take_inventory(options, nullptr);
}

// DeviceInventory pairs CUDA with Vulkan (devices.h): those two entries, whatever else the table
// holds.
DeviceInventory take_inventory(const BackendOptions& options, const Backend* vulkan) {
  DeviceInventory inv;
  // The two drivers start up independently: CUDA on another thread while Vulkan enumerates.
  auto cuda = std::async(std::launch::async, [&inv, &options] {
    try {
      inv.cuda = backend_entry(Api::cuda).inventory(options);
    } catch (const std::exception& e) {
      inv.cuda_error = e.what();
    }
  });
  try {
    inv.vulkan =
        vulkan ? vulkan_devices_of(*vulkan) : backend_entry(Api::vulkan).inventory(options);
  } catch (const std::exception& e) {
    inv.vulkan_error = e.what();
  }
  cuda.get();
  return inv;
}

std::unique_ptr<Backend> make_backend(Api api, int index, const BackendOptions& options) {
  return backend_entry(api).open(index, options);
}

std::vector<std::string> built_kernels(Api api) {
  return backend_entry(api).kernels();
}

}  // namespace cuvk
