#version 450
// The GLSL side of the test pairs (tests/pairs/*.toml): y = a * x + y, and with
//   WRONG:   one element off by one (element 77): a disagreement the check must name;
//   OOB:     the last thread also writes one element past the end: the guard band must catch it
//            (in the bda form, CUVK_BDA: lavapipe bounds-checks descriptor accesses, NVIDIA not);
//   FOREVER: loops that never end: the timeout must bound them;
//   WRITE_ONLY: y = a * x + 1 without reading y (y may start poisoned: a write-only output);
//   HALF:    only the even elements written (on every lane alike: issue 31's unwritten outputs);
//   ALL_NAN:   every element written as the same NaN (bit-identical on every lane);
//   BDA_OFF: the bda form alone writes element 500 off by one (the lanes disagree);
//   TAIL_OFF: the last element off by one (a mismatch at the buffer's end);
//   X_ONLY:  the index from gl_GlobalInvocationID.x alone: wrong once the grid folds into y, which
//            cuvk warns about when it reads the declaration (fold_x_only.toml).
layout(local_size_x_id = 0) in;
#ifdef CUVK_BDA
#extension GL_EXT_buffer_reference : require
layout(buffer_reference, std430, buffer_reference_align = 4) readonly buffer XRef { float v[]; };
layout(buffer_reference, std430, buffer_reference_align = 4) coherent buffer YRef { float v[]; };
layout(push_constant) uniform Scalars {
  float a;
  uint n;
  XRef xr;
  YRef yr;
};
#define X xr.v
#define Y yr.v
#else
layout(std430, set = 0, binding = 0) readonly buffer XBuf { float x[]; };
layout(std430, set = 0, binding = 1) coherent buffer YBuf { float y[]; };
layout(push_constant) uniform Scalars {
  float a;
  uint n;
};
#define X x
#define Y y
#endif
void main() {
#ifdef X_ONLY
  uint i = gl_GlobalInvocationID.x;
#else
  uint i = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * gl_WorkGroupSize.x +
           gl_LocalInvocationID.x;
#endif
#ifdef FOREVER
  // Every thread of a huge grid spins (forever.toml): llvmpipe ends each loop after 65535
  // iterations, so its 2^28 threads x 65535^2 iterations outlast any timeout.
  while (Y[0] != -12345.0)
    while (Y[1] != -12345.0) Y[2] = Y[2];
#endif
  if (i >= n) return;
#ifdef HALF
  if (i % 2 == 1) return;
#endif
#ifdef WRITE_ONLY
  Y[i] = a * X[i] + 1.0;
#else
  Y[i] = fma(a, X[i], Y[i]);
#endif
#ifdef ALL_NAN
  Y[i] = uintBitsToFloat(0x7fc00000u);
#endif
#if defined(BDA_OFF) && defined(CUVK_BDA)
  if (i == 500) Y[i] += 1.0;
#endif
#ifdef TAIL_OFF
  if (i == n - 1) Y[i] += 1.0;
#endif
#ifdef WRONG
  if (i == 77) Y[i] += 1.0;
#endif
#ifdef OOB
  if (i == n - 1) Y[i + 1] = 0.0;
#endif
}
