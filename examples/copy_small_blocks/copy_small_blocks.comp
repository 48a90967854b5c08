#version 450
// One float an invocation in workgroups of 128 (copy_small_blocks.toml): out[i] = in[i].
// CUVK_BDA: the buffers as device addresses after n.
layout(local_size_x_id = 0) in;

#ifdef CUVK_BDA
#extension GL_EXT_buffer_reference : require
layout(buffer_reference, std430, buffer_reference_align = 4) restrict readonly buffer InRef { float v[]; };
layout(buffer_reference, std430, buffer_reference_align = 4) restrict writeonly buffer OutRef { float v[]; };
layout(push_constant) uniform Scalars {
  uint n;
  InRef inbuf;    // offset 8
  OutRef outbuf;  // offset 16
};
#define IN inbuf.v
#define OUT outbuf.v
#else
layout(std430, set = 0, binding = 0) restrict readonly buffer In { float a[]; };
layout(std430, set = 0, binding = 1) restrict writeonly buffer Out { float b[]; };
layout(push_constant) uniform Scalars { uint n; };
#define IN a
#define OUT b
#endif

void main() {
  uint i = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * gl_WorkGroupSize.x +
           gl_LocalInvocationID.x;
  if (i >= n) return;
  OUT[i] = IN[i];
}
