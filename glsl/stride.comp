#version 450
#extension GL_GOOGLE_include_directive : require
// stride: b[i] = a[i * stride] (seed 004).
#include "common.glsl"

CUVK_BUFFERS(float a[];, float b[];);

void main() {
  uint i = cuvk_global_index();
  if (i >= p.n) return;
  outbuf.b[i] = inbuf.a[i * p.stride];
}
