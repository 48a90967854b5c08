#version 450
#extension GL_GOOGLE_include_directive : require
// read_x: out[i] = x of particle i (seed 001). LAYOUT_AOS: {x,y,z,w} structs, 16-byte stride;
// otherwise SoA: four planes of n floats, x plane first.
// The kernels built from this file, with their defines (read by cmake/EmbedShaders.cmake):
// cuvk kernel read_x_aos: LAYOUT_AOS
// cuvk kernel read_x_soa
#include "common.glsl"

#ifdef LAYOUT_AOS
CUVK_BUFFERS(CuvkParticle particles[];, float result[];);
#else
CUVK_BUFFERS(float planes[];, float result[];);
#endif

void main() {
  uint i = cuvk_global_index();
  if (i >= p.n) return;
#ifdef LAYOUT_AOS
  outbuf.result[i] = inbuf.particles[i].x;
#else
  outbuf.result[i] = inbuf.planes[i];
#endif
}
