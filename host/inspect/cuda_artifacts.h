// The CUDA kernels' PTX, cubin and ptxas resource usage for one architecture, produced at build
// time by cmake/CudaArtifacts.cmake with the real build's flags and embedded in the binary for
// `cuvk inspect`. Empty when cuvk was built without nvcc.
#pragma once

#include <cstddef>
#include <vector>

namespace cuvk {

struct CudaArtifact {
  const char* source;  // kernel source stem: cuda/<source>.cu
  const char* arch;    // "sm_90"
  const char* flags;   // nvcc flags (besides -arch, -I and -ptx / -cubin -Xptxas -v)
  const unsigned char* ptx;
  std::size_t ptx_bytes;
  const unsigned char* cubin;  // an ELF; cuobjdump -sass / nvdisasm read it from a file
  std::size_t cubin_bytes;
  const unsigned char* ptxas_log;  // ptxas -v output: registers, stack, spills per entry
  std::size_t ptxas_log_bytes;
};

const std::vector<CudaArtifact>& cuda_artifacts();

}  // namespace cuvk
