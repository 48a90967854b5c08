#version 450
// One Jacobi sweep (jacobi.cu's sweep_ab with FORWARD defined: a -> b; else sweep_ba: b -> a).
// Buffers a, b at bindings 0, 1; the scalar n in the push constants.
layout(local_size_x_id = 0) in;
layout(std430, set = 0, binding = 0) restrict buffer A { float a[]; };
layout(std430, set = 0, binding = 1) restrict buffer B { float b[]; };
layout(push_constant) uniform Scalars {
  uint n;
};

void main() {
  uint i = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * gl_WorkGroupSize.x +
           gl_LocalInvocationID.x;
  if (i >= n) return;
#ifdef FORWARD
  if (i == 0 || i == n - 1) b[i] = a[i];
  else b[i] = (a[i - 1] + a[i + 1]) * 0.5;
#else
  if (i == 0 || i == n - 1) a[i] = b[i];
  else a[i] = (b[i - 1] + b[i + 1]) * 0.5;
#endif
}
