// read_offset / write_offset (seed 000); glsl/read_offset.comp and glsl/write_offset.comp twins.
#include "common.cuh"

CUVK_KERNEL(read_offset) {
  const unsigned i = cuvk_global_index();
  if (i >= p.n) return;
  out[i] = in[i + p.offset];
}

CUVK_KERNEL(write_offset) {
  const unsigned i = cuvk_global_index();
  if (i >= p.n) return;
  out[i + p.offset] = in[i];
}
