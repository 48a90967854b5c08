#version 450
// A deliberately wrong twin of read_x's AoS particle for the layout check's own test
// (tests/gpu/test_layout.cpp): `yzw` as a vec3 is aligned to 16 bytes under std430, so it lands at
// offset 16 and the array stride becomes 32, where the C++ CuvkParticle {x, y, z, w} has y at 4 and
// a size of 16. The check must report both.
layout(local_size_x = 64) in;

struct CuvkParticle {
  float x;
  vec3 yzw;
};

layout(std430, binding = 0) restrict readonly buffer CuvkIn { CuvkParticle particles[]; } inbuf;
layout(std430, binding = 1) restrict writeonly buffer CuvkOut { float result[]; } outbuf;

void main() {
  uint i = gl_GlobalInvocationID.x;
  outbuf.result[i] = inbuf.particles[i].x + inbuf.particles[i].yzw.x;
}
