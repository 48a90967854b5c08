#version 450
// A run-time module for the backend test (test_runtime_module.cpp): y[i] = a * x[i] + y[i],
// by the pair binding convention (buffers at set 0 bindings 0.., scalars pushed in order).
layout(local_size_x_id = 0) in;
layout(std430, set = 0, binding = 0) readonly buffer X { float x[]; };
layout(std430, set = 0, binding = 1) buffer Y { float y[]; };
layout(push_constant) uniform Scalars { float a; uint n; };
void main() {
  const uint i = gl_WorkGroupID.x * gl_WorkGroupSize.x + gl_LocalInvocationID.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
