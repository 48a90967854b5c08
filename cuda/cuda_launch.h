// Private to cuda/: the CUDA backend's one launch path. Every kernel a launch may name, built-in
// (linked into this binary) or run-time (Backend::load_module), is one Kernel in one table, with
// its buffer count and scalar layout; enqueue() checks a Launch against it and issues it with
// cudaLaunchKernel (buffer pointers, then scalars: backend.h's binding convention), or the copy
// engine's cudaMemcpyAsync. Single launches, chains, sequences and traces all go through it.
#pragma once

#include <cuda_runtime.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "backend.h"

namespace cuvk::cuda {

struct Kernel {
  std::string name;
  const void* fn = nullptr;      // host stub or cudaKernel_t; null: the copy engine
  const void* traced = nullptr;  // built-in kernels: the traced twin (Launch::trace)
  std::uint32_t buffers = 0;
  std::vector<std::uint32_t> scalar_offsets;
  std::uint32_t scalar_bytes = 0;
  bool runtime = false;  // loaded at run time: it might never finish (waited for with a deadline)
  cudaLibrary_t library = nullptr;  // run-time kernels: the library that holds it
  // Set on the kernel so far (cudaFuncAttributeMaxDynamicSharedMemorySize).
  int max_dynamic_shared = 0;
};

// A built-in kernel as the table lists it: kBuiltinBuffers buffers, one CuvkParams scalar.
Kernel builtin_kernel(const char* name, const void* fn, const void* traced);

class KernelTable {
 public:
  KernelTable();  // the copy engine alone
  KernelTable(const KernelTable&) = delete;
  KernelTable& operator=(const KernelTable&) = delete;
  void add(Kernel kernel);  // throws where the name is taken
  Kernel* find_if(const std::string& name);
  Kernel& find(const std::string& name);  // throws where there is none
  std::vector<std::string> names(bool runtime) const;
  // Unloads the run-time kernels' libraries (not when a kernel may still run: the backend hung).
  void unload_libraries();

 private:
  std::map<std::string, Kernel> kernels_;
};

// Issues `launch` of `kernel` on `stream` after checking its geometry against `info`, its buffer
// views and scalar bytes against the kernel's; `pdl`: with programmatic stream serialization
// (a chain step after the first, Submission::pdl). Allocates nothing.
void enqueue(cudaStream_t stream, Kernel& kernel, const Launch& launch, const DeviceInfo& info,
             bool pdl = false);

}  // namespace cuvk::cuda
