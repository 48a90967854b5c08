#version 450
#extension GL_GOOGLE_include_directive : require
// copy: the bandwidth ceiling. VARIANT_VEC4: 16 bytes per thread (the seed's LDG.E.128 idea);
// otherwise one float per thread. p.n counts elements of the chosen width.
#include "common.glsl"

#ifdef VARIANT_VEC4
#define ELEM vec4
#else
#define ELEM float
#endif
layout(std430, binding = CUVK_BINDING_IN) restrict readonly buffer In { ELEM a[]; };
layout(std430, binding = CUVK_BINDING_OUT) restrict writeonly buffer Out { ELEM b[]; };

void main() {
  uint i = cuvk_global_index();
  if (i >= p.n) return;
  b[i] = a[i];
}
