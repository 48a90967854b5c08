#version 450
#extension GL_GOOGLE_include_directive : require
// copy: the bandwidth ceiling. VARIANT_VEC4: 16 bytes per thread (the seed's LDG.E.128 idea);
// otherwise one float per thread. p.n counts elements of the chosen width.
// The kernels built from this file, with their defines (read by cmake/EmbedShaders.cmake):
// cuvk kernel copy
// cuvk kernel copy_vec4: VARIANT_VEC4
#include "common.glsl"

#ifdef VARIANT_VEC4
#define ELEM vec4
#else
#define ELEM float
#endif
CUVK_BUFFERS(ELEM a[];, ELEM b[];);

void main() {
  uint i = cuvk_global_index();
  if (i >= p.n) return;
  outbuf.b[i] = inbuf.a[i];
}
