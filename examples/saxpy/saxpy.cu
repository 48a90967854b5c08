// y = a * x + y; examples/saxpy/saxpy.comp is its GLSL twin. Parameters follow the binding
// convention: the buffers (x, y) as pointers, then the scalars (a, n), in declared order.
// A rounded multiply, then a rounded add, on both sides, so the two APIs agree to the bit:
// __fmul_rn / __fadd_rn are never contracted into an FMA (nvcc and NVRTC contract a * x + y by
// default), and Vulkan does not promise that GLSL's fma() is fused (lavapipe's is not).
extern "C" __global__ void saxpy(const float* __restrict__ x, float* __restrict__ y, float a,
                                 unsigned n) {
  const unsigned i = (blockIdx.y * gridDim.x + blockIdx.x) * blockDim.x + threadIdx.x;
  if (i < n) y[i] = __fadd_rn(__fmul_rn(a, x[i]), y[i]);
}
