// Run-time kernels (Backend::load_module, issue 20) on the first Vulkan device (lavapipe in CI)
// with the validation layer on: buffer views between guard bytes, scalars as push constants,
// nine buffers, the bda form, sequences (issue 34), and the errors a bad module or launch gets.
#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "error.h"
#include "rt_nine.h"
#include "rt_saxpy.h"
#include "rt_saxpy_bda.h"
#include "validated_vulkan.h"
#include "vulkan_backend.h"

using namespace cuvk;

namespace {

template <std::size_t N>
std::vector<std::uint32_t> words(const std::uint32_t (&code)[N]) {
  return {code, code + N};
}

std::vector<std::uint8_t> bytes_of(const std::vector<std::pair<const void*, std::size_t>>& parts,
                                   const std::vector<std::uint32_t>& sizes) {
  std::uint32_t total = 0;
  const std::vector<std::uint32_t> at = scalar_offsets(sizes, &total);
  std::vector<std::uint8_t> out(total);
  for (std::size_t i = 0; i < parts.size(); ++i)
    std::memcpy(out.data() + at[i], parts[i].first, parts[i].second);
  return out;
}

class RuntimeModule_ : public suite::ValidatedVulkan {
 protected:
  RuntimeModule saxpy() const {
    RuntimeModule m;
    m.name = "user_saxpy";
    m.entry = "main";
    m.spirv = words(cuvk_spirv_rt_saxpy);
    m.spirv_bda = words(cuvk_spirv_rt_saxpy_bda);
    m.buffers = 2;
    m.scalar_sizes = {4, 4};
    m.compile_ms = {{"compile user_saxpy (test)", 1.5}};
    return m;
  }
};

constexpr std::uint32_t kGuard = 256;  // kViewAlignment: the view starts after one guard

}  // namespace

namespace {

// y = 2x + y through views that start one guard band in, with `kernel` in `binding`: the guards
// stay untouched.
void expect_saxpy(Backend& backend, const std::string& kernel, Binding binding) {
  const std::uint32_t n = 1000;
  auto x = backend.allocate(n * 4 + 2 * kGuard);
  auto y = backend.allocate(n * 4 + 2 * kGuard);
  std::vector<float> hx(n + 2 * kGuard / 4, -7.0f), hy(hx.size(), -7.0f);
  for (std::uint32_t i = 0; i < n; ++i) {
    hx[kGuard / 4 + i] = static_cast<float>(i);
    hy[kGuard / 4 + i] = 1.0f;
  }
  backend.upload(*x, hx.data(), hx.size() * 4);
  backend.upload(*y, hy.data(), hy.size() * 4);
  const float a = 2.0f;
  Launch launch;
  launch.kernel = kernel;
  launch.geometry = Geometry{64, (n + 63) / 64, 1};
  launch.binding = binding;
  launch.buffers = {{x.get(), kGuard, n * 4}, {y.get(), kGuard, n * 4}};
  launch.scalars = bytes_of({{&a, 4}, {&n, 4}}, {4, 4});
  ASSERT_EQ(backend.run(launch, RunOptions{1, nullptr}).size(), 1u);
  std::vector<float> got(hy.size());
  backend.download(*y, got.data(), got.size() * 4);
  for (std::uint32_t i = 0; i < got.size(); ++i) {
    const bool inside = i >= kGuard / 4 && i < kGuard / 4 + n;
    const float want = inside ? 2.0f * static_cast<float>(i - kGuard / 4) + 1.0f : -7.0f;
    ASSERT_EQ(got[i], want) << kernel << " " << binding_name(binding) << " word " << i;
  }
}

}  // namespace

// Both binding modes compute the same; the module's compile and load times are listed with the
// start-up costs.
TEST_F(RuntimeModule_, SaxpyThroughViewsInBothBindings) {
  backend_->load_module(saxpy());
  const auto names = backend_->kernels();
  EXPECT_NE(std::find(names.begin(), names.end(), "user_saxpy"), names.end());
  for (Binding binding : {Binding::descriptor, Binding::bda})
    if (backend_->binding_unsupported(binding).empty()) expect_saxpy(*backend_, "user_saxpy", binding);
  bool compile = false, load = false;
  for (const auto& [what, ms] : backend_->startup_ms()) {
    compile = compile || what == "compile user_saxpy (test)";
    load = load || what == "load module user_saxpy";
  }
  EXPECT_TRUE(compile && load);
}

// Issue 34: a sequence of run-time launches (Launch::sequence): saxpy with a = 1 then a = 2,
// repeated 3 times per repetition, in every Vulkan submission mode. Restored before each
// repetition, y is 1 + 9x after any number of them; not restored, 4 repetitions make 1 + 36x.
TEST_F(RuntimeModule_, SequencesRepeatAndRestore) {
  backend_->load_module(saxpy());
  const std::uint32_t n = 1000;
  const std::size_t words = n + 2 * kGuard / 4;
  auto x = backend_->allocate(words * 4), y = backend_->allocate(words * 4);
  auto saved = backend_->allocate(words * 4);
  std::vector<float> hx(words, -7.0f), hy(words, -7.0f);
  for (std::uint32_t i = 0; i < n; ++i) {
    hx[kGuard / 4 + i] = static_cast<float>(i);
    hy[kGuard / 4 + i] = 1.0f;
  }
  backend_->upload(*x, hx.data(), words * 4);
  backend_->upload(*saved, hy.data(), words * 4);
  for (const Submission mode : {Submission::recorded, Submission::rerecorded, Submission::submit_each})
    for (const bool restore : {true, false}) {
      backend_->upload(*y, hy.data(), words * 4);
      Launch launch;
      for (const float a : {1.0f, 2.0f}) {
        Launch step;
        step.kernel = "user_saxpy";
        step.geometry = Geometry{64, (n + 63) / 64, 1};
        step.buffers = {{x.get(), kGuard, n * 4}, {y.get(), kGuard, n * 4}};
        step.scalars = bytes_of({{&a, 4}, {&n, 4}}, {4, 4});
        launch.sequence.push_back(step);
      }
      launch.repeat = 3;
      launch.chain.submission = mode;
      if (restore) {
        launch.restore.push_back(copy_launch(*saved, *y));
      }
      ASSERT_EQ(backend_->run(launch, RunOptions{4, nullptr}).size(), 4u);
      std::vector<float> got(words);
      backend_->download(*y, got.data(), words * 4);
      for (std::uint32_t i = 0; i < n; ++i)
        ASSERT_EQ(got[kGuard / 4 + i], 1.0f + (restore ? 9.0f : 36.0f) * static_cast<float>(i))
            << submission_name(mode) << (restore ? " restored" : "") << " element " << i;
      EXPECT_EQ(got[0], -7.0f);
    }
  Launch bad;
  bad.sequence.resize(kMaxSequenceSteps + 1);
  EXPECT_THROW(backend_->run(bad, RunOptions{1, nullptr}), Error);
}

// Issue 36: a run-time kernel's name is its own, whatever it ends in. 'pair:gather_bda' was
// refused ("already has a kernel named"), since pipelines were cached under '<kernel>_bda'; now
// 'x' in bda and 'x_bda' in descriptor form are two pipelines, each of its own kernel.
TEST_F(RuntimeModule_, NamesEndingInATwinsSuffixAreKernelsOfTheirOwn) {
  RuntimeModule plain = saxpy(), bda_named = saxpy(), traced_named = saxpy();
  bda_named.name = "user_saxpy_bda";
  bda_named.spirv_bda.clear();  // no bda form: its bda row is unavailable, its descriptor row runs
  traced_named.name = "user_saxpy_trace";
  backend_->load_module(bda_named);  // first: its descriptor pipeline is made before plain's bda
  backend_->load_module(plain);
  backend_->load_module(traced_named);
  for (const char* kernel : {"user_saxpy_bda", "user_saxpy", "user_saxpy_trace"})
    for (Binding binding : {Binding::descriptor, Binding::bda}) {
      if (!backend_->binding_unsupported(binding).empty()) continue;
      if (std::string(kernel) == "user_saxpy_bda" && binding == Binding::bda) continue;
      expect_saxpy(*backend_, kernel, binding);
    }
  EXPECT_THROW(backend_->load_module(plain), Error);  // the same name twice is still refused
}

// Nine buffers and an 8-byte scalar after a 4-byte one (offset 8, like std430).
TEST_F(RuntimeModule_, NineBuffersAndAWideScalar) {
  RuntimeModule m;
  m.name = "user_nine";
  m.spirv = words(cuvk_spirv_rt_nine);
  m.buffers = 9;
  m.scalar_sizes = {4, 8};
  backend_->load_module(m);
  const std::uint32_t n = 300;
  std::vector<std::unique_ptr<DeviceBuffer>> owned;
  Launch launch;
  launch.kernel = "user_nine";
  launch.geometry = Geometry{32, (n + 31) / 32, 1};
  for (std::uint32_t b = 0; b < 9; ++b) {
    owned.push_back(backend_->allocate(n * 4));
    std::vector<std::uint32_t> v(n, b < 8 ? (1u << b) : 0u);
    backend_->upload(*owned.back(), v.data(), n * 4);
    launch.buffers.push_back({owned.back().get(), 0, n * 4});
  }
  const std::uint64_t add = (std::uint64_t{5} << 32) | 1000u;  // lo 1000 + hi 5
  launch.scalars = bytes_of({{&n, 4}, {&add, 8}}, {4, 8});
  EXPECT_EQ(launch.scalars.size(), 16u);
  backend_->run(launch, RunOptions{2, nullptr});
  std::vector<std::uint32_t> got(n);
  backend_->download(*owned.back(), got.data(), n * 4);
  for (std::uint32_t i = 0; i < n; ++i) ASSERT_EQ(got[i], 255u + 1005u) << i;
}

TEST_F(RuntimeModule_, BadModulesAndLaunchesAreRefused) {
  backend_->load_module(saxpy());
  EXPECT_THROW(backend_->load_module(saxpy()), Error);  // the name is taken
  RuntimeModule builtin = saxpy();
  builtin.name = "copy";
  EXPECT_THROW(backend_->load_module(builtin), Error);
  RuntimeModule empty = saxpy();
  empty.name = "user_empty";
  empty.spirv.clear();
  EXPECT_THROW(backend_->load_module(empty), Error);
  RuntimeModule wide = saxpy();
  wide.name = "user_wide";
  wide.scalar_sizes.assign(40, 4);  // 160 bytes of push constants
  EXPECT_THROW(backend_->load_module(wide), Error);
  auto x = backend_->allocate(1024);
  Launch launch;
  launch.kernel = "user_saxpy";
  launch.geometry = Geometry{64, 1, 1};
  launch.buffers = {{x.get(), 0, 1024}};  // one buffer of two
  launch.scalars.assign(8, 0);
  EXPECT_THROW(backend_->run(launch, RunOptions{1, nullptr}), Error);
  launch.buffers = {{x.get(), 0, 1024}, {x.get(), 8, 256}};  // misaligned view
  EXPECT_THROW(backend_->run(launch, RunOptions{1, nullptr}), Error);
  launch.buffers = {{x.get(), 0, 1024}, {x.get(), 256, 1024}};  // past the buffer's end
  EXPECT_THROW(backend_->run(launch, RunOptions{1, nullptr}), Error);
}

TEST(ScalarOffsets, NaturalAlignment) {
  std::uint32_t total = 0;
  EXPECT_EQ(scalar_offsets({4, 8, 4}, &total), (std::vector<std::uint32_t>{0, 8, 16}));
  EXPECT_EQ(total, 20u);
  EXPECT_EQ(scalar_offsets({}, &total).size(), 0u);
  EXPECT_EQ(total, 0u);
  EXPECT_THROW(scalar_offsets({2}), Error);
}
