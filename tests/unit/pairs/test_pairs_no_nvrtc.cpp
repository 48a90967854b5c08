// Issue 20: without NVRTC (CUVK_NVRTC names a library that is not there, as on a machine without
// the CUDA toolkit), the CUDA side of a pair says why it cannot be compiled, and the GLSL side
// still compiles. ctest runs this with CUVK_NVRTC=/nonexistent/libnvrtc.so.
#include <gtest/gtest.h>

#include "pair.h"
#include "pairs_fixture.h"

namespace {

using namespace cuvk::pairs;
using namespace cuvk::pairs::testing_support;

TEST(PairNoNvrtc, CudaSaysWhyGlslStillCompiles) {
  ASSERT_STREQ(std::getenv("CUVK_NVRTC"), "/nonexistent/libnvrtc.so");
  EXPECT_EQ(nvrtc_unavailable(),
            "NVRTC unavailable: no libnvrtc found (tried /nonexistent/libnvrtc.so; install the "
            "CUDA toolkit or set CUDA_HOME)");
  PairFiles f;
  const PairDeclaration d = f.parse(kMinimal);
  try {
    compile_cuda(d, kDefaultCudaArch);
    FAIL();
  } catch (const DeclarationError&) {
    FAIL() << "an environment problem, not the declaration's";
  } catch (const cuvk::Error& e) {
    EXPECT_EQ(std::string(e.what()), f.path("p.toml") + ": " + nvrtc_unavailable());
  }
  const CompiledSpirv spv = compile_glsl(d, cuvk::Binding::descriptor);
  EXPECT_NO_THROW(check_interfaces(d, nullptr, &spv));
}

}  // namespace
