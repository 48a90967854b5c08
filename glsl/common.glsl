// Shared by every cuvk compute shader: the parameter block, the workgroup size as a specialization
// constant (so Vulkan launches exactly the CUDA block size) and the same 32-bit index arithmetic
// as cuda/common.cuh.
#include "params.h"

layout(local_size_x_id = CUVK_SPEC_BLOCK_SIZE, local_size_y = 1, local_size_z = 1) in;

// CUVK_BUFFERS(IN_MEMBERS, OUT_MEMBERS) declares a kernel's read-only input and write-only output,
// reached as `inbuf.<member>` and `outbuf.<member>`, and the push-constant block holding `p`.
// One source, two binding modes (glsl/kernels.cmake builds both):
// - descriptor (default): two storage-buffer descriptors, set 0, bindings CUVK_BINDING_IN/OUT;
//   push constants = CuvkParams (16 bytes).
// - CUVK_BDA (module `<kernel>_bda`): GL_EXT_buffer_reference pointers in the push constants after
//   CuvkParams (CuvkBdaPush, 32 bytes), no descriptor set: the CUDA way of passing buffers.
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
  }
#else
#define CUVK_BUFFERS(IN_MEMBERS, OUT_MEMBERS)                                                     \
  layout(std430, binding = CUVK_BINDING_IN) restrict readonly buffer CuvkIn {                     \
    IN_MEMBERS                                                                                     \
  } inbuf;                                                                                         \
  layout(std430, binding = CUVK_BINDING_OUT) restrict writeonly buffer CuvkOut {                  \
    OUT_MEMBERS                                                                                    \
  } outbuf;                                                                                        \
  layout(push_constant) uniform PushConstants { CuvkParams p; }
#endif

// Grids wider than the device's x limit are folded into y; both APIs use this linearisation.
uint cuvk_global_index() {
  return (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * gl_WorkGroupSize.x +
         gl_LocalInvocationID.x;
}
