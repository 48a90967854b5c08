// copy: the bandwidth ceiling, one float per thread and 16 bytes per thread; glsl/copy.comp twin.
#include "common.cuh"

CUVK_KERNEL(copy) {
  const unsigned i = cuvk_global_index();
  if (i >= p.n) return;
  out[i] = in[i];
}

// p.n counts float4 elements (the seed's LDG.E.128 idea).
CUVK_KERNEL(copy_vec4) {
  const unsigned i = cuvk_global_index();
  if (i >= p.n) return;
  reinterpret_cast<float4*>(out)[i] = reinterpret_cast<const float4*>(in)[i];
}
