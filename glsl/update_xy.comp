#version 450
#extension GL_GOOGLE_include_directive : require
// update_xy: x += 10, y += 20 into a result buffer (seeds 000, 003). LAYOUT_AOS: {x,y} structs;
// otherwise SoA: an x plane of n floats followed by a y plane of n floats. VARIANT_VEC2: the
// pair (AoS) or two consecutive plane elements (SoA, planes p.aux floats long) as one vec2.
// The kernels built from this file, with their defines (read by cmake/EmbedShaders.cmake):
// cuvk kernel update_xy_aos: LAYOUT_AOS
// cuvk kernel update_xy_soa
// cuvk kernel update_xy_aos_vec2: LAYOUT_AOS, VARIANT_VEC2
// cuvk kernel update_xy_soa_vec2: VARIANT_VEC2
#include "common.glsl"

#if defined(VARIANT_VEC2)
CUVK_BUFFERS(vec2 src[];, vec2 dst[];);
#elif defined(LAYOUT_AOS)
CUVK_BUFFERS(CuvkPair src[];, CuvkPair dst[];);
#else
CUVK_BUFFERS(float src[];, float dst[];);
#endif

void main() {
  uint i = cuvk_global_index();
  if (i >= p.n) return;
#if defined(VARIANT_VEC2) && defined(LAYOUT_AOS)
  vec2 v = inbuf.src[i];
  outbuf.dst[i] = vec2(v.x + 10.0, v.y + 20.0);
#elif defined(VARIANT_VEC2)
  uint y = p.aux / 2;  // the y plane, in vec2 elements
  outbuf.dst[i] = inbuf.src[i] + vec2(10.0);
  outbuf.dst[y + i] = inbuf.src[y + i] + vec2(20.0);
#elif defined(LAYOUT_AOS)
  CuvkPair v = inbuf.src[i];
  outbuf.dst[i].x = v.x + 10.0;
  outbuf.dst[i].y = v.y + 20.0;
#else
  outbuf.dst[i] = inbuf.src[i] + 10.0;
  outbuf.dst[p.n + i] = inbuf.src[p.n + i] + 20.0;
#endif
}
