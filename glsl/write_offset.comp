#version 450
#extension GL_GOOGLE_include_directive : require
// write_offset: b[i + offset] = a[i] (seed 000).
#include "common.glsl"

CUVK_BUFFERS(float a[];, float b[];);

void main() {
  uint i = cuvk_global_index();
  if (i >= p.n) return;
  outbuf.b[i + p.offset] = inbuf.a[i];
}
