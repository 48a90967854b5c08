#version 450
#extension GL_GOOGLE_include_directive : require
// read_x: out[i] = x of particle i (seed 001). LAYOUT_AOS: {x,y,z,w} structs, 16-byte stride;
// otherwise SoA: four planes of n floats, x plane first.
#include "common.glsl"

#ifdef LAYOUT_AOS
layout(std430, binding = CUVK_BINDING_IN) restrict readonly buffer In { CuvkParticle particles[]; };
#else
layout(std430, binding = CUVK_BINDING_IN) restrict readonly buffer In { float planes[]; };
#endif
layout(std430, binding = CUVK_BINDING_OUT) restrict writeonly buffer Out { float result[]; };

void main() {
  uint i = cuvk_global_index();
  if (i >= p.n) return;
#ifdef LAYOUT_AOS
  result[i] = particles[i].x;
#else
  result[i] = planes[i];
#endif
}
