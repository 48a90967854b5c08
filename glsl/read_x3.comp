#version 450
#extension GL_GOOGLE_include_directive : require
// read_x3: out[i] = x of particle i, particles {x, y, z} of 12 bytes (seed 004: "AoS with 3
// fields behaves like stride 3"). LAYOUT_AOS: 12-byte structs; otherwise SoA: three planes of n
// floats, x plane first.
// The kernels built from this file, with their defines (read by cmake/EmbedShaders.cmake):
// cuvk kernel read_x3_aos: LAYOUT_AOS
// cuvk kernel read_x3_soa
#include "common.glsl"

// Scalar floats only (never vec3): std430 then gives the C layout of cuda/read_x3.cu's struct.
struct CuvkParticle3 {
  float x;
  float y;
  float z;
};

#ifdef LAYOUT_AOS
CUVK_BUFFERS(CuvkParticle3 particles[];, float result[];);
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
