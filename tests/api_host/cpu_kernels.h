// The test API's kernels (tests/api_host): a few of the catalogue's built-in kernels on the CPU,
// written over the one launch form every backend takes (issue 32): the kernel's buffers in order
// and its scalars' bytes (for a built-in kernel: the CuvkParams block; buffer 0 in, buffer 1 out).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "backend.h"

namespace cuvk::host_api {

// A device buffer of the test API: host memory, 32-bit words.
class HostBuffer final : public DeviceBuffer {
 public:
  explicit HostBuffer(std::size_t bytes) : DeviceBuffer(bytes), words((bytes + 3) / 4) {}
  std::vector<std::uint32_t> words;
};

// A kernel runs one launch: its geometry (threads = block_size * grid_x * grid_y, linear index as
// the GPU kernels compute it), buffers and scalars (the one launch form, backend.h).
using CpuKernel = void (*)(const Launch&);
// Kernel name (the catalogue's: "copy", "read_x_aos", ...) -> its CPU implementation.
const std::map<std::string, CpuKernel>& cpu_kernels();

// A broken kernel for the tests: `copy` flips the lowest bit of this element (nullopt: none).
void break_copy_at(std::optional<std::uint64_t> element);


}  // namespace cuvk::host_api
