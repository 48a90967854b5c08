// Placeholders until the run-time compilers land (issue 20, kdecl's next commit).
#include "pair.h"

namespace cuvk::pairs {

std::string nvrtc_unavailable() { return "NVRTC unavailable: not wired yet"; }
CompiledCuda compile_cuda(const PairDeclaration& decl, int) {
  throw Error(decl.file + ": " + nvrtc_unavailable());
}
CompiledSpirv compile_glsl(const PairDeclaration& decl, Binding) {
  throw Error(decl.file + ": GLSL compiler not wired yet");
}
void check_interfaces(const PairDeclaration&, const CompiledCuda*, const CompiledSpirv*) {}

}  // namespace cuvk::pairs
