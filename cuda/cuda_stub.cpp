// Linked instead of the CUDA backend when CMake found no CUDA compiler.
#include "cuda_backend.h"
#include "error.h"

namespace cuvk {

std::vector<DeviceInfo> cuda_devices() {
  throw Error("this cuvk was built without CUDA (no nvcc at configure time)");
}

std::unique_ptr<Backend> make_cuda_backend(int, double) {
  throw Error("this cuvk was built without CUDA (no nvcc at configure time)");
}

std::vector<std::string> cuda_kernel_names() { return {}; }

}  // namespace cuvk
