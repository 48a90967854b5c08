// stride: b[i] = a[i * stride] (seed 004); glsl/stride.comp twin.
#include "common.cuh"

CUVK_KERNEL(stride) {
  const unsigned i = cuvk_global_index();
  if (i >= p.n) return;
  out[i] = in[i * p.stride];
}
