// The CUDA side of the test pairs (tests/pairs/*.toml): y = a * x + y, correct; with -DWRITE_ONLY
// y = a * x + 1 (y not read), -DHALF only the even elements, -DALL_NAN every element the same NaN (as
// tests/pairs/axpy.comp's defines of the same names).
extern "C" __global__ void axpy(const float* x, float* y, float a, unsigned n) {
  const unsigned i = (blockIdx.y * gridDim.x + blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
#ifdef HALF
  if (i % 2 == 1) return;
#endif
#ifdef WRITE_ONLY
  y[i] = __fadd_rn(__fmul_rn(a, x[i]), 1.0f);
#else
  y[i] = fmaf(a, x[i], y[i]);
#endif
#ifdef ALL_NAN
  y[i] = __int_as_float(0x7fc00000);
#endif
}
