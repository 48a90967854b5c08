// Test pair slow_compile (tests/pairs/slow_compile.toml): axpy.cu's kernel plus thirty chains of
// 200 nested template instantiations that add nothing (0 * ...): NVRTC takes seconds to compile it,
// long enough for a signal to arrive during the compile (issue 49, item 3).
template <int N, int M>
struct Slow {
  __device__ static float f(float x) { return Slow<N - 1, M>::f(x) * 1.0001f + float(N * M); }
};
template <int M>
struct Slow<0, M> {
  __device__ static float f(float x) { return x; }
};
template <int M>
__device__ float chain(float x) {
  return Slow<200, M>::f(x);
}
#define C(k) chain<k>(x[i])
extern "C" __global__ void axpy(const float* x, float* y, float a, unsigned n) {
  const unsigned i = (blockIdx.y * gridDim.x + blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const float slow = C(1) + C(2) + C(3) + C(4) + C(5) + C(6) + C(7) + C(8) + C(9) + C(10) + C(11) + C(12) + C(13) +
      C(14) + C(15) + C(16) + C(17) + C(18) + C(19) + C(20) + C(21) + C(22) + C(23) + C(24) + C(25)
      + C(26) + C(27) + C(28) + C(29) + C(30);
  y[i] = fmaf(a, x[i], y[i]) + 0.0f * slow;
}
