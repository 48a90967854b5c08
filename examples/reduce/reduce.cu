// partial[block] = the sum of this block's share of x: each thread adds every (threads in the
// grid)-th element, then the block sums its threads with warp shuffles (__shfl_down_sync) and one
// shared slot per warp. examples/reduce/reduce.comp is its GLSL twin (subgroupAdd).
extern "C" __global__ void reduce(const float* __restrict__ x, float* __restrict__ partial,
                                  unsigned n) {
  __shared__ float warp_sums[32];  // one per warp: up to 1024 threads
  const unsigned step = gridDim.x * blockDim.x;
  float s = 0.0f;
  for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += step) {
    s += x[i];
    if (n - i <= step) break;  // the 32-bit index never wraps
  }
  for (int d = 16; d > 0; d /= 2) s += __shfl_down_sync(0xffffffffu, s, d);
  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (lane == 0) warp_sums[warp] = s;
  __syncthreads();
  if (warp == 0) {
    s = lane < blockDim.x / 32 ? warp_sums[lane] : 0.0f;
    for (int d = 16; d > 0; d /= 2) s += __shfl_down_sync(0xffffffffu, s, d);
    if (lane == 0) partial[blockIdx.x] = s;
  }
}
