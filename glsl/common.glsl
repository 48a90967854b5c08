// Shared by every cuvk compute shader: the parameter block, the workgroup size as a specialization
// constant (so Vulkan launches exactly the CUDA block size) and the same 32-bit index arithmetic
// as cuda/common.cuh.
#include "params.h"

layout(local_size_x_id = CUVK_SPEC_BLOCK_SIZE, local_size_y = 1, local_size_z = 1) in;

// Dispatch traces (`cuvk trace`, host/contract/params.h): built with CUVK_TRACE, the kernel's
// own main() becomes cuvk_kernel_main(), called by the main() below between the two timestamp
// reads of thread 0: the traced twin is the measured kernel plus the timestamp writes. The clock is
// VK_KHR_shader_clock's device clock (clockRealtime2x32EXT); with CUVK_TRACE_SM the SM id comes
// from VK_NV_shader_sm_builtins (gl_SMIDNV), else the record says CUVK_TRACE_NO_SM.
#ifdef CUVK_TRACE
#extension GL_EXT_shader_realtime_clock : require
#ifdef CUVK_TRACE_SM
#extension GL_NV_shader_sm_builtins : require
#endif
void cuvk_trace_store(uint block, uvec2 start, uvec2 end, uint sm);  // defined by CUVK_BUFFERS
void cuvk_kernel_main();
void main() {
  uvec2 start = uvec2(0);
  if (gl_LocalInvocationIndex == 0) start = clockRealtime2x32EXT();
  cuvk_kernel_main();
  barrier();
  if (gl_LocalInvocationIndex == 0) {
    uvec2 end = clockRealtime2x32EXT();
#ifdef CUVK_TRACE_SM
    uint sm = gl_SMIDNV;
#else
    uint sm = CUVK_TRACE_NO_SM;
#endif
    cuvk_trace_store(gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x, start, end, sm);
  }
}
#define main cuvk_kernel_main
// Ends CUVK_BUFFERS (after the push-constant block, before the user's `;`): the record store.
#define CUVK_TRACE_STORE_BODY(WORDS)                                                              \
  ;                                                                                                \
  void cuvk_trace_store(uint block, uvec2 start, uvec2 end, uint sm) {                             \
    uint at = block * CUVK_TRACE_WORDS;                                                            \
    WORDS[at] = sm;                                                                                \
    WORDS[at + 1] = block;                                                                         \
    WORDS[at + 2] = start.x;                                                                       \
    WORDS[at + 3] = start.y;                                                                       \
    WORDS[at + 4] = end.x;                                                                         \
    WORDS[at + 5] = end.y;                                                                         \
    WORDS[at + 6] = CUVK_TRACE_MARK;                                                               \
    WORDS[at + 7] = 0;                                                                             \
  }                                                                                                \
  void cuvk_trace_store(uint block, uvec2 start, uvec2 end, uint sm)
#ifdef CUVK_BDA
#extension GL_EXT_buffer_reference : require
layout(buffer_reference, std430, buffer_reference_align = 16) restrict writeonly buffer CuvkTrace {
  uint words[];
};
#define CUVK_TRACE_PUSH CuvkTrace tracebuf;
#define CUVK_TRACE_STORE CUVK_TRACE_STORE_BODY(tracebuf.words)
#else
layout(std430, binding = CUVK_BINDING_TRACE) restrict writeonly buffer CuvkTrace {
  uint words[];
} tracebuf;
#define CUVK_TRACE_STORE CUVK_TRACE_STORE_BODY(tracebuf.words)
#endif
#else
#define CUVK_TRACE_PUSH
#define CUVK_TRACE_STORE
#endif

// CUVK_BUFFERS(IN_MEMBERS, OUT_MEMBERS) declares a kernel's read-only input and write-only output,
// reached as `inbuf.<member>` and `outbuf.<member>`, and the push-constant block holding `p`.
// One source, two binding modes (glsl/kernels.cmake builds both):
// - descriptor (default): two storage-buffer descriptors, set 0, bindings CUVK_BINDING_IN/OUT;
//   push constants = CuvkParams (16 bytes).
// - CUVK_BDA (module `<kernel>_bda`): GL_EXT_buffer_reference pointers in the push constants after
//   CuvkParams (CuvkBdaPush, 32 bytes), no descriptor set: the CUDA way of passing buffers.
// Both are the contract's one binding convention (host/contract/backend.h, RuntimeModule) for two
// buffers and one scalar, CuvkParams; a traced twin's trace buffer is buffer 2 (binding or address).
#ifdef CUVK_BDA
#extension GL_EXT_buffer_reference : require
#define CUVK_BUFFERS(IN_MEMBERS, OUT_MEMBERS)                                                     \
  layout(buffer_reference, std430, buffer_reference_align = 16) restrict readonly buffer CuvkIn {  \
    IN_MEMBERS                                                                                     \
  };                                                                                               \
  layout(buffer_reference, std430, buffer_reference_align = 16) restrict writeonly buffer CuvkOut { \
    OUT_MEMBERS                                                                                    \
  };                                                                                               \
  layout(push_constant) uniform PushConstants {                                                    \
    CuvkParams p;                                                                                  \
    CuvkIn inbuf;                                                                                  \
    CuvkOut outbuf;                                                                                \
    CUVK_TRACE_PUSH                                                                                \
  } CUVK_TRACE_STORE
#else
#define CUVK_BUFFERS(IN_MEMBERS, OUT_MEMBERS)                                                     \
  layout(std430, binding = CUVK_BINDING_IN) restrict readonly buffer CuvkIn {                     \
    IN_MEMBERS                                                                                     \
  } inbuf;                                                                                         \
  layout(std430, binding = CUVK_BINDING_OUT) restrict writeonly buffer CuvkOut {                  \
    OUT_MEMBERS                                                                                    \
  } outbuf;                                                                                        \
  layout(push_constant) uniform PushConstants { CuvkParams p; } CUVK_TRACE_STORE
#endif

// Grids wider than the device's x limit are folded into y; both APIs use this linearisation.
uint cuvk_global_index() {
  return (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * gl_WorkGroupSize.x +
         gl_LocalInvocationID.x;
}
