// The CUDA side of tests/pairs/cuda_error.toml: two compile errors, so NVRTC's log has lines.
extern "C" __global__ void axpy(const float* x, float* y, float a, unsigned n) {
  const unsigned i = (blockIdx.y * gridDim.x + blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) y[i] = fmaf(a, x[i], undeclared_one);
  if (i < n) y[i] += undeclared_two;
}
