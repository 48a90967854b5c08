#version 450
#extension GL_GOOGLE_include_directive : require
// chain: one step of a chain of dependent dispatches (issue 33; cuda/chain.cu twin): sign and
// exponent kept, the 23 mantissa bits advanced by a full-period LCG (params.h CUVK_CHAIN_*).
// The kernels built from this file, with their defines (read by cmake/EmbedShaders.cmake):
// cuvk kernel chain
#include "common.glsl"

CUVK_BUFFERS(float a[];, float b[];);

void main() {
  uint i = cuvk_global_index();
  if (i >= p.n) return;
  uint x = floatBitsToUint(inbuf.a[i]);
  outbuf.b[i] = uintBitsToFloat((x & CUVK_CHAIN_KEEP) |
                                ((x * CUVK_CHAIN_MUL + CUVK_CHAIN_ADD) & ~CUVK_CHAIN_KEEP));
}
