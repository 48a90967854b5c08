#version 450
#extension GL_GOOGLE_include_directive : require
// copy: the bandwidth ceiling. VARIANT_VEC4: 16 bytes per thread (the seed's LDG.E.128 idea);
// VARIANT_GRID: a grid-stride loop over n floats with fewer invocations than elements; otherwise
// one float per thread. p.n counts elements of the chosen width.
// The kernels built from this file, with their defines (read by cmake/EmbedShaders.cmake):
// cuvk kernel copy
// cuvk kernel copy_vec4: VARIANT_VEC4
// cuvk kernel copy_grid: VARIANT_GRID
#include "common.glsl"

#ifdef VARIANT_VEC4
#define ELEM vec4
#else
#define ELEM float
#endif
CUVK_BUFFERS(ELEM a[];, ELEM b[];);

void main() {
#ifdef VARIANT_GRID
  // Grid-stride (cuda/copy.cu copy_grid): each invocation copies every (invocations)-th float.
  uint step = gl_NumWorkGroups.x * gl_NumWorkGroups.y * gl_WorkGroupSize.x;
  for (uint i = cuvk_global_index(); i < p.n; i += step) {
    outbuf.b[i] = inbuf.a[i];
    if (p.n - i <= step) break;
  }
#else
  uint i = cuvk_global_index();
  if (i >= p.n) return;
  outbuf.b[i] = inbuf.a[i];
#endif
}
