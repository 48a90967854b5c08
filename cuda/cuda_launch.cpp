// The CUDA backend's one launch path (cuda_launch.h).
#include "cuda_launch.h"

#include <string>
#include <utility>

#include "cuda_buffer.h"
#include "cuda_check.h"
#include "error.h"

namespace cuvk::cuda {
namespace {

void* view_pointer(const BufferView& v) {
  return static_cast<char*>(static_cast<const CudaBuffer*>(v.buffer)->ptr()) + v.offset;
}

void check_view(const BufferView& v, const Launch& launch, std::size_t i) {
  if (v.buffer == nullptr || v.offset + v.bytes > v.buffer->bytes())
    throw Error("CUDA launch of '" + launch.kernel + "': buffer " + std::to_string(i) +
                " is missing or its view lies outside it");
}

// The copy engine: buffers[0] into buffers[1], buffers[1].bytes bytes.
void enqueue_copy(cudaStream_t stream, const Launch& launch) {
  if (launch.buffers.size() != 2)
    throw Error("CUDA copy engine: " + std::to_string(launch.buffers.size()) +
                " buffers; it takes 2 (from, to)");
  for (std::size_t i = 0; i < 2; ++i) check_view(launch.buffers[i], launch, i);
  const BufferView &from = launch.buffers[0], &to = launch.buffers[1];
  if (from.bytes < to.bytes)
    throw Error("CUDA copy engine: copies " + std::to_string(to.bytes) +
                " bytes into buffer 1, so buffer 0 needs as many (it has " +
                std::to_string(from.bytes) + ")");
  CUVK_CUDA_CHECK(cudaMemcpyAsync(view_pointer(to), view_pointer(from), to.bytes,
                                  cudaMemcpyDeviceToDevice, stream));
}

}  // namespace

Kernel builtin_kernel(const char* name, const void* fn, const void* traced) {
  Kernel k;
  k.name = name;
  k.fn = fn;
  k.traced = traced;
  k.buffers = kBuiltinBuffers;
  k.scalar_offsets = {0};
  k.scalar_bytes = kBuiltinScalarBytes;
  return k;
}

KernelTable::KernelTable() {
  Kernel engine;
  engine.name = kCopyEngine;
  engine.buffers = 2;
  kernels_.emplace(engine.name, engine);
}

void KernelTable::add(Kernel kernel) {
  if (kernels_.count(kernel.name))
    throw Error("CUDA backend already has a kernel named '" + kernel.name + "'");
  std::string name = kernel.name;
  kernels_.emplace(std::move(name), std::move(kernel));
}

Kernel* KernelTable::find_if(const std::string& name) {
  const auto it = kernels_.find(name);
  return it == kernels_.end() ? nullptr : &it->second;
}

Kernel& KernelTable::find(const std::string& name) {
  if (Kernel* k = find_if(name)) return *k;
  throw Error("CUDA backend has no kernel named '" + name + "'");
}

std::vector<std::string> KernelTable::names(bool runtime) const {
  std::vector<std::string> names;
  for (const auto& [name, k] : kernels_)
    if (k.runtime == runtime) names.push_back(name);
  return names;
}

void KernelTable::unload_libraries() {
  for (auto& [name, k] : kernels_)
    if (k.library) cudaLibraryUnload(std::exchange(k.library, nullptr));
}

void enqueue(cudaStream_t stream, Kernel& kernel, const Launch& launch, const DeviceInfo& info,
             bool pdl) {
  if (kernel.fn == nullptr) return enqueue_copy(stream, launch);
  const Geometry& g = launch.geometry;
  if (g.block_size == 0 || g.block_size > info.max_block_size || g.grid_x > info.max_grid_x ||
      g.grid_y > info.max_grid_y)
    throw Error("CUDA launch geometry out of range for " + launch.kernel);
  if (launch.buffers.size() != kernel.buffers || launch.scalars.size() != kernel.scalar_bytes)
    throw Error("CUDA launch of '" + launch.kernel + "': " + std::to_string(launch.buffers.size()) +
                " buffers and " + std::to_string(launch.scalars.size()) +
                " scalar bytes; it takes " + std::to_string(kernel.buffers) + " and " +
                std::to_string(kernel.scalar_bytes));
  // The arguments: buffer pointers (the trace buffer after them), then scalars; cudaLaunchKernel
  // copies them, so they live here, on the stack.
  void* pointers[kMaxModuleBuffers + 1];
  void* args[kMaxModuleBuffers + 1 + kMaxScalarBytes / 4];
  std::size_t n = 0;
  for (std::uint32_t i = 0; i < kernel.buffers; ++i) {
    check_view(launch.buffers[i], launch, i);
    pointers[i] = view_pointer(launch.buffers[i]);
    args[n++] = &pointers[i];
  }
  const void* fn = kernel.fn;
  if (launch.trace != nullptr) {
    if (kernel.traced == nullptr)
      throw Error("CUDA launch of '" + launch.kernel + "': the kernel has no traced form");
    const std::uint64_t need = std::uint64_t{g.grid_x} * g.grid_y * CUVK_TRACE_WORDS * 4;
    if (launch.trace->bytes() < need)
      throw Error("CUDA trace buffer of " + std::to_string(launch.trace->bytes()) + " bytes; " +
                  launch.kernel + " needs " + std::to_string(need));
    pointers[kernel.buffers] = static_cast<const CudaBuffer*>(launch.trace)->ptr();
    args[n++] = &pointers[kernel.buffers];
    fn = kernel.traced;
  }
  auto* scalars = const_cast<std::uint8_t*>(launch.scalars.data());
  for (std::uint32_t offset : kernel.scalar_offsets) args[n++] = scalars + offset;
  if (static_cast<int>(launch.shared_bytes) > kernel.max_dynamic_shared) {
    CUVK_CUDA_CHECK(cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                         static_cast<int>(launch.shared_bytes)));
    kernel.max_dynamic_shared = static_cast<int>(launch.shared_bytes);
  }
  const dim3 grid(g.grid_x, g.grid_y), block(g.block_size);
  if (!pdl) {
    CUVK_CUDA_CHECK(cudaLaunchKernel(fn, grid, block, args, launch.shared_bytes, stream));
    return;
  }
  cudaLaunchAttribute attr[1] = {};
  attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
  attr[0].val.programmaticStreamSerializationAllowed = 1;
  cudaLaunchConfig_t config = {};
  config.gridDim = grid;
  config.blockDim = block;
  config.dynamicSmemBytes = launch.shared_bytes;
  config.stream = stream;
  config.attrs = attr;
  config.numAttrs = 1;
  CUVK_CUDA_CHECK(cudaLaunchKernelExC(&config, fn, args));
}

}  // namespace cuvk::cuda
