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

// vec2: the pair as one 8-byte access (float2) where the scalar kernels make two 4-byte ones; the
// experiment behind results/FINDINGS.md #2 (Vulkan descriptor sets and the split pair).
CUVK_KERNEL(update_xy_aos_vec2) {
  const unsigned i = cuvk_global_index();
  if (i >= p.n) return;
  const float2 v = reinterpret_cast<const float2*>(in)[i];
  reinterpret_cast<float2*>(out)[i] = make_float2(v.x + 10.0f, v.y + 20.0f);
}

// SoA vec2: two consecutive elements of each plane per thread. The planes are p.aux floats long
// (n rounded up to even, so the y plane starts 8-byte aligned); p.n = p.aux / 2 threads.
CUVK_KERNEL(update_xy_soa_vec2) {
  const unsigned i = cuvk_global_index();
  if (i >= p.n) return;
  const float2* x = reinterpret_cast<const float2*>(in);
  const float2* y = reinterpret_cast<const float2*>(in + p.aux);
  const float2 a = x[i], b = y[i];
  reinterpret_cast<float2*>(out)[i] = make_float2(a.x + 10.0f, a.y + 10.0f);
  reinterpret_cast<float2*>(out + p.aux)[i] = make_float2(b.x + 20.0f, b.y + 20.0f);
}
