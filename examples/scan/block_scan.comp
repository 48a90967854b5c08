#version 450
// Step 1 of examples/scan (scan.cu's block_scan): each workgroup's exclusive scan of its 256
// keys into out, its total into sums. Buffers keys, out, sums at bindings 0, 1, 2; the scalars
// n, m in the push constants; the workgroup size from specialization constant 0 (256 here).
layout(local_size_x_id = 0) in;
layout(std430, set = 0, binding = 0) restrict readonly buffer Keys { uint keys[]; };
layout(std430, set = 0, binding = 1) restrict writeonly buffer Out { uint outv[]; };
layout(std430, set = 0, binding = 2) restrict writeonly buffer Sums { uint sums[]; };
layout(push_constant) uniform Scalars {
  uint n;
  uint m;
};
const uint SCAN_BLOCK = 256;
shared uint s[SCAN_BLOCK];

void main() {
  uint b = gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x;  // the linear block index
  uint t = gl_LocalInvocationID.x, i = b * SCAN_BLOCK + t;
  uint v = i < n ? keys[i] : 0u;
  s[t] = v;
  barrier();
  for (uint d = 1; d < SCAN_BLOCK; d *= 2) {
    uint add = t >= d ? s[t - d] : 0u;
    barrier();
    s[t] += add;
    barrier();
  }
  if (i < n) outv[i] = s[t] - v;
  if (t == SCAN_BLOCK - 1 && b < m) sums[b] = s[t];
}
