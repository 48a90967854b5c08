#version 450
#extension GL_ARB_gpu_shader_int64 : require
layout(local_size_x_id = 0) in;
layout(std430, set = 0, binding = 0) buffer YBuf { float y[]; };
layout(push_constant) uniform Scalars {
  uint64_t k;
  uint n;
};
void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i < n) y[i] = float(k) + float(i);
}
