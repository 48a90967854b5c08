// copy: the bandwidth ceiling, one float per thread and 16 bytes per thread; glsl/copy.comp twin.
#include "common.cuh"

CUVK_KERNEL(copy) {
  const unsigned i = cuvk_global_index();
  if (i >= p.n) return;
  out[i] = in[i];
}

// Grid-stride: the launch is smaller than p.n (host/core/model/catalogue.cpp), each thread copies every
// (threads in the grid)-th float. The same loop as glsl/copy.comp's VARIANT_GRID, written so the
// 32-bit index never wraps.
CUVK_KERNEL(copy_grid) {
  const unsigned step = gridDim.x * gridDim.y * blockDim.x;
  for (unsigned i = cuvk_global_index(); i < p.n; i += step) {
    out[i] = in[i];
    if (p.n - i <= step) break;
  }
}

// p.n counts float4 elements (the seed's LDG.E.128 idea).
CUVK_KERNEL(copy_vec4) {
  const unsigned i = cuvk_global_index();
  if (i >= p.n) return;
  reinterpret_cast<float4*>(out)[i] = reinterpret_cast<const float4*>(in)[i];
}
