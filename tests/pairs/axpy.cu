// The CUDA side of the test pairs (tests/pairs/*.toml): y = a * x + y, correct.
extern "C" __global__ void axpy(const float* x, float* y, float a, unsigned n) {
  const unsigned i = (blockIdx.y * gridDim.x + blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) y[i] = fmaf(a, x[i], y[i]);
}
