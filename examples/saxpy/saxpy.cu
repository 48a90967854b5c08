// y = a * x + y; examples/saxpy/saxpy.comp is its GLSL twin. Parameters follow the binding
// convention: the buffers (x, y) as pointers, then the scalars (a, n), in declared order.
// fmaf on both sides, so the two APIs agree to the bit.
extern "C" __global__ void saxpy(const float* __restrict__ x, float* __restrict__ y, float a,
                                 unsigned n) {
  const unsigned i = (blockIdx.y * gridDim.x + blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) y[i] = fmaf(a, x[i], y[i]);
}
