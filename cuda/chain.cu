// chain: one step of a chain of dependent dispatches (issue 33); glsl/chain.comp twin. The step
// is bit-exact on every API and the CPU (catalogue.h chain_word): the float's sign and exponent
// kept, its 23 mantissa bits advanced by a full-period LCG, so the value stays finite and a
// skipped or repeated step changes every element.
#include "common.cuh"

CUVK_KERNEL(chain) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  // Programmatic dependent launch (Submission::pdl): wait until the previous step's grid has
  // completed and its writes are visible, and let the next step's grid launch early. Launched
  // without the attribute both are no-ops.
  asm volatile("griddepcontrol.wait;" ::: "memory");
  asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
  const unsigned i = cuvk_global_index();
  if (i >= p.n) return;
  const unsigned x = __float_as_uint(in[i]);
  out[i] = __uint_as_float((x & CUVK_CHAIN_KEEP) |
                           ((x * CUVK_CHAIN_MUL + CUVK_CHAIN_ADD) & ~CUVK_CHAIN_KEEP));
}
