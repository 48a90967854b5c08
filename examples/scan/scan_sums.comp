#version 450
// Step 2 of examples/scan (scan.cu's scan_sums): one workgroup of 1024 scans the m block totals
// in place (exclusive), each invocation its chunk. It uses only sums (binding 2): the keys and
// out bindings are left undeclared, as a step may. SCAN_BREAK_SUMS: a test's wrong middle step.
layout(local_size_x_id = 0) in;
layout(std430, set = 0, binding = 2) restrict buffer Sums { uint sums[]; };
layout(push_constant) uniform Scalars {
  uint n;
  uint m;
};
const uint SUMS_BLOCK = 1024;
shared uint s[SUMS_BLOCK];

void main() {
  uint t = gl_LocalInvocationID.x, chunk = (m + SUMS_BLOCK - 1) / SUMS_BLOCK;
  uint lo = min(m, t * chunk), hi = min(m, lo + chunk);
  uint total = 0;
  for (uint j = lo; j < hi; ++j) total += sums[j];
  s[t] = total;
  barrier();
  for (uint d = 1; d < SUMS_BLOCK; d *= 2) {
    uint add = t >= d ? s[t - d] : 0u;
    barrier();
    s[t] += add;
    barrier();
  }
  uint run = s[t] - total;
#ifdef SCAN_BREAK_SUMS
  run = s[t];  // a test's wrong middle step (tests/pairs): inclusive instead of exclusive
#endif
  for (uint j = lo; j < hi; ++j) {
    uint v = sums[j];
    sums[j] = run;
    run += v;
  }
}
