// The one place where the host meets concrete backends (BabelStream's StreamModels.h idea): every
// other host file sees only the contract (backend.h). The build enforces it: only this library has
// cuda/ and vulkan/ on its include path.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "backend.h"
#include "devices.h"

namespace cuvk {

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
