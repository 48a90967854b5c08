# Every compute kernel cuvk carries: kernel name, GLSL source stem, preprocessor defines
# (comma-separated).
# The kernel name is also the CUDA kernel's name (see cuda/*.cu) and the catalogue's kernel key.
set(CUVK_KERNELS
  "read_x_aos|read_x|LAYOUT_AOS"
  "read_x_soa|read_x|"
  "update_xy_aos|update_xy|LAYOUT_AOS"
  "update_xy_soa|update_xy|"
  "read_offset|read_offset|"
  "write_offset|write_offset|"
  "stride|stride|"
  "copy|copy|"
  "copy_vec4|copy|VARIANT_VEC4"
  "l2_flush|l2_flush|"
  # The same sources in the buffer-device-address binding mode (glsl/common.glsl, CUVK_BDA): run by
  # `cuvk run --vk-binding bda`; the Vulkan backend picks `<kernel>_bda` for such launches.
  "read_x_aos_bda|read_x|LAYOUT_AOS,CUVK_BDA"
  "read_x_soa_bda|read_x|CUVK_BDA"
  "update_xy_aos_bda|update_xy|LAYOUT_AOS,CUVK_BDA"
  "update_xy_soa_bda|update_xy|CUVK_BDA"
  "read_offset_bda|read_offset|CUVK_BDA"
  "write_offset_bda|write_offset|CUVK_BDA"
  "stride_bda|stride|CUVK_BDA"
  "copy_bda|copy|CUVK_BDA"
  "copy_vec4_bda|copy|VARIANT_VEC4,CUVK_BDA"
  "l2_flush_bda|l2_flush|CUVK_BDA"
)
