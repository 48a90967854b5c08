#version 450
#extension GL_GOOGLE_include_directive : require
// stride: b[i] = a[i * stride] (seed 004).
#include "common.glsl"

layout(std430, binding = CUVK_BINDING_IN) restrict readonly buffer In { float a[]; };
layout(std430, binding = CUVK_BINDING_OUT) restrict writeonly buffer Out { float b[]; };

void main() {
  uint i = cuvk_global_index();
  if (i >= p.n) return;
  b[i] = a[i * p.stride];
}
