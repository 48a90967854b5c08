// Issue 45 point 3: every command judges its options once, as `run` does: its check makes the
// judged object and its action runs that, never the option strings again. Counted around one
// command through the CLI on this machine's devices (lavapipe here): run_judgements() (run.h) is
// how many times the options became a run configuration.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <string>
#include <type_traits>
#include <vector>

#include "axes.h"
#include "catalogue.h"
#include "cli.h"
#include "explain_command.h"
#include "parity.h"
#include "run.h"

namespace {

int run_cli(std::vector<std::string> args) {
  args.insert(args.begin(), "cuvk");
  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  return cuvk::cli_main(static_cast<int>(argv.size()), argv.data());
}

std::string tmp(const std::string& name) {
  return ::testing::TempDir() + "cuvk_judged_" + std::to_string(getpid()) + "_" + name;
}

// How many times the command judged its options (its exit code into `code`).
std::size_t judgements_of(const std::vector<std::string>& args, int& code) {
  const std::size_t before = cuvk::run_judgements();
  code = run_cli(args);
  return cuvk::run_judgements() - before;
}

const std::vector<std::string> kSmall = {"--n", "1k", "--reps", "2", "--max-time", "0.01"};

std::vector<std::string> with_small(std::vector<std::string> args) {
  args.insert(args.end(), kSmall.begin(), kSmall.end());
  return args;
}

}  // namespace

TEST(JudgedOnce, EveryCommandJudgesItsOptionsOnce) {
  const std::string saved = tmp("run.json");
  const std::vector<std::vector<std::string>> commands = {
      with_small({"run", "--tests", "copy", "--format", "json", "--output", saved, "--quiet"}),
      with_small({"trace", "copy"}),
      with_small({"explain", "--tests", "copy", "--no-experiments"}),
      with_small({"explain", "--tests", "copy"}),
      with_small({"parity", "--tests", "copy"}),
      {"parity", "--from", saved},
      {"inspect", "copy", "--no-listings"},
  };
  for (const std::vector<std::string>& c : commands) {
    int code = 0;
    const std::size_t judged = judgements_of(c, code);
    std::string line;
    for (const std::string& w : c) line += w + " ";
    EXPECT_EQ(judged, 1u) << "cuvk " << line << "(exit " << code << ")";
  }
  std::remove(saved.c_str());
}

// The actions take the judged objects: an action handed option strings would have to judge them.
static_assert(std::is_invocable_r_v<int, decltype(&cuvk::explain_command),
                                    const cuvk::JudgedExplain&, const std::string&>);
static_assert(!std::is_invocable_v<decltype(&cuvk::execute_run), const cuvk::RunArgs&,
                                   const std::string&, cuvk::InventoryOnce&>);

namespace {

// explain's experiment runs as they were made before issue 45 point 3: the options edited as
// strings, then judged again (judge_run). experiment_run derives them from the judged config
// instead; the two must agree field by field.
cuvk::RunArgs experiment_args_as_strings(const cuvk::RunArgs& given, double experiment_time_s,
                                         const cuvk::ParityLine& line, bool alone) {
  const cuvk::ResultRow& p = line.point;
  cuvk::RunArgs a = given;
  a.variants = {p.variant};
  a.layouts.clear();
  a.axis_values.clear();
  if (const cuvk::TestCase* t =
          p.kernel.rfind("pair:", 0) == 0 ? nullptr : cuvk::find_test(p.test)) {
    a.tests = {p.test};
    a.pairs.clear();
    if (!p.layout.empty()) a.layouts = {p.layout};
    if (p.variant != "grid" &&
        std::find(t->variants.begin(), t->variants.end(), "grid") != t->variants.end())
      a.variants.push_back("grid");
    for (const std::string& axis : t->sweeps)
      a.axis_values[axis] = std::to_string(p.axes.get(axis));
  } else {
    a.tests.clear();
    a.variants.clear();
  }
  a.n = std::to_string(p.n);
  a.block_sizes = "64,128,256,512,1024";
  a.vk_bindings = {cuvk::binding_name(line.vulkan->binding)};
  a.counters = a.dispatch_cost = false;
  a.baseline.clear();
  a.output.clear();
  a.columns.clear();
  a.format = "json";
  a.quiet = true;
  a.max_time_s = experiment_time_s;
  if (alone) {
    a.variants = {p.variant};
    a.block_sizes = std::to_string(p.block_size);
  }
  return a;
}

void expect_same_run(const cuvk::JudgedRun& want, const cuvk::JudgedRun& got,
                     const std::string& what) {
  const cuvk::RunConfig &w = *want.cfg, &g = *got.cfg;
  EXPECT_EQ(w.tests, g.tests) << what;
  EXPECT_EQ(w.apis, g.apis) << what;
  EXPECT_EQ(w.n, g.n) << what;
  EXPECT_EQ(w.sizes, g.sizes) << what;
  EXPECT_EQ(w.reps, g.reps) << what;
  EXPECT_EQ(w.warmup, g.warmup) << what;
  EXPECT_EQ(w.block_sizes, g.block_sizes) << what;
  EXPECT_EQ(w.axis_values, g.axis_values) << what;
  EXPECT_EQ(w.layouts, g.layouts) << what;
  EXPECT_EQ(w.variants, g.variants) << what;
  EXPECT_TRUE(w.vk_bindings == g.vk_bindings) << what;
  EXPECT_EQ(w.seed, g.seed) << what;
  EXPECT_TRUE(w.l2 == g.l2) << what;
  EXPECT_EQ(w.target_ci, g.target_ci) << what;
  EXPECT_EQ(w.max_time_s, g.max_time_s) << what;
  EXPECT_EQ(w.max_samples, g.max_samples) << what;
  EXPECT_EQ(w.settle_ms, g.settle_ms) << what;
  EXPECT_EQ(w.host_cost_samples, g.host_cost_samples) << what;
  EXPECT_EQ(w.dispatch_cost, g.dispatch_cost) << what;
  EXPECT_EQ(w.calibration_samples, g.calibration_samples) << what;
  EXPECT_EQ(w.counters, g.counters) << what;
  EXPECT_EQ(w.trace, g.trace) << what;
  EXPECT_EQ(w.dispatch_chain, g.dispatch_chain) << what;
  EXPECT_TRUE(want.format == got.format) << what;
  EXPECT_EQ(want.tolerance, got.tolerance) << what;
  const cuvk::RunArgs &wa = want.args, &ga = got.args;  // the unjudged parts Run reads
  EXPECT_EQ(wa.pairs, ga.pairs) << what;
  EXPECT_EQ(wa.output, ga.output) << what;
  EXPECT_EQ(wa.baseline, ga.baseline) << what;
  EXPECT_EQ(wa.columns, ga.columns) << what;
  EXPECT_EQ(wa.device, ga.device) << what;
  EXPECT_EQ(wa.quiet, ga.quiet) << what;
  EXPECT_EQ(wa.validation, ga.validation) << what;
  EXPECT_EQ(wa.timeout_s, ga.timeout_s) << what;
  EXPECT_EQ(wa.reps.has_value(), ga.reps.has_value()) << what;
  EXPECT_EQ(wa.warmup.has_value(), ga.warmup.has_value()) << what;
  EXPECT_EQ(wa.settle_ms.has_value(), ga.settle_ms.has_value()) << what;
}

// A compared point of `test` (its first layout, `variant`, each swept axis at its last default).
cuvk::ParityLine line_of(const std::string& test, const std::string& variant, cuvk::Binding b) {
  cuvk::ResultRow r;
  r.test = test;
  r.variant = variant;
  r.n = 4096;
  r.block_size = 512;
  if (const cuvk::TestCase* t = cuvk::find_test(test)) {
    r.kernel = test;
    if (!t->layouts.empty()) r.layout = t->layouts.back();
    for (const std::string& axis : t->sweeps)
      r.axes.set(axis, cuvk::find_axis(axis)->defaults.back());
  } else {
    r.kernel = "pair:" + test;
  }
  cuvk::ParityLine line;
  line.point = r;
  line.cuda = r;
  line.vulkan = r;
  line.vulkan->binding = b;
  return line;
}

}  // namespace

TEST(JudgedOnce, ExplainsExperimentsAreTheJudgedConfigChanged) {
  cuvk::RunArgs given;
  given.tests = {"read_x", "stride", "copy", "read_offset"};
  given.n = "1M,2M";
  given.reps = 7;
  given.block_sizes = "128,256";
  given.vk_bindings = {"all"};
  given.counters = true;
  given.output = "explain.json";
  given.columns = {"test"};
  given.format = "md";
  given.max_time_s = 0.5;
  given.seed = 9;
  given.l2 = "warm";
  given.tolerance = "5";
  given.pairs = {"some_pair.toml"};
  const cuvk::JudgedExplain e{cuvk::judge_run(given), false, 0.25};
  const std::vector<cuvk::ParityLine> lines = {
      line_of("read_x", "scalar", cuvk::Binding::bda),
      line_of("stride", "scalar", cuvk::Binding::descriptor),
      line_of("copy", "vec4", cuvk::Binding::bda),
      line_of("copy", "grid", cuvk::Binding::descriptor),
      line_of("read_offset", "scalar", cuvk::Binding::descriptor),
      line_of("some_pair", "", cuvk::Binding::descriptor),
  };
  for (const cuvk::ParityLine& line : lines) {
    const std::string what = line.point.test + " " + line.point.variant;
    expect_same_run(cuvk::judge_run(experiment_args_as_strings(given, 0.25, line, false)),
                    cuvk::experiment_run(e, line, false), what + " (experiments)");
    if (line.point.kernel.rfind("pair:", 0) == 0) continue;  // no trace or chain for a pair
    cuvk::RunArgs traced = experiment_args_as_strings(given, 0.25, line, true);
    traced.trace = true;
    expect_same_run(cuvk::judge_run(traced),
                    cuvk::experiment_run(e, line, true,
                                         [](cuvk::RunConfig& c) {
                                           c.trace = true;
                                           c.host_cost_samples = 0;
                                         }),
                    what + " (trace)");
    const cuvk::JudgedRun alone = cuvk::experiment_run(e, line, true);
    expect_same_run(cuvk::judge_run(experiment_args_as_strings(given, 0.25, line, true)), alone,
                    what + " (alone)");
  }
}
