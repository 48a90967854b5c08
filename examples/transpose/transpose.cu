// out = in^T for a side x side matrix through a 32 x 32 tile in dynamic shared memory (the launch's
// shared_bytes: 32 x 33 floats, the extra column keeps a tile column off a single bank). A block
// is 256 threads = 32 columns x 8 rows, each thread moving 4 rows of the tile; block (x, y) of the
// 2-D grid is tile (column x, row y). examples/transpose/transpose.comp is its GLSL twin.
#define TILE 32
#define ROWS 8

extern "C" __global__ void transpose(const float* __restrict__ in, float* __restrict__ out,
                                     unsigned side) {
  extern __shared__ float tile[];  // TILE * (TILE + 1)
  const unsigned tx = threadIdx.x % TILE, ty = threadIdx.x / TILE;
  unsigned x = blockIdx.x * TILE + tx, y = blockIdx.y * TILE + ty;
  for (unsigned r = 0; r < TILE; r += ROWS)
    if (x < side && y + r < side) tile[(ty + r) * (TILE + 1) + tx] = in[(y + r) * side + x];
  __syncthreads();
  x = blockIdx.y * TILE + tx;  // the transposed tile: rows become columns
  y = blockIdx.x * TILE + ty;
  for (unsigned r = 0; r < TILE; r += ROWS)
    if (x < side && y + r < side) out[(y + r) * side + x] = tile[tx * (TILE + 1) + ty + r];
}
