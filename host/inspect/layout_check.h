// The layout check: every GLSL buffer block and push-constant block, as reflected from the
// embedded SPIR-V (std430 member offsets, array strides), against the C++/CUDA struct it shares
// bytes with (CuvkParams, CuvkBdaPush, CuvkParticle, CuvkPair, float, float4). A difference means
// the two APIs read different bytes from the same buffer: the unit tests fail on any mismatch.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "spirv_reflect.h"

namespace cuvk {

// The C++ side of one GLSL type, keyed by the GLSL type's name.
struct CppMember {
  std::string name;  // the GLSL member name it must match
  std::uint32_t offset = 0, size = 0;
};
struct CppLayout {
  std::string glsl_name;  // "CuvkParticle", "float", "vec4", "PushConstants", "PushConstants(bda)"
  std::string cpp_name;   // "CuvkParticle", "float", "float4", "CuvkParams", "CuvkBdaPush"
  std::uint32_t size = 0;
  std::vector<CppMember> members;  // empty for scalars and vectors
};

// cuvk's C++/CUDA layouts, taken from the compiler (sizeof, offsetof).
const std::vector<CppLayout>& cpp_layouts();

struct LayoutCheck {
  std::string where;  // "read_x_aos: CuvkIn.particles[] stride"
  std::string glsl, cpp;
  bool ok = false;
};

// Compares every block of `module` (named `module_name` in the findings) with `cpp`: a runtime
// array's stride with sizeof its element's twin, struct members' names, offsets and sizes, and a
// push-constant block's size. A GLSL type without a C++ twin is a failed check, except a struct of
// 32-bit scalars only, whose C twin (member k at offset 4*k) is derived.
std::vector<LayoutCheck> check_layouts(const spirv::Module& module, const std::string& module_name,
                                       const std::vector<CppLayout>& cpp = cpp_layouts());

}  // namespace cuvk
