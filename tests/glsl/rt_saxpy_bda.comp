#version 450
// rt_saxpy.comp's bda form: the scalars, then the buffers' addresses from the next 8-byte offset.
#extension GL_EXT_buffer_reference : require
layout(local_size_x_id = 0) in;
layout(buffer_reference, std430, buffer_reference_align = 4) readonly buffer X { float v[]; };
layout(buffer_reference, std430, buffer_reference_align = 4) buffer Y { float v[]; };
layout(push_constant) uniform Scalars { float a; uint n; X x; Y y; };
void main() {
  const uint i = gl_WorkGroupID.x * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
  if (i < n) y.v[i] = a * x.v[i] + y.v[i];
}
