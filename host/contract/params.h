// The one parameter block shared by C++, CUDA and GLSL. It is passed by value as the CUDA kernel's
// first argument and as the Vulkan push-constant block, so both APIs see identical bytes.
// Only 32-bit scalars: their std430 / push-constant layout equals the C layout (checked below).
#ifndef CUVK_PARAMS_H
#define CUVK_PARAMS_H

#ifdef VULKAN  // defined by glslang when compiling GLSL for Vulkan
#define CUVK_U32 uint
#else
#include <stdint.h>
#define CUVK_U32 uint32_t
#endif

struct CuvkParams {
  CUVK_U32 n;       // index bound: threads with i >= n do nothing
  CUVK_U32 offset;  // read_offset / write_offset: element offset applied inside the kernel
  CUVK_U32 stride;  // stride: element stride of the input
  CUVK_U32 aux;     // per-kernel auxiliary value (SoA plane length, flush sentinel bits)
};

// Block (workgroup) size is not part of the block: CUDA takes it from the launch, Vulkan from
// specialization constant CUVK_SPEC_BLOCK_SIZE (local_size_x_id).
#define CUVK_SPEC_BLOCK_SIZE 0
#define CUVK_BINDING_IN 0
#define CUVK_BINDING_OUT 1

// Element layouts of the AoS tests. Built from scalar floats only (never vec3): std430 then gives
// the same size, alignment and array stride as C and CUDA.
struct CuvkParticle {  // read_x: 16 bytes
  float x;
  float y;
  float z;
  float w;
};
struct CuvkPair {  // update_xy: 8 bytes
  float x;
  float y;
};

#if defined(__cplusplus)
#include <cstddef>
static_assert(sizeof(CuvkParams) == 16, "CuvkParams must be 16 bytes (push-constant layout)");
static_assert(offsetof(CuvkParams, n) == 0, "std430 offset of n");
static_assert(offsetof(CuvkParams, offset) == 4, "std430 offset of offset");
static_assert(offsetof(CuvkParams, stride) == 8, "std430 offset of stride");
static_assert(offsetof(CuvkParams, aux) == 12, "std430 offset of aux");
static_assert(sizeof(CuvkParticle) == 16 && offsetof(CuvkParticle, w) == 12, "std430 CuvkParticle");
static_assert(sizeof(CuvkPair) == 8 && offsetof(CuvkPair, y) == 4, "std430 CuvkPair");

// Push constants of the buffer-device-address modules (`<kernel>_bda`, glsl/common.glsl CUVK_BDA):
// CuvkParams, then the input's and the output's VkDeviceAddress (GLSL buffer_reference pointers).
struct CuvkBdaPush {
  CuvkParams params;
  uint64_t in_address;
  uint64_t out_address;
};
static_assert(sizeof(CuvkBdaPush) == 32, "CuvkBdaPush must be 32 bytes (push-constant layout)");
static_assert(offsetof(CuvkBdaPush, in_address) == 16, "push-constant offset of inbuf");
static_assert(offsetof(CuvkBdaPush, out_address) == 24, "push-constant offset of outbuf");
#endif

#endif  // CUVK_PARAMS_H
