// l2_flush (internal, not a test): reads a scratch buffer larger than L2 between timed
// repetitions; see glsl/l2_flush.comp. The store happens only if a value sums to the sentinel in
// p.aux, which the host never puts in the scratch, so the compiler cannot drop the loads.
#include "common.cuh"

CUVK_KERNEL(l2_flush) {
  const unsigned i = cuvk_global_index();
  if (i >= p.n) return;
  const float4 v = reinterpret_cast<const float4*>(in)[i];
  if (v.x + v.y + v.z + v.w == __uint_as_float(p.aux)) out[0] = v.x;
}
