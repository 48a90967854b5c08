// Shared by every cuvk CUDA kernel: the parameter block and the same 32-bit index arithmetic as
// glsl/common.glsl. Every kernel has the signature (const float* in, float* out, CuvkParams).
#pragma once

#include "params.h"

// Grids wider than the device's x limit are folded into y; both APIs use this linearisation.
__device__ __forceinline__ unsigned cuvk_global_index() {
  return (blockIdx.y * gridDim.x + blockIdx.x) * blockDim.x + threadIdx.x;
}

// Dispatch traces (`cuvk trace`, host/contract/params.h): thread 0 reads %globaltimer (ns) at
// entry, before any load, and after a barrier at exit writes its block's record with %smid.
__device__ __forceinline__ unsigned long long cuvk_globaltimer() {
  unsigned long long t;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)::"memory");
  return t;
}
__device__ __forceinline__ unsigned cuvk_smid() {
  unsigned s;
  asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
  return s;
}
__device__ __forceinline__ void cuvk_trace_store(unsigned* trace, unsigned long long start) {
  __syncthreads();
  if (threadIdx.x != 0) return;
  const unsigned long long end = cuvk_globaltimer();
  const unsigned block = blockIdx.y * gridDim.x + blockIdx.x;
  unsigned* r = trace + static_cast<unsigned long long>(block) * CUVK_TRACE_WORDS;
  r[0] = cuvk_smid();
  r[1] = block;
  r[2] = static_cast<unsigned>(start);
  r[3] = static_cast<unsigned>(start >> 32);
  r[4] = static_cast<unsigned>(end);
  r[5] = static_cast<unsigned>(end >> 32);
  r[6] = CUVK_TRACE_MARK;
  r[7] = 0;
}

// CUVK_KERNEL(name) { body } defines the kernel `name` and its traced twin `name_trace`, both
// running `body` (a force-inlined device function; its early returns return to the kernel):
// the traced kernel is the measured kernel plus the timestamp writes. cuda/CMakeLists.txt lists
// both in the kernel table.
#define CUVK_KERNEL_BODY(name) \
  __device__ __forceinline__ void name##_body(CuvkParams p, const float* __restrict__ in, \
                                              float* __restrict__ out)
// The kernels follow the contract's binding convention (backend.h, RuntimeModule): buffer
// pointers, then scalars: (in, out, params); the traced twin takes the trace buffer after out.
#define CUVK_KERNEL_DECLARE(name)                                                             \
  __global__ void name(const float* __restrict__ in, float* __restrict__ out, CuvkParams p); \
  __global__ void name##_trace(const float* __restrict__ in, float* __restrict__ out,         \
                               unsigned* __restrict__ trace, CuvkParams p)
#define CUVK_KERNEL(name)                                                                       \
  CUVK_KERNEL_BODY(name);                                                                       \
  __global__ void name(const float* __restrict__ in, float* __restrict__ out, CuvkParams p) {   \
    name##_body(p, in, out);                                                                    \
  }                                                                                             \
  __global__ void name##_trace(const float* __restrict__ in, float* __restrict__ out,           \
                               unsigned* __restrict__ trace, CuvkParams p) {                    \
    const unsigned long long start = threadIdx.x == 0 ? cuvk_globaltimer() : 0;                \
    name##_body(p, in, out);                                                                    \
    cuvk_trace_store(trace, start);                                                             \
  }                                                                                             \
  CUVK_KERNEL_BODY(name)
