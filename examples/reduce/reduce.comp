#version 450
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_arithmetic : require
// partial[workgroup] = the sum of this workgroup's share of x: each invocation adds every
// (invocations in the dispatch)-th element, then the workgroup sums with subgroupAdd and one
// shared slot per subgroup. Written for any subgroup size (32 on NVIDIA, 4 to 16 on lavapipe).
// examples/reduce/reduce.cu is its CUDA twin (warp shuffles).
layout(local_size_x_id = 0) in;
layout(std430, set = 0, binding = 0) restrict readonly buffer X { float x[]; };
layout(std430, set = 0, binding = 1) restrict writeonly buffer Partial { float partial[]; };
layout(push_constant) uniform Scalars { uint n; };

shared float subgroup_sums[256];  // one per subgroup: 1024 invocations at subgroup size 4

void main() {
  uint step = gl_NumWorkGroups.x * gl_WorkGroupSize.x;
  float s = 0.0;
  for (uint i = gl_WorkGroupID.x * gl_WorkGroupSize.x + gl_LocalInvocationID.x; i < n; i += step) {
    s += x[i];
    if (n - i <= step) break;
  }
  s = subgroupAdd(s);
  if (subgroupElect()) subgroup_sums[gl_SubgroupID] = s;
  barrier();
  if (gl_SubgroupID == 0) {
    float t = 0.0;
    for (uint k = gl_SubgroupInvocationID; k < gl_NumSubgroups; k += gl_SubgroupSize)
      t += subgroup_sums[k];
    t = subgroupAdd(t);
    if (subgroupElect()) partial[gl_WorkGroupID.x] = t;
  }
}
