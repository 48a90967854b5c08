// read_x3: out[i] = x of particle i, particles {x, y, z} of 12 bytes (seed 004: "AoS with 3
// fields behaves like stride 3"); glsl/read_x3.comp is the Vulkan twin.
#include "common.cuh"

// Scalar floats only: the std430 twin in glsl/read_x3.comp has the same 12-byte layout.
struct CuvkParticle3 {
  float x, y, z;
};
static_assert(sizeof(CuvkParticle3) == 12, "a 12-byte particle");

// AoS: a warp's 32 loads span 384 bytes (12 sectors), as stride 3 does.
CUVK_KERNEL(read_x3_aos) {
  const unsigned i = cuvk_global_index();
  if (i >= p.n) return;
  out[i] = reinterpret_cast<const CuvkParticle3*>(in)[i].x;
}

// SoA: three planes of n floats, x plane first: a warp's loads span 128 bytes (4 sectors).
CUVK_KERNEL(read_x3_soa) {
  const unsigned i = cuvk_global_index();
  if (i >= p.n) return;
  out[i] = in[i];
}
