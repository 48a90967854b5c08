// Issue 20: the four example pairs compute what they say, on the first Vulkan device (lavapipe in
// CI) with the validation layer on and zero messages: each declaration read, its shader compiled
// by shaderc, loaded as a run-time module, launched as the declaration says at a small n, and the
// outputs checked element by element against a CPU reference (with the declared tolerance).
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "error.h"
#include "pair.h"
#include "validated_vulkan.h"
#include "vulkan_backend.h"

namespace {

using namespace cuvk;
using namespace cuvk::pairs;

class ExampleOnVulkan : public suite::ValidatedVulkan {
 protected:
  // Runs example `name` at size n and block size `block` in `binding` with the given inputs
  // (one per buffer, as floats); returns every buffer's contents after the run.
  std::vector<std::vector<float>> run(const std::string& name, std::uint64_t n, std::uint32_t block,
                                      Binding binding,
                                      const std::vector<std::vector<float>>& inputs) {
    const PairDeclaration d =
        read_pair_file(std::string(CUVK_SOURCE_DIR) + "/examples/" + name + "/" + name + ".toml");
    RuntimeModule m;
    m.name = "example_" + name;
    m.entry = d.glsl.entry;
    m.spirv = compile_glsl(d, Binding::descriptor).words;
    if (supports_bda(d)) m.spirv_bda = compile_glsl(d, Binding::bda).words;
    m.buffers = static_cast<std::uint32_t>(d.buffers.size());
    for (const ScalarDecl& s : d.scalars) m.scalar_sizes.push_back(scalar_bytes(s.type));
    backend_->load_module(m);
    Launch launch;
    launch.kernel = m.name;
    launch.binding = binding;
    const std::map<std::string, std::int64_t> vars{{"n", static_cast<std::int64_t>(n)},
                                                   {"block", block}};
    const auto threads =
        d.launch.threads.empty() ? 0 : eval_expr(d.launch.threads, vars, "threads");
    launch.geometry.block_size = block;
    launch.geometry.grid_x = static_cast<std::uint32_t>(
        threads ? (threads + block - 1) / block : eval_expr(d.launch.grid[0], vars, "grid"));
    if (d.launch.grid.size() > 1)
      launch.geometry.grid_y =
          static_cast<std::uint32_t>(eval_expr(d.launch.grid[1], vars, "grid"));
    std::vector<std::unique_ptr<DeviceBuffer>> owned;
    for (std::size_t i = 0; i < d.buffers.size(); ++i) {
      const std::uint64_t bytes =
          static_cast<std::uint64_t>(eval_in_n(d.buffers[i].count, n, "count")) * 4;
      EXPECT_EQ(inputs[i].size() * 4, bytes) << name << " buffer " << i;
      owned.push_back(backend_->allocate(bytes));
      backend_->upload(*owned.back(), inputs[i].data(), bytes);
      launch.buffers.push_back({owned.back().get(), 0, bytes});
    }
    launch.scalars = pack_scalars(d, n);
    backend_->run(launch, RunOptions{1, nullptr});
    std::vector<std::vector<float>> out;
    for (std::size_t i = 0; i < owned.size(); ++i) {
      out.emplace_back(inputs[i].size());
      backend_->download(*owned[i], out.back().data(), out.back().size() * 4);
    }
    return out;
  }

  std::vector<float> random(std::size_t count, float lo, float hi, unsigned seed) {
    std::mt19937 gen(seed);
    std::uniform_real_distribution<float> dist(lo, hi);
    std::vector<float> v(count);
    for (float& x : v) x = dist(gen);
    return v;
  }
};

TEST_F(ExampleOnVulkan, SaxpyIsBitExactInBothBindings) {
  const std::uint64_t n = 3000;  // not a multiple of the block
  const std::vector<float> x = random(n, -1, 1, 1), y = random(n, -1, 1, 2);
  for (Binding b : {Binding::descriptor, Binding::bda}) {
    if (!backend_->binding_unsupported(b).empty()) continue;
    const auto out = run("saxpy", n, 128, b, {x, y});
    for (std::size_t i = 0; i < n; ++i)
      ASSERT_EQ(out[1][i], 2.5f * x[i] + y[i]) << binding_name(b) << " element " << i;
    SetUp();  // a fresh backend: the module name is taken
  }
}

TEST_F(ExampleOnVulkan, TransposeMovesEveryElement) {
  const std::uint64_t side = 100;  // not a multiple of the 32-wide tile
  const std::vector<float> in = random(side * side, -1, 1, 3);
  const auto out = run("transpose", side, 256, Binding::descriptor,
                       {in, std::vector<float>(side * side, -7.0f)});
  for (std::size_t r = 0; r < side; ++r)
    for (std::size_t c = 0; c < side; ++c)
      ASSERT_EQ(out[1][c * side + r], in[r * side + c]) << r << "," << c;
}

TEST_F(ExampleOnVulkan, ReducePartialsAreWithinTheDeclaredUlps) {
  const std::uint64_t n = 100000;
  const std::vector<float> x = random(n, 0, 1, 4);
  const std::uint32_t block = 256, blocks = 1024, step = blocks * block;
  const auto out =
      run("reduce", n, block, Binding::descriptor, {x, std::vector<float>(1024, -7.0f)});
  for (std::uint32_t b = 0; b < blocks; ++b) {
    double want = 0;  // the block's share, summed exactly enough in double
    for (std::uint64_t i = std::uint64_t{b} * block; i < n; i += step)
      for (std::uint32_t t = 0; t < block && i + t < n; ++t) want += x[i + t];
    const float got = out[1][b];
    const float ulp =
        std::nextafter(static_cast<float>(want), 2.0f * static_cast<float>(want) + 1) -
        static_cast<float>(want);
    ASSERT_LE(std::fabs(got - want), 64 * ulp) << "partial " << b << ": " << got << " vs " << want;
  }
}

TEST_F(ExampleOnVulkan, CopyVec4CopiesEveryFloat) {
  const std::uint64_t n = 4001;  // rounded up to whole vec4s
  const std::vector<float> in = random(4004, -1, 1, 5);
  const auto out =
      run("copy_vec4", n, 64, Binding::descriptor, {in, std::vector<float>(4004, -7.0f)});
  EXPECT_EQ(out[1], in);
}

}  // namespace
