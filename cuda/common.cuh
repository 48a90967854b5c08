// Shared by every cuvk CUDA kernel: the parameter block and the same 32-bit index arithmetic as
// glsl/common.glsl. Every kernel has the signature (CuvkParams, const float* in, float* out).
#pragma once

#include "params.h"

// Grids wider than the device's x limit are folded into y; both APIs use this linearisation.
__device__ __forceinline__ unsigned cuvk_global_index() {
  return (blockIdx.y * gridDim.x + blockIdx.x) * blockDim.x + threadIdx.x;
}

#define CUVK_KERNEL(name) \
  __global__ void name(CuvkParams p, const float* __restrict__ in, float* __restrict__ out)
