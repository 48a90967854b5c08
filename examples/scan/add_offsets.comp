#version 450
// Step 3 of examples/scan (scan.cu's add_offsets): every element plus the scanned total of the
// workgroups before its own.
layout(local_size_x_id = 0) in;
layout(std430, set = 0, binding = 1) restrict buffer Out { uint outv[]; };
layout(std430, set = 0, binding = 2) restrict readonly buffer Sums { uint sums[]; };
layout(push_constant) uniform Scalars {
  uint n;
  uint m;
};

void main() {
  uint i = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * 256 + gl_LocalInvocationID.x;
  if (i < n) outv[i] += sums[i / 256];
}
