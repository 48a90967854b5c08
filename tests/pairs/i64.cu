// Test pair i64_push (tests/pairs/i64.toml): the CUDA side.
extern "C" __global__ void i64k(float* y, unsigned long long k, unsigned n) {
  const unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = float(k) + float(i);
}
