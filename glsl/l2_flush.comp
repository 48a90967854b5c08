#version 450
#extension GL_GOOGLE_include_directive : require
// l2_flush (internal, not a test): reads a scratch buffer larger than L2 between timed
// repetitions, evicting the test's lines without leaving dirty lines to be written back during the
// next timed kernel. The store happens only if a value equals the sentinel in p.aux, which the host
// never puts in the scratch, so the compiler cannot drop the loads.
#include "common.glsl"

CUVK_BUFFERS(vec4 scratch[];, float sink[];);

void main() {
  uint i = cuvk_global_index();
  if (i >= p.n) return;
  vec4 v = inbuf.scratch[i];
  if (v.x + v.y + v.z + v.w == uintBitsToFloat(p.aux)) outbuf.sink[0] = v.x;
}
