#version 450
// Nine buffers (more than the eight a pair may need): out[i] = b0[i] + ... + b7[i] (+ a double
// scalar, to check 8-byte scalar alignment: it sits at offset 8 after the 4-byte n).
layout(local_size_x_id = 0) in;
layout(std430, set = 0, binding = 0) readonly buffer B0 { uint b0[]; };
layout(std430, set = 0, binding = 1) readonly buffer B1 { uint b1[]; };
layout(std430, set = 0, binding = 2) readonly buffer B2 { uint b2[]; };
layout(std430, set = 0, binding = 3) readonly buffer B3 { uint b3[]; };
layout(std430, set = 0, binding = 4) readonly buffer B4 { uint b4[]; };
layout(std430, set = 0, binding = 5) readonly buffer B5 { uint b5[]; };
layout(std430, set = 0, binding = 6) readonly buffer B6 { uint b6[]; };
layout(std430, set = 0, binding = 7) readonly buffer B7 { uint b7[]; };
layout(std430, set = 0, binding = 8) writeonly buffer Out { uint o[]; };
layout(push_constant) uniform Scalars { uint n; uint pad; uint add_lo; uint add_hi; };
void main() {
  const uint i = gl_WorkGroupID.x * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
  if (i < n) o[i] = b0[i] + b1[i] + b2[i] + b3[i] + b4[i] + b5[i] + b6[i] + b7[i] + add_lo + add_hi;
}
