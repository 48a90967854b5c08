# Every compute kernel cuvk carries: kernel name, GLSL source stem, preprocessor defines.
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
)
