// Issue 20: the pair declaration reader, its expressions and layouts (host/pairs/pair.h).
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "pair.h"
#include "pairs_fixture.h"

namespace {

using namespace cuvk::pairs;
using namespace cuvk::pairs::testing_support;
using cuvk::ElementType;
using cuvk::Tolerance;

TEST(PairReader, ReadsTheMinimalDeclaration) {
  PairFiles files;
  const PairDeclaration d = files.parse(kMinimal);
  EXPECT_EQ(d.name, "k");
  EXPECT_EQ(d.n, 1u << 24);
  EXPECT_EQ(d.cuda.entry, "k");
  EXPECT_EQ(d.cuda.source, files.path("k.cu"));
  EXPECT_EQ(d.glsl.entry, "main");
  ASSERT_EQ(d.buffers.size(), 1u);
  EXPECT_EQ(d.buffers[0].type, ElementType::f32);
  EXPECT_TRUE(d.buffers[0].output);
  EXPECT_EQ(d.buffers[0].init.kind, InitKind::random);
  EXPECT_EQ(d.buffers[0].init.seed, 1u);
  ASSERT_EQ(d.scalars.size(), 1u);
  EXPECT_EQ(d.launch.threads, "n");
  EXPECT_FALSE(supports_bda(d));
}

TEST(PairExpr, Evaluates) {
  EXPECT_EQ(eval_in_n("4 * n + 16", 10, "f"), 56);
  EXPECT_EQ(eval_in_n("ceil_div(n, 256) * (2 - 1)", 257, "f"), 2);
  EXPECT_EQ(eval_in_n("min(n, 3) + max(n, 3) - -1", 5, "f"), 9);
  EXPECT_EQ(eval_in_n("n % 7 / 2", 13, "f"), 3);
}

TEST(PairExpr, RefusesOverflowAndDivisionByZero) {
  EXPECT_THROW(eval_in_n("n * n * n * n", 1u << 20, "f"), DeclarationError);
  EXPECT_THROW(eval_in_n("n / (n - n)", 4, "f"), DeclarationError);
  try {
    eval_in_n("n % 0", 4, "pairs/p.toml:3: buffer[0].count");
    FAIL();
  } catch (const DeclarationError& e) {
    EXPECT_STREQ(e.what(), "pairs/p.toml:3: buffer[0].count: 'n % 0': modulo by zero");
  }
}

TEST(PairLayout, Std430Offsets) {
  PairDeclaration d;
  d.scalars = {{"a", ScalarType::f32, "", 1.5, 0},
               {"b", ScalarType::f64, "", 2.0, 0},
               {"c", ScalarType::u32, "n", std::nullopt, 0}};
  const ScalarLayout l = scalar_layout(d);
  EXPECT_EQ(l.offsets, (std::vector<std::uint32_t>{0, 8, 16}));
  EXPECT_EQ(l.size, 20u);
  d.buffers.resize(2);
  EXPECT_EQ(bda_address_offset(d, 0), 24u);
  EXPECT_EQ(bda_address_offset(d, 1), 32u);
  EXPECT_EQ(pack_scalars(d, 7).size(), 20u);
}

}  // namespace

namespace {

// Every example pair compiles on both sides (NVRTC where present, shaderc) and passes the
// interface checks (issue 20: examples/).
class Example : public testing::TestWithParam<const char*> {};

TEST_P(Example, CompilesAndMatchesItsInterfaces) {
  const std::string path = std::string(CUVK_SOURCE_DIR) + "/examples/" + GetParam();
  const PairDeclaration d = read_pair_file(path);
  const CompiledSpirv spv = compile_glsl(d, cuvk::Binding::descriptor);
  EXPECT_FALSE(spv.words.empty());
  check_interfaces(d, nullptr, &spv);
  if (supports_bda(d)) {
    const CompiledSpirv bda = compile_glsl(d, cuvk::Binding::bda);
    check_interfaces(d, nullptr, &bda);
  }
  if (!nvrtc_unavailable().empty()) GTEST_SKIP() << nvrtc_unavailable();
  const CompiledCuda cu = compile_cuda(d, kDefaultCudaArch);
  EXPECT_FALSE(cu.cubin.empty());
  EXPECT_NE(cu.ptx.find(".entry " + cu.lowered_name), std::string::npos);
  check_interfaces(d, &cu, nullptr);
}

INSTANTIATE_TEST_SUITE_P(Pairs, Example,
                         testing::Values("saxpy/saxpy.toml", "transpose/transpose.toml",
                                         "reduce/reduce.toml", "copy_vec4/copy_vec4.toml"));

}  // namespace

namespace {

// The n-th ```toml block of docs/PAIRS.md.
std::string docs_toml_block(int index) {
  std::ifstream in(std::string(CUVK_SOURCE_DIR) + "/docs/PAIRS.md");
  std::stringstream s;
  s << in.rdbuf();
  const std::string text = s.str();
  std::size_t at = 0;
  for (int i = 0; i <= index; ++i) {
    at = text.find("```toml\n", at);
    if (at == std::string::npos) return "";
    at += 8;
  }
  return text.substr(at, text.find("```", at) - at);
}

// The README excerpt's declaration is a working pair (with the saxpy sources), and the complete
// example in docs/PAIRS.md is examples/transpose/transpose.toml without its comments' header.
TEST(PairDocs, TheExcerptsExampleReadsCompilesAndMatches) {
  const std::string toml = docs_toml_block(0);
  ASSERT_FALSE(toml.empty());
  const PairDeclaration d =
      parse_pair(toml, std::string(CUVK_SOURCE_DIR) + "/examples/saxpy/excerpt.toml");
  ASSERT_EQ(d.buffers.size(), 2u);
  EXPECT_TRUE(d.buffers[1].output);
  // Issue 31: the excerpt is examples/saxpy/saxpy.toml but for what the README says it adds (a
  // description, n, the bda form): the same buffers (y's init too), scalars, launch and bytes.
  const PairDeclaration ex = read_pair_file(std::string(CUVK_SOURCE_DIR) + "/examples/saxpy/saxpy.toml");
  ASSERT_EQ(ex.buffers.size(), d.buffers.size());
  for (std::size_t i = 0; i < d.buffers.size(); ++i) {
    EXPECT_EQ(ex.buffers[i].name, d.buffers[i].name);
    EXPECT_EQ(ex.buffers[i].type, d.buffers[i].type);
    EXPECT_EQ(ex.buffers[i].count, d.buffers[i].count);
    EXPECT_EQ(ex.buffers[i].output, d.buffers[i].output);
    EXPECT_EQ(ex.buffers[i].init.given, d.buffers[i].init.given) << d.buffers[i].name;
    EXPECT_EQ(ex.buffers[i].init.kind, d.buffers[i].init.kind) << d.buffers[i].name;
  }
  ASSERT_EQ(ex.scalars.size(), d.scalars.size());
  for (std::size_t i = 0; i < d.scalars.size(); ++i) {
    EXPECT_EQ(ex.scalars[i].name, d.scalars[i].name);
    EXPECT_EQ(ex.scalars[i].type, d.scalars[i].type);
  }
  EXPECT_EQ(ex.useful_bytes, d.useful_bytes);
  EXPECT_EQ(ex.launch.threads, d.launch.threads);
  EXPECT_EQ(ex.cuda.entry, d.cuda.entry);
  const CompiledSpirv spv = compile_glsl(d, cuvk::Binding::descriptor);
  check_interfaces(d, nullptr, &spv);
  if (!nvrtc_unavailable().empty()) GTEST_SKIP() << nvrtc_unavailable();
  const CompiledCuda cu = compile_cuda(d, kDefaultCudaArch);
  check_interfaces(d, &cu, nullptr);
}

TEST(PairDocs, TheCompleteExampleIsTheTransposeExample) {
  const std::string doc = docs_toml_block(1);
  const std::string dir = std::string(CUVK_SOURCE_DIR) + "/examples/transpose/";
  const PairDeclaration from_doc = parse_pair(doc, dir + "doc.toml");
  const PairDeclaration from_file = read_pair_file(dir + "transpose.toml");
  EXPECT_EQ(from_doc.launch.grid, from_file.launch.grid);
  EXPECT_EQ(from_doc.launch.shared_bytes, from_file.launch.shared_bytes);
  EXPECT_EQ(from_doc.useful_bytes, from_file.useful_bytes);
  EXPECT_EQ(from_doc.n, from_file.n);
  EXPECT_EQ(from_doc.buffers.size(), from_file.buffers.size());
  EXPECT_EQ(from_doc.scalars.size(), from_file.scalars.size());
}

}  // namespace
