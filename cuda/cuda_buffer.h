// Private to cuda/: a device buffer of the CUDA backend (cudaMalloc), shared by the backend and
// its transfers (cuda_transfers.cu).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <string>

#include "backend.h"
#include "cuda_check.h"

namespace cuvk::cuda {

class CudaBuffer final : public DeviceBuffer {
 public:
  explicit CudaBuffer(std::size_t bytes) : DeviceBuffer(bytes) {
    CUVK_CUDA_CHECK(cudaMalloc(&ptr_, bytes == 0 ? 4 : bytes));
  }
  ~CudaBuffer() override { cudaFree(ptr_); }
  void* ptr() const { return ptr_; }

 private:
  void* ptr_ = nullptr;
};

// The device pointer of `b`; throws where `b` is not a CUDA buffer (another API's).
inline void* pointer_of(const DeviceBuffer& b, const char* what) {
  const auto* c = dynamic_cast<const CudaBuffer*>(&b);
  if (c == nullptr) throw Error(std::string(what) + " is not a CUDA buffer");
  return c->ptr();
}

}  // namespace cuvk::cuda
