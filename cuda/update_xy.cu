// update_xy: x += 10, y += 20 into a result buffer (seeds 000, 003); glsl/update_xy.comp twin.
#include "common.cuh"

CUVK_KERNEL(update_xy_aos) {
  const unsigned i = cuvk_global_index();
  if (i >= p.n) return;
  const CuvkPair* __restrict__ src = reinterpret_cast<const CuvkPair*>(in);
  CuvkPair* __restrict__ dst = reinterpret_cast<CuvkPair*>(out);
  const CuvkPair v = src[i];
  dst[i].x = v.x + 10.0f;
  dst[i].y = v.y + 20.0f;
}

// SoA: an x plane of n floats followed by a y plane of n floats.
CUVK_KERNEL(update_xy_soa) {
  const unsigned i = cuvk_global_index();
  if (i >= p.n) return;
  out[i] = in[i] + 10.0f;
  out[p.n + i] = in[p.n + i] + 20.0f;
}
