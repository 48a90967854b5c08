#version 450
#extension GL_GOOGLE_include_directive : require
// update_xy: x += 10, y += 20 into a result buffer (seeds 000, 003). LAYOUT_AOS: {x,y} structs;
// otherwise SoA: an x plane of n floats followed by a y plane of n floats.
// The kernels built from this file, with their defines (read by cmake/EmbedShaders.cmake):
// cuvk kernel update_xy_aos: LAYOUT_AOS
// cuvk kernel update_xy_soa
#include "common.glsl"

#ifdef LAYOUT_AOS
CUVK_BUFFERS(CuvkPair src[];, CuvkPair dst[];);
#else
CUVK_BUFFERS(float src[];, float dst[];);
#endif

void main() {
  uint i = cuvk_global_index();
  if (i >= p.n) return;
#ifdef LAYOUT_AOS
  CuvkPair v = inbuf.src[i];
  outbuf.dst[i].x = v.x + 10.0;
  outbuf.dst[i].y = v.y + 20.0;
#else
  outbuf.dst[i] = inbuf.src[i] + 10.0;
  outbuf.dst[p.n + i] = inbuf.src[p.n + i] + 20.0;
#endif
}
