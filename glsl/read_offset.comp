#version 450
#extension GL_GOOGLE_include_directive : require
// read_offset: b[i] = a[i + offset] (seed 000). The offset is applied here, not as a descriptor
// offset (those must be aligned), exactly as in the CUDA kernel.
#include "common.glsl"

CUVK_BUFFERS(float a[];, float b[];);

void main() {
  uint i = cuvk_global_index();
  if (i >= p.n) return;
  outbuf.b[i] = inbuf.a[i + p.offset];
}
