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

// Dispatch traces (`cuvk trace`): the traced twin of a kernel (CUDA `<kernel>_trace`, SPIR-V
// `<kernel>_trace[_nosm][_bda]`) is the kernel plus timestamp writes. Thread 0 of each block
// reads the clock at entry (before any load); after a barrier at exit it reads the clock again and
// writes one record of CUVK_TRACE_WORDS 32-bit words at (linear block index) * CUVK_TRACE_WORDS:
//   [0] SM id (CUVK_TRACE_NO_SM where the API cannot say), [1] linear block index,
//   [2..3] start ticks (low, high), [4..5] end ticks (low, high), [6] CUVK_TRACE_MARK, [7] 0.
// Vulkan binds the trace buffer at CUVK_BINDING_TRACE (descriptor) or pushes its address after the
// output's (bda: CuvkTraceBdaPush).
#define CUVK_TRACE_WORDS 8
#define CUVK_TRACE_NO_SM 0xFFFFFFFFu
#define CUVK_TRACE_MARK 0x7ACE7ACEu
#define CUVK_BINDING_TRACE 2

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

// Push constants of the traced bda modules (`<kernel>_trace[_nosm]_bda`): CuvkBdaPush, then the
// trace buffer's VkDeviceAddress.
struct CuvkTraceBdaPush {
  CuvkParams params;
  uint64_t in_address;
  uint64_t out_address;
  uint64_t trace_address;
};
static_assert(sizeof(CuvkTraceBdaPush) == 40, "CuvkTraceBdaPush must be 40 bytes");
static_assert(offsetof(CuvkTraceBdaPush, trace_address) == 32, "push-constant offset of tracebuf");
#endif

#endif  // CUVK_PARAMS_H
