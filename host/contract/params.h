// The one parameter block shared by C++, CUDA and GLSL. It is passed by value as the CUDA kernel's
// scalar argument, after the buffer pointers, and as the Vulkan push-constant block, so both APIs
// see identical bytes.
// Only 32-bit scalars: their std430 / push-constant layout equals the C layout (checked below).
#ifndef CUVK_PARAMS_H
#define CUVK_PARAMS_H

#ifdef VULKAN  // defined by glslang when compiling GLSL for Vulkan
#define CUVK_U32 uint
#else
#include <stdint.h>
#define CUVK_U32 uint32_t
#endif

// The kernel parameters, declared once: this list makes the C++/CUDA and GLSL struct CuvkParams
// (below; GLSL reads this file too), its std430 offset assertions, the layout check's member list
// (host/inspect/layout_check.cpp) and, with the sweep axes' neutral values, a
// point's block (cuvk::kernel_params, host/core/model/catalogue.h).
// Only 32-bit scalars: their std430 / push-constant layout equals the C layout, member i at byte
// 4 * i. A new kernel-visible parameter is one X(name) line here (and its use in the kernels).
#define CUVK_KERNEL_PARAMS(X)                                                          \
  X(n)      /* index bound: threads with i >= n do nothing */                          \
  X(offset) /* read_offset / write_offset: element offset applied inside the kernel */ \
  X(stride) /* stride: element stride of the input */                                  \
  X(aux)    /* per-kernel auxiliary value (SoA plane length, flush sentinel bits) */

#define CUVK_PARAM_MEMBER(name) CUVK_U32 name;
struct CuvkParams {
  CUVK_KERNEL_PARAMS(CUVK_PARAM_MEMBER)
};
#undef CUVK_PARAM_MEMBER

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

// The chain test's step (cuda/chain.cu, glsl/chain.comp, the CPU's chain_word): on a float's
// bits x, (x & KEEP) | ((x * MUL + ADD) & ~KEEP): sign and exponent kept, the mantissa advanced by
// an LCG of full period 2^23 (MUL = 1 mod 4, ADD odd).
#define CUVK_CHAIN_KEEP 0xFF800000u
#define CUVK_CHAIN_MUL 1664525u
#define CUVK_CHAIN_ADD 1013904223u

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
// std430: member i of the block at byte 4 * i, the block 4 bytes a member (no padding).
#define CUVK_PARAM_INDEX(name) cuvk_param_index_##name,
enum CuvkParamIndex { CUVK_KERNEL_PARAMS(CUVK_PARAM_INDEX) cuvk_param_count };
#undef CUVK_PARAM_INDEX
#define CUVK_PARAM_OFFSET_CHECK(name)                                      \
  static_assert(offsetof(CuvkParams, name) == 4 * cuvk_param_index_##name, \
                "std430 offset of CuvkParams::" #name);                    \
  static_assert(sizeof(CuvkParams::name) == 4, "CuvkParams::" #name " is a 32-bit scalar");
CUVK_KERNEL_PARAMS(CUVK_PARAM_OFFSET_CHECK)
#undef CUVK_PARAM_OFFSET_CHECK
static_assert(sizeof(CuvkParams) == 4 * cuvk_param_count,
              "CuvkParams: 4 bytes a member (push-constant layout)");
// Push constants after the block: a buffer address (8-byte aligned in std430 and in C).
constexpr std::size_t kCuvkAddressesAt = (sizeof(CuvkParams) + 7) / 8 * 8;
static_assert(sizeof(CuvkParticle) == 16 && offsetof(CuvkParticle, w) == 12, "std430 CuvkParticle");
static_assert(sizeof(CuvkPair) == 8 && offsetof(CuvkPair, y) == 4, "std430 CuvkPair");

// Push constants of the buffer-device-address modules (`<kernel>_bda`, glsl/common.glsl CUVK_BDA):
// CuvkParams, then the input's and the output's VkDeviceAddress (GLSL buffer_reference pointers).
struct CuvkBdaPush {
  CuvkParams params;
  uint64_t in_address;
  uint64_t out_address;
};
static_assert(sizeof(CuvkBdaPush) == kCuvkAddressesAt + 16, "CuvkBdaPush: params, 2 addresses");
static_assert(offsetof(CuvkBdaPush, in_address) == kCuvkAddressesAt,
              "push-constant offset of inbuf");
static_assert(offsetof(CuvkBdaPush, out_address) == kCuvkAddressesAt + 8,
              "push-constant offset of outbuf");

// Push constants of the traced bda modules (`<kernel>_trace[_nosm]_bda`): CuvkBdaPush, then the
// trace buffer's VkDeviceAddress.
struct CuvkTraceBdaPush {
  CuvkParams params;
  uint64_t in_address;
  uint64_t out_address;
  uint64_t trace_address;
};
static_assert(sizeof(CuvkTraceBdaPush) == kCuvkAddressesAt + 24,
              "CuvkTraceBdaPush: params, 3 addresses");
static_assert(offsetof(CuvkTraceBdaPush, trace_address) == kCuvkAddressesAt + 16,
              "push-constant offset of tracebuf");
#endif

#endif  // CUVK_PARAMS_H
