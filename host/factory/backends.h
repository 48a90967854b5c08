// The one place where the host meets concrete backends (BabelStream's StreamModels.h idea): every
// other host file sees only the contract (backend.h). The build enforces it: only this library has
// cuda/ and vulkan/ on its include path. The backends are a table (backend_table): one entry per
// API built into this binary; a test program may register one more (docs/ADDING_AN_API.md).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "backend.h"
#include "devices.h"

namespace cuvk {

// One API this binary can open: the factory's table.
struct BackendEntry {
  Api api = Api::cuda;
  std::string name;  // api_name(api), as errors name it
  // The API's devices, DeviceInfo::index their position; throws Error where the API cannot
  // enumerate (no driver, no loader).
  std::function<std::vector<DeviceInfo>(const BackendOptions&)> inventory;
  // A backend on device `index` of inventory(); throws Error with the reason.
  std::function<std::unique_ptr<Backend>(int index, const BackendOptions&)> open;
  // Kernels compiled into this binary for the API, known without a device.
  std::function<std::vector<std::string>()> kernels;
};

// The APIs built into this binary (CUDA, Vulkan), then those a test program registered.
const std::vector<BackendEntry>& backend_table();
// Adds an API to the table (tests/api_host: a test-only API); call it before anything opens a
// backend. Throws Error where the API is in the table already.
void register_backend(BackendEntry entry);
// The table's entry of `api`; throws Error where this binary has none.
const BackendEntry& backend_entry(Api api);

// Every device each API reports, or why an API could not enumerate.
DeviceInventory take_inventory(const BackendOptions& options);
// The same, the Vulkan devices through `vulkan` (an open Vulkan backend: its instance) where given.
DeviceInventory take_inventory(const BackendOptions& options, const Backend* vulkan);

// A backend on device `index` of that API's enumeration. Throws Error with the reason.
std::unique_ptr<Backend> make_backend(Api api, int index, const BackendOptions& options);

// Kernels compiled into this binary for `api`, known without a device (the catalogue's
// start-up consistency check and `cuvk list`).
std::vector<std::string> built_kernels(Api api);

}  // namespace cuvk
