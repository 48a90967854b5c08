#version 450
// x += 10, y += 20 on {x, y} structs, one member at a time; examples/xy_update/xy_update.cu is its
// CUDA twin. Descriptor binding by default; with CUVK_BDA the buffers are device addresses after
// the scalar in the push constants (docs/PAIRS.md, the binding convention).
layout(local_size_x_id = 0) in;

struct Pair {
  float x;
  float y;
};

#ifdef CUVK_BDA
#extension GL_EXT_buffer_reference : require
layout(buffer_reference, std430, buffer_reference_align = 8) restrict readonly buffer SrcRef { Pair v[]; };
layout(buffer_reference, std430, buffer_reference_align = 8) restrict writeonly buffer DstRef { Pair v[]; };
layout(push_constant) uniform Scalars {
  uint n;
  SrcRef src;  // offset 8: the scalar's 4 bytes, rounded up to 8
  DstRef dst;  // offset 16
};
#define SRC src.v
#define DST dst.v
#else
layout(std430, set = 0, binding = 0) restrict readonly buffer SrcBuf { Pair src[]; };
layout(std430, set = 0, binding = 1) restrict writeonly buffer DstBuf { Pair dst[]; };
layout(push_constant) uniform Scalars {
  uint n;
};
#define SRC src
#define DST dst
#endif

void main() {
  uint i = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * gl_WorkGroupSize.x +
           gl_LocalInvocationID.x;
  if (i >= n) return;
  Pair v = SRC[i];
  DST[i].x = v.x + 10.0;
  DST[i].y = v.y + 20.0;
}
