// Every CUDA kernel cuvk carries. The names equal the SPIR-V module names (glsl/kernels.cmake);
// the catalogue checks at start-up that both sides have every kernel it uses.
#pragma once

#include "common.cuh"

CUVK_KERNEL(read_x_aos);
CUVK_KERNEL(read_x_soa);
CUVK_KERNEL(update_xy_aos);
CUVK_KERNEL(update_xy_soa);
CUVK_KERNEL(read_offset);
CUVK_KERNEL(write_offset);
CUVK_KERNEL(stride);
CUVK_KERNEL(copy);
CUVK_KERNEL(copy_vec4);
CUVK_KERNEL(l2_flush);
