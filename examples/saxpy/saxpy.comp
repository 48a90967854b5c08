#version 450
// y = a * x + y; examples/saxpy/saxpy.cu is its CUDA twin. Buffer i is set 0, binding i; the
// scalars are one push-constant block in declared order; the workgroup size is specialization
// constant 0 (cuvk sets it to the CUDA block size). Built with CUVK_BDA (glsl.bda_defines): the
// buffers are device addresses after the scalars instead, the CUDA way.
layout(local_size_x_id = 0) in;

#ifdef CUVK_BDA
#extension GL_EXT_buffer_reference : require
layout(buffer_reference, std430, buffer_reference_align = 4) restrict readonly buffer XRef { float v[]; };
layout(buffer_reference, std430, buffer_reference_align = 4) restrict buffer YRef { float v[]; };
layout(push_constant) uniform Scalars {
  float a;
  uint n;
  XRef x;  // offset 8: the scalars' 8 bytes, rounded up to 8
  YRef y;  // offset 16
};
#define X x.v
#define Y y.v
#else
layout(std430, set = 0, binding = 0) restrict readonly buffer XBuf { float x[]; };
layout(std430, set = 0, binding = 1) restrict buffer YBuf { float y[]; };
layout(push_constant) uniform Scalars {
  float a;
  uint n;
};
#define X x
#define Y y
#endif

void main() {
  // The same linear index as CUDA's (blockIdx.y * gridDim.x + blockIdx.x) * blockDim.x + threadIdx.x.
  uint i = (gl_WorkGroupID.y * gl_NumWorkGroups.x + gl_WorkGroupID.x) * gl_WorkGroupSize.x +
           gl_LocalInvocationID.x;
  if (i >= n) return;
  // `precise`: a rounded multiply, then a rounded add (NoContraction), as CUDA's
  // __fadd_rn(__fmul_rn(a, x), y); fma() would be fused on one driver and not on another.
  precise float ax = a * X[i];
  Y[i] = ax + Y[i];
}
