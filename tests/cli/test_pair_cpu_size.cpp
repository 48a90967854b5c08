// cpu_pair_n (host/app/pair_tests.h): on a CPU device a pair's n is scaled down; the pair reader's
// own tests are in tests/unit/pairs.
#include <gtest/gtest.h>

#include <string>

#include "pair.h"
#include "pair_tests.h"  // cpu_pair_n
#include "pairs_fixture.h"

namespace {

using namespace cuvk::pairs;
using namespace cuvk::pairs::testing_support;

}  // namespace

// Issue 36: on a CPU device a pair runs at its declared n halved until its buffers hold 8 MiB:
// saxpy's 16M floats x 2 buffers at 1M, the transpose's 4096 x 4096 at 1024 x 1024; a pair that
// already fits keeps its n.
TEST(PairCpuSize, DeclaredNIsHalvedUntilTheBuffersFit) {
  const std::string root = CUVK_SOURCE_DIR;
  EXPECT_EQ(cuvk::cpu_pair_n(read_pair_file(root + "/examples/saxpy/saxpy.toml")), 1u << 20);
  EXPECT_EQ(cuvk::cpu_pair_n(read_pair_file(root + "/examples/transpose/transpose.toml")), 1024u);
  EXPECT_EQ(cuvk::cpu_pair_n(read_pair_file(root + "/examples/reduce/reduce.toml")), 1u << 20);
  PairFiles f;
  const PairDeclaration small = f.parse(kMinimal);  // n = 16M of one f32 buffer: 2M
  EXPECT_EQ(cuvk::cpu_pair_n(small), 2u << 20);
  EXPECT_EQ(cuvk::cpu_pair_n(f.parse(std::string("n = 1000\n") + kMinimal)), 1000u);
}

// On a CPU device a pair's n is scaled down (cpu_pair_n); one with declared sizes stays on them.
TEST(PairSteps, CpuScalingKeepsToDeclaredSizes) {
  PairFiles files;
  PairDeclaration d =
      files.parse(edit_steps("sizes = [\"4k\", 65536]", "sizes = [\"4k\", \"16M\"]"));
  EXPECT_EQ(d.n, 16u << 20);
  EXPECT_EQ(cuvk::cpu_pair_n(d), 4096u);  // 16M floats do not fit 8 MiB; the halved n is no size
  d.sizes = {1u << 20, 1u << 22};
  d.n = 1u << 22;
  EXPECT_EQ(cuvk::cpu_pair_n(d), 1u << 20);  // 1M floats: 4 MiB, the largest declared that fits
  d.sizes = {1u << 22};
  EXPECT_EQ(cuvk::cpu_pair_n(d), 1u << 22);  // none fits: the smallest declared
}
