// Catalogue consistency: every kernel a test can ask for exists as SPIR-V and (when built) CUDA.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <set>

#include "backend.h"
#include "catalogue.h"
#include "cuda_backend.h"
#include "error.h"
#include "spirv_modules.h"

namespace {
std::vector<std::string> spirv_names() {
  std::vector<std::string> names;
  for (const cuvk::SpirvModule& m : cuvk::spirv_modules()) names.emplace_back(m.name);
  names.emplace_back(cuvk::kCopyEngine);  // not a shader: vkCmdCopyBuffer
  return names;
}
}  // namespace

TEST(Catalogue, HasTheSeedTests) {
  for (const char* t : {"read_x", "update_xy", "read_offset", "write_offset", "stride", "copy"})
    EXPECT_NE(cuvk::find_test(t), nullptr) << t;
  EXPECT_EQ(cuvk::find_test("nope"), nullptr);
}

TEST(Catalogue, EveryKernelHasASpirvModule) {
  const auto missing = cuvk::missing_kernels(cuvk::catalogue_kernels(), spirv_names());
  EXPECT_TRUE(missing.empty()) << "missing SPIR-V: " << (missing.empty() ? "" : missing.front());
}

TEST(Catalogue, EveryKernelHasACudaKernelWhenCudaIsBuilt) {
#ifdef CUVK_HAVE_CUDA
  std::vector<std::string> cuda = cuvk::cuda_kernel_names();
  cuda.emplace_back(cuvk::kCopyEngine);  // not a kernel: cudaMemcpyAsync
  const auto missing = cuvk::missing_kernels(cuvk::catalogue_kernels(), cuda);
  EXPECT_TRUE(missing.empty()) << "missing CUDA kernel: " << (missing.empty() ? "" : missing.front());
#else
  GTEST_SKIP() << "built without CUDA";
#endif
}

TEST(Catalogue, MissingKernelIsReported) {
  EXPECT_EQ(cuvk::missing_kernels({"copy", "ghost"}, {"copy"}), std::vector<std::string>{"ghost"});
}

TEST(Catalogue, SpirvModulesAreValidSpirv) {
  std::set<std::string> seen;
  for (const cuvk::SpirvModule& m : cuvk::spirv_modules()) {
    ASSERT_GT(m.words, 5u) << m.name;
    EXPECT_EQ(m.code[0], 0x07230203u) << m.name;  // SPIR-V magic number
    EXPECT_TRUE(seen.insert(m.name).second) << "duplicate " << m.name;
  }
}

TEST(Catalogue, KernelNamesFollowTestLayoutVariant) {
  EXPECT_EQ(cuvk::kernel_name("read_x", "aos", "scalar"), "read_x_aos");
  EXPECT_EQ(cuvk::kernel_name("copy", "", "vec4"), "copy_vec4");
  EXPECT_EQ(cuvk::kernel_name("stride", "", "scalar"), "stride");
  EXPECT_EQ(cuvk::kernel_name("copy", "", "engine"), cuvk::kCopyEngine);
  EXPECT_EQ(cuvk::kernel_name("copy_engine", "", "engine"), cuvk::kCopyEngine);
}

TEST(Catalogue, ReferencesKeepPoisonWhereTheKernelDoesNotWrite) {
  const cuvk::BuiltinPlan plan = cuvk::find_test("write_offset")->builtin(cuvk::make_point("", "scalar", 64, {{"offset", 3}}));
  std::vector<float> in(plan.in_words, 1.5f), out(plan.out_words, -7.0f);
  plan.reference(in, out);
  EXPECT_EQ(out[0], -7.0f);
  EXPECT_EQ(out[2], -7.0f);
  EXPECT_EQ(out[3], 1.5f);
  EXPECT_EQ(out.back(), 1.5f);
}

TEST(Catalogue, BuffersHoldEveryIndexTheKernelTouches) {
  for (const cuvk::TestCase& t : cuvk::catalogue())
    for (std::uint32_t n : {1u, 31u, 1000u, 4096u})
      for (std::uint32_t v : {1u, 7u, 32u}) {
        cuvk::Point p{t.layouts.empty() ? "" : t.layouts.front(), t.variants.back(), n, {}};
        for (const std::string& axis : t.sweeps) p.axes.set(axis, v);
        const cuvk::BuiltinPlan plan = t.builtin(p);
        std::vector<float> in(plan.in_words, 1.0f), out(plan.out_words, 0.0f);
        plan.reference(in, out);  // would read or write out of bounds (ASan) if sizes were short
        if (t.name == "stride") {
          EXPECT_GE(plan.in_words, std::uint64_t{plan.params.n - 1} * v + 1);
        } else if (t.name == "read_offset") {
          EXPECT_EQ(plan.in_words, std::uint64_t{n} + v);
        } else if (t.name == "write_offset") {
          EXPECT_EQ(plan.out_words, std::uint64_t{n} + v);
        }
      }
}

// copy_engine: the copy engine over a size sweep in MiB, whatever n is; the axis reaches no kernel.
TEST(Catalogue, CopyEngineSweepsMiBCopiedIndependentOfN) {
  const cuvk::TestCase* t = cuvk::find_test("copy_engine");
  ASSERT_NE(t, nullptr);
  EXPECT_EQ(t->sweeps, std::vector<std::string>{"copy_mib"});
  const cuvk::Axis* axis = cuvk::find_axis("copy_mib");
  ASSERT_NE(axis, nullptr);
  EXPECT_EQ(axis->param, nullptr);
  EXPECT_EQ(axis->option, "--copy-mibs");
  // Off by default (no values): the default run has the copy engine at n (copy engine) only.
  EXPECT_TRUE(axis->defaults.empty());
  EXPECT_TRUE(cuvk::points_of(*t, 1000, {}, {}, {}).empty());
  const auto points = cuvk::points_of(*t, 1000, {{"copy_mib", {1, 16, 256}}}, {}, {});
  ASSERT_EQ(points.size(), 3u);
  for (const cuvk::Point& p : points) {
    const cuvk::BuiltinPlan plan = t->builtin(p);
    const std::uint64_t words = std::uint64_t{p.axes.get("copy_mib")} << 18;  // 4-byte words
    EXPECT_EQ(plan.kernel, cuvk::kCopyEngine);
    EXPECT_EQ(plan.in_words, words);
    EXPECT_EQ(plan.out_words, words);
    EXPECT_EQ(plan.traffic.useful_bytes, 8 * words);  // read + write
    EXPECT_EQ(plan.params.n, words);                  // the size reaches no other kernel parameter
    EXPECT_EQ(plan.params.offset, cuvk::find_axis("offset")->neutral);
    EXPECT_EQ(plan.params.stride, cuvk::find_axis("stride")->neutral);
  }
  EXPECT_EQ(cuvk::point_label(points.front().axes, t->sweeps), "copy_mib=1");
  EXPECT_THROW(t->plan(cuvk::make_point("", "engine", 1000, {{"copy_mib", 16384}})),
               cuvk::UsageError);
}

// The chain test's CPU reference (issue 33): K steps of the bit-exact step, each element on its
// own; a chain one step short (a skipped dispatch) differs in every element, so verification
// catches it; values stay finite floats (sign and exponent kept).
TEST(ChainReference, AppliesEveryStepAndASkippedStepChangesEveryElement) {
  using cuvk::chain_word;
  EXPECT_EQ(chain_word(0x3F800000u),
            0x3F800000u | ((0x3F800000u * 1664525u + 1013904223u) & 0x007FFFFFu));
  EXPECT_EQ(chain_word(0x3F800000u) & 0xFF800000u, 0x3F800000u);  // sign and exponent kept
  const std::vector<float> in = {1.0f, -2.5f, 3.0e-3f, 1.0e30f, 7.0f, -0.125f};
  std::vector<float> full(in.size()), short_one(in.size()), one(in.size());
  cuvk::chain_reference(in, full, cuvk::kChainSteps);
  cuvk::chain_reference(in, short_one, cuvk::kChainSteps - 1);
  cuvk::chain_reference(in, one, 1);
  for (std::size_t i = 0; i < in.size(); ++i) {
    std::uint32_t x = 0, want = 0, got = 0, shorter = 0;
    std::memcpy(&x, &in[i], 4);
    want = x;
    for (std::uint32_t k = 0; k < cuvk::kChainSteps; ++k) want = chain_word(want);
    std::memcpy(&got, &full[i], 4);
    std::memcpy(&shorter, &short_one[i], 4);
    EXPECT_EQ(got, want) << i;
    EXPECT_NE(shorter, got) << i;
    EXPECT_TRUE(std::isfinite(full[i])) << i;
    std::uint32_t first = 0;
    std::memcpy(&first, &one[i], 4);
    EXPECT_EQ(first, chain_word(x)) << i;
  }
}

// The mantissa LCG has full period 2^23 (MUL = 1 mod 4, ADD odd): no step count below it brings
// an element back, so no chain length can hide a skipped step by coming round again.
TEST(ChainReference, TheStepHasNoShortCycle) {
  std::uint32_t x = 0x40490FDBu;  // pi
  const std::uint32_t start = x;
  for (std::uint32_t k = 1; k < 4096; ++k) {
    x = cuvk::chain_word(x);
    ASSERT_NE(x, start) << "cycle of " << k;
  }
}

TEST(ChainTest, RunsOnlyWhereNamedAtItsOwnSizes) {
  const cuvk::TestCase* t = cuvk::find_test("chain");
  ASSERT_NE(t, nullptr);
  EXPECT_TRUE(t->named_only);
  EXPECT_FALSE(t->sizes.empty());
  EXPECT_FALSE(t->cpu_sizes.empty());
  const cuvk::BuiltinPlan plan = t->builtin(cuvk::make_point("", "scalar", 4096));
  EXPECT_EQ(plan.chain_steps, cuvk::kChainSteps);
  EXPECT_EQ(plan.in_words, 4096u);
  EXPECT_EQ(plan.out_words, 4096u);
}

// `cuvk explain` runs a pair twice in one process (the run, then the experiment run): the second
// registration of the same pair name is refused unless the first run's pairs are forgotten.
TEST(Catalogue, PairTestsForgottenRegisterAgain) {
  cuvk::TestCase t;
  t.name = "twice_registered_pair";
  t.variants = {"scalar"};
  cuvk::register_pair_test(t);
  EXPECT_THROW(cuvk::register_pair_test(t), cuvk::UsageError);
  cuvk::unregister_pair_tests();
  EXPECT_EQ(cuvk::find_test("twice_registered_pair"), nullptr);
  EXPECT_NO_THROW(cuvk::register_pair_test(t));
  cuvk::unregister_pair_tests();
  EXPECT_NE(cuvk::find_test("copy"), nullptr);  // the built-in tests stay
}
