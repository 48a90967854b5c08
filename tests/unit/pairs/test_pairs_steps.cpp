// Issue 34: multi-step pairs in the declaration reader: [[step]] tables, repeat, state, sizes and
// n_max read, and every error naming the file, the step and the field; a step's shader may leave
// out bindings it does not use.
#include <gtest/gtest.h>

#include "pair.h"
#include "pairs_fixture.h"

namespace {

using namespace cuvk::pairs;
using namespace cuvk::pairs::testing_support;

TEST(PairSteps, ReadsEveryField) {
  PairFiles files;
  const PairDeclaration d = files.parse(kSteps);
  ASSERT_EQ(d.steps.size(), 2u);
  EXPECT_TRUE(is_sequence(d));
  EXPECT_EQ(d.repeat, 3u);
  EXPECT_EQ(d.state, StateRule::restore);
  EXPECT_EQ(d.sizes, (std::vector<std::uint64_t>{4096, 65536}));
  EXPECT_EQ(d.n, 65536u);  // no `n`: the largest declared size
  EXPECT_EQ(d.steps[0].name, "first");
  EXPECT_EQ(d.steps[0].cuda.entry, "k");
  EXPECT_EQ(d.steps[0].cuda.source, files.path("k.cu"));  // the pair's [cuda] source
  EXPECT_EQ(d.steps[0].cuda.options, (std::vector<std::string>{"-DX=1"}));  // and options
  EXPECT_EQ(d.steps[0].launch.threads, "n");
  EXPECT_EQ(d.steps[0].block, 0u);
  EXPECT_TRUE(d.steps[1].cuda.options.empty());  // its own, empty
  EXPECT_EQ(d.steps[1].glsl.defines, (std::vector<std::string>{"Y=2"}));
  EXPECT_EQ(d.steps[1].launch.grid, (std::vector<std::string>{"ceil_div(n, block)"}));
  EXPECT_EQ(d.steps[1].launch.shared_bytes, "4 * block");
  EXPECT_EQ(d.steps[1].block, 64u);
  EXPECT_TRUE(size_allowed(d, 4096));
  EXPECT_FALSE(size_allowed(d, 8192));
  const std::vector<PairDeclaration> views = step_declarations(d);
  ASSERT_EQ(views.size(), 2u);
  EXPECT_EQ(views[1].file, files.path("p.toml") + ": step[1] 'second'");
  EXPECT_EQ(views[1].cuda.entry, "k");
  EXPECT_EQ(views[1].launch.block_sizes, (std::vector<std::uint32_t>{64}));
  EXPECT_EQ(views[0].launch.block_sizes, (std::vector<std::uint32_t>{128, 256}));
  EXPECT_TRUE(views[0].step_view);
}

TEST(PairSteps, OneStepPairsAreUnchanged) {
  PairFiles files;
  const PairDeclaration d = files.parse(kMinimal);
  EXPECT_FALSE(is_sequence(d));
  EXPECT_EQ(d.repeat, 1u);
  EXPECT_EQ(d.state, StateRule::none);
  const std::vector<PairDeclaration> views = step_declarations(d);
  ASSERT_EQ(views.size(), 1u);
  EXPECT_EQ(views[0].file, d.file);
  EXPECT_FALSE(views[0].step_view);
  EXPECT_TRUE(size_allowed(d, 12345));
}

TEST(PairSteps, NMaxCapsTheDefaultN) {
  PairFiles files;
  const PairDeclaration d = files.parse(edit_steps("sizes = [\"4k\", 65536]", "n_max = \"1M\""));
  EXPECT_EQ(d.n, 1u << 20);
  EXPECT_TRUE(size_allowed(d, 1u << 20));
  EXPECT_FALSE(size_allowed(d, (1u << 20) + 1));
}

struct StepCase {
  const char* label;
  const char* from;
  const char* to;
  const char* error;
};
std::ostream& operator<<(std::ostream& os, const StepCase& c) { return os << c.label; }

class StepsError : public testing::TestWithParam<StepCase> {};

TEST_P(StepsError, NamesFileStepAndField) {
  const StepCase& c = GetParam();
  PairFiles files;
  const std::string text = edit_steps(c.from, c.to);
  ASSERT_EQ(text.find("edit:"), std::string::npos) << text;
  try {
    files.parse(text);
    FAIL() << "no error for " << c.label;
  } catch (const DeclarationError& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.rfind(files.path("p.toml"), 0), 0u) << what;
    EXPECT_NE(what.find(c.error), std::string::npos) << "expected '" << c.error << "' in: " << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;  // one line
  }
}

INSTANTIATE_TEST_SUITE_P(
    Pairs, StepsError,
    testing::Values(
        StepCase{"name_missing", "name = \"first\"\n", "", ": step[0].name: missing (a string)"},
        StepCase{"name_twice", "name = \"second\"", "name = \"first\"",
                 "step[1].name: 'first' names two steps"},
        StepCase{"name_not_identifier", "name = \"first\"", "name = \"a-b\"",
                 "step[0].name: 'a-b' is not an identifier"},
        StepCase{"cuda_missing", "cuda = { entry = \"k\" }\n", "",
                 "step[0].cuda: missing (a table: [step.cuda])"},
        StepCase{"cuda_not_table", "cuda = { entry = \"k\" }", "cuda = 3",
                 "step[0].cuda: must be a table, not an integer"},
        StepCase{"entry_missing", "[step.cuda]\nentry = \"k\"\n", "[step.cuda]\n",
                 "step[1] 'second'.cuda.entry: missing (a string)"},
        StepCase{"entry_not_identifier", "cuda = { entry = \"k\" }", "cuda = { entry = \"k k\" }",
                 "step[0] 'first'.cuda.entry: 'k k' is not a C identifier"},
        StepCase{"source_unreadable", "cuda = { entry = \"k\" }",
                 "cuda = { entry = \"k\", source = \"nope.cu\" }",
                 "step[0] 'first'.cuda.source: '"},
        StepCase{"glsl_both", "glsl = { source = \"k.comp\" }",
                 "glsl = { source = \"k.comp\", spirv = \"k.comp\" }",
                 "step[0] 'first'.glsl.source: give exactly one of step[0] 'first'.glsl.source"},
        StepCase{"glsl_bda", "glsl = { source = \"k.comp\" }",
                 "glsl = { source = \"k.comp\", bda_defines = [\"B\"] }",
                 "step[0] 'first'.glsl.bda_defines: unknown key"},
        StepCase{"unknown_step_key", "name = \"first\"", "name = \"first\"\ncolour = 1",
                 "step[0].colour: unknown key (known here: name, cuda, glsl, launch)"},
        StepCase{"launch_no_shape", "launch = { threads = \"n\" }", "launch = { block = 32 }",
                 "step[0] 'first'.launch.threads: give exactly one of"},
        StepCase{"launch_block_range", "block = 64", "block = 2048",
                 "step[1] 'second'.launch.block: 2048 is out of range [1, 1024]"},
        StepCase{"launch_block_sizes", "block = 64", "block_sizes = [64]",
                 "step[1] 'second'.launch.block_sizes: unknown key"},
        StepCase{"launch_expression", "launch = { threads = \"n\" }",
                 "launch = { threads = \"n - n\" }",
                 "step[0] 'first'.launch.threads (at n = 65536, block = 128): 'n - n' = 0 is out "
                 "of range"},
        StepCase{"launch_expression_fixed_block", "grid = [\"ceil_div(n, block)\"]",
                 "grid = [\"block - 64\"]",
                 "step[1] 'second'.launch.grid[0] (at n = 65536, block = 64): 'block - 64' = 0"},
        StepCase{"pair_glsl_with_steps", "[launch]\n", "[glsl]\nsource = \"k.comp\"\n[launch]\n",
                 "glsl: with [[step]] each step gives its shader"},
        StepCase{"pair_entry_with_steps", "options = [\"-DX=1\"]", "entry = \"k\"",
                 "cuda.entry: with [[step]] each step names its own entry"},
        StepCase{"pair_threads_with_steps", "block_sizes = [128, 256]", "threads = \"n\"",
                 "launch.threads: unknown key (known here: block_sizes (with [[step]]"},
        StepCase{"repeat_zero", "repeat = 3", "repeat = 0", ":3: repeat: 0 is out of range [1, 65536]"},
        StepCase{"state_unknown", "state = \"restore\"", "state = \"pingpong\"",
                 ":4: state: 'pingpong' is not restore or idempotent"},
        StepCase{"state_missing", "state = \"restore\"\n", "",
                 "state: missing: buffer 'a' is read (its init) and written (an output)"},
        StepCase{"sizes_bad", "sizes = [\"4k\", 65536]", "sizes = [\"4q\"]",
                 ":5: sizes: '4q' is not a size"},
        StepCase{"sizes_zero", "sizes = [\"4k\", 65536]", "sizes = [0]",
                 "sizes: 0 is out of range [1, 4294967295]"},
        StepCase{"sizes_and_n_max", "sizes = [\"4k\", 65536]", "sizes = [\"4k\"]\nn_max = 5",
                 "n_max: give at most one of sizes and n_max"},
        StepCase{"n_not_in_sizes", "sizes = [\"4k\", 65536]", "sizes = [\"4k\"]\nn = 100",
                 "n: 100 is not among the sizes the pair declares (sizes)"}));

TEST(PairSteps, AtMostEightSteps) {
  PairFiles files;
  std::string text = kSteps;
  const std::string step =
      "[[step]]\nname = \"s%\"\ncuda = { entry = \"k\" }\nglsl = { source = \"k.comp\" }\n"
      "launch = { threads = \"n\" }\n";
  std::string more;
  for (int i = 0; i < 7; ++i) {
    std::string s = step;
    s.replace(s.find('%'), 1, std::to_string(i));
    more += s;
  }
  text.replace(text.find("[[buffer]]"), 0, more);
  try {
    files.parse(text);
    FAIL() << "9 steps read";
  } catch (const DeclarationError& e) {
    EXPECT_NE(std::string(e.what()).find("step: 9 entries, at most 8"), std::string::npos)
        << e.what();
  }
}

// A step's shader may leave out a buffer it does not use; a one-step pair's may not, and a
// declared buffer of the wrong type is refused either way.
TEST(PairSteps, StepShadersMayLeaveOutBindings) {
  PairFiles files;
  files.write("two.comp",
              "#version 450\nlayout(local_size_x_id = 0) in;\n"
              "layout(std430, set = 0, binding = 1) buffer B { float b[]; };\n"
              "layout(push_constant) uniform S { uint n; };\n"
              "void main() { uint i = gl_GlobalInvocationID.x; if (i < n) b[i] += 1.0; }\n");
  files.write("wrong.comp",
              "#version 450\nlayout(local_size_x_id = 0) in;\n"
              "layout(std430, set = 0, binding = 1) buffer B { int b[]; };\n"
              "void main() { b[gl_GlobalInvocationID.x] += 1; }\n");
  std::string text = kSteps;
  text += "[[buffer]]\nname = \"b\"\ntype = \"f32\"\ncount = \"n\"\n";
  text.replace(text.find("glsl = { source = \"k.comp\" }"), 28, "glsl = { source = \"two.comp\" }");
  const PairDeclaration d = files.parse(text);
  const std::vector<PairDeclaration> views = step_declarations(d);
  const CompiledSpirv two = compile_glsl(views[0], cuvk::Binding::descriptor);
  EXPECT_NO_THROW(check_interfaces(views[0], nullptr, &two));
  PairDeclaration one = views[0];
  one.step_view = false;  // as a one-step pair: buffer 'a' has no binding
  EXPECT_THROW(check_interfaces(one, nullptr, &two), DeclarationError);
  PairDeclaration wrong = views[0];
  wrong.glsl.source = files.path("wrong.comp");
  const CompiledSpirv bad = compile_glsl(wrong, cuvk::Binding::descriptor);
  try {
    check_interfaces(wrong, nullptr, &bad);
    FAIL() << "a wrong element type passed";
  } catch (const DeclarationError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find(": step[0] 'first': SPIR-V (descriptor form) vs declaration: buffer[1] 'b'"),
              std::string::npos)
        << what;
  }
}

}  // namespace
