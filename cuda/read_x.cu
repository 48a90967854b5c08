// read_x: out[i] = x of particle i (seed 001); glsl/read_x.comp is the Vulkan twin.
#include "common.cuh"

// AoS: {x,y,z,w} structs, 16-byte stride: a warp's 32 loads span 512 bytes (16 sectors).
CUVK_KERNEL(read_x_aos) {
  const unsigned i = cuvk_global_index();
  if (i >= p.n) return;
  const CuvkParticle* __restrict__ particles = reinterpret_cast<const CuvkParticle*>(in);
  out[i] = particles[i].x;
}

// SoA: four planes of n floats, x plane first: a warp's loads span 128 bytes (4 sectors).
CUVK_KERNEL(read_x_soa) {
  const unsigned i = cuvk_global_index();
  if (i >= p.n) return;
  out[i] = in[i];
}
