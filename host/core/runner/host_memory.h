// Host memory for a run's big arrays (each point's input, expected output and download): mapped
// once and reused from point to point, 2 MiB aligned and advised for transparent huge pages (a
// fresh 4 KiB page costs a fault: 170 ms per fresh 256 MB on the H100's VM, more than copying it
// to the GPU), faulted in by all cores, and registered with each backend (CUDA pins it, Vulkan
// imports it) so that uploads and downloads copy straight from and into it (52 GB/s on the H100
// where pageable memory gives 7).
#pragma once

#include <cstddef>
#include <memory>
#include <vector>

#include "backend.h"
#include "span.h"

namespace cuvk {

class HostMemory {
 public:
  explicit HostMemory(std::size_t floats);  // reserves address space; touches nothing
  ~HostMemory();
  HostMemory(const HostMemory&) = delete;
  HostMemory& operator=(const HostMemory&) = delete;

  std::size_t capacity() const { return floats_; }
  // The first `floats` (<= capacity()), faulted in by all cores where not yet.
  Span<float> touch(std::size_t floats);
  // The first `floats` as they are (touched already).
  Span<float> view(std::size_t floats) const { return {data_, floats}; }
  // Registers (again, larger) with `b` so that its transfers of the first `floats` copy directly;
  // does nothing where the backend offers no registration.
  void register_with(Backend& b, std::size_t floats);

 private:
  struct Registration {
    Backend* backend;
    std::unique_ptr<HostRegistration> registration;
    std::size_t bytes;  // 0: the backend offers none
  };
  float* data_ = nullptr;
  std::size_t floats_ = 0, mapped_bytes_ = 0, touched_bytes_ = 0;
  std::vector<Registration> registrations_;
};

}  // namespace cuvk
