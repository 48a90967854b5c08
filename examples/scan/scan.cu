// Exclusive prefix sum of n u32 keys in three dependent kernels (examples/scan/scan.toml); the
// GLSL twins are block_scan.comp, scan_sums.comp and add_offsets.comp. Every kernel takes the
// pair's buffers (keys, out, sums) and scalars (n, m) by the binding convention. Integer adds wrap
// mod 2^32 on both sides, so the result is bit-exact.
#define SCAN_BLOCK 256  // steps 1 and 3 run at this block size (launch.block = 256)
#define SUMS_BLOCK 1024  // step 2: one block of this many threads

// Step 1: each block's exclusive scan of its SCAN_BLOCK keys into out, its total into sums.
extern "C" __global__ void block_scan(const unsigned* keys, unsigned* out, unsigned* sums,
                                      unsigned n, unsigned m) {
  __shared__ unsigned s[SCAN_BLOCK];
  const unsigned b = blockIdx.y * gridDim.x + blockIdx.x;  // the linear block index
  const unsigned t = threadIdx.x, i = b * SCAN_BLOCK + t;
  const unsigned v = i < n ? keys[i] : 0u;
  s[t] = v;
  __syncthreads();
  for (unsigned d = 1; d < SCAN_BLOCK; d *= 2) {  // Hillis-Steele inclusive scan
    const unsigned add = t >= d ? s[t - d] : 0u;
    __syncthreads();
    s[t] += add;
    __syncthreads();
  }
  if (i < n) out[i] = s[t] - v;
  if (t == SCAN_BLOCK - 1 && b < m) sums[b] = s[t];
}

// Step 2: one block scans the m block totals in place (exclusive): each thread its chunk.
extern "C" __global__ void scan_sums(const unsigned* keys, unsigned* out, unsigned* sums,
                                     unsigned n, unsigned m) {
  __shared__ unsigned s[SUMS_BLOCK];
  const unsigned t = threadIdx.x, chunk = (m + SUMS_BLOCK - 1) / SUMS_BLOCK;
  const unsigned lo = min(m, t * chunk), hi = min(m, lo + chunk);
  unsigned total = 0;
  for (unsigned j = lo; j < hi; ++j) total += sums[j];
  s[t] = total;
  __syncthreads();
  for (unsigned d = 1; d < SUMS_BLOCK; d *= 2) {
    const unsigned add = t >= d ? s[t - d] : 0u;
    __syncthreads();
    s[t] += add;
    __syncthreads();
  }
  unsigned run = s[t] - total;  // what comes before this thread's chunk
#ifdef SCAN_BREAK_SUMS
  run = s[t];  // a test's wrong middle step: inclusive instead of exclusive
#endif
  for (unsigned j = lo; j < hi; ++j) {
    const unsigned v = sums[j];
    sums[j] = run;
    run += v;
  }
}

// Step 3: every element plus the scanned total of the blocks before its own.
extern "C" __global__ void add_offsets(const unsigned* keys, unsigned* out, unsigned* sums,
                                       unsigned n, unsigned m) {
  const unsigned i = (blockIdx.y * gridDim.x + blockIdx.x) * SCAN_BLOCK + threadIdx.x;
  if (i < n) out[i] += sums[i / SCAN_BLOCK];
}
