// One Jacobi sweep of the 1-D Laplace equation, in both directions (examples/jacobi/jacobi.toml):
// sweep_ab reads a and writes b, sweep_ba reads b and writes a; the two ends stay fixed. The GLSL
// twin is jacobi.comp (FORWARD defined: a -> b). (x + y) * 0.5f is an add then an exact halving,
// never contracted into an FMA, so both APIs agree to the bit.
__device__ void sweep(const float* src, float* dst, unsigned n) {
  const unsigned i = (blockIdx.y * gridDim.x + blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  if (i == 0 || i == n - 1) dst[i] = src[i];
  else dst[i] = (src[i - 1] + src[i + 1]) * 0.5f;
}

extern "C" __global__ void sweep_ab(float* a, float* b, unsigned n) { sweep(a, b, n); }
extern "C" __global__ void sweep_ba(float* a, float* b, unsigned n) { sweep(b, a, n); }
