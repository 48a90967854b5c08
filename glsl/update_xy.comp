#version 450
#extension GL_GOOGLE_include_directive : require
// update_xy: x += 10, y += 20 into a result buffer (seeds 000, 003). LAYOUT_AOS: {x,y} structs;
// otherwise SoA: an x plane of n floats followed by a y plane of n floats.
#include "common.glsl"

#ifdef LAYOUT_AOS
layout(std430, binding = CUVK_BINDING_IN) restrict readonly buffer In { CuvkPair src[]; };
layout(std430, binding = CUVK_BINDING_OUT) restrict writeonly buffer Out { CuvkPair dst[]; };
#else
layout(std430, binding = CUVK_BINDING_IN) restrict readonly buffer In { float src[]; };
layout(std430, binding = CUVK_BINDING_OUT) restrict writeonly buffer Out { float dst[]; };
#endif

void main() {
  uint i = cuvk_global_index();
  if (i >= p.n) return;
#ifdef LAYOUT_AOS
  CuvkPair v = src[i];
  dst[i].x = v.x + 10.0;
  dst[i].y = v.y + 20.0;
#else
  dst[i] = src[i] + 10.0;
  dst[p.n + i] = src[p.n + i] + 20.0;
#endif
}
