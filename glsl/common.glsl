// Shared by every cuvk compute shader: the parameter block, the workgroup size as a specialization
// constant (so Vulkan launches exactly the CUDA block size) and the same 32-bit index arithmetic
// as cuda/common.cuh.
#include "params.h"

layout(local_size_x_id = CUVK_SPEC_BLOCK_SIZE, local_size_y = 1, local_size_z = 1) in;
layout(push_constant) uniform PushConstants { CuvkParams p; };

// Grids wider than the device's x limit are folded into y; both APIs use this linearisation.
uint cuvk_global_index() {
  return (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * gl_WorkGroupSize.x +
         gl_LocalInvocationID.x;
}
