#version 450
// The built-in copy_vec4 (glsl/copy.comp, VARIANT_VEC4) under the pair convention: out[i] = in[i]
// for n4 vec4 elements, one an invocation. CUVK_BDA: the buffers as device addresses after n4,
// as the built-in's bda module does.
layout(local_size_x_id = 0) in;

#ifdef CUVK_BDA
#extension GL_EXT_buffer_reference : require
layout(buffer_reference, std430, buffer_reference_align = 16) restrict readonly buffer InRef { vec4 v[]; };
layout(buffer_reference, std430, buffer_reference_align = 16) restrict writeonly buffer OutRef { vec4 v[]; };
layout(push_constant) uniform Scalars {
  uint n4;
  InRef inbuf;    // offset 8
  OutRef outbuf;  // offset 16
};
#define IN inbuf.v
#define OUT outbuf.v
#else
layout(std430, set = 0, binding = 0) restrict readonly buffer In { vec4 a[]; };
layout(std430, set = 0, binding = 1) restrict writeonly buffer Out { vec4 b[]; };
layout(push_constant) uniform Scalars { uint n4; };
#define IN a
#define OUT b
#endif

void main() {
  uint i = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * gl_WorkGroupSize.x +
           gl_LocalInvocationID.x;
  if (i >= n4) return;
  OUT[i] = IN[i];
}
