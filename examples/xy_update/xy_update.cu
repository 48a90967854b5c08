// x += 10, y += 20 on {x, y} structs, one member at a time (examples/xy_update/xy_update.toml).
struct Pair {
  float x, y;
};

extern "C" __global__ void xy_update(const Pair* __restrict__ src, Pair* __restrict__ dst,
                                     unsigned n) {
  const unsigned i = (blockIdx.y * gridDim.x + blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= n) return;
  const Pair v = src[i];
  dst[i].x = v.x + 10.0f;
  dst[i].y = v.y + 20.0f;
}
