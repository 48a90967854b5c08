// The SPIR-V registry of cuvk_wrong_layout (issue 25): cuvk's own, generated from glsl/*.comp,
// with one module replaced. read_x_aos is tests/glsl/layout_mismatch.comp, whose CuvkParticle puts
// a vec3 at offset 16 where the C++ twin has floats at 4, 8, 12: a real std430 mismatch, for
// `cuvk_wrong_layout inspect read_x` to find and exit 1 on (cli_error.inspect_layout_mismatch).
// Linked before libcuvk_spirv.a, this definition of spirv_modules() is the binary's: the
// archive's registry object is never pulled in.
#include <string>
#include <vector>

#include "layout_mismatch.h"  // cuvk_spirv_layout_mismatch (tests/CMakeLists.txt)

#define spirv_modules cuvk_real_spirv_modules
#include "spirv_modules.cpp"  // the generated registry (build/spirv/), under another name
#undef spirv_modules

namespace cuvk {

const std::vector<SpirvModule>& spirv_modules();

const std::vector<SpirvModule>& spirv_modules() {
  static const std::vector<SpirvModule> modules = [] {
    std::vector<SpirvModule> m = cuvk_real_spirv_modules();
    bool replaced = false;
    for (SpirvModule& s : m)
      if (std::string(s.name) == "read_x_aos") {
        s.code = cuvk_spirv_layout_mismatch;
        s.words = sizeof(cuvk_spirv_layout_mismatch) / sizeof(std::uint32_t);
        replaced = true;
      }
    if (!replaced) m.clear();  // no read_x_aos any more: every test of this binary fails loudly
    return m;
  }();
  return modules;
}

}  // namespace cuvk
